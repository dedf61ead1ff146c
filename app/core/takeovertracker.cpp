#include "takeovertracker.h"

#include <optional>

namespace leader::console {

QList<HolderChange> TakeoverTracker::append(const StatusSnapshot &snapshot, bool demoMeasures)
{
    const QList<HolderChange> changes = m_changes.append(snapshot);
    if (demoMeasures)
        return changes;
    for (const HolderChange &change : changes) {
        if (const std::optional<Failover> failover = takeoverFrom(change))
            Q_EMIT takeover(*failover);
    }
    return changes;
}

void TakeoverTracker::clear()
{
    m_changes.clear();
}

} // namespace leader::console
