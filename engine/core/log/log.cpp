#include "log.h"

#include <chrono>
#include <cstdio>
#include <mutex>

namespace leader::log {

namespace {

std::mutex &sinkMutex()
{
    static std::mutex mutex;
    return mutex;
}

Sink &currentSink()
{
    static Sink sink = [](const Record &record) {
        std::fprintf(stderr, "%s %s %s: %s%s%s\n",
                     utcTimestamp(std::chrono::system_clock::now()).c_str(),
                     std::string(levelName(record.level)).c_str(), record.component.c_str(),
                     record.message.c_str(), record.context.empty() ? "" : " ",
                     record.context.c_str());
    };
    return sink;
}

} // namespace

std::string_view levelName(Level level)
{
    switch (level) {
    case Level::Debug:
        return "DEBUG";
    case Level::Info:
        return "INFO";
    case Level::Warning:
        return "WARN";
    case Level::Error:
        return "ERROR";
    }
    return "?";
}

std::string utcTimestamp(std::chrono::system_clock::time_point when)
{
    // The calendar arithmetic of <chrono>: thread-safe everywhere, where gmtime is not and
    // gmtime_r is POSIX's alone.
    using namespace std::chrono;
    const auto stamp = floor<milliseconds>(when);
    const auto day = floor<days>(stamp);
    const year_month_day date{day};
    const hh_mm_ss time{stamp - day};
    char text[64];
    std::snprintf(
            text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
            static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
            static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
            static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count()));
    return text;
}

void setSink(Sink sink)
{
    const std::lock_guard lock(sinkMutex());
    currentSink() = std::move(sink);
}

void write(Level level, std::string_view component, std::string_view message,
           std::string_view context)
{
    const Record record{level, std::string(component), std::string(message), std::string(context)};
    const std::lock_guard lock(sinkMutex());
    if (currentSink())
        currentSink()(record);
}

} // namespace leader::log
