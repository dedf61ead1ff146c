#pragma once

#include "pg/conninfo.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace leader::pg {
class Connection;
}

namespace leader::lease {

// The optional fast wake, beyond ADR-114: the engine's RELEASE, and leader_pause and
// leader_unpause themselves (migration 0176), send NOTIFY leader_leases with the role, and a
// replica's listener wakes its idle runner (released, unpaused) or its holder's heartbeat (paused)
// at once instead of at the next poll or beat. LISTEN needs a session of its own, which a
// transaction pooler does not give: start() proves delivery with a probe from a second connection
// and, when none arrives, says so once and leaves the runtime polling. Correctness never depends
// on a notification.
//
// The same session is the process's marker (migration 0179, amendment 2026-12-04): once delivery
// is proved, so that the session is known to be a real one and not a pooler's, it takes a session
// advisory lock on a key of its own (the holder id's hash and its backend pid) and keeps it for as
// long as it lives. The lease rows this process holds name that key; when the process dies, the
// kernel closes the socket, Postgres ends the backend and the lock goes with it. A session lost
// while the process lives is noticed at once: the key is reported gone, then the new one.
class WakeListener final
{
public:
    using Callback = std::function<void(const std::string &role)>;
    // The marker key, or none while the session is down; called on the listener's thread.
    using SessionCallback = std::function<void(std::optional<std::int64_t> key)>;

    // An empty holderId: no marker.
    WakeListener(pg::ConnectOptions session, Callback callback, std::string holderId = {},
                 SessionCallback onSession = {});
    ~WakeListener();
    WakeListener(const WakeListener &) = delete;
    WakeListener &operator=(const WakeListener &) = delete;

    // Returns whether notifications arrive; never throws for an unreachable or pooled database.
    bool start(std::chrono::milliseconds probeTimeout = std::chrono::seconds(1));
    void stop();
    bool isListening() const { return m_listening.load(); }

    // The high half of this holder's marker keys: a 31-bit hash of its id, never 0.
    static std::int64_t sessionKeyPrefix(std::string_view holderId);

private:
    void loop();
    // Takes the marker lock on the session and reports its key; a failure only leaves no marker.
    void takeMarker(pg::Connection &connection);
    void reportSession(std::optional<std::int64_t> key);

    pg::ConnectOptions m_session;
    Callback m_callback;
    std::string m_holderId;
    SessionCallback m_onSession;
    std::string m_probe;
    std::unique_ptr<pg::Connection> m_connection; // the LISTEN session, used by the thread only
    std::atomic<bool> m_listening = false;
    std::atomic<bool> m_stopping = false;
    std::thread m_thread;
};

} // namespace leader::lease
