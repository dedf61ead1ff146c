// Health at a glance: each role's from its state, its last tick's age against its thresholds and
// whether the rows are live; a database's worst role.

#include "models/health.h"

#include <QTest>

using namespace leader::console;

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
};

QTEST_GUILESS_MAIN(TstHealth)
#include "tst_health.moc"
