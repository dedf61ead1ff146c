#pragma once

#include "log/json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace failoverbench {

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
    // A value that may be missing: null when it is.
    template<typename T>
    JsonWriter &value(const std::optional<T> &maybe)
    {
        return maybe ? value(*maybe) : null();
    }
    template<typename T>
    JsonWriter &field(const std::string &name, const T &fieldValue)
    {
        key(name);
        return value(fieldValue);
    }

private:
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

} // namespace failoverbench
