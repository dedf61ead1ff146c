#pragma once

#include "log/json.h"
#include "stats.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// Writes JSON with the commas in the right places; values are written as they come.
class JsonWriter final
{
public:
    explicit JsonWriter(std::ostream &out)
        : m_out(out)
    {}

    JsonWriter &beginObject() { return open('{'); }
    JsonWriter &endObject() { return close('}'); }
    JsonWriter &beginArray() { return open('['); }
    JsonWriter &endArray() { return close(']'); }
    JsonWriter &key(const std::string &name)
    {
        separate();
        m_out << quote(name) << ':';
        m_afterKey = true;
        return *this;
    }
    JsonWriter &value(const std::string &text) { return raw(quote(text)); }
    JsonWriter &value(const char *text) { return raw(quote(text)); }
    JsonWriter &value(bool flag) { return raw(flag ? "true" : "false"); }
    JsonWriter &value(std::int64_t number) { return raw(std::to_string(number)); }
    JsonWriter &value(int number) { return raw(std::to_string(number)); }
    JsonWriter &value(unsigned number) { return raw(std::to_string(number)); }
    JsonWriter &value(std::uint64_t number) { return raw(std::to_string(number)); }
    JsonWriter &value(double number)
    {
        if (!std::isfinite(number))
            return raw("null");
        char text[40];
        std::snprintf(text, sizeof text, "%.6f", number);
        return raw(text);
    }
    JsonWriter &null() { return raw("null"); }
    JsonWriter &value(const std::vector<std::string> &texts)
    {
        beginArray();
        for (const std::string &text : texts)
            value(text);
        return endArray();
    }
    // A value that may be missing: null when it is.
    template<typename T>
    JsonWriter &value(const std::optional<T> &maybe)
    {
        return maybe ? value(*maybe) : null();
    }
    // An object of the entries, in their order.
    template<typename T>
    JsonWriter &value(const std::map<std::string, T> &entries)
    {
        return object(entries);
    }
    template<typename T>
    JsonWriter &value(const std::vector<std::pair<std::string, T>> &entries)
    {
        return object(entries);
    }
    // name: an array of one object per item, its fields written by write(item).
    template<typename Items, typename Write>
    JsonWriter &objects(const std::string &name, const Items &items, Write write)
    {
        key(name).beginArray();
        for (const auto &item : items) {
            beginObject();
            write(item);
            endObject();
        }
        return endArray();
    }
    template<typename T>
    JsonWriter &field(const std::string &name, const T &fieldValue)
    {
        key(name);
        return value(fieldValue);
    }

private:
    template<typename Entries>
    JsonWriter &object(const Entries &entries)
    {
        beginObject();
        for (const auto &[name, entry] : entries)
            field(name, entry);
        return endObject();
    }
    static std::string quote(const std::string &text) { return leader::log::jsonQuoted(text); }
    void separate()
    {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (!m_first.empty()) {
            if (!m_first.back())
                m_out << ',';
            m_first.back() = false;
        }
    }
    JsonWriter &raw(const std::string &text)
    {
        separate();
        m_out << text;
        return *this;
    }
    JsonWriter &open(char bracket)
    {
        separate();
        m_out << bracket;
        m_first.push_back(true);
        return *this;
    }
    JsonWriter &close(char bracket)
    {
        m_first.pop_back();
        m_out << bracket;
        return *this;
    }

    std::ostream &m_out;
    std::vector<bool> m_first;
    bool m_afterKey = false;
};

// The fields of a set of samples in seconds, into the object open: the unit, their number, p50,
// p95 and max (when there are any) and the samples themselves.
inline void writeSamples(JsonWriter &json, const std::vector<double> &samples)
{
    json.field("unit", "s");
    json.field("n", static_cast<std::int64_t>(samples.size()));
    if (const std::optional<Summary> summary = summarize(samples)) {
        json.field("p50", summary->p50);
        json.field("p95", summary->p95);
        json.field("max", summary->max);
    }
    json.key("samples").beginArray();
    for (const double sample : samples)
        json.value(sample);
    json.endArray();
}

// The fields every audit invariant has (the engine's auditor's, or as leaderctl audit prints them),
// into the object open.
template<typename Invariant>
void writeInvariant(JsonWriter &json, const Invariant &invariant)
{
    json.field("role", invariant.role);
    json.field("name", invariant.name);
    json.field("holds", invariant.holds);
    json.field("offending", invariant.offending);
}

// The field "machine": the system, processors and server version of a run's results.
template<typename Results>
void writeMachine(JsonWriter &json, const Results &results)
{
    json.key("machine").beginObject();
    json.field("uname", results.system);
    json.field("nproc", results.processors);
    json.field("server_version", results.serverVersion);
    json.endObject();
}

// Writes file through write, then a newline. Throws std::runtime_error when it cannot be written.
inline void writeJsonFile(const std::filesystem::path &file,
                          const std::function<void(JsonWriter &)> &write)
{
    std::ofstream out(file, std::ios::trunc);
    if (!out)
        throw std::runtime_error("cannot write " + file.string());
    JsonWriter json(out);
    write(json);
    out << "\n";
    if (!out.flush())
        throw std::runtime_error("cannot write " + file.string());
}

} // namespace bench
