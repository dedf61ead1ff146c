#include "results.h"

#include <algorithm>
#include <numeric>

namespace bench::failover {

const std::vector<MetricInfo> &metricsFor(Fault fault, Design design)
{
    static const MetricInfo heartbeatToAcquired{
            "last_heartbeat_to_acquired", "last heartbeat \u2192 acquired", MetricClock::Database};
    static const MetricInfo faultToRunning{"fault_to_running", "fault \u2192 running elsewhere",
                                           MetricClock::Database};
    // A clean stop releases the row, so the heartbeat is not what the contender waited for.
    static const std::vector<MetricInfo> sigterm{
            {"release_to_acquired", "release \u2192 acquired", MetricClock::Database},
            faultToRunning,
            {"sigterm_to_exit", "SIGTERM \u2192 exit", MetricClock::Monotonic}};
    // A pause hands the role to nobody: what counts is how fast the holder stops, and how fast
    // the role runs again once unpaused.
    static const std::vector<MetricInfo> pause{
            {"pause_to_cancelled", "pause \u2192 tick cancelled",
             MetricClock::ReplicaWallVsDatabase},
            {"unpause_to_running", "unpause \u2192 running", MetricClock::Database}};
    static const std::vector<MetricInfo> dead{heartbeatToAcquired, faultToRunning};
    // No heartbeat and no pause under the advisory gate: a successor's tick starts with its
    // pg_try_advisory_lock, read from the tick's number (the lock's clock_timestamp()).
    static const MetricInfo faultToLocked{"fault_to_acquired", "fault → lock acquired",
                                          MetricClock::Database};
    static const std::vector<MetricInfo> advisoryDead{faultToLocked, faultToRunning};
    static const std::vector<MetricInfo> advisorySigterm{
            {"release_to_acquired", "unlock → lock acquired", MetricClock::Database},
            faultToRunning,
            {"sigterm_to_exit", "SIGTERM → exit", MetricClock::Monotonic}};
    static const std::vector<MetricInfo> none;
    if (design == Design::Advisory)
        return fault == Fault::SigTerm ? advisorySigterm
               : fault == Fault::Pause ? none
                                       : advisoryDead;
    return fault == Fault::SigTerm ? sigterm : fault == Fault::Pause ? pause : dead;
}

std::vector<double> FaultResults::samples(std::string_view metric) const
{
    std::vector<double> values;
    for (const TrialResult &trial : trials) {
        if (const auto it = trial.metrics.find(std::string(metric)); it != trial.metrics.end())
            values.push_back(it->second);
    }
    return values;
}

std::int64_t FaultResults::staleAccepted() const
{
    return std::accumulate(trials.begin(), trials.end(), std::int64_t{0},
                           [](std::int64_t sum, const TrialResult &trial) {
                               return sum + trial.staleAccepted.value_or(0);
                           });
}

std::int64_t FaultResults::staleRefused() const
{
    return std::accumulate(
            trials.begin(), trials.end(), std::int64_t{0},
            [](std::int64_t sum, const TrialResult &trial) { return sum + trial.staleRefused; });
}

std::int64_t FaultResults::abandonedByClient() const
{
    return std::count_if(trials.begin(), trials.end(),
                         [](const TrialResult &trial) { return trial.abandonedByClient; });
}

std::int64_t FaultResults::withoutTakeover() const
{
    return std::count_if(trials.begin(), trials.end(),
                         [](const TrialResult &trial) { return !trial.tookOver; });
}

std::int64_t FaultResults::victimClaimsAfterResume() const
{
    return std::accumulate(trials.begin(), trials.end(), std::int64_t{0},
                           [](std::int64_t sum, const TrialResult &trial) {
                               return sum + trial.victimClaimsAfterResume.value_or(0);
                           });
}

} // namespace bench::failover
