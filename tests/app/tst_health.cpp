// Health at a glance: each role's from its state, its last tick's age against its thresholds and
// whether the rows are live; a database's worst role. Over a run of polls (AgeOrigins): a paused
// role and one starting (never ran, or unpaused, within its first interval) are neutral, and an
// unpaused role is judged from the end of its pause.

#include "agepolls.h"
#include "models/health.h"

#include <QTest>

using namespace leader::console;
using leader::test::AgePoll;
using leader::test::AgePolls;

Q_DECLARE_METATYPE(leader::console::AgeLevel)
Q_DECLARE_METATYPE(leader::console::Health)

class TstHealth final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ofOneRole_data()
    {
        QTest::addColumn<RoleState>("state");
        QTest::addColumn<double>("age"); // < 0: no tick completed
        QTest::addColumn<bool>("stale");
        QTest::addColumn<Health>("expected");
        QTest::addColumn<QString>("name");
        // billing ticks each minute: warning at 135 s, alert at 270 s.
        QTest::newRow("fresh") << RoleState::Led << 20.0 << false << Health::Ok << "ok";
        QTest::newRow("warning") << RoleState::Free << 140.0 << false << Health::Warn << "warn";
        QTest::newRow("alert") << RoleState::Free << 300.0 << false << Health::Alert << "alert";
        QTest::newRow("never ran")
                << RoleState::NeverRan << -1.0 << false << Health::Warn << "warn";
        // A pause makes the age grow on purpose: not an alarm.
        QTest::newRow("paused and old")
                << RoleState::Paused << 900.0 << false << Health::Paused << "paused";
        // Rows that are not live claim nothing, however good they looked.
        QTest::newRow("stale and fresh")
                << RoleState::Led << 1.0 << true << Health::Stale << "stale";
        QTest::newRow("stale and paused")
                << RoleState::Paused << 1.0 << true << Health::Stale << "stale";
    }
    void ofOneRole()
    {
        QFETCH(RoleState, state);
        QFETCH(double, age);
        QFETCH(bool, stale);
        QFETCH(Health, expected);
        QFETCH(QString, name);
        RoleStatus status;
        status.role = QStringLiteral("billing");
        status.state = state;
        if (age >= 0)
            status.lastTickAgeSeconds = age;
        const AgeThresholds thresholds = AgeThresholds::defaults();
        QCOMPARE(healthOf(status, thresholds, stale), expected);
        QCOMPARE(healthName(expected), name);
        QCOMPARE(worstHealth({status}, thresholds, stale), expected);
    }

    void worstOfSeveral()
    {
        const AgeThresholds thresholds = AgeThresholds::defaults();
        RoleStatus fresh;
        fresh.role = QStringLiteral("billing");
        fresh.state = RoleState::Led;
        fresh.lastTickAgeSeconds = 3;
        RoleStatus paused = fresh;
        paused.role = QStringLiteral("dunning");
        paused.state = RoleState::Paused;
        RoleStatus late = fresh;
        late.role = QStringLiteral("email_outbox"); // ticks every 2 s: alert at 38 s
        late.lastTickAgeSeconds = 40;
        QCOMPARE(worstHealth({}, thresholds, false), Health::Ok);
        QCOMPARE(worstHealth({fresh}, thresholds, false), Health::Ok);
        QCOMPARE(worstHealth({fresh, paused}, thresholds, false), Health::Paused);
        QCOMPARE(worstHealth({late, fresh, paused}, thresholds, false), Health::Alert);
        QCOMPARE(worstHealth({}, thresholds, true), Health::Stale);
    }

    // billing's runs (warning at 135 s, alert at 270 s), fed to AgeOrigins poll by poll: the
    // health and age level after the last poll. Mutation checks (done once each): judging a
    // paused role's age failed "paused an hour"; no origin at a pause's end failed the unpaused
    // rows up to 135 s, "a pause that ran out 134 s ago" and "never ran and paused, unpaused";
    // counting a pause that ran out from the poll that saw it over failed "... 150 s ago", from
    // the last poll that showed it "... 134 s ago"; no origin at the first poll failed the
    // starting "never ran" rows and startingCountsAsOk.
    void overPolls_data()
    {
        QTest::addColumn<AgePolls>("polls");
        QTest::addColumn<Health>("health");
        QTest::addColumn<AgeLevel>("level");
        using S = RoleState;
        const AgePolls pausedAnHour{{0, S::Free, 10}, {10, S::Paused, 20}, {3600, S::Paused, 3610}};
        QTest::newRow("paused an hour") << pausedAnHour << Health::Paused << AgeLevel::Neutral;
        QTest::newRow("unpaused, at once") << pausedAnHour + AgePolls{{3601, S::Free, 3611}}
                                           << Health::Starting << AgeLevel::Neutral;
        // Counted from the last poll that showed the pause (3600 s).
        QTest::newRow("unpaused, 134 s without a tick")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3734, S::Free, 3744}}
                << Health::Starting << AgeLevel::Neutral;
        QTest::newRow("unpaused, 135 s without a tick")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3735, S::Free, 3745}}
                << Health::Warn << AgeLevel::Warning;
        QTest::newRow("unpaused, 270 s without a tick")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3870, S::Free, 3880}}
                << Health::Alert << AgeLevel::Alert;
        QTest::newRow("unpaused and ticked")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3640, S::Free, 2}} << Health::Ok
                << AgeLevel::Ok;
        // Paused until 100 s, last seen paused at 90 s: judged from 100 s, however late the
        // console sees the pause over.
        const AgePolls ranOut{
                {0, S::Free, 10}, {10, S::Paused, 20, 100}, {90, S::Paused, 100, 100}};
        QTest::newRow("a pause that ran out 134 s ago")
                << ranOut + AgePolls{{234, S::Free, 244}} << Health::Starting << AgeLevel::Neutral;
        QTest::newRow("a pause that ran out 150 s ago")
                << ranOut + AgePolls{{250, S::Free, 260}} << Health::Warn << AgeLevel::Warning;
        QTest::newRow("never ran, first poll")
                << AgePolls{{0, S::NeverRan}} << Health::Starting << AgeLevel::Neutral;
        QTest::newRow("never ran, within its first interval")
                << AgePolls{{0, S::NeverRan}, {134, S::NeverRan}} << Health::Starting
                << AgeLevel::Neutral;
        QTest::newRow("never ran, past its first interval")
                << AgePolls{{0, S::NeverRan}, {135, S::NeverRan}} << Health::Warn
                << AgeLevel::Unknown;
        QTest::newRow("never ran, then its first tick")
                << AgePolls{{0, S::NeverRan}, {30, S::Free, 5}} << Health::Ok << AgeLevel::Ok;
        QTest::newRow("never ran and paused, unpaused")
                << AgePolls{{0, S::Paused}, {100, S::NeverRan}} << Health::Starting
                << AgeLevel::Neutral;
        QTest::newRow("never ran and paused, unpaused long ago")
                << AgePolls{{0, S::Paused}, {100, S::NeverRan}, {235, S::NeverRan}} << Health::Warn
                << AgeLevel::Unknown;
        // A late tick is the database's fact: the console's start does not excuse it.
        QTest::newRow("late at the first poll")
                << AgePolls{{0, S::Free, 200}} << Health::Warn << AgeLevel::Warning;
    }
    void overPolls()
    {
        QFETCH(AgePolls, polls);
        const AgeThresholds thresholds = AgeThresholds::defaults();
        const QString billing = QStringLiteral("billing");
        AgeOrigins origins;
        for (const AgePoll &poll : std::as_const(polls)) {
            origins.observe(leader::test::snapshotAt(billing, poll));
            // Seeing the same poll twice changes nothing: StatusModel and changesBetween may.
            AgeOrigins again = origins;
            again.observe(leader::test::snapshotAt(billing, poll));
            const RoleStatus status = leader::test::statusAt(billing, poll);
            QCOMPARE(healthOf(status, thresholds, false, again),
                     healthOf(status, thresholds, false, origins));
        }
        const RoleStatus last = leader::test::statusAt(billing, polls.constLast());
        QTEST(healthOf(last, thresholds, false, origins), "health");
        QTEST(ageLevelOf(last, thresholds, origins), "level");
        QCOMPARE(healthOf(last, thresholds, true, origins), Health::Stale);
    }

    // The fleet overview's worst: a role starting is as good as ok, a pause still shows.
    void startingCountsAsOk()
    {
        const AgeThresholds thresholds = AgeThresholds::defaults();
        RoleStatus billing;
        billing.role = QStringLiteral("billing");
        billing.state = RoleState::NeverRan;
        RoleStatus dunning = billing;
        dunning.role = QStringLiteral("dunning");
        StatusSnapshot fresh;
        fresh.roles = {billing, dunning};
        fresh.databaseTime = leader::test::agePollsStart();
        AgeOrigins origins;
        origins.observe(fresh);
        QCOMPARE(healthOf(billing, thresholds, false, origins), Health::Starting);
        QCOMPARE(worstHealth(fresh.roles, thresholds, false, origins), Health::Ok);
        dunning.state = RoleState::Paused;
        QCOMPARE(worstHealth({billing, dunning}, thresholds, false, origins), Health::Paused);
        QCOMPARE(healthName(Health::Starting), QStringLiteral("starting"));
    }
};

QTEST_GUILESS_MAIN(TstHealth)
#include "tst_health.moc"
