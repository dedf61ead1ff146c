#pragma once

#include "core/demotypes.h"
#include "core/holderchange.h"
#include "core/statustypes.h"

#include <QList>
#include <QString>

#include <optional>

namespace leader::console {

class AgeOrigins;
class AgeThresholds;

// What changed between two polls of leader_status, as event log entries with source "poll":
//   "paused" (detail: by whom and why), "unpaused", "state" (e.g. "led -> free"),
//   "acquired" (a new token: the same holder's next tick, the first holder seen, or another holder
//   when no classification of the change is given), one event per classified holder change in
//   holderChanges (HolderChangeTracker::append(after)): "rotation", "takeover" (with the gap
//   from the last heartbeat), "after pause" and "new holder" (unknown), and, with thresholds,
//   "age warning", "age alert" and "age ok" when a role's age level (ageLevelOf()) crosses one.
// A paused role, and one starting (not run since it was unpaused or first seen, within its first
// interval), is neutral: no age event; an unpaused role that does not run warns and alerts by the
// time since its unpause. origins are as of before or after (the console's own, fed every poll);
// without them the diff knows only the pauses that end between the two polls.
// Roles missing from either snapshot produce nothing (the first poll has no "before").
// Pure: the entries are stamped with after.receivedAt and after.databaseTime.
QList<EventLogEntry> changesBetween(const StatusSnapshot &before, const StatusSnapshot &after,
                                    const AgeThresholds *thresholds = nullptr,
                                    const QList<HolderChange> &holderChanges = {},
                                    const AgeOrigins *origins = nullptr);

// The event log's line about reading the backlog (StatusSnapshot::backlogError, itself the line),
// once a change: when a poll's read fails and the last one's did not, or failed otherwise, and when
// it is read again after a failure; none while it stays as it was. before: the last poll's error
// (empty for the first poll of a connection).
std::optional<QString> backlogReadLine(const QString &before, const QString &after);

} // namespace leader::console
