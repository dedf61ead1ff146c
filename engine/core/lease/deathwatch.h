#pragma once

#include "pg/conninfo.h"
#include "statements.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace leader::lease {

// A contender's side of the takeover at process death (migration 0179, amendment 2026-12-04).
// For each live holder that kept one of this replica's roles, one direct session waits for a
// shared lock on the holder's marker key; the server grants it the moment the holder's marker
// session ends, and the watch then waits EarlyTakeGrace (a live holder repairs its row within it)
// and wakes the roles it was seen holding, whose ACQUIRE takes them before their expiry if the
// marker the row names then is free. Nothing polls: a waiting session costs the server one idle
// backend. A watch on another server incarnation than the marker's ends at once (its lock would be
// granted for nothing); one whose session fails ends too, and the next ACQUIRE that finds the
// holder alive starts it again. At most maxWatches at once: the one whose holder was seen least
// recently makes room.
class DeathWatch final
{
public:
    // The roles the dead holder was seen holding; called on a watch's thread.
    using Callback = std::function<void(const std::set<std::string> &roles)>;

    DeathWatch(pg::ConnectOptions session, Callback onDeath, std::size_t maxWatches = 8);
    ~DeathWatch();
    DeathWatch(const DeathWatch &) = delete;
    DeathWatch &operator=(const DeathWatch &) = delete;

    // Thread-safe; quick: a new watch starts on a thread of its own.
    void watch(const HolderSession &holder, const std::string &role);
    // Ends every watch; each waiting session is closed (its backend goes within a second:
    // client_connection_check_interval) and its thread joined.
    void stop();
    std::size_t watching() const;

private:
    struct Watch
    {
        HolderSession holder;
        std::set<std::string> roles;
        std::chrono::steady_clock::time_point seen;
        bool done = false;
        std::jthread thread;
    };
    void run(Watch &watch, std::stop_token stop);
    // Joins the watches that ended; with m_mutex held.
    void reapFinished(std::unique_lock<std::mutex> &lock);

    const pg::ConnectOptions m_session;
    const Callback m_onDeath;
    const std::size_t m_maxWatches;
    mutable std::mutex m_mutex;
    bool m_stopped = false;
    std::map<std::int64_t, std::unique_ptr<Watch>> m_watches; // by marker key
};

} // namespace leader::lease
