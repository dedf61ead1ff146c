#pragma once

#include "faults/switchboard.h"
#include "lease/events.h"
#include "pg/connection.h"
#include "replica/profile.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace leader::baseline {

struct AdvisoryReplicaOptions
{
    std::string id; // the replica's name in logs ("r1")
    pg::ConnectOptions database;
    // interval is both the pause after each attempt and so a contender's try-lock cadence, as
    // the old scheduler tried the lock once per tick of its interval; min_tick and item_latency
    // shape the tick as the lease replica's (replica::Replica) do.
    std::vector<replica::RoleProfile> roles;
    // Route both connections of each role through the fault switchboard.
    bool faults = false;
};

// The benchmark's baseline replica: each role gated by AdvisoryGate instead of a lease. A tick
// holds the lock on its pinned connection and, on a second connection (the old scheduler's pool),
// logs one unfenced claim in claim_log about every item_latency + 500 ms for min_tick, under the
// tick's number (LockAttempt::atMillis) in place of a token and "advisory HOLDER" as the item,
// then unlocks. The claim writes no domain row: nothing fences it, so a claim made while another
// replica also leads is simply accepted, and claim_log is how the benchmark sees both. Events use
// the lease's kinds: acquired (token = the tick's number), released (completed or interrupted,
// db_time the unlock's now()), release_failed (the unlock failed or found no lock to give back).
class AdvisoryReplica final
{
public:
    using Subscriber = std::function<void(const lease::TransitionEvent &)>;

    // onEvent is called on the role's thread.
    AdvisoryReplica(AdvisoryReplicaOptions options, Subscriber onEvent);
    ~AdvisoryReplica();
    AdvisoryReplica(const AdvisoryReplica &) = delete;
    AdvisoryReplica &operator=(const AdvisoryReplica &) = delete;

    // Checks the demo schema (claim_log; schema::SchemaError), then starts a thread per role.
    void start();
    // Cancels the running ticks, which unlock as interrupted, and joins the threads.
    void stop();

    const std::string &holderId() const { return m_holderId; }
    const std::vector<replica::RoleProfile> &roles() const { return m_options.roles; }
    // Only with AdvisoryReplicaOptions::faults; nullptr otherwise.
    faults::Switchboard *faults() { return m_switchboard.get(); }

private:
    void run(const replica::RoleProfile &profile, std::stop_token stop);
    void tick(const replica::RoleProfile &profile, std::int64_t number, pg::Connection &work,
              std::stop_token stop);
    void publish(lease::TransitionEvent event) const;
    pg::ConnectOptions connectOptions(const std::string &purpose) const;

    const AdvisoryReplicaOptions m_options;
    const Subscriber m_onEvent;
    const std::string m_holderId;
    std::unique_ptr<faults::Switchboard> m_switchboard;
    std::vector<std::jthread> m_threads;
};

} // namespace leader::baseline
