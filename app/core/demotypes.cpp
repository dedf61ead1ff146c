#include "demotypes.h"

#include "core/demoengine.h"

namespace leader::console {

demo::FaultKind toEngine(FaultKind kind)
{
    switch (kind) {
    case FaultKind::Kill:
        return demo::FaultKind::Kill;
    case FaultKind::Freeze:
        return demo::FaultKind::Freeze;
    case FaultKind::Sever:
        return demo::FaultKind::Sever;
    case FaultKind::Slow:
        return demo::FaultKind::Slow;
    case FaultKind::Heal:
        return demo::FaultKind::Heal;
    case FaultKind::Panic:
        return demo::FaultKind::Panic;
    case FaultKind::Stop:
        return demo::FaultKind::Stop;
    case FaultKind::Restart:
        return demo::FaultKind::Restart;
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

QString faultName(FaultKind kind)
{
    return QString::fromLatin1(demo::nameOf(toEngine(kind)));
}

QString replicaStateName(ReplicaState state)
{
    return QString::fromLatin1(demo::nameOf(toEngine(state)));
}

} // namespace leader::console
