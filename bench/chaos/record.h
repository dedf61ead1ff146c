#pragma once

#include "faults/fault.h"
#include "replicaprocess.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What a chaos run did and saw, kept for the checks after it: every time is this host's wall
// clock or the database's, in seconds since the epoch. The database runs on this host (the
// benchmark starts its own servers), so the two are one clock; a replica's own clock may be
// skewed, so its event times are read from db_time or from the arrival of its line.
namespace bench::chaos {

using leader::faults::Fault;
using leader::faults::nameOf;

// The faults this benchmark injects, by where they strike.
constexpr Fault ReplicaFaultKinds[]
        = {Fault::SigKill, Fault::SigTerm, Fault::SigStop, Fault::Freeze,
           Fault::Sever,   Fault::Slow,    Fault::Panic};
constexpr Fault DatabaseFaultKinds[] = {Fault::PgRestart, Fault::PgCrash, Fault::BouncerRestart,
                                        Fault::BouncerReconnect, Fault::Failover};
constexpr Fault SessionEventKinds[]
        = {Fault::IdleTimeout, Fault::Reaper, Fault::IdleProxy, Fault::Partition};

// This host's wall clock, in seconds since the epoch.
double wallClock();

bool isDatabaseFault(Fault kind);
bool isSessionEvent(Fault kind);

enum class Path { Direct, Bouncer };

// How one replica slot runs, for every process started in it.
struct SlotSetup
{
    std::string id; // r1, r2, ...
    Path path = Path::Direct;
    bool control = false; // --control: the fault switchboard (freeze, sever, slow, panic)
    int skewSeconds = 0;  // the wall clock faketime shows it
    bool killable = true; // false: never killed or terminated, so its memory spans the run
    // Runs in the network namespace whose link the partition blackholes (root only).
    bool isolated = false;

    std::string describe() const; // "r2 (PgBouncer, switchboard, clock +1 h)"
};

// One fault injected into one replica process.
struct ReplicaFault
{
    Fault kind = Fault::SigKill;
    std::string replica;
    int pid = 0;
    double at = 0;
    // When its effect ended: the heal, the SIGCONT, the restart. Unset for a panic (it ends by
    // firing) and for a fault still in force when the run ended.
    std::optional<double> endedAt;
    std::string command; // as sent: "freeze 8", "panic dunning ListDueRuns", "SIGSTOP"
    std::string role;    // the panic's role
};

// One session event: from the instant it took effect to the instant it was undone. Every
// process lives through it; the partition alone also cuts one replica off (it is on record as a
// replica fault of that process too, for the checks that excuse a faulted replica's ticks).
struct SessionEvent
{
    Fault kind = Fault::IdleTimeout;
    int number = 0; // 1-based within its kind
    double startedAt = 0;
    double endedAt = 0;
    int reaperRounds = 0;
    int sessionsTerminated = 0;         // by the reaper
    int proxied = 0;                    // connections through the idle-cutting proxy
    int proxyCuts = 0;                  // of them, closed for their client's silence
    std::vector<std::string> restarted; // replicas started again to meet it (idle timeout, proxy)
    std::string victim;                 // the partition's
    int victimPid = 0;
    std::string victimRole; // what it held when the link was cut
    std::optional<double> cutAt;
    std::optional<double> healedAt;
    std::vector<std::string> notes;
};

// One event every replica on its path sees: a restart, a crash, a pooler restart or reconnect,
// a failover.
struct DatabaseEvent
{
    Fault kind = Fault::PgRestart;
    int number = 0; // 1-based within its kind
    double startedAt = 0;
    // The first instant each path the replicas use took a write again; reachableAt is the
    // path of what the event struck: Postgres itself, or PgBouncer.
    std::optional<double> directReachableAt;
    std::optional<double> bouncerReachableAt;
    std::optional<double> reachableAt;
    bool affectsDirect = true;         // the direct replicas lose their sessions
    std::int64_t acquiresAfterCut = 0; // failover: ACQUIREs the lost primary issued after the cut
    std::vector<std::string> notes;    // what the server script said
};

// One process a slot ran, from its start to its end.
struct ProcessLife
{
    std::string replica;
    int pid = 0;
    std::string holder;
    std::string metricsAddress;
    int metricsPort = 0;
    bool proxied = false; // its direct connections went through the idle-cutting proxy
    double startedAt = 0;
    std::optional<double> endedAt;
    std::optional<bench::ExitStatus> exit;
    // "SIGKILL" or "SIGTERM" when the benchmark ended it; empty when it ended by itself.
    std::string endedBy;
    std::optional<double> sigtermToExit; // seconds, when the benchmark sent SIGTERM
    // hardcount_leader_lease_lost_total{reason="panicked"}, all roles, at the last scrape.
    std::optional<double> panickedMetric;
    std::optional<long> rssBaselineKb; // VmRSS once the process had run a minute
    std::optional<long> rssLastKb;
    double rssLastAt = 0;
};

} // namespace bench::chaos
