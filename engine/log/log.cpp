#include "log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
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
        const auto now = std::chrono::system_clock::now();
        const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
        const auto millis
                = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
                          .count()
                  % 1000;
        std::tm utc{};
        gmtime_r(&seconds, &utc);
        char stamp[32];
        std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
        std::fprintf(stderr, "%s.%03lldZ %s %s: %s%s%s\n", stamp, static_cast<long long>(millis),
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
