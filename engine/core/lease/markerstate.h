#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace leader::lease {

// What a replica knows of its marker session (migrations 0179 and 0180, amendments 2026-12-04 and
// 2026-12-05): the listener reports the session's life here, and the lease runtime reads from it
// which key to record on the rows it holds, whether a tick whose row names a key may start a
// statement, and by when a row naming a key that ended must have been repaired. A marker is a
// session advisory lock: it ends with its session, and its session can end while the process lives
// (idle_session_timeout, a reaper's pg_terminate_backend, a proxy's idle cut, a server restart). A
// contender may take a row naming an ended key EarlyTakeGrace after it saw the key's lock free; so
// the holder repairs the row (a RENEW naming its new key, or none) within MarkerRepairWithin of
// seeing the end, or stops its tick. Thread-safe.
class MarkerState final
{
public:
    using Clock = std::chrono::steady_clock;

    // The listener's reports, on its thread.
    //
    // A new session holds key's lock; proven until a ping goes unanswered.
    void connected(std::int64_t key);
    // The session's last ping was answered (true), or has gone unanswered for MarkerUnprovenAfter
    // (false): an unproven key is recorded on no row, but nothing has ended.
    void proven(bool answered);
    // No end of the session had arrived by noEndBy: the instant before a wait on its socket that
    // then found none. A process stopped between the two (SIGSTOP) reports a stale instant.
    void alive(Clock::time_point noEndBy);
    // The session ended (end of file, an error), seen at seenAt. announced: the server said why,
    // and the reason may be its own end (57P01 a shutdown, or pg_terminate_backend; 57P02 a crash
    // restart; 57P03): whether it is comes from the next session (serverEnding or serverUp); until
    // then a row naming the key is not cancelled for it, but starts no statement.
    void ended(std::int64_t key, Clock::time_point seenAt, bool announced = false);
    // The server ended key's session because its own life is ending (a shutdown, a crash restart,
    // a failover: it said so and refused a new session for that reason, or a new session found
    // another server incarnation). No ACQUIRE can take a row early on a key of an incarnation that
    // is over, so a row naming it needs no repair: the tick keeps the TTL rules, as across any
    // restart.
    void serverEnding(std::int64_t key);
    // The server that ended key's session lives on (a new session reached the same incarnation, or
    // none could be had for another reason): a row naming the key must be repaired in time.
    void serverUp(std::int64_t key);

    // Called after every report but alive(), outside the lock, on the reporting thread.
    void onChange(std::function<void()> callback);

    // The key to record on a row now: none while no session is connected and proven, and none
    // while the marker is suspended.
    std::optional<std::int64_t> key() const;
    // Until when no marker is named because its session kept being ended while the server lived
    // on (MarkerEndsToSuspend within MarkerEndsWindow), and why; nullopt when it is named. The
    // suspension is logged once, as it starts.
    struct Suspension
    {
        Clock::time_point until;
        std::chrono::system_clock::time_point untilWall;
        std::string reason;
    };
    std::optional<Suspension> suspension() const;
    // Whether a tick whose row names this key (0: none) may start a statement at now: the key is
    // the connected session's and its listener saw it alive within MarkerFreshFor, or the key's
    // server incarnation is over.
    bool mayStart(std::int64_t named, Clock::time_point now) const;
    // By when a row naming this key must no longer name it, or its tick stop; nullopt when it
    // need not: none, the live key, a key of an incarnation that is over, or one whose end the
    // server announced while the next session has not yet told whether the server lives on.
    std::optional<Clock::time_point> repairBy(std::int64_t named) const;

private:
    // What the next session told of the server that ended a key's session.
    enum class Server { Unknown, Ending, Up };
    struct Ended
    {
        Clock::time_point seenAt;
        bool announced = false;
        Server server = Server::Unknown;
    };
    void classify(std::int64_t key, Server server);
    // A marker session ended while its server lived on; with m_mutex held.
    void countEnd(Clock::time_point at);
    void changed();
    // The key's entry among the ended ones, made with seenAt if new; with m_mutex held.
    Ended &remember(std::int64_t key, Clock::time_point seenAt) const;

    mutable std::mutex m_mutex;
    std::int64_t m_key = 0; // the connected session's; 0: none
    bool m_proven = false;
    std::atomic<Clock::rep> m_aliveAt{0};
    // Keys that ended, the latest few: a row names an ended key only until its next RENEW.
    mutable std::map<std::int64_t, Ended> m_ended;
    std::vector<Clock::time_point> m_endsWhileUp; // within MarkerEndsWindow
    std::optional<Suspension> m_suspension;
    std::function<void()> m_onChange;
};

} // namespace leader::lease
