#pragma once

#include "markerstate.h"
#include "pg/conninfo.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
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
// The same session is the process's marker (migration 0179, amendments 2026-12-04 and 2026-12-05):
// once delivery is proved, so that the session is known to be a real one and not a pooler's, it
// takes a session advisory lock on a key of its own (the holder id's hash and its backend pid) and
// keeps it for as long as it lives, and reports its life to the MarkerState. It protects itself
// from what ends idle sessions: it turns off the server's idle timeouts for itself, asks for TCP
// keepalives that outlast a holder that cannot renew (MarkerSilenceEnds), names itself
// "leader marker HOLDER" in application_name (for a DBA's reaper to leave alone), and sends an
// empty query every MarkerPingEvery, so that a proxy cutting idle connections never sees it idle.
// A ping unanswered for MarkerUnprovenAfter makes the marker unproven (the session is kept); an
// end of the session (end of file, a FATAL error) is reported at once, and a new session with a
// new key follows at once. Whether the server's own life ended with it (it said it was shutting
// down and refused the new session, or the new session found another incarnation) is reported
// too: a row naming such a key needs no repair.
class WakeListener final
{
public:
    using Callback = std::function<void(const std::string &payload)>;

    // An empty holderId or no marker: no marker, only the fast wake.
    WakeListener(pg::ConnectOptions session, Callback callback, std::string holderId = {},
                 MarkerState *marker = nullptr);
    ~WakeListener();
    WakeListener(const WakeListener &) = delete;
    WakeListener &operator=(const WakeListener &) = delete;

    // Returns whether notifications arrive; never throws for an unreachable or pooled database.
    // A probe whose session failed (ended by a reaper or a restart at that instant, refused) is
    // tried again, ProbeAttempts in all, a second apart: only a live session that hears nothing
    // proves a pooler, and the answer holds for the process's life.
    bool start(std::chrono::milliseconds probeTimeout = std::chrono::seconds(1));
    void stop();
    bool isListening() const { return m_listening.load(); }

    // The high half of this holder's marker keys: a 31-bit hash of its id, never 0.
    static std::int64_t sessionKeyPrefix(std::string_view holderId);

private:
    enum class Probe { Delivered, Silent, Failed };

    // LISTEN on session and the probe from a second connection; why it failed, if it did.
    Probe probe(pg::Connection &session, std::chrono::milliseconds timeout, std::string &failure);
    void loop();
    // LISTEN and the marker on a new session; why not, when the server could not be reached.
    std::optional<std::string> connect();
    // Takes the marker lock on the session and reports its key; a failure only leaves no marker.
    void takeMarker(pg::Connection &connection);
    // The session ended: reports it, reconnects at once and says whether the server's life ended.
    void sessionEnded(const std::string &sqlstate);

    pg::ConnectOptions m_session;
    Callback m_callback;
    std::string m_holderId;
    MarkerState *m_marker;
    std::string m_probe;
    std::unique_ptr<pg::Connection> m_connection; // the LISTEN session, used by the thread only
    std::int64_t m_key = 0;                       // the marker the session holds; 0: none
    std::int64_t m_incarnation = 0;               // the server's, when the marker was taken
    // The loop's last look that found the session open: the instant before its wait.
    std::chrono::steady_clock::time_point m_lookedAt = std::chrono::steady_clock::now();
    std::stop_source m_stopSource;
    std::atomic<bool> m_listening = false;
    std::atomic<bool> m_stopping = false;
    std::thread m_thread;
};

} // namespace leader::lease
