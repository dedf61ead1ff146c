#pragma once

#include "events.h"
#include "options.h"
#include "pg/connection.h"
#include "replicaset.h"
#include "results.h"
#include "secrets.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace bench::failover {

// The billing row as the benchmark polls it; times are database-clock seconds since the epoch.
struct LeaseRow
{
    std::int64_t token = 0;
    std::optional<std::string> holder;
    std::optional<double> acquiredAt;
    std::optional<double> expiresAt;
    std::optional<double> pausedAt;
    // How its ACQUIRE found the row: nullopt free (a hand-over at the tick's cadence), else
    // "expired" or "session_ended" (a takeover).
    std::optional<std::string> tookOver;
    double now = 0;

    bool held() const { return holder && expiresAt && *expiresAt > now && !pausedAt; }
    // The pid in a holder id hostname:pid:8hex.
    std::optional<int> holderPid() const;
};

// The advisory design's latest claim: the tick it belongs to (its number, the lock's epoch
// milliseconds on the database clock) and who made it; times are database-clock seconds.
struct AdvisoryClaim
{
    std::int64_t tick = 0; // 0: no claim yet
    std::string holder;    // the claim's item without its "advisory " prefix
    double claimedAt = 0;
    double now = 0;

    double lockedAt() const { return static_cast<double>(tick) / 1000.0; }
    std::optional<int> holderPid() const;
};

// One run: setup (migrate, reset, due billing work, K replicas), every fault's trials, the stop,
// the drain of the work billing emitted for the other roles, and the audit. Correctness failures
// are collected in the results; anything else that stops the run is thrown.
class FailoverBench final
{
public:
    FailoverBench(const Options &options, std::filesystem::path workDirectory, Redact redact);
    RunResults run();

private:
    // The replicas of this run, or the one that drains the other roles' work before the audit.
    ReplicaSetup replicaSetup(const std::string &roles, const std::string &idPrefix,
                              const std::string &gate) const;
    void setUp();
    bool runTrials(); // false: the run was cut short
    void waitForForeignLeasesToExpire();
    void createWork();
    void writeConfig() const;
    // Seconds into the victim's tick at which trial number of fault aims.
    double targetTickAge(Fault fault, int number);
    // One trial under either design: the lease's row, or the advisory design's claim_log.
    TrialResult runTrial(Fault fault, int number);

    // A replica of ours in a tick: the victim found mid-tick, or its successor.
    struct TickHolder
    {
        int slot = -1;
        std::int64_t token = 0; // the lease token, or the advisory tick
        double startedAt = 0;   // database clock: acquired_at, or when the lock was taken
        double now = 0;         // database clock when it was read
        double claimedAt = 0;   // advisory successor: its tick's first claim
        double expiresAt = 0;   // lease victim: the row's expiry when it was read
    };
    // The design's side of a trial.
    std::optional<TickHolder> findMidTick(TrialResult &trial, Fault fault, const std::string &name);
    std::optional<TickHolder> leaseHolder(bool cadenceOnly, std::string &lastSeen);
    std::optional<TickHolder> claimingHolder(std::string &lastSeen);
    // Polls until a replica of ours runs a newer tick than the victim's, or the deadline passes;
    // eachRound comes first in every round. lastExpires follows the victim's own lease row.
    std::optional<TickHolder> awaitNextHolder(std::int64_t victimToken,
                                              std::chrono::steady_clock::time_point deadline,
                                              double &lastExpires,
                                              const std::function<void()> &eachRound);
    // Who holds a newer token than the victim's; lastExpires follows the victim's own row.
    std::optional<TickHolder> nextLease(std::int64_t victimToken, double &lastExpires);
    std::optional<TickHolder> nextAdvisoryTick(std::int64_t victimTick);
    void measureLeaseTakeover(TrialResult &trial, Fault fault, const TickHolder &successor,
                              double lastExpires, int victimPid, std::size_t mark);
    void measureAdvisoryTakeover(TrialResult &trial, Fault fault, const TickHolder &successor,
                                 int victimPid, std::size_t mark);
    void countLeaseStaleClaims(TrialResult &trial, Fault fault, const std::string &name,
                               double lastExpires);
    void countAdvisoryStaleClaims(TrialResult &trial, const std::optional<TickHolder> &successor,
                                  const std::optional<double> &resumedAt);
    std::string describeLeaseTrial(const TrialResult &trial, Fault fault,
                                   const std::string &name) const;
    std::string describeAdvisoryTrial(const TrialResult &trial, const std::string &name) const;
    void waitForAdvisoryLockToBeFree();
    bool advisoryLockHeld();
    // Sends "VERB SECONDS" to the victim's control socket; returns how long the fault lasts.
    std::chrono::seconds injectThroughControl(const TrialResult &trial, int victimSlot,
                                              const std::string &verb, int seconds);
    void runPauseTrial(TrialResult &trial, int victimSlot, std::size_t mark);
    void ensureReplicasRunning(const std::string &when);
    void stopReplicas();
    void drainOtherRoles();
    void auditDatabase();

    LeaseRow readLease();
    AdvisoryClaim readAdvisoryClaim();
    double databaseClock();
    std::optional<double> firstClaim(std::int64_t token);
    std::int64_t scalar(const char *statement, const char *sql);
    void fail(TrialResult &trial, const std::string &failure);

    const Options m_options;
    const std::filesystem::path m_directory;
    const Redact m_redact;
    leader::pg::Connection m_db;
    EventLog m_events;
    ReplicaSet m_replicas;
    std::mt19937_64 m_random;
    std::map<Fault, std::vector<double>> m_killTickAges; // per fault, the trials' tick ages
    RunResults m_results;
};

} // namespace bench::failover
