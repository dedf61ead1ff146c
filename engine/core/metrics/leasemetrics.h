#pragma once

#include "lease/instruments.h"
#include "pg/conninfo.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace leader::pg {
class Connection;
}

namespace leader::metrics {

class Registry;

// The lease runtime's Prometheus series (ADR-114 Observability, amendment 2026-10-19 item 6):
//   hardcount_leader_lease_lost_total{role,reason}   counter; reason="panicked" exists at 0 from
//                                                    construction for every role
//   hardcount_leader_tick_duration_seconds{role}     histogram
//   hardcount_leader_acquire_seconds{role}           histogram (ACQUIRE round trip)
//   hardcount_leader_renew_seconds{role}             histogram (RENEW round trip)
//   hardcount_leader_last_tick_age_seconds{role}     gauge, from leader_status; absent (never a
//                                                    negative value) while never ran or unreadable
//   hardcount_leader_last_tick_state{role,state}     gauge 1 for the current one of "ok",
//                                                    "never_ran", "error" — the separate series
//   hardcount_leader_paused{role}                    gauge 0/1, from leader_status
//   hardcount_leader_status_up                       gauge 0/1: StatusSnapshot's last read of
//                                                    leader_status succeeded
//   hardcount_leader_status_staleness_seconds        gauge: since the readings served were taken
//                                                    (StatusSnapshot); absent before the first
// and, where the database has extension 0186 (leader_ext.leader_backlog()), one set per role with
// a registered backlog source, read with leader_status:
//   hardcount_leader_backlog_pending{role,what}      gauge: the work the role has waiting
//   hardcount_leader_backlog_oldest_age_seconds{role} gauge: the oldest waiting item's age, 0 when
//                                                    nothing waits
//   hardcount_leader_backlog_source_up{role}         gauge 0/1: the role's source answered; at 0
//                                                    the role's other two series are absent
// Thread-safe: the runners report from their own threads.
class LeaseMetrics final : public lease::Instruments
{
public:
    explicit LeaseMetrics(Registry &registry);

    void leaseLost(std::string_view role, lease::LossReason reason) override;
    void tickFinished(std::string_view role, std::chrono::duration<double> duration) override;
    void acquireRoundTrip(std::string_view role, std::chrono::duration<double> duration) override;
    void renewRoundTrip(std::string_view role, std::chrono::duration<double> duration) override;

    // Reads leader_status (any replica can: it is a cluster fact) and updates the table-derived
    // series; returns whether it could. A failed read marks every role's state "error" and drops
    // the age series. With serverTimeout the read is a transaction of its own under SET LOCAL
    // statement_timeout, so the server gives up on it too (a session SET would outlive it on a
    // transaction pooler's shared server connection); a connection it fails on is closed.
    // The extensions are probed first, on a new session and every ProbeEvery: with 0189 the
    // status is read from leader_ext.leader_status. Where the database has 0186, the
    // backlog is read next, in the same transaction. Its failure fails nothing else: it drops the
    // pending and age series and sets source_up to 0 for the roles it had, and the status
    // readings stand; the return value is leader_status's alone.
    bool scrapeStatus(pg::Connection &connection,
                      std::optional<std::chrono::milliseconds> serverTimeout = std::nullopt);

    static constexpr std::chrono::seconds ProbeEvery{15};

private:
    struct BacklogReading;
    // The extension version, probed on a new session and every ProbeEvery.
    int probedExtension(pg::Connection &connection, bool newSession);
    BacklogReading readBacklog(pg::Connection &connection, bool available,
                               std::chrono::milliseconds timeout);
    void applyBacklog(const BacklogReading &reading);
    void dropBacklog(std::string_view role, bool keepUp);

    Registry &m_registry;
    // Applies one scrape's readings whole, so two concurrent scrapes never mix their states.
    std::mutex m_scrapeMutex;
    // Logs the read failing and recovering once each, not at every scrape.
    bool m_statusReadable = true;
    bool m_backlogReadable = true;
    // Under m_scrapeMutex: the database's extension version, as last probed, and when.
    int m_extension = 0;
    std::optional<std::chrono::steady_clock::time_point> m_probedAt;
    // Under m_scrapeMutex: the roles with backlog series, with the `what` label of their pending
    // series and whether their source answered last time (logged on a change only).
    struct BacklogSeries
    {
        std::string what;
        bool up = true;
    };
    std::map<std::string, BacklogSeries, std::less<>> m_backlogSeries;
};

// The table-derived series for /metrics, read on a connection and a thread of their own, at most
// once per refreshEvery however many scrapes come: scrapes never borrow the lease pool, and a
// flood of them costs the database one session and one reading a second (leader_status, and
// leader_ext.leader_backlog() where the database has 0186). A scrape waits for the reading it
// asked for at most waitFor; while the database is slow or down it gets the readings there are,
// with hardcount_leader_status_up 0 (or the reading still in flight) and
// hardcount_leader_status_staleness_seconds growing. The thread and its session start with the
// first scrape. Thread-safe.
class StatusSnapshot final
{
public:
    struct Options
    {
        // Its application_name names the session (the replica's, plus " metrics").
        pg::ConnectOptions database;
        std::chrono::milliseconds refreshEvery{1000};
        std::chrono::milliseconds waitFor{500};
        std::chrono::milliseconds statementTimeout{1000};
    };

    StatusSnapshot(LeaseMetrics &metrics, Registry &registry, Options options);
    ~StatusSnapshot();
    StatusSnapshot(const StatusSnapshot &) = delete;
    StatusSnapshot &operator=(const StatusSnapshot &) = delete;

    // Asks for a reading unless one started within refreshEvery, then waits for the reading in
    // flight up to waitFor, and sets the staleness gauge. Does nothing once stopped.
    void refresh();
    // Ends a connect or a statement in flight within pg::StopCheckEvery and joins the thread.
    void stop();

private:
    using Clock = std::chrono::steady_clock;
    void run(std::stop_token stop);

    LeaseMetrics &m_metrics;
    Registry &m_registry;
    const Options m_options;
    std::mutex m_mutex;
    std::condition_variable_any m_changed;
    std::uint64_t m_requested = 0; // readings asked for
    std::uint64_t m_done = 0;      // of those, the ones finished (or given up)
    std::optional<Clock::time_point> m_lastStarted;
    std::optional<Clock::time_point> m_lastRead; // the last successful one
    bool m_stopped = false;
    std::jthread m_thread;
};

} // namespace leader::metrics
