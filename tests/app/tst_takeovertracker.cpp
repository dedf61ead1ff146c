// TakeoverTracker: the session's one classifier of takeovers, on synthetic polls of billing. It
// returns every holder change the rows prove and emits takeover() for the takeovers among them
// only, and none while the demo measures its own. Checked once, breaking TakeoverTracker::append:
// with its demoMeasures test inverted the four takeover rows fail (the demo's included); telling
// every change as a takeover fails the handover, pause and unknown rows.

#include "core/takeovertracker.h"

#include <QSignalSpy>
#include <QtTest>

using leader::console::Failover;
using leader::console::HolderChange;
using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;
using leader::console::TakeoverTracker;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QString A = QStringLiteral("host:1:aaaaaaaa");
const QString B = QStringLiteral("host:2:bbbbbbbb");
const QString C = QStringLiteral("host:3:cccccccc");

QDateTime at(double seconds)
{
    return Base.addMSecs(qint64(seconds * 1000));
}

// One poll of billing, times in seconds after Base; a negative time is none.
struct Poll
{
    double at = 0;
    QString holder; // empty: nobody holds it
    qint64 token = 0;
    double acquiredAt = -1;
    double expiresIn = 9.0;
    QString lastTickHolder;
    double lastTickEndedAt = -1;
    RoleState state = RoleState::Free; // when nobody holds it
    QString tookOver;                  // leader_status.took_over (migration 0179)
};

StatusSnapshot snapshotOf(const Poll &poll)
{
    RoleStatus role;
    role.role = QStringLiteral("billing");
    role.state = poll.holder.isEmpty() ? poll.state : RoleState::Led;
    role.holderId = poll.holder;
    role.token = poll.token;
    if (!poll.holder.isEmpty()) {
        role.acquiredAt = at(poll.acquiredAt);
        role.expiresInSeconds = poll.expiresIn;
    }
    role.lastTickHolder = poll.lastTickHolder;
    if (poll.lastTickEndedAt >= 0)
        role.lastTickEndedAt = at(poll.lastTickEndedAt);
    role.tookOver = leader::console::parseTookOver(poll.tookOver);
    StatusSnapshot snapshot;
    snapshot.databaseTime = at(poll.at);
    snapshot.receivedAt = snapshot.databaseTime;
    snapshot.roles = {role};
    return snapshot;
}

// "victim → successor, fault, gap": what the Failovers list and the fleet's overview show.
QString line(const Failover &takeover)
{
    return QStringLiteral("%1 → %2, %3, %4 s")
            .arg(takeover.victimHolder, takeover.successorHolder, takeover.fault)
            .arg(takeover.gapSeconds, 0, 'f', 2);
}

} // namespace

class TstTakeoverTracker final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void takeovers_data();
    void takeovers();
    void clearForgetsTheHolders();
};

void TstTakeoverTracker::takeovers_data()
{
    QTest::addColumn<QList<Poll>>("polls");
    QTest::addColumn<bool>("demoMeasures");
    QTest::addColumn<int>("changes");
    QTest::addColumn<QStringList>("takeovers");

    // A last seen at 4 s with 8 s left: its last heartbeat was at 2 s, its lease ran out at 12 s.
    const QList<Poll> expired{
            {1.0, A, 7, 0.5}, {4.0, A, 7, 0.5, 8.0}, {8.0, {}}, {12.2, {}}, {13.0, B, 8, 12.5}};
    QTest::newRow("expired, polled throughout: a takeover")
            << expired << false << 1
            << QStringList{QStringLiteral("%1 → %2, expiry (database), 10.50 s").arg(A, B)};
    QTest::newRow("expired while the demo measures its own: none told")
            << expired << true << 1 << QStringList();
    // B likewise, from 16 s: its last heartbeat at 14 s, C's acquisition at 24.5 s.
    QTest::newRow("two expiries: two takeovers, in order")
            << QList<Poll>{{1.0, A, 7, 0.5},   {4.0, A, 7, 0.5, 8.0},   {8.0, {}},  {12.2, {}},
                           {13.0, B, 8, 12.5}, {16.0, B, 8, 12.5, 8.0}, {20.0, {}}, {24.2, {}},
                           {25.0, C, 9, 24.5}}
            << false << 2
            << QStringList{QStringLiteral("%1 → %2, expiry (database), 10.50 s").arg(A, B),
                           QStringLiteral("%1 → %2, expiry (database), 10.50 s").arg(B, C)};
    QTest::newRow("the previous holder died, taken before its expiry: a takeover")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0,
                            B,
                            8,
                            1.6,
                            9.0,
                            {},
                            -1,
                            RoleState::Led,
                            QStringLiteral("session_ended")}}
            << false << 1
            << QStringList{QStringLiteral("%1 → %2, holder died (database), 1.60 s").arg(A, B)};
    QTest::newRow("completed, next holder before expiry: a handover, none told")
            << QList<Poll>{{1.0, A, 7, 0.5}, {2.0, B, 8, 1.75, 9.0, A, 1.25}} << false << 1
            << QStringList();
    QTest::newRow("a pause in between: none told")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, -1, 0, {}, -1, RoleState::Paused},
                           {30.0, B, 8, 29.5}}
            << false << 1 << QStringList();
    QTest::newRow("polls a lease apart: unknown, none told")
            << QList<Poll>{{1.0, A, 7, 0.5}, {25.0, B, 8, 24.0}} << false << 1 << QStringList();
    QTest::newRow("same holder, next token: no change")
            << QList<Poll>{{1.0, A, 7, 0.5}, {2.0, {}, 0, -1, 0, A, 1.5}, {4.0, A, 8, 3.5}} << false
            << 0 << QStringList();
}

void TstTakeoverTracker::takeovers()
{
    QFETCH(QList<Poll>, polls);
    QFETCH(bool, demoMeasures);
    QFETCH(int, changes);
    QFETCH(QStringList, takeovers);

    TakeoverTracker tracker;
    QStringList told;
    QList<HolderChange> found;
    connect(&tracker, &TakeoverTracker::takeover, this,
            [&told](const Failover &takeover) { told.append(line(takeover)); });
    for (const Poll &poll : std::as_const(polls)) {
        const qsizetype before = told.size();
        const QList<HolderChange> proved = tracker.append(snapshotOf(poll), demoMeasures);
        // Told while the snapshot is appended, one per takeover among its changes.
        QVERIFY(told.size() - before <= proved.size());
        found += proved;
    }
    QCOMPARE(found.size(), changes);
    QCOMPARE(told, takeovers);
    for (const HolderChange &change : std::as_const(found))
        QCOMPARE(change.role, QStringLiteral("billing"));
}

void TstTakeoverTracker::clearForgetsTheHolders()
{
    TakeoverTracker tracker;
    QSignalSpy told(&tracker, &TakeoverTracker::takeover);
    QVERIFY(tracker.append(snapshotOf({1.0, A, 7, 0.5}), false).isEmpty());
    QVERIFY(tracker.append(snapshotOf({4.0, A, 7, 0.5, 8.0}), false).isEmpty());
    tracker.clear();
    // Another database's billing: its first holder is no change from this one's (kept, A to B
    // would be an unknown change: polls a lease apart).
    QVERIFY(tracker.append(snapshotOf({13.0, B, 8, 12.5}), false).isEmpty());
    QCOMPARE(told.size(), 0);
}

QTEST_GUILESS_MAIN(TstTakeoverTracker)
#include "tst_takeovertracker.moc"
