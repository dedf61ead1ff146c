#pragma once

#include "faulthooks.h"
#include "lease/constants.h"
#include "lease/events.h"
#include "lease/manager.h"
#include "metrics/leasemetrics.h"
#include "metrics/registry.h"
#include "pg/conninfo.h"
#include "profile.h"
#include "scheduler/rolerunner.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace leader::lease {
class DeathWatch;
class WakeListener;
} // namespace leader::lease

namespace leader::replica {

class Registrar;

struct ReplicaOptions
{
    std::string id; // the replica's name in events and logs ("r1"); the holder id is separate
    pg::ConnectOptions database;
    // The LISTEN session of the fast wake: a direct connection when database is a transaction
    // pooler. Empty url: database itself (the listener proves delivery, else the runtime polls).
    pg::ConnectOptions listen;
    std::vector<RoleProfile> roles = demoProfile();
    bool fastWake = true;
    // The takeover at process death (amendments 2026-12-04 and 2026-12-05): this replica's rows
    // name its marker session, so that a contender takes them at its death, and it waits for the
    // death of the holders it sees. false: neither, so its roles follow the TTL path exactly, as
    // with a role's early_take off in the database (migration 0180).
    bool earlyTake = true;
    // How idle runners poll (docs/benchmarks/scale.md measures both).
    scheduler::PollMode poll = scheduler::PollMode::ReadFirst;
    // Route every connection through a fault injector (the demo's switchboard); none in
    // production. Shared: the injector's owner keeps acting on it.
    std::shared_ptr<FaultHooks> faults;
    // How often the replica refreshes its row of leader_replicas; shorter only in tests.
    std::chrono::milliseconds registryEvery = lease::ReplicaSeenEvery;
};

// Where the replica's drain stands (issue 36): drained in the database by name (leaderctl drain,
// migration 0183), or on its own at a SIGTERM (drainFor).
struct DrainStatus
{
    bool draining = false;            // starts no new tick
    bool drained = false;             // draining, and no tick runs
    std::vector<std::string> running; // while draining: the roles whose tick still runs
    bool local = false;               // draining on its own (drainFor), not by the database's flag

    bool operator==(const DrainStatus &) const = default;
};

// A transition of one of this replica's roles, tagged with the replica.
struct ReplicaEvent
{
    std::string replica;
    lease::TransitionEvent transition;
};

// One replica: a lease manager and its small pool of autocommit connections, a runner per role
// running the real role, the fast-wake listener, the fault hooks if any, the metrics and its row of
// the replica registry (leader_replicas), deleted on a clean stop and left to age on a kill. Hosted
// by leader-replica (one per process) or by the console (several in worker threads).
class Replica final
{
public:
    explicit Replica(ReplicaOptions options);
    ~Replica();
    Replica(const Replica &) = delete;
    Replica &operator=(const Replica &) = delete;

    // Checks the schema: the ADR's and every extension (schema::SchemaError naming the first one
    // missing and leaderctl migrate; pg::Error for an unreachable or refusing database), then
    // starts the registry beat, the listener and the runners. Once only.
    void start();
    // A clean stop: running ticks are cancelled and released as interrupted, runners joined, the
    // registry row deleted (bounded: see Registrar::requestStop).
    void stop();
    // A process death: nothing more reaches the database, no RELEASE, no further event; the
    // replica is then stopped and cannot start again.
    void kill();
    bool isRunning() const { return m_running.load(); }
    bool isKilled() const { return m_killed.load(); }

    const std::string &id() const { return m_options.id; }
    const std::string &holderId() const;
    const std::vector<RoleProfile> &roles() const { return m_options.roles; }
    bool fastWake() const; // notifications proved to arrive
    bool earlyTake() const { return m_options.earlyTake; }
    // The injector ReplicaOptions::faults named; nullptr in production.
    FaultHooks *faults() const { return m_options.faults.get(); }

    // Drains on its own: starts no new tick and waits up to bound for the running ones to end
    // as they would (completed, released). True when none runs any more. A stop() that follows
    // interrupts whatever still runs, as always.
    bool drainFor(std::chrono::milliseconds bound);
    // Ends a drainFor wait now (a second SIGTERM), as if its bound had been reached.
    void cutDrainShort();
    DrainStatus drainStatus() const;
    // Called on any thread when the drain status changes, quick. Set before start().
    void onDrainChanged(std::function<void(const DrainStatus &)> callback)
    {
        m_drainChanged = std::move(callback);
    }

    // Called on the publishing thread, quick, never from inside another subscriber.
    int subscribe(std::function<void(const ReplicaEvent &)> subscriber);
    void unsubscribe(int id);

    // Prometheus text: the runtime's series plus those read from leader_status, at most once a
    // second on the replica's metrics session (never the lease pool); waits for that reading
    // half a second at most (metrics::StatusSnapshot).
    std::string metricsText();
    // Ticks led and ACQUIREs tried, all roles together.
    std::uint64_t ticksLed() const;
    std::optional<std::chrono::milliseconds> clockDrift() const;

private:
    lease::Work workFor(const RoleProfile &profile);
    void wakeRunners(const std::set<std::string> &roles);
    // A notification on leader_leases, on the listener's thread.
    void notified(const std::string &payload);
    // Applies the drain flags to the manager and publishes a changed status.
    void updateDrain();
    DrainStatus currentDrain() const;

    ReplicaOptions m_options;
    lease::EventBus m_internal; // what the manager publishes; forwarded until a kill
    std::mutex m_subscribersMutex;
    std::vector<std::pair<int, std::function<void(const ReplicaEvent &)>>> m_subscribers;
    int m_nextSubscriber = 1;
    metrics::Registry m_registry;
    metrics::LeaseMetrics m_metrics;
    std::unique_ptr<metrics::StatusSnapshot> m_status;
    std::unique_ptr<lease::Manager> m_manager;
    std::unique_ptr<scheduler::LeaseBoard> m_board; // ReadFirst: the runners' shared reading
    std::vector<std::unique_ptr<scheduler::RoleRunner>> m_runners;
    std::unique_ptr<lease::WakeListener> m_listener;
    std::unique_ptr<lease::DeathWatch> m_deathWatch;
    std::unique_ptr<Registrar> m_registrar;
    std::atomic<bool> m_running = false;
    std::atomic<bool> m_started = false;
    std::atomic<bool> m_killed = false;
    std::atomic<bool> m_flagged = false; // drained in the database
    std::atomic<bool> m_localDrain = false;
    mutable std::mutex m_drainMutex;
    std::condition_variable m_drainWake; // with m_drainMutex
    DrainStatus m_drain;                 // with m_drainMutex: the last published
    bool m_drainCut = false;             // with m_drainMutex
    std::function<void(const DrainStatus &)> m_drainChanged;
};

} // namespace leader::replica
