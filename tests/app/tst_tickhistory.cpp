// TickHistory: the charts' memory of last_tick_age and of the backlog's pending counts.
// Decimation must keep every peak, a window must end at the latest database time, markers must
// follow pauses and holder changes, a backlog history must hold only the roles with a source, and
// a day of 1 s polls for five roles must stay small.

#include "core/tickhistory.h"

#include <QStandardPaths>
#include <QtTest>

#include <algorithm>
#include <cmath>

using leader::console::HistoryValue;
using leader::console::HistoryWindow;
using leader::console::RoleBacklog;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;
using leader::console::TickHistory;
using Kind = leader::console::TickHistory::Marker::Kind;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QStringList FiveRoles{QStringLiteral("billing"), QStringLiteral("dunning"),
                            QStringLiteral("email_outbox"), QStringLiteral("webhook_delivery"),
                            QStringLiteral("webhook_outbox")};

RoleStatus led(const QString &role, const QString &holder, qint64 token, double acquiredAtS,
               std::optional<double> age = 1.0)
{
    RoleStatus s;
    s.role = role;
    s.state = leader::console::RoleState::Led;
    s.holderId = holder;
    s.token = token;
    s.acquiredAt = Base.addMSecs(qint64(acquiredAtS * 1000));
    s.expiresInSeconds = 9.0;
    s.lastTickAgeSeconds = age;
    return s;
}

RoleStatus freeRole(const QString &role, std::optional<double> age = 1.0)
{
    RoleStatus s;
    s.role = role;
    s.state = leader::console::RoleState::Free;
    s.lastTickAgeSeconds = age;
    return s;
}

// A free role whose backlog source counted pending (nullopt: the source failed this poll).
RoleStatus withBacklog(const QString &role, std::optional<qint64> pending, const QString &what)
{
    RoleStatus s = freeRole(role);
    RoleBacklog backlog;
    backlog.what = what;
    backlog.pending = pending;
    if (!pending)
        backlog.error = QStringLiteral("42501: permission denied for table subscriptions");
    s.backlog = backlog;
    return s;
}

StatusSnapshot snapshotAt(double seconds, QList<RoleStatus> roles)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addMSecs(qint64(seconds * 1000));
    snapshot.roles = std::move(roles);
    return snapshot;
}

// A saw-tooth with the given period (age resets to 0 every period seconds), plus one stall: from
// stallAt the age keeps growing for stallLength seconds.
double sawTooth(qint64 s, int period, qint64 stallAt, int stallLength)
{
    if (s >= stallAt && s < stallAt + stallLength)
        return double(s - stallAt + (stallAt % period));
    return double(s % period);
}

} // namespace

class TstTickHistory final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void decimationKeepsPeak_data();
    void decimationKeepsPeak();
    void windowBounds_data();
    void windowBounds();
    void markers_data();
    void markers();
    void takeoverMarkersFollowTheClassifiedChanges();
    void ignoresOldAndNullSamples();
    void backlogKeepsPeaksOfRolesWithASource_data();
    void backlogKeepsPeaksOfRolesWithASource();
    void backlogMarkersSitOnTheCount_data();
    void backlogMarkersSitOnTheCount();
    void memoryBounded_data();
    void memoryBounded();
};

void TstTickHistory::decimationKeepsPeak_data()
{
    QTest::addColumn<HistoryWindow>("window");
    QTest::addColumn<int>("maxPoints");
    QTest::addColumn<qint64>("stallSecondsBeforeEnd");

    QTest::newRow("5 min, 50 points") << HistoryWindow::FiveMinutes << 50 << qint64(100);
    QTest::newRow("5 min, 7 points") << HistoryWindow::FiveMinutes << 7 << qint64(200);
    QTest::newRow("1 h, 100 points") << HistoryWindow::OneHour << 100 << qint64(1800);
    QTest::newRow("1 h, stall near start") << HistoryWindow::OneHour << 200 << qint64(3500);
    QTest::newRow("24 h, 300 points") << HistoryWindow::Day << 300 << qint64(40000);
    QTest::newRow("24 h, 1000 points") << HistoryWindow::Day << 1000 << qint64(85000);
}

void TstTickHistory::decimationKeepsPeak()
{
    QFETCH(HistoryWindow, window);
    QFETCH(int, maxPoints);
    QFETCH(qint64, stallSecondsBeforeEnd);

    const qint64 seconds = leader::console::historyWindowMs(window) / 1000 + 60;
    const qint64 stallAt = seconds - stallSecondsBeforeEnd;
    constexpr int StallLength = 30;
    constexpr int Period = 10;
    TickHistory history;
    double expectedPeak = 0;
    for (qint64 s = 0; s <= seconds; ++s) {
        const double age = sawTooth(s, Period, stallAt, StallLength);
        expectedPeak = std::max(expectedPeak, age);
        history.append(snapshotAt(double(s), {freeRole(QStringLiteral("billing"), age)}));
    }
    QVERIFY(expectedPeak >= StallLength - 1); // far above the saw-tooth's Period - 1

    const QList<QPointF> points = history.series(QStringLiteral("billing"), window, maxPoints);
    QVERIFY(!points.isEmpty());
    QVERIFY2(points.size() <= maxPoints, qPrintable(QString::number(points.size())));
    QVERIFY(std::is_sorted(points.cbegin(), points.cend(),
                           [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); }));
    const auto peak = std::max_element(points.cbegin(), points.cend(),
                                       [](auto a, auto b) { return a.y() < b.y(); });
    QCOMPARE(peak->y(), expectedPeak);
    QCOMPARE(history.maxAge(QStringLiteral("billing"), window), std::optional(expectedPeak));
    // The minimum survives as well: a decimated saw-tooth still reaches 0.
    const auto low = std::min_element(points.cbegin(), points.cend(),
                                      [](auto a, auto b) { return a.y() < b.y(); });
    QCOMPARE(low->y(), 0.0);
}

void TstTickHistory::windowBounds_data()
{
    QTest::addColumn<HistoryWindow>("window");
    QTest::addColumn<qint64>("resolutionMs"); // the coarsest store the window reads

    QTest::newRow("5 min") << HistoryWindow::FiveMinutes << qint64(1000);
    QTest::newRow("1 h") << HistoryWindow::OneHour << TickHistory::FineBucketMs;
    QTest::newRow("24 h") << HistoryWindow::Day << TickHistory::CoarseBucketMs;
}

void TstTickHistory::windowBounds()
{
    QFETCH(HistoryWindow, window);
    QFETCH(qint64, resolutionMs);

    // 26 h, so every store has been trimmed at least once.
    constexpr qint64 Seconds = 26 * 3600;
    TickHistory history;
    for (qint64 s = 0; s <= Seconds; ++s)
        history.append(snapshotAt(double(s), {freeRole(QStringLiteral("dunning"), double(s % 7))}));

    const qint64 endMs = Base.addSecs(Seconds).toMSecsSinceEpoch();
    QCOMPARE(history.latestTime().toMSecsSinceEpoch(), endMs);
    const qint64 startMs = endMs - leader::console::historyWindowMs(window);
    const QList<QPointF> points = history.series(QStringLiteral("dunning"), window, 100000);
    QVERIFY(!points.isEmpty());
    QVERIFY(points.first().x() >= double(startMs));
    QVERIFY(points.first().x() <= double(startMs + resolutionMs));
    QVERIFY(points.last().x() <= double(endMs));
    QVERIFY(points.last().x() >= double(endMs - resolutionMs));
    QVERIFY(history.series(QStringLiteral("nobody"), window, 100).isEmpty());
}

void TstTickHistory::markers_data()
{
    QTest::addColumn<QList<StatusSnapshot>>("snapshots");
    QTest::addColumn<QList<int>>("kinds");
    QTest::addColumn<double>("gapSeconds"); // of the last takeover; -1: none expected
    QTest::addColumn<QString>("pausedBy");

    const QString b = QStringLiteral("billing");
    const QString a1 = QStringLiteral("host:1:aaaaaaaa");
    const QString b2 = QStringLiteral("host:2:bbbbbbbb");

    RoleStatus paused = freeRole(b);
    paused.state = leader::console::RoleState::Paused;
    paused.pausedAt = Base.addSecs(5);
    paused.pausedBy = QStringLiteral("alice");
    paused.pauseReason = QStringLiteral("migration");

    QTest::newRow("pause") << QList<StatusSnapshot>{snapshotAt(1, {freeRole(b)}),
                                                    snapshotAt(6, {paused})}
                           << QList<int>{int(Kind::Pause)} << -1.0 << QStringLiteral("alice");
    QTest::newRow("pause then unpause")
            << QList<StatusSnapshot>{snapshotAt(1, {freeRole(b)}), snapshotAt(6, {paused}),
                                     snapshotAt(7, {paused}), snapshotAt(8, {freeRole(b)})}
            << QList<int>{int(Kind::Pause), int(Kind::Unpause)} << -1.0 << QStringLiteral("alice");
    // Holder changes alone make no marker: whether one was a takeover is the classifier's call.
    QTest::newRow("new holder, no classified change: no marker")
            << QList<StatusSnapshot>{snapshotAt(1, {led(b, a1, 1, 0.5)}),
                                     snapshotAt(12, {led(b, b2, 2, 11.5)})}
            << QList<int>{} << -1.0 << QString();
}

void TstTickHistory::markers()
{
    QFETCH(QList<StatusSnapshot>, snapshots);
    QFETCH(QList<int>, kinds);
    QFETCH(double, gapSeconds);
    QFETCH(QString, pausedBy);

    TickHistory history;
    for (const StatusSnapshot &snapshot : std::as_const(snapshots))
        history.append(snapshot);
    const QList<TickHistory::Marker> markers = history.markers(HistoryWindow::FiveMinutes);
    QList<int> actual;
    for (const TickHistory::Marker &marker : markers) {
        actual.append(int(marker.kind));
        QVERIFY(!marker.describe().isEmpty());
        QCOMPARE(marker.role, QStringLiteral("billing"));
    }
    QCOMPARE(actual, kinds);
    if (gapSeconds >= 0) {
        const TickHistory::Marker &last = markers.last();
        QVERIFY(last.gapSeconds.has_value());
        QCOMPARE(*last.gapSeconds, gapSeconds);
        QVERIFY(last.previousHolderId != last.holderId);
    }
    if (!pausedBy.isEmpty()) {
        QCOMPARE(markers.first().pausedBy, pausedBy);
        QCOMPARE(markers.first().time, Base.addSecs(5)); // pausedAt, not the poll's time
    }
}

// Takeover markers are the takeovers the rows proved (HolderChangeTracker): one per classified
// takeover, at the new acquired_at, with its gap; hand-overs, pauses and unknown changes make
// none. (Before, a "token + 1" rule of the history's own decided, and epoch-millisecond tokens
// never met it.)
void TstTickHistory::takeoverMarkersFollowTheClassifiedChanges()
{
    using leader::console::HolderChange;
    using leader::console::HolderChangeKind;
    const QString b = QStringLiteral("billing");
    HolderChange takeover;
    takeover.kind = HolderChangeKind::Takeover;
    takeover.role = b;
    takeover.previousHolder = QStringLiteral("host:1:aaaaaaaa");
    takeover.newHolder = QStringLiteral("host:2:bbbbbbbb");
    takeover.newToken = 1796308908424;
    takeover.acquiredAt = Base.addMSecs(11500);
    takeover.lastHeartbeatAt = Base.addSecs(1);
    takeover.gapSeconds = 10.5;
    HolderChange handover = takeover;
    handover.kind = HolderChangeKind::Handover;
    HolderChange unknown = takeover;
    unknown.kind = HolderChangeKind::Unknown;
    HolderChange pause = takeover;
    pause.kind = HolderChangeKind::Pause;

    TickHistory history;
    history.append(snapshotAt(1, {led(b, takeover.previousHolder, 1, 0.5)}));
    history.append(snapshotAt(12, {led(b, takeover.newHolder, takeover.newToken, 11.5, 0.5)}),
                   {handover, takeover, unknown, pause});
    const QList<TickHistory::Marker> markers = history.markers(HistoryWindow::FiveMinutes);
    QCOMPARE(markers.size(), 1);
    const TickHistory::Marker &marker = markers.first();
    QCOMPARE(marker.kind, Kind::Takeover);
    QCOMPARE(marker.time, takeover.acquiredAt);
    QCOMPARE(marker.holderId, takeover.newHolder);
    QCOMPARE(marker.previousHolderId, takeover.previousHolder);
    QCOMPARE(marker.token, takeover.newToken);
    QCOMPARE(*marker.gapSeconds, 10.5);
    QCOMPARE(marker.ageSeconds, 0.5); // on the role's line, where the poll put it
    QVERIFY(marker.describe().contains(QStringLiteral("10.5")));
}

void TstTickHistory::ignoresOldAndNullSamples()
{
    TickHistory history;
    history.append(snapshotAt(10, {freeRole(QStringLiteral("billing"), 4.0)}));
    history.append(snapshotAt(9, {freeRole(QStringLiteral("billing"), 99.0)}));
    history.append(snapshotAt(10, {freeRole(QStringLiteral("billing"), 99.0)}));
    history.append(snapshotAt(11, {freeRole(QStringLiteral("billing"), std::nullopt)}));
    const QList<QPointF> points
            = history.series(QStringLiteral("billing"), HistoryWindow::FiveMinutes, 10);
    QCOMPARE(points.size(), 1);
    QCOMPARE(points.first().y(), 4.0);
    QCOMPARE(history.latestTime(), Base.addSecs(11));
    history.clear();
    QVERIFY(history.isEmpty());
    QVERIFY(history.roles().isEmpty());
}

void TstTickHistory::backlogKeepsPeaksOfRolesWithASource_data()
{
    QTest::addColumn<HistoryWindow>("window");
    QTest::addColumn<int>("maxPoints");
    QTest::addColumn<qint64>("peakSecondsBeforeEnd");

    // Raw samples, then 10 s buckets, then 2 min buckets, each also decimated to maxPoints. The
    // peak is never a bucket's first sample, so a bucket has to raise its maximum to keep it.
    QTest::newRow("5 min, every sample") << HistoryWindow::FiveMinutes << 1000 << qint64(100);
    QTest::newRow("5 min, 9 points") << HistoryWindow::FiveMinutes << 9 << qint64(200);
    QTest::newRow("1 h, 10 s buckets") << HistoryWindow::OneHour << 1000 << qint64(1805);
    QTest::newRow("1 h, 40 points") << HistoryWindow::OneHour << 40 << qint64(3505);
    QTest::newRow("24 h, 2 min buckets") << HistoryWindow::Day << 1000 << qint64(40000);
    QTest::newRow("24 h, 60 points") << HistoryWindow::Day << 60 << qint64(85000);
}

// A backlog counted once a second: a few due items with one poll's burst of 5000 in it. The burst
// is one sample among hundreds in its bucket, yet every window shows it, and the idle 0 too. A
// role without a source is no series at all; one whose source fails is listed, without points.
// (Checked once: with addToBuckets no longer raising a bucket's maximum, the 1 h and 24 h rows
// fail: the peak reads as its bucket's first sample.)
void TstTickHistory::backlogKeepsPeaksOfRolesWithASource()
{
    QFETCH(HistoryWindow, window);
    QFETCH(int, maxPoints);
    QFETCH(qint64, peakSecondsBeforeEnd);

    const QString billing = QStringLiteral("billing");
    const QString dunning = QStringLiteral("dunning");
    const QString outbox = QStringLiteral("email_outbox");
    constexpr qint64 Peak = 5000;
    const qint64 seconds = leader::console::historyWindowMs(window) / 1000 + 60;
    const qint64 peakAt = seconds - peakSecondsBeforeEnd;
    TickHistory history(HistoryValue::BacklogPending);
    QCOMPARE(history.value(), HistoryValue::BacklogPending);
    for (qint64 s = 0; s <= seconds; ++s) {
        const qint64 pending = s == peakAt ? Peak : (s + 3) % 4;
        history.append(snapshotAt(
                double(s),
                {withBacklog(billing, pending, QStringLiteral("due subscriptions")),
                 freeRole(dunning, 2.0),
                 withBacklog(outbox, std::nullopt, QStringLiteral("pending outbox rows"))}));
    }

    QCOMPARE(history.roles(), (QStringList{billing, outbox}));
    QVERIFY(history.series(dunning, window, maxPoints).isEmpty());
    QCOMPARE(history.unit(dunning), QString());
    QVERIFY(history.series(outbox, window, maxPoints).isEmpty());
    QCOMPARE(history.unit(outbox), QStringLiteral("pending outbox rows"));
    QCOMPARE(history.unit(billing), QStringLiteral("due subscriptions"));

    const QList<QPointF> points = history.series(billing, window, maxPoints);
    QVERIFY(!points.isEmpty());
    QVERIFY2(points.size() <= maxPoints, qPrintable(QString::number(points.size())));
    const auto [low, high] = std::minmax_element(points.cbegin(), points.cend(),
                                                 [](auto a, auto b) { return a.y() < b.y(); });
    QCOMPARE(high->y(), double(Peak));
    QCOMPARE(low->y(), 0.0);
    QCOMPARE(history.maxAge(billing, window), std::optional(double(Peak)));

    // The same rows in an age history: every role, ages not counts.
    TickHistory ages;
    ages.append(snapshotAt(1, {withBacklog(billing, 7, QStringLiteral("due subscriptions")),
                               freeRole(dunning, 2.0)}));
    QCOMPARE(ages.roles(), (QStringList{billing, dunning}));
    QCOMPARE(ages.series(billing, window, maxPoints).constFirst().y(), 1.0);
    QCOMPARE(ages.unit(billing), QString());
}

void TstTickHistory::backlogMarkersSitOnTheCount_data()
{
    QTest::addColumn<HistoryValue>("value");
    QTest::addColumn<QStringList>("markedRoles"); // the markers' roles, in order
    QTest::addColumn<QList<double>>("markerValues");

    // billing (a source) and dunning (none) are paused at 5 s, dunning is taken over at 7 s and
    // billing at 8 s, and both are unpaused at 9 s; billing's backlog counts 10 a second, its
    // last tick age is 1 s.
    const QString b = QStringLiteral("billing");
    const QString d = QStringLiteral("dunning");
    QTest::newRow("backlog: billing's, on its count")
            << HistoryValue::BacklogPending << QStringList{b, b, b}
            << QList<double>{60.0, 80.0, 90.0};
    QTest::newRow("age: both roles', on their ages")
            << HistoryValue::LastTickAge << QStringList{b, d, d, b, b, d}
            << QList<double>{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
}

void TstTickHistory::backlogMarkersSitOnTheCount()
{
    QFETCH(HistoryValue, value);
    QFETCH(QStringList, markedRoles);
    QFETCH(QList<double>, markerValues);

    using leader::console::HolderChange;
    using leader::console::HolderChangeKind;
    const auto takeover = [](const QString &role, double atS) {
        HolderChange change;
        change.kind = HolderChangeKind::Takeover;
        change.role = role;
        change.previousHolder = QStringLiteral("host:1:aaaaaaaa");
        change.newHolder = QStringLiteral("host:2:bbbbbbbb");
        change.newToken = 2;
        change.acquiredAt = Base.addMSecs(qint64(atS * 1000));
        return change;
    };
    TickHistory history(value);
    for (int s = 1; s <= 10; ++s) {
        RoleStatus billing = withBacklog(QStringLiteral("billing"), s * 10,
                                         QStringLiteral("due subscriptions"));
        RoleStatus dunning = freeRole(QStringLiteral("dunning"));
        if (s >= 6 && s < 9) {
            for (RoleStatus *paused : {&billing, &dunning}) {
                paused->state = leader::console::RoleState::Paused;
                paused->pausedAt = Base.addSecs(5);
            }
        }
        QList<HolderChange> changes;
        if (s == 7)
            changes.append(takeover(QStringLiteral("dunning"), 7));
        if (s == 8)
            changes.append(takeover(QStringLiteral("billing"), 8));
        history.append(snapshotAt(s, {billing, dunning}), changes);
    }
    QStringList roles;
    QList<double> values;
    for (const TickHistory::Marker &marker : history.markers(HistoryWindow::FiveMinutes)) {
        roles.append(marker.role);
        values.append(marker.ageSeconds);
    }
    QCOMPARE(roles, markedRoles);
    QCOMPARE(values, markerValues);
}

void TstTickHistory::memoryBounded_data()
{
    QTest::addColumn<int>("pollsPerSecond");
    QTest::addColumn<int>("hours");

    QTest::newRow("1/s for 24 h") << 1 << 24;
    QTest::newRow("1/s for 30 h") << 1 << 30;
    QTest::newRow("4/s for 3 h") << 4 << 3;
}

void TstTickHistory::memoryBounded()
{
    QFETCH(int, pollsPerSecond);
    QFETCH(int, hours);

    TickHistory history;
    const qint64 polls = qint64(hours) * 3600 * pollsPerSecond;
    qsizetype afterOneDay = 0;
    for (qint64 i = 0; i < polls; ++i) {
        const double s = double(i) / pollsPerSecond;
        QList<RoleStatus> roles;
        for (const QString &role : FiveRoles) {
            // A takeover every minute, so markers accumulate too.
            const qint64 tick = qint64(s) / 30;
            roles.append(led(role, tick % 2 ? QStringLiteral("h:1:a") : QStringLiteral("h:2:b"),
                             tick, double(tick * 30), std::fmod(s, 13.0)));
        }
        history.append(snapshotAt(s, roles));
        if (i == 24 * 3600 * pollsPerSecond - 1)
            afterOneDay = history.approximateBytes();
    }
    const qsizetype bytes = history.approximateBytes();
    qInfo("TickHistory after %d h at %d/s for 5 roles: %lld bytes", hours, pollsPerSecond,
          qlonglong(bytes));
    QVERIFY2(bytes < 20 * 1024 * 1024, qPrintable(QString::number(bytes)));
    // Bounded, not merely small: past 24 h nothing grows any more.
    if (afterOneDay > 0)
        QVERIFY2(bytes <= afterOneDay * 11 / 10, qPrintable(QString::number(afterOneDay)));
    QVERIFY(history.markers(HistoryWindow::Day).size() <= TickHistory::MaxMarkers);
    for (const QString &role : FiveRoles)
        QVERIFY(history.series(role, HistoryWindow::Day, 1000).size() <= 1000);
}

QTEST_GUILESS_MAIN(TstTickHistory)

#include "tst_tickhistory.moc"
