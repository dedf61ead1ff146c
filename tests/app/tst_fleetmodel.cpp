// The fleet overview's model without a database: a row per database in the order opened, its
// worst role's health (stale until rows arrive and whenever they stop being live), the paused
// roles, the last takeover, and dataChanged only for the cells that changed.

#include "agepolls.h"
#include "models/fleetmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace leader::console;
using Level = FleetModel::Level;

Q_DECLARE_METATYPE(leader::console::Health)

namespace {

RoleStatus role(const QString &name, RoleState state, double age)
{
    RoleStatus status;
    status.role = name;
    status.state = state;
    status.lastTickAgeSeconds = age;
    return status;
}

StatusSnapshot snapshotOf(QList<RoleStatus> roles)
{
    StatusSnapshot snapshot;
    snapshot.roles = std::move(roles);
    snapshot.receivedAt = QDateTime::currentDateTimeUtc();
    snapshot.databaseTime = snapshot.receivedAt;
    return snapshot;
}

QString cell(const FleetModel &model, int row, int column)
{
    return model.index(row, column).data().toString();
}

} // namespace

class TstFleetModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void healthOfADatabase_data()
    {
        QTest::addColumn<QList<RoleStatus>>("roles");
        QTest::addColumn<bool>("stale");
        QTest::addColumn<Health>("expected");
        QTest::addColumn<QString>("text");
        const RoleStatus fresh = role(QStringLiteral("billing"), RoleState::Led, 3);
        const RoleStatus paused = role(QStringLiteral("dunning"), RoleState::Paused, 900);
        // The outboxes tick every 2 s: warning at 19 s, alert at 38 s.
        const RoleStatus late = role(QStringLiteral("email_outbox"), RoleState::Free, 25);
        const RoleStatus stalled = role(QStringLiteral("webhook_outbox"), RoleState::Free, 60);
        QTest::newRow("all fresh") << QList<RoleStatus>{fresh} << false << Health::Ok << "ok";
        QTest::newRow("a pause") << QList<RoleStatus>{fresh, paused} << false << Health::Paused
                                 << "paused";
        QTest::newRow("a late role") << QList<RoleStatus>{fresh, paused, late} << false
                                     << Health::Warn << "warn: email_outbox";
        QTest::newRow("the worst wins") << QList<RoleStatus>{late, stalled, fresh} << false
                                        << Health::Alert << "alert: webhook_outbox";
        QTest::newRow("not live") << QList<RoleStatus>{fresh} << true << Health::Stale << "stale";
    }
    void healthOfADatabase()
    {
        QFETCH(QList<RoleStatus>, roles);
        QFETCH(bool, stale);
        QFETCH(Health, expected);
        QFETCH(QString, text);
        FleetModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int row = model.addDatabase(QStringLiteral("prod-eu"), ConnectionProfile{});
        QCOMPARE(model.health(row), Health::Stale); // nothing read yet
        model.setSnapshot(row, snapshotOf(roles));
        model.setStale(row, stale);
        QCOMPARE(model.health(row), expected);
        QCOMPARE(cell(model, row, FleetModel::Health), text);
        QCOMPARE(model.index(row, FleetModel::Health).data(FleetModel::HealthRole).toInt(),
                 int(expected));
    }

    // A database just migrated: every role never ran. Its roles are starting, which the overview
    // counts as ok, until each one's first interval (its warning threshold) has passed with no
    // tick. Mutation checks (done once each): without the row's AgeOrigins it read "warn:
    // billing, dunning, …" from the first poll and failed every row; ranking starting above ok
    // in worstHealth() failed "first poll" and "18 s on".
    void freshlyMigrated_data()
    {
        QTest::addColumn<QList<double>>("polls"); // seconds after the first
        QTest::addColumn<QString>("paused");      // a role paused since the migration
        QTest::addColumn<Health>("expected");
        QTest::addColumn<QString>("text");
        QTest::newRow("first poll") << QList<double>{0} << QString() << Health::Ok << "ok";
        // The outboxes warn at 19 s, dunning at 35 s, billing at 135 s.
        QTest::newRow("18 s on") << QList<double>{0, 1, 18} << QString() << Health::Ok << "ok";
        QTest::newRow("a role paused")
                << QList<double>{0, 1, 18} << "dunning" << Health::Paused << "paused";
        QTest::newRow("still no tick 20 s on")
                << QList<double>{0, 1, 20} << QString() << Health::Warn
                << "warn: email_outbox, webhook_delivery, webhook_outbox";
    }
    void freshlyMigrated()
    {
        QFETCH(QList<double>, polls);
        QFETCH(QString, paused);
        QFETCH(Health, expected);
        FleetModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int row = model.addDatabase(QStringLiteral("fresh"), ConnectionProfile{});
        for (const double at : std::as_const(polls)) {
            QList<RoleStatus> roles;
            for (const char *name :
                 {"billing", "dunning", "email_outbox", "webhook_delivery", "webhook_outbox"}) {
                const QString role = QString::fromLatin1(name);
                roles << leader::test::statusAt(
                        role, {at, role == paused ? RoleState::Paused : RoleState::NeverRan});
            }
            model.setSnapshot(row, leader::test::snapshotAt({at}, roles));
        }
        QCOMPARE(model.health(row), expected);
        QTEST(cell(model, row, FleetModel::Health), "text");
        QCOMPARE(model.index(row, FleetModel::Health).data(FleetModel::HealthRole).toInt(),
                 int(expected));
        if (polls.constLast() < 19) {
            QVERIFY2(
                    model.index(row, FleetModel::Health)
                            .data(Qt::ToolTipRole)
                            .toString()
                            .contains(QLatin1String("billing: starting")),
                    qPrintable(
                            model.index(row, FleetModel::Health).data(Qt::ToolTipRole).toString()));
        }
    }

    void onlyChangedCellsAreAnnounced()
    {
        FleetModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addDatabase(QStringLiteral("prod-eu"), ConnectionProfile{});
        model.addDatabase(QStringLiteral("prod-us"), ConnectionProfile{});
        const RoleStatus fresh = role(QStringLiteral("billing"), RoleState::Led, 3);
        model.setSnapshot(1, snapshotOf({fresh}));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // A poll that changes nothing shown moves only the tooltip's ages.
        model.setSnapshot(1, snapshotOf({role(QStringLiteral("billing"), RoleState::Led, 4)}));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), model.index(1, FleetModel::Health));
        QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int>{Qt::ToolTipRole});

        // A pause: the health (now paused) and the Paused cell, of that row only.
        changed.clear();
        model.setSnapshot(1, snapshotOf({role(QStringLiteral("billing"), RoleState::Paused, 4)}));
        QCOMPARE(changed.size(), 2);
        for (const QList<QVariant> &arguments : std::as_const(changed))
            QCOMPARE(arguments.at(0).toModelIndex().row(), 1);
        QCOMPARE(cell(model, 1, FleetModel::Paused), QStringLiteral("billing"));
        QCOMPARE(cell(model, 0, FleetModel::Paused), QString());

        // The same stale flag twice is one change.
        changed.clear();
        model.setStale(1, true);
        model.setStale(1, true);
        QCOMPARE(changed.size(), 1);
    }

    void lastTakeoverAndRemoval()
    {
        FleetModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addDatabase(QStringLiteral("prod-eu"), ConnectionProfile{});
        model.addDatabase(QStringLiteral("prod-us"), ConnectionProfile{});
        Failover takeover;
        takeover.role = QStringLiteral("billing");
        takeover.victim = QStringLiteral("r1");
        takeover.successor = QStringLiteral("r2");
        takeover.gapSeconds = 9.87;
        takeover.acquiredAt = QDateTime::currentDateTimeUtc();
        model.addTakeover(1, takeover);
        QVERIFY(cell(model, 1, FleetModel::LastTakeover)
                        .startsWith(QStringLiteral("billing: r1 → r2 in 9.87 s at ")));
        model.removeDatabase(0);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(model, 0, FleetModel::Database), QStringLiteral("prod-us"));
        QVERIFY(!cell(model, 0, FleetModel::LastTakeover).isEmpty());
    }
};

QTEST_MAIN(TstFleetModel)
#include "tst_fleetmodel.moc"
