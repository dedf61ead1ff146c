#pragma once

#include "core/statustypes.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

// What the tick history and the holder timeline both do with each poll: take only a newer one,
// and keep one record a role in the order the roles were first seen.

namespace leader::console {

// The snapshot's database time in msecs, with latestMs moved to it; nothing for a snapshot
// without a time or one no newer than latestMs (a poll answered out of order).
inline std::optional<qint64> advanceTo(const StatusSnapshot &snapshot,
                                       std::optional<qint64> &latestMs)
{
    if (!snapshot.databaseTime.isValid())
        return std::nullopt;
    const qint64 nowMs = snapshot.databaseTime.toMSecsSinceEpoch();
    if (latestMs && nowMs <= *latestMs)
        return std::nullopt;
    latestMs = nowMs;
    return nowMs;
}

// The role's record, made (and the role appended to order) on its first sighting.
template<typename Record>
Record &recordFor(QHash<QString, Record> &records, QStringList &order, const QString &role)
{
    auto it = records.find(role);
    if (it == records.end()) {
        order.append(role);
        it = records.insert(role, Record{});
    }
    return *it;
}

} // namespace leader::console
