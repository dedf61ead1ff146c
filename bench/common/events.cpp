#include "events.h"

#include "host.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace bench {

namespace {

using namespace std::chrono_literals;

void appendUtf8(std::string &out, unsigned codePoint)
{
    if (codePoint < 0x80) {
        out += static_cast<char>(codePoint);
    } else if (codePoint < 0x800) {
        out += static_cast<char>(0xC0 | (codePoint >> 6));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else if (codePoint < 0x10000) {
        out += static_cast<char>(0xE0 | (codePoint >> 12));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (codePoint >> 18));
        out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (codePoint & 0x3F));
    }
}

std::optional<unsigned> hex4(std::string_view text, std::size_t at)
{
    unsigned value = 0;
    if (at + 4 > text.size())
        return std::nullopt;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + 4, value, 16);
    if (error != std::errc() || end != text.data() + at + 4)
        return std::nullopt;
    return value;
}

// The string starting at the opening quote at text[at].
std::optional<std::string> readString(std::string_view text, std::size_t at)
{
    std::string out;
    for (std::size_t i = at + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"')
            return out;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= text.size())
            return std::nullopt;
        switch (text[i]) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u': {
            std::optional<unsigned> unit = hex4(text, i + 1);
            if (!unit)
                return std::nullopt;
            i += 4;
            unsigned codePoint = *unit;
            if (codePoint >= 0xD800 && codePoint < 0xDC00 && i + 2 < text.size()
                && text[i + 1] == '\\' && text[i + 2] == 'u') {
                if (std::optional<unsigned> low = hex4(text, i + 3);
                    low && *low >= 0xDC00 && *low < 0xE000) {
                    codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (*low - 0xDC00);
                    i += 6;
                }
            }
            appendUtf8(out, codePoint);
            break;
        }
        default: // \" \\ \/ and anything else: the character itself
            out += text[i];
        }
    }
    return std::nullopt;
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::optional<int> digits(std::string_view text, std::size_t &at, std::size_t count)
{
    int value = 0;
    if (at + count > text.size())
        return std::nullopt;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + count, value);
    if (error != std::errc() || end != text.data() + at + count)
        return std::nullopt;
    at += count;
    return value;
}

bool expect(std::string_view text, std::size_t &at, char c)
{
    if (at >= text.size() || text[at] != c)
        return false;
    ++at;
    return true;
}

} // namespace

std::optional<std::int64_t> integer(const std::optional<std::string> &text)
{
    if (!text)
        return std::nullopt;
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size())
        return std::nullopt;
    return value;
}

std::optional<std::string> jsonField(std::string_view line, std::string_view key)
{
    const std::string quoted = "\"" + std::string(key) + "\"";
    for (std::size_t at = line.find(quoted); at != std::string_view::npos;
         at = line.find(quoted, at + 1)) {
        std::size_t i = at + quoted.size();
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i >= line.size() || line[i] != ':')
            continue; // a string value that reads like the key
        ++i;
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i >= line.size())
            return std::nullopt;
        if (line[i] == '"')
            return readString(line, i);
        std::size_t end = i;
        while (end < line.size() && line[end] != ',' && line[end] != '}' && line[end] != ']'
               && !isSpace(line[end]))
            ++end;
        return std::string(line.substr(i, end - i));
    }
    return std::nullopt;
}

std::optional<double> parseTimestamp(std::string_view text)
{
    std::size_t at = 0;
    const std::optional<int> year = digits(text, at, 4);
    if (!year || !expect(text, at, '-'))
        return std::nullopt;
    const std::optional<int> month = digits(text, at, 2);
    if (!month || !expect(text, at, '-'))
        return std::nullopt;
    const std::optional<int> day = digits(text, at, 2);
    if (!day || !(expect(text, at, 'T') || expect(text, at, ' ')))
        return std::nullopt;
    const std::optional<int> hour = digits(text, at, 2);
    if (!hour || !expect(text, at, ':'))
        return std::nullopt;
    const std::optional<int> minute = digits(text, at, 2);
    if (!minute || !expect(text, at, ':'))
        return std::nullopt;
    const std::optional<int> second = digits(text, at, 2);
    if (!second)
        return std::nullopt;
    double fraction = 0;
    if (expect(text, at, '.')) {
        double scale = 0.1;
        const std::size_t start = at;
        for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
            fraction += (text[at] - '0') * scale;
        if (at == start)
            return std::nullopt;
    }
    int offsetSeconds = 0;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
        const int sign = text[at] == '-' ? -1 : 1;
        ++at;
        const std::optional<int> offsetHours = digits(text, at, 2);
        if (!offsetHours)
            return std::nullopt;
        int offsetMinutes = 0;
        if (at < text.size()) {
            expect(text, at, ':');
            const std::optional<int> minutes = digits(text, at, 2);
            if (!minutes)
                return std::nullopt;
            offsetMinutes = *minutes;
        }
        offsetSeconds = sign * (*offsetHours * 3600 + offsetMinutes * 60);
    } else {
        expect(text, at, 'Z');
    }
    if (at != text.size())
        return std::nullopt;
    const std::chrono::year_month_day date{std::chrono::year(*year),
                                           std::chrono::month(static_cast<unsigned>(*month)),
                                           std::chrono::day(static_cast<unsigned>(*day))};
    if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60)
        return std::nullopt;
    const auto days = std::chrono::sys_days(date).time_since_epoch().count();
    return static_cast<double>(days) * 86400.0 + *hour * 3600.0 + *minute * 60.0 + *second
           + fraction - offsetSeconds;
}

std::string formatTimestamp(double epochSeconds)
{
    const auto micros = static_cast<std::int64_t>(std::llround(epochSeconds * 1e6));
    const std::chrono::sys_time<std::chrono::microseconds> instant{
            std::chrono::microseconds(micros)};
    const auto day = std::chrono::floor<std::chrono::days>(instant);
    const std::chrono::year_month_day date{day};
    const std::chrono::hh_mm_ss time{instant - day};
    char text[40];
    std::snprintf(
            text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", static_cast<int>(date.year()),
            static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
            static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
            static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count()));
    return text;
}

std::optional<std::string> formatTimestamp(const std::optional<double> &epochSeconds)
{
    if (!epochSeconds)
        return std::nullopt;
    return formatTimestamp(*epochSeconds);
}

ReplicaEvent parseEvent(int pid, std::string_view line)
{
    ReplicaEvent event;
    event.pid = pid;
    event.line = std::string(line);
    event.replica = jsonField(line, "replica").value_or("");
    if (const std::optional<std::string> kind = jsonField(line, "event")) {
        event.transition = leader::lease::eventKindFromName(*kind);
        event.process = processEventFromName(*kind);
    }
    event.role = jsonField(line, "role").value_or("");
    event.token = integer(jsonField(line, "token"));
    if (const std::optional<std::string> outcome = jsonField(line, "outcome"))
        event.outcome = leader::lease::outcomeFromName(*outcome);
    if (const std::optional<std::string> reason = jsonField(line, "reason"))
        event.reason = leader::lease::lossReasonFromName(*reason);
    event.holder = jsonField(line, "holder").value_or("");
    if (const std::optional<std::string> fastWake = jsonField(line, "fast_wake"))
        event.fastWake = *fastWake == "true";
    event.ts = jsonField(line, "ts").value_or("");
    event.tsEpoch = parseTimestamp(event.ts);
    event.dbTime = jsonField(line, "db_time").value_or("");
    event.dbTimeEpoch = parseTimestamp(event.dbTime);
    return event;
}

void EventLog::add(ReplicaEvent event)
{
    {
        const std::lock_guard lock(m_mutex);
        m_events.push_back(std::move(event));
    }
    m_added.notify_all();
}

std::size_t EventLog::size() const
{
    const std::lock_guard lock(m_mutex);
    return m_events.size();
}

std::vector<ReplicaEvent> EventLog::since(std::size_t from) const
{
    const std::lock_guard lock(m_mutex);
    if (from >= m_events.size())
        return {};
    return {m_events.begin() + static_cast<std::ptrdiff_t>(from), m_events.end()};
}

std::optional<ReplicaEvent> EventLog::waitFor(const Predicate &matches,
                                              std::chrono::steady_clock::time_point deadline,
                                              std::size_t from) const
{
    std::unique_lock lock(m_mutex);
    for (std::size_t next = from;;) {
        for (; next < m_events.size(); ++next) {
            if (matches(m_events[next]))
                return m_events[next];
        }
        if (interruptRequested())
            throw Interrupted();
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline)
            return std::nullopt;
        // Short waits, so an interrupt is seen even when no replica prints anything.
        m_added.wait_until(lock, std::min(deadline, now + 50ms));
    }
}

} // namespace bench
