#pragma once

#include "faults/fault.h"
#include "log/nametable.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leader::demo {

// What the demo can do to a replica it runs: faults::Fault's in-process subset (Kill, Freeze,
// Sever, Slow, Heal, Panic, Stop, Restart); inject() refuses the others.
bool isDemoFault(faults::Fault fault);

struct FaultRequest
{
    std::string replica; // "r1"
    faults::Fault kind = faults::Fault::Kill;
    std::chrono::milliseconds duration{0}; // Freeze, Sever: how long; Slow: latency each way
    std::string role;                      // Panic
    std::string step;                      // Panic
};
// The request in a few words, as the event log and the takeovers name it: "freeze r1 20 s".
std::string describeFault(const FaultRequest &request);

// Freezes, cuts and slow links are not states: a frozen replica is still running, and
// ReplicaStatus::faults says what is in force.
enum class ReplicaState { Starting, Running, Stopping, Stopped, Killed };
std::string_view nameOf(ReplicaState state);

struct ReplicaStatus
{
    std::string id;       // "r1"
    std::string holderId; // hostname:pid:8hex, new after a restart
    ReplicaState state = ReplicaState::Starting;
    std::string faults;               // faults::Switchboard::describe(): "normal", "frozen 12.3 s"
    std::vector<std::string> leading; // roles it holds now, sorted
    bool faulted = false;             // a fault is in force: what faults describes is not "normal"
};

// What a DemoEvent reports: a replica's lease transition (lease::EventKind, by the same names) or
// something the runner itself reports.
enum class DemoEventKind {
    Acquired,
    Released,
    ReleaseFailed,
    Lost,
    LateBeat,
    PausedObserved,
    Fault,      // a fault injected or refused, or what became of it
    Takeover,   // a takeover measured after a fault
    NoTakeover, // none came within the deadline
    // Nothing will be measured for a role the victim was seen leading: it had released it when
    // its fault landed, or the roles it held could not be read before the fault.
    FaultMissed,
    Error, // the workload failed; it retries
};

// The one name table: what the console's log and `leaderctl demo --run` print.
inline constexpr std::array<Named<DemoEventKind>, 11> DemoEventKindNames{{
        {DemoEventKind::Acquired, "acquired"},
        {DemoEventKind::Released, "released"},
        {DemoEventKind::ReleaseFailed, "release_failed"},
        {DemoEventKind::Lost, "lost"},
        {DemoEventKind::LateBeat, "late_beat"},
        {DemoEventKind::PausedObserved, "paused_observed"},
        {DemoEventKind::Fault, "fault"},
        {DemoEventKind::Takeover, "takeover"},
        {DemoEventKind::NoTakeover, "no_takeover"},
        {DemoEventKind::FaultMissed, "fault_missed"},
        {DemoEventKind::Error, "error"},
}};
static_assert(namesEveryValue(DemoEventKindNames));

constexpr std::string_view nameOf(DemoEventKind kind)
{
    return nameIn<DemoEventKind>(DemoEventKindNames, kind);
}

constexpr std::optional<DemoEventKind> demoEventKindFromName(std::string_view name)
{
    return valueIn<DemoEventKind>(DemoEventKindNames, name);
}

// A transition of a replica's role, or something the runner itself reports.
struct DemoEvent
{
    std::chrono::system_clock::time_point time; // this machine's clock
    std::string source; // "r2", "workload", or DemoRunner::Options::faultSource
    std::string role;   // empty when not about one role
    DemoEventKind event = DemoEventKind::Error;
    std::int64_t token = 0;
    std::string detail;       // outcome, reason, error line, action; one line, no secret
    std::string databaseTime; // the statement's now(), as the database printed it, when known
};

// A takeover that followed a fault, measured on the database clock: the victim's last heartbeat
// (its last expires_at minus the lease TTL), or its release after a clean stop, to the
// successor's acquired_at.
struct Takeover
{
    using Time = std::chrono::system_clock::time_point;

    std::string role;
    std::string fault;  // "kill r2", "freeze r1 20 s", ...
    std::string victim; // replica id
    std::string victimHolder;
    std::int64_t victimToken = 0;
    std::string successor; // replica id, or the holder id when the runner does not host it
    std::string successorHolder;
    std::int64_t successorToken = 0;
    Time faultAt;
    std::optional<Time> lastHeartbeatAt; // none after a clean stop (released instead)
    std::optional<Time> releasedAt;      // after a clean stop
    Time acquiredAt;
    // acquiredAt minus lastHeartbeatAt (or releasedAt), at least 0: ACQUIRE's now() is its
    // transaction's start, so one that waited on the row lock for the RELEASE is stamped a few
    // milliseconds before it.
    double gapSeconds = 0;
};

} // namespace leader::demo
