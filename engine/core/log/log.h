#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace leader::log {

enum class Level { Debug, Info, Warning, Error };

std::string_view levelName(Level level);
// ISO 8601 in UTC with milliseconds: 2026-12-02T16:40:01.123Z.
std::string utcTimestamp(std::chrono::system_clock::time_point when);

// One log line: a component ("lease", "scheduler"), a message, and key=value context.
struct Record
{
    Level level;
    std::string component;
    std::string message;
    std::string context;
};

using Sink = std::function<void(const Record &)>;

// Replaces where log records go (the default writes one line each to stderr); thread-safe. The
// console installs a sink that forwards records to its event log.
void setSink(Sink sink);
void write(Level level, std::string_view component, std::string_view message,
           std::string_view context = {});

} // namespace leader::log
