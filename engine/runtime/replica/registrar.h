#pragma once

#include "lease/replicaregistry.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace leader::lease {
class MarkerState;
}
namespace leader::pg {
class Connection;
class ConnectionPool;
} // namespace leader::pg

namespace leader::replica {

// Keeps a replica's row of leader_replicas fresh: one leader_replica_seen statement at start (and
// one more when beatNow is asked, once the marker is taken) and then every period, on a thread of
// its own with a connection borrowed from the replica's pool for the statement alone, so a slow or
// unreachable database delays no lease statement. A failed beat is logged when beats start failing
// and when they work again, not at every period, and the next period simply tries again.
//
// named: the database has migration 0182, so each beat also records the replica's name and the key
// its marker session holds at that moment (marker; none while its session is not connected and
// proven), and a row whose marker dies reads gone at once. Without it, the five arguments of 0178.
// The drain (migration 0183): what the replica reports at each beat, and how it learns whether
// its name is drained in the database.
struct DrainHooks
{
    struct Report
    {
        bool local = false; // draining on its own (SIGTERM)
        // While draining: the roles it still runs; nullopt while it does not drain.
        std::optional<std::vector<std::string>> running;
    };
    std::function<Report()> report;
    std::function<void(bool flagged)> flagged; // on the registrar's thread
};

class Registrar final
{
public:
    Registrar(pg::ConnectionPool &pool, lease::ReplicaInfo replica, std::chrono::milliseconds every,
              bool named = false, const lease::MarkerState *marker = nullptr);
    ~Registrar();
    Registrar(const Registrar &) = delete;
    Registrar &operator=(const Registrar &) = delete;

    // With migration 0183: each beat also reads the drain flag and reports the drain, and start()
    // runs the first beat on the caller's thread. Before start.
    void setDrain(DrainHooks hooks) { m_drain = std::move(hooks); }
    // With migration 0189: a beat that finds the marker's suspension changed reports it
    // (leader_replica_early_take_off), so leaderctl status and the console can say it. Before
    // start.
    void reportEarlyTake(bool on) { m_reportEarlyTake = on; }
    void start();
    // The next beat now, not at the end of the period: the marker has just been taken.
    void beatNow();
    // Ends the beats without waiting. With deregister (a clean stop) the thread then deletes the
    // row, if that statement can start within GoneStartWithin of this call: after a beat still in
    // flight at the stop, it cannot, and the row ages to "gone" instead. A kill passes false:
    // nothing more reaches the database.
    void requestStop(bool deregister);
    // requestStop(false) unless requested already, then waits for the thread: at most the beat in
    // flight plus the bounded delete.
    void join();

    static constexpr std::chrono::milliseconds GoneStartWithin{1000};
    static constexpr std::chrono::milliseconds GoneTimeout{1000};

private:
    void loop();
    void beat();
    void reportSuspension(pg::Connection &connection);
    void deregister(std::chrono::steady_clock::time_point startBy);

    pg::ConnectionPool &m_pool;
    const lease::ReplicaInfo m_replica;
    const std::chrono::milliseconds m_every;
    const lease::MarkerState *const m_marker;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;    // with m_mutex
    bool m_beatNow = false; // with m_mutex
    // Set with m_stop on a clean stop: when the delete must start by.
    std::optional<std::chrono::steady_clock::time_point> m_goneBy;
    bool m_failing = false;         // the thread's alone
    bool m_named;                   // the thread's alone once started
    DrainHooks m_drain;             // the thread's alone once started; no report: no drain beat
    bool m_reportEarlyTake = false; // the thread's alone once started
    // The suspension's end as last reported; the thread's alone.
    std::optional<std::chrono::steady_clock::time_point> m_reportedOff;
    std::thread m_thread;
};

} // namespace leader::replica
