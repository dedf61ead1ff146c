#pragma once

#include "lease/pausecontrol.h"
#include "monitor/statusreader.h"

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace leader::monitor {

// What the console's History view reads: the pause log (extension 0177), newest first.
struct PauseLog
{
    std::vector<lease::PauseLogEntry> entries;
    // Non-empty when the database has no pause log (the ADR's schema alone): one line saying which
    // extension it needs and how to add it (schema::extensionNeeded). Not a failure: the rest of
    // the console works.
    std::string unavailable;
    bool truncated = false; // the query's limit was reached: older entries exist
};

// The console's facade over lease::pauseHistory: its own short session, opened for a read and
// closed after it, so a History refresh never shares or disturbs the poller's session. Plain C++
// like StatusReader: every call returns its value or a Failure, and no engine exception escapes.
class PauseLogReader final
{
public:
    // timeout bounds the connect and each statement (client-side, cancelled at the deadline);
    // stop ends whichever is in flight from another thread within 50 ms.
    PauseLogReader(std::string conninfo, std::stop_token stop, std::chrono::milliseconds timeout);
    ~PauseLogReader();
    PauseLogReader(const PauseLogReader &) = delete;
    PauseLogReader &operator=(const PauseLogReader &) = delete;

    Outcome<PauseLog> read(const lease::PauseLogQuery &query);

private:
    std::string m_conninfo;
    std::chrono::milliseconds m_timeout;
    std::unique_ptr<pg::Connection> m_connection;
};

} // namespace leader::monitor
