#pragma once

#include "events.h"
#include "lease/outcome.h"
#include "record.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

// The checks after a chaos run, from what it recorded: pure functions of the record, so that
// every verdict can be recomputed from the JSON's inputs.
namespace bench::chaos {

// One tick as its holder reported it: from its acquired line to its released (or
// release_failed) line. A process killed mid-tick leaves it without an end.
struct Tick
{
    std::string replica;
    int pid = 0;
    std::string holder;
    std::string role;
    std::int64_t token = 0;
    double acquiredAt = 0; // the ACQUIRE's now()
    std::optional<double> endedAt;
    std::optional<leader::lease::Outcome> outcome; // none: no end seen
    std::optional<leader::lease::LossReason> lossReason;
    bool releaseFailed = false;
    // When its lost line arrived (the heartbeat cancelled the work), and its released or
    // release_failed line (the work had returned), on this host's clock.
    std::optional<double> lostArrivedAt;
    std::optional<double> endArrivedAt;
    // Its RELEASE found the row still its own: the next lease of the role began after it.
    bool handedOver = false;
};

// Ticks in the order they were acquired.
std::vector<Tick> ticksFrom(const std::vector<bench::ReplicaEvent> &events);

// A row of claim_log: a fenced claim the database accepted, judged at fenced_at.
struct Claim
{
    std::string role;
    std::int64_t token = 0;
    double fencedAt = 0;
};

// A row of fence_refusals: a claim statement of a tick whose token was no longer current.
struct Refusal
{
    std::string role;
    std::int64_t token = 0;
    double at = 0; // refused_at: the statement's clock_timestamp()
};

// A row of external_effects: a call to the outside world, as the outside world saw it.
struct Effect
{
    std::string kind;
    std::string key; // idempotency_key
    std::string role;
    std::int64_t token = 0;
    double at = 0; // happened_at: its statement's now()
};

struct AuditInvariant
{
    std::string role;
    std::string name;
    bool holds = true;
    std::int64_t offending = 0;
    std::vector<std::string> samples;
};

// What leaderctl audit --json said; error is set when it did not say it.
struct AuditOutcome
{
    std::vector<AuditInvariant> invariants;
    std::string error;
};
// Parses the one line leaderctl audit --json prints.
AuditOutcome parseAudit(const std::string &json);

struct RoleSchedule
{
    std::string role;
    double interval = 0; // seconds
    double minTick = 0;
};

struct RunRecord
{
    std::vector<SlotSetup> slots;
    std::vector<RoleSchedule> roles;
    std::vector<bench::ReplicaEvent> events;
    std::vector<ReplicaFault> replicaFaults;
    std::vector<DatabaseEvent> databaseEvents;
    std::vector<SessionEvent> sessionEvents;
    std::vector<ProcessLife> lives;
    std::vector<Claim> claims;
    std::vector<Refusal> refusals;
    std::vector<Effect> effects;
    std::int64_t fenceRefusals = 0;
    // How each lease was taken, as leader_leases said while it was held (LeaseWatch).
    std::map<std::pair<std::string, std::int64_t>, std::string> tookOver;
    AuditOutcome audit;
    double startedAt = 0;     // the fleet was up
    double faultsEndedAt = 0; // the last fault had ended
    double endedAt = 0;       // the fleet was stopped
    // A run of the full soak's length: its targets (recovery within interval + 15 s, memory
    // growth) are judged; in a shorter one they are printed.
    bool fullRun = false;
};

// One correctness check: judged unless the run cannot tell (then figure says why).
struct Check
{
    std::string name;
    bool judged = true;
    bool holds = true;
    std::string figure;
    std::vector<std::string> offending; // one line each
};

struct RoleRecovery
{
    std::string role;
    std::optional<double> seconds; // reachable again -> the first completed tick's ACQUIRE
    double target = 0;             // interval + 15 s
};

struct DatabaseEventResult
{
    Fault kind = Fault::PgRestart;
    int number = 0;
    std::optional<double> outage;        // started -> what it struck was writable again
    std::optional<double> bouncerOutage; // a Postgres event: started -> writable via PgBouncer
    std::vector<RoleRecovery> roles;
    std::optional<double> everyRole; // the slowest role, when every role ticked again
};

struct SessionEventResult
{
    Fault kind = Fault::IdleTimeout;
    int number = 0;
    double seconds = 0;
    std::map<std::string, int> completedTicks; // role -> ticks acquired inside it that completed
    int earlyTakes = 0; // leases taken at a marker's end inside it (or a TTL after)
};

// What the role's next lease found when its holder had not released it: how it was taken, what
// the old holder was doing, and whether the two ran at once.
struct TakeoverFigures
{
    std::int64_t handovers = 0; // the old holder's RELEASE came first, or the row was free
    std::int64_t takeovers = 0;
    std::map<std::string, std::int64_t> tookOver; // expired, session_ended, unseen
    std::int64_t earlyOfDead = 0;                 // session_ended, the old process killed
    std::int64_t earlyOfStopped = 0;              // ... SIGSTOPped: the protocol's exception
    std::int64_t earlyOfLive = 0;                 // ... running: a failure
    // The old tick's end (its lost line, else its end line) against the successor's ACQUIRE,
    // judged for a holder that ran and reached the database; positive samples are overlaps.
    std::int64_t endsJudged = 0;
    std::vector<double> overlaps;
    // Not judged by its end: stopped (SIGSTOP) or cut off (its link, or its path to the database
    // down); the database judges those.
    std::int64_t endsNotJudged = 0;
    std::vector<double> notJudgedOverlaps;
    // Statements under the old token the database ran after the successor acquired.
    std::int64_t lateStatements = 0;
    std::int64_t staleDeliveries = 0; // of them, held by a cut link and delivered at its heal
    // external_effects keys written under two tokens, by cause.
    std::int64_t keysTwice = 0;
    std::int64_t twiceByOverlap = 0;
    std::int64_t twiceStaleDelivery = 0;
    std::int64_t twiceRedone = 0;  // the first holder had stopped: at-least-once across a takeover
    std::vector<std::string> rows; // one line per takeover, for the JSON
    std::vector<std::string> twiceRows; // one per key under two tokens not by an overlap
};

struct MemoryRow
{
    std::string replica;
    int pid = 0;
    double minutes = 0; // from the baseline sample to the last
    long baselineKb = 0;
    long lastKb = 0;
    double growth = 0; // fraction
    bool judged = false;
};

struct Verdicts
{
    std::vector<Check> checks;
    std::vector<DatabaseEventResult> databaseEvents;
    std::vector<SessionEventResult> sessionEvents;
    TakeoverFigures takeovers;
    std::map<std::string, int> faultsInjected; // by fault name
    // Tick outcomes across every process, killed ones included; "open" is a tick whose holder
    // was killed before its end.
    std::map<std::string, std::int64_t> outcomes;
    std::map<std::string, std::int64_t> lossReasons;
    std::int64_t ticks = 0;
    std::int64_t lostExplained = 0; // lost or failed with a fault to explain it
    int panicsInjected = 0;
    int panicsFired = 0;
    std::int64_t claims = 0;
    std::int64_t staleAccepted = 0;
    std::int64_t fenceRefusals = 0;
    std::int64_t claimsWithoutAcquire = 0;
    std::vector<MemoryRow> memory;
    std::map<std::string, double> clockOffsets; // replica -> median of its ts minus arrival
    std::vector<double> sigtermToExit;
    // From a SIGKILL to the ACQUIRE elsewhere of each role its victim held: the early take still
    // works beside checks that a switched-off one would pass as well.
    std::vector<double> sigkillToAcquired;
};

// Seconds after an event's reachable instant a role may take to tick again, beyond its interval.
constexpr double RecoveryAllowance = 15;
// Growth of a replica's resident memory from its first minute to its end that the soak allows.
constexpr double MemoryGrowthLimit = 0.10;
// The process lifetime a memory figure needs to be judged.
constexpr double JudgedMemoryMinutes = 20;

Verdicts analyze(const RunRecord &record);
bool anyFailed(const Verdicts &verdicts);

} // namespace bench::chaos
