#pragma once

#include "demo/auditor.h"
#include "options.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace failoverbench {

// Which clock a metric is read on: both ends on the database's, or one end on the replica's wall
// clock (the replicas run on this host, so it is the database host's clock only when the database
// is local too), or the benchmark's own monotonic clock.
enum class MetricClock { Database, ReplicaWallVsDatabase, Monotonic };

struct MetricInfo
{
    std::string_view key;   // JSON name
    std::string_view label; // table text
    MetricClock clock;
};

// The metrics a fault's trials produce, in table order.
const std::vector<MetricInfo> &metricsFor(Fault fault);

struct TrialResult
{
    int number = 0; // 1-based within its fault
    std::string victim;
    std::int64_t victimToken = 0;
    double targetTickAge = 0; // the tick age at which the fault was aimed
    double tickAgeAtFault = 0;
    double faultAt = 0; // database clock, seconds since the epoch
    bool tookOver = false;
    std::string successor; // empty when nobody took over
    std::int64_t successorToken = 0;
    std::optional<double> successorAcquiredAt;
    std::map<std::string, double> metrics;     // key -> seconds
    std::optional<std::int64_t> staleAccepted; // nullopt: nothing to compare with (no takeover)
    std::int64_t staleRefused = 0;
    // The resumed victim's own client gave the tick up (AbandonAfter) before sending anything
    // more: its "lost" line said heartbeat_timeout.
    bool abandonedByClient = false;
    std::vector<std::string> notes;
    std::vector<std::string> failures; // correctness checks this trial failed
};

struct FaultResults
{
    Fault fault;
    std::vector<TrialResult> trials;

    std::vector<double> samples(std::string_view metric) const;
    std::int64_t staleAccepted() const;
    std::int64_t staleRefused() const;
    std::int64_t abandonedByClient() const;
};

struct RunResults
{
    std::string startedAt;
    std::string finishedAt;
    std::string system;
    unsigned processors = 0;
    std::string serverVersion;
    std::string fastWake = "unknown"; // on, off or mixed, from the replicas' started lines
    std::int64_t subscriptions = 0;   // due billing work created for the run
    std::vector<FaultResults> faults;
    std::optional<leader::demo::AuditReport> audit;
    std::optional<std::int64_t> duplicateInvoices;
    std::optional<std::int64_t> doubleCharges;
    std::vector<std::string> failures; // every failed correctness check, one line each
    std::vector<std::string> notes;    // what is worth knowing but not a failure
    bool completed = false;            // every trial ran (false: the run was cut short)
};

} // namespace failoverbench
