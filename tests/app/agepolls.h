#pragma once

// One role's rows over a run of polls, for the tests of the console's neutral states (paused,
// starting): tst_health, tst_statusdiff, tst_statusmodel and tst_fleetmodel read the same runs.

#include "core/statustypes.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

namespace leader::test {

// One poll: seconds after the run's start on the database clock, the role's state, its last
// tick's age (< 0: never ran) and, for a pause that ends by itself, its end (seconds; < 0: none).
struct AgePoll
{
    double at = 0;
    console::RoleState state = console::RoleState::Free;
    double age = -1;
    double pausedUntil = -1;
};
using AgePolls = QList<AgePoll>;

inline QDateTime agePollsStart()
{
    return QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
}

inline console::RoleStatus statusAt(const QString &role, const AgePoll &poll)
{
    console::RoleStatus status;
    status.role = role;
    status.state = poll.state;
    status.token = 100;
    if (poll.age >= 0)
        status.lastTickAgeSeconds = poll.age;
    if (poll.state == console::RoleState::Paused) {
        status.pausedBy = QStringLiteral("alice@ops");
        status.pauseReason = QStringLiteral("migration");
        status.pausedAt = agePollsStart();
        if (poll.pausedUntil >= 0)
            status.pausedUntil = agePollsStart().addMSecs(qint64(poll.pausedUntil * 1000));
    }
    return status;
}

inline console::StatusSnapshot snapshotAt(const AgePoll &poll, QList<console::RoleStatus> roles)
{
    console::StatusSnapshot snapshot;
    snapshot.roles = std::move(roles);
    snapshot.databaseTime = agePollsStart().addMSecs(qint64(poll.at * 1000));
    snapshot.receivedAt = snapshot.databaseTime;
    return snapshot;
}

// The role's poll as a snapshot of that role alone.
inline console::StatusSnapshot snapshotAt(const QString &role, const AgePoll &poll)
{
    return snapshotAt(poll, {statusAt(role, poll)});
}

} // namespace leader::test

Q_DECLARE_METATYPE(leader::test::AgePoll)
