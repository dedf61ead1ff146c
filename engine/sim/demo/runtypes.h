#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leader::demo {

// What can be done to a replica the demo runs.
enum class FaultKind {
    Kill,    // a process death: nothing more reaches the database, no RELEASE
    Freeze,  // every statement blocks for the duration, then goes out stale (SIGSTOP, a GC pause)
    Sever,   // the link forwards nothing either way for the duration (a blackholed network)
    Slow,    // the link adds the duration of latency each way until healed
    Heal,    // ends a freeze, a cut and a slow link
    Panic,   // the named step (empty: the first) of role's next tick throws
    Stop,    // a clean stop: running ticks released as interrupted
    Restart, // a stopped or killed replica starts again under the same name, with a new holder id
};
std::string_view nameOf(FaultKind kind);

struct FaultRequest
{
    std::string replica; // "r1"
    FaultKind kind = FaultKind::Kill;
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
};

// A transition of a replica's role, or something the runner itself reports.
struct DemoEvent
{
    std::chrono::system_clock::time_point time; // this machine's clock
    std::string source; // "r2", "workload", or DemoRunner::Options::faultSource
    std::string role;   // empty when not about one role
    std::string event;  // acquired, released, lost, late_beat, fault, takeover, error, ...
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
