#pragma once

#include "events.h"
#include "options.h"
#include "pg/connection.h"
#include "replicaset.h"
#include "results.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace failoverbench {

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
    FailoverBench(const Options &options, std::filesystem::path workDirectory);
    RunResults run();

private:
    void setUp();
    bool runTrials(); // false: the run was cut short
    void waitForForeignLeasesToExpire();
    void createWork();
    void writeConfig() const;
    // Seconds into the victim's tick at which trial number of fault aims.
    double targetTickAge(Fault fault, int number);
    TrialResult runTrial(Fault fault, int number);
    // The advisory design's trial: the same mid-tick aim and faults, measured from claim_log.
    TrialResult runAdvisoryTrial(Fault fault, int number);
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
    std::string redact(std::string text) const;

    const Options m_options;
    const std::filesystem::path m_directory;
    leader::pg::Connection m_db;
    EventLog m_events;
    ReplicaSet m_replicas;
    std::mt19937_64 m_random;
    std::map<Fault, std::vector<double>> m_killTickAges; // per fault, the trials' tick ages
    RunResults m_results;
};

} // namespace failoverbench
