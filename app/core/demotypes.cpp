#include "demotypes.h"

namespace leader::console {

QString faultName(FaultKind kind)
{
    return QString::fromLatin1(demo::nameOf(kind));
}

QString replicaStateName(ReplicaState state)
{
    return QString::fromLatin1(demo::nameOf(state));
}

} // namespace leader::console
