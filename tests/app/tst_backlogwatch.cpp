// When a role's growing backlog is an alert (BacklogWatch, issue 36 point 4): one role over a run
// of polls, its health and its pending count at each; then the same judged from whole snapshots
// (healthOf() of the rows), and the alert's line.

#include "agepolls.h"
#include "models/backlogwatch.h"

#include <QTest>

using namespace leader::console;

namespace {

// One poll: seconds after the start, the role's health, its pending count (< 0: no reading, the
// source failed or none is registered).
struct BacklogPoll
{
    double at = 0;
    Health health = Health::Ok;
    qint64 pending = -1;
};
using BacklogPolls = QList<BacklogPoll>;

QDateTime start()
{
    return leader::test::agePollsStart();
}

RoleBacklog backlogOf(qint64 pending, std::optional<double> oldest = std::nullopt)
{
    return RoleBacklog{QStringLiteral("due subscriptions"), pending, oldest, {}};
}

} // namespace

Q_DECLARE_METATYPE(BacklogPoll)

class TstBacklogWatch final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Mutation check (done once): with the growth predicate `pending <= baseline` turned into
    // `pending < baseline` (a count equal to the spell's start counted as growth), "paused and
    // flat" and "the spell's end resets its baseline" alerted with no growth, and "one spike that
    // falls back" alerted at 50 s; restored, every row passes.
    void alertsOverPolls_data()
    {
        QTest::addColumn<BacklogPolls>("polls");
        QTest::addColumn<QList<double>>("alertedAt"); // the polls that alerted
        using H = Health;
        QTest::newRow("paused and growing")
                << BacklogPolls{{0, H::Paused, 0}, {10, H::Paused, 5}, {40, H::Paused, 37}}
                << QList<double>{40};
        QTest::newRow("paused and flat")
                << BacklogPolls{{0, H::Paused, 12}, {10, H::Paused, 12}, {40, H::Paused, 12}}
                << QList<double>();
        QTest::newRow("paused and shrinking")
                << BacklogPolls{{0, H::Paused, 12}, {20, H::Paused, 8}, {60, H::Paused, 3}}
                << QList<double>();
        QTest::newRow("running and growing")
                << BacklogPolls{{0, H::Ok, 0}, {10, H::Ok, 5}, {40, H::Ok, 37}, {80, H::Ok, 90}}
                << QList<double>();
        QTest::newRow("starting and growing")
                << BacklogPolls{{0, H::Starting, 0}, {10, H::Starting, 5}, {45, H::Starting, 9}}
                << QList<double>();
        QTest::newRow("starved (warn) and growing")
                << BacklogPolls{{0, H::Warn, 3}, {5, H::Warn, 4}, {35, H::Warn, 6}}
                << QList<double>{35};
        QTest::newRow("stalled (alert) and growing")
                << BacklogPolls{{0, H::Alert, 3}, {5, H::Alert, 4}, {35, H::Alert, 6}}
                << QList<double>{35};
        QTest::newRow("paused then starved is one spell")
                << BacklogPolls{{0, H::Paused, 0}, {20, H::Warn, 2}, {50, H::Alert, 4}}
                << QList<double>{50};
        QTest::newRow("one spike that falls back") << BacklogPolls{{0, H::Paused, 10},
                                                                   {10, H::Paused, 40},
                                                                   {20, H::Paused, 10},
                                                                   {50, H::Paused, 11}}
                                                   << QList<double>();
        QTest::newRow("one sample above is not enough, however late")
                << BacklogPolls{{0, H::Paused, 10}, {100, H::Paused, 40}} << QList<double>();
        QTest::newRow("two polls above but under 30 s")
                << BacklogPolls{{0, H::Paused, 0}, {10, H::Paused, 5}, {39, H::Paused, 9}}
                << QList<double>();
        QTest::newRow("once a spell") << BacklogPolls{{0, H::Paused, 0},
                                                      {10, H::Paused, 5},
                                                      {40, H::Paused, 37},
                                                      {80, H::Paused, 90},
                                                      {120, H::Paused, 150}}
                                      << QList<double>{40};
        QTest::newRow("again only after the spell ended and another began")
                << BacklogPolls{{0, H::Paused, 0},   {10, H::Paused, 5},  {40, H::Paused, 37},
                                {50, H::Ok, 37},     {60, H::Paused, 37}, {70, H::Paused, 40},
                                {100, H::Paused, 41}}
                << QList<double>{40, 100};
        QTest::newRow("the spell's end resets its baseline")
                << BacklogPolls{{0, H::Paused, 0},  {10, H::Paused, 5}, {20, H::Ok, 5},
                                {30, H::Paused, 5}, {45, H::Paused, 5}, {75, H::Paused, 5}}
                << QList<double>();
        QTest::newRow("no reading neither sets nor breaks") << BacklogPolls{{0, H::Paused, -1},
                                                                            {10, H::Paused, 2},
                                                                            {20, H::Paused, 4},
                                                                            {30, H::Paused, -1},
                                                                            {50, H::Paused, 5}}
                                                            << QList<double>{50};
        QTest::newRow("no source at all")
                << BacklogPolls{{0, H::Paused, -1}, {40, H::Paused, -1}} << QList<double>();
    }
    void alertsOverPolls()
    {
        QFETCH(BacklogPolls, polls);
        BacklogWatch watch;
        QList<double> alertedAt;
        for (const BacklogPoll &poll : std::as_const(polls)) {
            const std::optional<RoleBacklog> backlog
                    = poll.pending < 0 ? std::nullopt : std::optional(backlogOf(poll.pending));
            const auto growth = watch.observe(QStringLiteral("billing"), poll.health, backlog,
                                              start().addMSecs(qint64(poll.at * 1000)));
            if (growth) {
                QCOMPARE(growth->role, QStringLiteral("billing"));
                QCOMPARE(int(growth->health), int(poll.health));
                QCOMPARE(growth->to, poll.pending);
                QVERIFY(growth->to > growth->from);
                QVERIFY(growth->overSeconds >= BacklogWatch::MinSpanSeconds);
                alertedAt << poll.at;
            }
        }
        QTEST(alertedAt, "alertedAt");
    }

    // From snapshots: a paused row is Paused by healthOf(), a free row that ticked a moment ago
    // is Ok; each role keeps its own spell, and a role gone from the rows is forgotten.
    void judgesSnapshots()
    {
        using leader::test::AgePoll;
        const auto poll = [](double at, QList<RoleStatus> rows) {
            return leader::test::snapshotAt(AgePoll{at}, std::move(rows));
        };
        const auto row = [](const QString &role, RoleState state, qint64 pending) {
            RoleStatus status = leader::test::statusAt(role, AgePoll{0, state, 1});
            status.backlog = backlogOf(pending, 240);
            return status;
        };
        const QString billing = QStringLiteral("billing");
        const QString dunning = QStringLiteral("dunning");
        BacklogWatch watch;
        AgeOrigins origins;
        const AgeThresholds thresholds = AgeThresholds::defaults();
        const auto observe = [&](const StatusSnapshot &snapshot) {
            origins.observe(snapshot);
            return watch.observe(snapshot, thresholds, origins);
        };
        QVERIFY(observe(poll(0, {row(billing, RoleState::Paused, 0),
                                 row(dunning, RoleState::Free, 0)}))
                        .isEmpty());
        QVERIFY(observe(poll(10, {row(billing, RoleState::Paused, 5),
                                  row(dunning, RoleState::Free, 5)}))
                        .isEmpty());
        const QList<BacklogGrowth> grown = observe(
                poll(40, {row(billing, RoleState::Paused, 37), row(dunning, RoleState::Free, 37)}));
        QCOMPARE(grown.size(), 1);
        QCOMPARE(grown.at(0).role, billing);
        QCOMPARE(backlogGrowthText(grown.at(0)),
                 QStringLiteral("billing: paused, and its backlog grew from 0 to 37 due "
                                "subscriptions over 30.0 s (oldest 4 min 0 s)"));

        // billing leaves the rows and comes back paused: a new spell, its baseline 37.
        QVERIFY(observe(poll(50, {row(dunning, RoleState::Free, 37)})).isEmpty());
        QVERIFY(observe(poll(60, {row(billing, RoleState::Paused, 37)})).isEmpty());
        QVERIFY(observe(poll(70, {row(billing, RoleState::Paused, 38)})).isEmpty());
        QCOMPARE(observe(poll(100, {row(billing, RoleState::Paused, 39)})).size(), 1);
    }

    void growthText_data()
    {
        QTest::addColumn<BacklogGrowth>("growth");
        QTest::addColumn<QString>("text");
        const QString billing = QStringLiteral("billing");
        const QString what = QStringLiteral("due subscriptions");
        QTest::newRow("paused")
                << BacklogGrowth{billing, Health::Paused, what, 0, 37, 45, 240}
                << "billing: paused, and its backlog grew from 0 to 37 due subscriptions over "
                   "45.0 s (oldest 4 min 0 s)";
        QTest::newRow("starved, no oldest")
                << BacklogGrowth{billing, Health::Warn, what, 3, 6, 31, std::nullopt}
                << "billing: starved (its last tick is late), and its backlog grew from 3 to 6 "
                   "due subscriptions over 31.0 s";
    }
    void growthText()
    {
        QFETCH(BacklogGrowth, growth);
        QTEST(backlogGrowthText(growth), "text");
    }
};

Q_DECLARE_METATYPE(BacklogGrowth)

QTEST_MAIN(TstBacklogWatch)
#include "tst_backlogwatch.moc"
