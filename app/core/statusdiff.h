#pragma once

#include "core/demotypes.h"
#include "core/holderchange.h"
#include "core/statustypes.h"

#include <QList>

namespace leader::console {

class AgeThresholds;

// What changed between two polls of leader_status, as event log entries with source "poll":
//   "paused" (detail: by whom and why), "unpaused", "state" (e.g. "led -> free"),
//   "acquired" (a new token: the same holder's next tick, the first holder seen, or another holder
//   when no classification of the change is given), one event per classified holder change in
//   holderChanges (HolderChangeTracker::append(after)): "handover", "takeover" (with the gap
//   from the last heartbeat), "after pause" and "new holder" (unknown), and, with thresholds,
//   "age warning", "age alert" and "age ok" when a role's last-tick age crosses a level.
// Roles missing from either snapshot produce nothing (the first poll has no "before").
// Pure: the entries are stamped with after.receivedAt and after.databaseTime.
QList<EventLogEntry> changesBetween(const StatusSnapshot &before, const StatusSnapshot &after,
                                    const AgeThresholds *thresholds = nullptr,
                                    const QList<HolderChange> &holderChanges = {});

} // namespace leader::console
