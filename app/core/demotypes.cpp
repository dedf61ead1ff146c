#include "demotypes.h"

#include "core/demoengine.h"
#include "log/nametable.h"

#include <array>
#include <utility>

namespace leader::console {

namespace {

constexpr std::array<std::pair<EventKind, QLatin1StringView>, 36> EventKindNames{{
        {EventKind::Acquired, QLatin1StringView("acquired")},
        {EventKind::Released, QLatin1StringView("released")},
        {EventKind::ReleaseFailed, QLatin1StringView("release_failed")},
        {EventKind::Lost, QLatin1StringView("lost")},
        {EventKind::LateBeat, QLatin1StringView("late_beat")},
        {EventKind::PausedObserved, QLatin1StringView("paused_observed")},
        {EventKind::Fault, QLatin1StringView("fault")},
        {EventKind::Takeover, QLatin1StringView("takeover")},
        {EventKind::NoTakeover, QLatin1StringView("no_takeover")},
        {EventKind::FaultMissed, QLatin1StringView("fault_missed")},
        {EventKind::Error, QLatin1StringView("error")},
        {EventKind::Handover, QLatin1StringView("rotation")},
        {EventKind::AfterPause, QLatin1StringView("after pause")},
        {EventKind::NewHolder, QLatin1StringView("new holder")},
        {EventKind::Paused, QLatin1StringView("paused")},
        {EventKind::PauseEnded, QLatin1StringView("pause ended")},
        {EventKind::Unpaused, QLatin1StringView("unpaused")},
        {EventKind::State, QLatin1StringView("state")},
        {EventKind::AgeOk, QLatin1StringView("age ok")},
        {EventKind::AgeWarning, QLatin1StringView("age warning")},
        {EventKind::AgeAlert, QLatin1StringView("age alert")},
        {EventKind::PollFailed, QLatin1StringView("poll failed")},
        {EventKind::Connection, QLatin1StringView("connection")},
        {EventKind::Alert, QLatin1StringView("alert")},
        {EventKind::Pause, QLatin1StringView("pause")},
        {EventKind::Unpause, QLatin1StringView("unpause")},
        {EventKind::HandOver, QLatin1StringView("hand over")},
        {EventKind::Guard, QLatin1StringView("guard")},
        {EventKind::RoleOption, QLatin1StringView("--role")},
        {EventKind::Keychain, QLatin1StringView("keychain")},
        {EventKind::Drill, QLatin1StringView("drill")},
        {EventKind::History, QLatin1StringView("history")},
        {EventKind::Privileges, QLatin1StringView("privileges")},
        {EventKind::Schema, QLatin1StringView("schema")},
        {EventKind::Backlog, QLatin1StringView("backlog")},
        {EventKind::Demo, QLatin1StringView("demo")},
}};
static_assert(namesEveryValue(EventKindNames));

} // namespace

QString eventKindName(EventKind kind)
{
    for (const auto &[known, name] : EventKindNames) {
        if (known == kind)
            return name;
    }
    Q_UNREACHABLE();
}

std::optional<EventKind> eventKindFromName(QStringView name)
{
    for (const auto &[kind, known] : EventKindNames) {
        if (name == known)
            return kind;
    }
    return std::nullopt;
}

faults::Fault toEngine(FaultKind kind)
{
    switch (kind) {
    case FaultKind::Kill:
        return faults::Fault::Kill;
    case FaultKind::Freeze:
        return faults::Fault::Freeze;
    case FaultKind::Sever:
        return faults::Fault::Sever;
    case FaultKind::Slow:
        return faults::Fault::Slow;
    case FaultKind::Heal:
        return faults::Fault::Heal;
    case FaultKind::Panic:
        return faults::Fault::Panic;
    case FaultKind::Stop:
        return faults::Fault::Stop;
    case FaultKind::Restart:
        return faults::Fault::Restart;
    }
    Q_UNREACHABLE();
}

demo::ReplicaState toEngine(ReplicaState state)
{
    switch (state) {
    case ReplicaState::Starting:
        return demo::ReplicaState::Starting;
    case ReplicaState::Running:
        return demo::ReplicaState::Running;
    case ReplicaState::Stopping:
        return demo::ReplicaState::Stopping;
    case ReplicaState::Stopped:
        return demo::ReplicaState::Stopped;
    case ReplicaState::Killed:
        return demo::ReplicaState::Killed;
    }
    Q_UNREACHABLE();
}

ReplicaState fromEngine(demo::ReplicaState state)
{
    switch (state) {
    case demo::ReplicaState::Starting:
        return ReplicaState::Starting;
    case demo::ReplicaState::Running:
        return ReplicaState::Running;
    case demo::ReplicaState::Stopping:
        return ReplicaState::Stopping;
    case demo::ReplicaState::Stopped:
        return ReplicaState::Stopped;
    case demo::ReplicaState::Killed:
        return ReplicaState::Killed;
    }
    Q_UNREACHABLE();
}

EventKind fromEngine(demo::DemoEventKind kind)
{
    switch (kind) {
    case demo::DemoEventKind::Acquired:
        return EventKind::Acquired;
    case demo::DemoEventKind::Released:
        return EventKind::Released;
    case demo::DemoEventKind::ReleaseFailed:
        return EventKind::ReleaseFailed;
    case demo::DemoEventKind::Lost:
        return EventKind::Lost;
    case demo::DemoEventKind::LateBeat:
        return EventKind::LateBeat;
    case demo::DemoEventKind::PausedObserved:
        return EventKind::PausedObserved;
    case demo::DemoEventKind::Fault:
        return EventKind::Fault;
    case demo::DemoEventKind::Takeover:
        return EventKind::Takeover;
    case demo::DemoEventKind::NoTakeover:
        return EventKind::NoTakeover;
    case demo::DemoEventKind::FaultMissed:
        return EventKind::FaultMissed;
    case demo::DemoEventKind::Error:
        return EventKind::Error;
    }
    Q_UNREACHABLE();
}

QString faultName(FaultKind kind)
{
    return QString::fromLatin1(faults::nameOf(toEngine(kind)));
}

QString replicaStateName(ReplicaState state)
{
    return QString::fromLatin1(demo::nameOf(toEngine(state)));
}

} // namespace leader::console
