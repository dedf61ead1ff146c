#pragma once

#include "core/demotypes.h"
#include "core/holderchange.h"
#include "core/statustypes.h"

#include <QList>
#include <QObject>

namespace leader::console {

// Who took over what, from one database's polls: the holder changes the rows prove
// (HolderChangeTracker), and a takeover() for each takeover among them (takeoverFrom). Owned by
// ConsoleSession, which feeds it every snapshot: the window's Failovers list and the fleet's
// overview hear of takeovers from the session, not from each other.
class TakeoverTracker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TakeoverTracker)

public:
    using QObject::QObject;

    // The holder changes this snapshot proves, in the rows' order; emits takeover() for each
    // takeover among them first, unless demoMeasures: the demo measures its own from the faults it
    // injects, with the fault named (ConsoleSession::failoverMeasured).
    QList<HolderChange> append(const StatusSnapshot &snapshot, bool demoMeasures);
    void clear(); // another database: its holders are not this one's

Q_SIGNALS:
    void takeover(const leader::console::Failover &takeover);

private:
    HolderChangeTracker m_changes;
};

} // namespace leader::console
