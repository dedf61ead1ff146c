#include "demotypes.h"

namespace leader::console {

QString faultName(FaultKind kind)
{
    switch (kind) {
    case FaultKind::Kill:
        return QStringLiteral("kill");
    case FaultKind::Freeze:
        return QStringLiteral("freeze");
    case FaultKind::Sever:
        return QStringLiteral("sever");
    case FaultKind::Slow:
        return QStringLiteral("slow");
    case FaultKind::Heal:
        return QStringLiteral("heal");
    case FaultKind::Panic:
        return QStringLiteral("panic");
    case FaultKind::Stop:
        return QStringLiteral("stop");
    case FaultKind::Restart:
        return QStringLiteral("restart");
    }
    return QStringLiteral("unknown");
}

QString replicaStateName(ReplicaState state)
{
    switch (state) {
    case ReplicaState::Starting:
        return QStringLiteral("starting");
    case ReplicaState::Running:
        return QStringLiteral("running");
    case ReplicaState::Stopping:
        return QStringLiteral("stopping");
    case ReplicaState::Stopped:
        return QStringLiteral("stopped");
    case ReplicaState::Killed:
        return QStringLiteral("killed");
    }
    return QStringLiteral("unknown");
}

} // namespace leader::console
