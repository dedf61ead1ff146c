#pragma once

#include "log/nametable.h"

#include <array>
#include <optional>
#include <string_view>

namespace leader::faults {

// Every fault this project injects, wherever it is injected: the demo's replicas in the console
// (in-process), leader-replica's control socket, and the failover and chaos benchmarks (signals,
// servers, sessions). Each caller accepts its own subset; the names are shared by display, JSON
// reports, command lines and the control socket.
enum class Fault {
    // Into one replica.
    Kill,    // a process death in-process: nothing more reaches the database, no RELEASE
    SigKill, // the same, by SIGKILL to a replica process
    SigTerm, // a clean stop by SIGTERM: running ticks released as interrupted
    SigStop, // the process stopped by SIGSTOP for the duration, then SIGCONT
    Freeze,  // every statement blocks for the duration, then goes out stale (a GC pause)
    Sever,   // the link forwards nothing either way for the duration (a blackholed network)
    Slow,    // the link adds latency each way until healed
    Heal,    // ends a freeze, a cut and a slow link
    Panic,   // the named step (empty: the first) of a role's next tick throws
    Stop,    // a clean stop in-process: running ticks released as interrupted
    Restart, // a stopped or killed replica starts again under its name, with a new holder id
    Pause,   // the role paused by SQL while its leader ticks
    // Into the database or the pooler: every replica sees them.
    PgRestart,
    PgCrash,
    BouncerRestart,
    BouncerReconnect,
    Failover,
    // Into the sessions, not the processes, while every process lives: each lasts a window.
    IdleTimeout, // idle_session_timeout switched on, then off
    Reaper,      // pg_terminate_backend of the app's idle sessions
    IdleProxy,   // a proxy cutting connections whose client was silent 5 s
    Partition,   // one holder's network blackholed, the server's keepalives short
};

// The one name table: what reports, logs and command lines print, and what they parse.
inline constexpr std::array<Named<Fault>, 21> FaultNames{{
        {Fault::Kill, "kill"},
        {Fault::SigKill, "sigkill"},
        {Fault::SigTerm, "sigterm"},
        {Fault::SigStop, "sigstop"},
        {Fault::Freeze, "freeze"},
        {Fault::Sever, "sever"},
        {Fault::Slow, "slow"},
        {Fault::Heal, "heal"},
        {Fault::Panic, "panic"},
        {Fault::Stop, "stop"},
        {Fault::Restart, "restart"},
        {Fault::Pause, "pause"},
        {Fault::PgRestart, "pg-restart"},
        {Fault::PgCrash, "pg-crash"},
        {Fault::BouncerRestart, "bouncer-restart"},
        {Fault::BouncerReconnect, "bouncer-reconnect"},
        {Fault::Failover, "failover"},
        {Fault::IdleTimeout, "idle-timeout"},
        {Fault::Reaper, "reaper"},
        {Fault::IdleProxy, "idle-proxy"},
        {Fault::Partition, "partition"},
}};
static_assert(namesEveryValue(FaultNames));

constexpr std::string_view nameOf(Fault fault)
{
    return nameIn<Fault>(FaultNames, fault);
}

constexpr std::optional<Fault> faultFromName(std::string_view name)
{
    return valueIn<Fault>(FaultNames, name);
}

} // namespace leader::faults
