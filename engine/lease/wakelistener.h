#pragma once

#include "pg/conninfo.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
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
class WakeListener final
{
public:
    using Callback = std::function<void(const std::string &role)>;

    WakeListener(pg::ConnectOptions session, Callback callback);
    ~WakeListener();
    WakeListener(const WakeListener &) = delete;
    WakeListener &operator=(const WakeListener &) = delete;

    // Returns whether notifications arrive; never throws for an unreachable or pooled database.
    bool start(std::chrono::milliseconds probeTimeout = std::chrono::seconds(1));
    void stop();
    bool isListening() const { return m_listening.load(); }

private:
    void loop();

    pg::ConnectOptions m_session;
    Callback m_callback;
    std::string m_probe;
    std::unique_ptr<pg::Connection> m_connection; // the LISTEN session, used by the thread only
    std::atomic<bool> m_listening = false;
    std::atomic<bool> m_stopping = false;
    std::thread m_thread;
};

} // namespace leader::lease
