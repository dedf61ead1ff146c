#pragma once

#include "statementclock.h"

#include <array>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench::scale {

struct Options
{
    std::string databaseUrl;        // the owner, straight to Postgres: migrate, reset, observe
    std::string replicaDatabaseUrl; // what the replicas use: the app login through PgBouncer
    std::string bouncerAdminUrl;    // PgBouncer's admin console (database pgbouncer)
    std::filesystem::path servers;  // the servers' directory: postmaster.pid, pgbouncer.pid
    std::filesystem::path hostBinary;
    std::vector<int> replicas{10, 100, 1000};
    int perProcess = 100;
    std::vector<std::string> modes{"acquire-first", "read-first"};
    // Acquire-first, the old baseline, only up to this many replicas (the quick mode: 10).
    int acquireFirstMax = std::numeric_limits<int>::max();
    // Read-first, the default, only from this many replicas (the quick mode: 1,000).
    int readFirstMin = 0;
    std::chrono::seconds idleWarmup{12};
    std::chrono::seconds idleWindow{30};
    std::chrono::seconds ticksWarmup{12};
    std::chrono::seconds ticksWindow{30};
    std::chrono::milliseconds idleInterval{std::chrono::hours(1)};
    std::chrono::milliseconds idleWork{100};
    std::chrono::milliseconds tickInterval{1000};
    std::chrono::milliseconds tickWork{4000};
    std::chrono::milliseconds spread{10000};
    // The largest fleet's idle phase: PgBouncer stopped (SIGSTOP) this long after the window,
    // and its queue then watched until it drains; zero for none.
    std::chrono::seconds poolStall{0};
    // Read-first's board read: "function" (leader_ext.leader_board, 0188), as a replica sends it,
    // or "inline", the statement sent before 0188, to measure one against the other.
    std::string boardRead = "function";
    // The hosts' statement samples and logs are left in their directory, for
    // bench/scale/analyze-samples.py.
    bool keepSamples = false;
    bool quick = false;
    std::filesystem::path jsonFile = "scale.json";
    std::string launcher; // how the run was started, for the reproduce command
    bool help = false;

    std::vector<std::string *> urls()
    {
        return {&databaseUrl, &replicaDatabaseUrl, &bouncerAdminUrl};
    }
};

struct Latency
{
    std::size_t count = 0;
    std::size_t failed = 0;
    double p50 = 0;
    double p99 = 0;
    double max = 0;
};

// One statement text as pg_stat_statements saw it over a window (the replicas' login only).
struct ServerStatement
{
    std::string text; // normalised, whitespace collapsed, cut at 100 characters
    double callsPerSecond = 0;
    double meanPlanMs = 0;
    double meanExecMs = 0;
    double maxExecMs = 0;
    double share = 0; // of the replicas' plan + exec time over the window
};

// One measured window of one phase.
struct Phase
{
    std::string name; // idle / ticks
    double seconds = 0;
    // Server-side counts over the window: PgBouncer's SHOW STATS total_query_count for the
    // benchmark's database (every statement of the replicas and nothing else), and
    // pg_stat_database's xact_commit + xact_rollback as a cross-check.
    double bouncerQueriesPerSecond = 0;
    double serverXactsPerSecond = 0;
    // Client-side, from the hosts' statement clocks: per kind, statements a second.
    std::array<double, StatementKinds> perSecond{};
    std::array<Latency, StatementKinds> latency{};
    // CPU as a share of one core: utime + stime over the window's wall time.
    double serverCpu = 0; // the postmaster and all its children
    double bouncerCpu = 0;
    double hostsCpu = 0;
    int ticksLed = 0; // acquired events in the window
    // PgBouncer's SHOW POOLS for the database, sampled twice a second over the window: the most
    // clients waiting for a server connection at once, and the longest wait of one.
    int bouncerMostWaiting = 0;
    double bouncerLongestWaitMs = 0;
    // Where the server's time went, the costliest first; empty without pg_stat_statements.
    std::vector<ServerStatement> serverStatements;
    // The replicas' server sessions, sampled with SHOW POOLS: per state and wait event
    // ("active: CPU", "active: LWLock/LockManager", "idle in transaction: Client/ClientRead"),
    // sessions seen summed over the samples, and the number of samples.
    std::map<std::string, int> serverWaits;
    int serverWaitSamples = 0;
    // Each sample that found 20 or more clients waiting in PgBouncer: when in the window, how
    // many, the machine's CPU since the previous sample (all cores, every process), and what the
    // pool's server sessions were running.
    std::vector<std::string> queueSpells;
};

struct Takeover
{
    std::string role;
    std::int64_t victimToken = 0;
    bool came = false;
    std::string newHolder;
    double afterKill = 0;   // the new holder's ACQUIRE now() minus clock_timestamp() after SIGKILL
    double afterExpiry = 0; // the same minus the victim's expires_at: the poll's share
};

// A stall of PgBouncer under the idle fleet (Options::poolStall): how far its queue grew once it
// ran again, and how long it took to drain.
struct PoolStall
{
    double seconds = 0;
    int mostWaiting = 0;
    // From SIGCONT to the first of four samples in a row (2 s) under 20 clients waiting; unset
    // when the queue had not drained within the allowance (a failure).
    std::optional<double> drainedAfter;
};

struct Run
{
    int replicas = 0;
    std::string mode;
    int processes = 0;
    Phase idle;
    Phase ticks;
    std::optional<PoolStall> poolStall;
    int victimPid = 0;
    int victimReplicas = 0;
    std::vector<Takeover> takeovers;
    // Two holders leading one role at once, from the acquired/released events; with the
    // overlapping pairs described.
    int doubleLed = 0;
    std::vector<std::string> overlaps;
    int leadIntervals = 0;
    // The cross-check with the database: per role, the row's token at the end is the last token
    // the events show acquired, and no token was acquired twice.
    std::vector<std::string> databaseMismatches;
    std::vector<std::string> failures;
};

struct Results
{
    std::string startedAt;
    std::string finishedAt;
    std::string system;
    unsigned processors = 0;
    std::string serverVersion;
    std::string bouncerVersion;
    std::vector<Run> runs;
};

// Runs every (replicas, mode) pair: an idle phase and a ticks phase with a takeover, each with its
// own host processes. Throws on anything that stops the run; correctness failures are in Run.
Results runAll(const Options &options);

} // namespace bench::scale
