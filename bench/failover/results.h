#pragma once

#include "demo/auditor.h"
#include "options.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bench::failover {

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

// The metrics a fault's trials produce under a design, in table order.
const std::vector<MetricInfo> &metricsFor(Fault fault, Design design);

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
    // Advisory design: claims the victim logged under its own tick after it ran again (resumed,
    // thawed, healed), accepted since nothing fences them; nullopt when it did not run again.
    std::optional<std::int64_t> victimClaimsAfterResume;
    // Advisory design, sever: whether the victim's session still held the lock (pg_locks) when
    // the link healed; nullopt for other faults.
    std::optional<bool> lockHeldAtHeal;
    std::vector<std::string> notes;
    std::vector<std::string> failures; // correctness checks this trial failed
};

struct FaultResults
{
    Fault fault;
    std::vector<TrialResult> trials;
    // Empty when the fault ran; else why the design cannot express it (no trials then).
    std::string notExpressible;

    std::vector<double> samples(std::string_view metric) const;
    std::int64_t staleAccepted() const;
    std::int64_t staleRefused() const;
    std::int64_t abandonedByClient() const;
    std::int64_t withoutTakeover() const;
    std::int64_t victimClaimsAfterResume() const;
};

struct RunResults
{
    Design design = Design::Lease;
    // The server's tcp_keepalives_idle, _interval, _count and tcp_user_timeout as a TCP session
    // sees them: what bounds how long an advisory lock outlives a silent holder.
    std::string serverKeepalives;
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
    // Billing ticks (claim_log tokens) whose first claim came before an earlier tick's last one:
    // two leaders claiming at once, whichever design let them.
    std::optional<std::int64_t> overlappingTicks;
    std::vector<std::string> failures; // every failed correctness check, one line each
    std::vector<std::string> notes;    // what is worth knowing but not a failure
    bool completed = false;            // every trial ran (false: the run was cut short)
};

} // namespace bench::failover
