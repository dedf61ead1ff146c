#pragma once

#include <chrono>
#include <mutex>
#include <string_view>

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
// Thread-safe: the runners report from their own threads.
class LeaseMetrics final
{
public:
    explicit LeaseMetrics(Registry &registry);

    void leaseLost(std::string_view role, std::string_view reason);
    void tickFinished(std::string_view role, std::chrono::duration<double> duration);
    void acquireRoundTrip(std::string_view role, std::chrono::duration<double> duration);
    void renewRoundTrip(std::string_view role, std::chrono::duration<double> duration);

    // Reads leader_status (any replica can: it is a cluster fact) and updates the table-derived
    // series. A failed read marks every role's state "error" and drops the age series.
    void scrapeStatus(pg::Connection &connection);

private:
    Registry &m_registry;
    // Applies one scrape's readings whole, so two concurrent scrapes never mix their states.
    std::mutex m_scrapeMutex;
    // Logs the read failing and recovering once each, not at every scrape.
    bool m_statusReadable = true;
};

} // namespace leader::metrics
