#include "models/failovermodel.h"
#include "models/replicamodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace leader::console;

namespace {

Failover failover(const QString &role, double gap, bool cleanStop = false)
{
    Failover f;
    f.role = role;
    f.fault = cleanStop ? QStringLiteral("stop r2") : QStringLiteral("kill r2");
    f.victim = QStringLiteral("r2");
    f.victimHolder = QStringLiteral("host:100:aaaaaaaa");
    f.victimToken = 41;
    f.successor = QStringLiteral("r1");
    f.successorHolder = QStringLiteral("host:100:bbbbbbbb");
    f.successorToken = 42;
    f.faultAt = QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC);
    f.acquiredAt = f.faultAt.addMSecs(qint64(gap * 1000));
    if (cleanStop)
        f.releasedAt = f.faultAt;
    else
        f.lastHeartbeatAt = f.faultAt;
    f.gapSeconds = gap;
    return f;
}

ReplicaInfo replica(const QString &id, ReplicaState state, const QStringList &leading = {})
{
    return {id, id + QStringLiteral("-holder"), state, QStringLiteral("normal"), leading};
}

} // namespace

class tst_FailoverModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void appendsRows();
    void formatsGap_data();
    void formatsGap();
    void cleanStopShowsRelease();
    void tooltipsNameTokensAndHolders();
    void replicaModelChangesPrecisely();
    void replicaModelAddsAndRemoves();
};

void tst_FailoverModel::appendsRows()
{
    FailoverModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    leader::console::TimeRule utc;
    utc.setMode(leader::console::TimeZoneMode::Utc);
    model.setTimeRule(&utc);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QCOMPARE(model.columnCount(), int(FailoverModel::ColumnCount));
    model.append(failover(QStringLiteral("billing"), 9.81));
    model.append(failover(QStringLiteral("dunning"), 12.5));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(inserted.at(1).at(1).toInt(), 1);
    QCOMPARE(model.index(0, FailoverModel::Role).data().toString(), QStringLiteral("billing"));
    QCOMPARE(model.index(1, FailoverModel::Gap).data().toString(), QStringLiteral("12.50 s"));
    QCOMPARE(model.index(1, FailoverModel::Gap).data(FailoverModel::RawRole).toDouble(), 12.5);
    QCOMPARE(model.index(0, FailoverModel::Successor).data().toString(), QStringLiteral("r1"));
    QCOMPARE(model.index(0, FailoverModel::LastHeartbeat).data().toString(),
             QStringLiteral("12:00:00.000"));
    QCOMPARE(model.index(0, FailoverModel::Acquired).data(FailoverModel::RawRole).toDateTime(),
             QDateTime(QDate(2024, 5, 1), QTime(12, 0, 9, 810), Qt::UTC));
    QCOMPARE(model.headerData(FailoverModel::Gap, Qt::Horizontal).toString(),
             QStringLiteral("Gap"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void tst_FailoverModel::formatsGap_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("typical") << 9.8149 << QStringLiteral("9.81 s");
    QTest::newRow("rounds up") << 10.005001 << QStringLiteral("10.01 s");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0.00 s");
    QTest::newRow("long") << 123.4 << QStringLiteral("123.40 s");
}

void tst_FailoverModel::formatsGap()
{
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(FailoverModel::formatGap(seconds), text);
}

void tst_FailoverModel::cleanStopShowsRelease()
{
    FailoverModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    leader::console::TimeRule utc;
    utc.setMode(leader::console::TimeZoneMode::Utc);
    model.setTimeRule(&utc);
    model.append(failover(QStringLiteral("billing"), 0.42, true));
    QCOMPARE(model.index(0, FailoverModel::LastHeartbeat).data().toString(),
             QStringLiteral("released 12:00:00.000"));
    QCOMPARE(model.index(0, FailoverModel::LastHeartbeat).data(FailoverModel::RawRole).toDateTime(),
             QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC));
}

void tst_FailoverModel::tooltipsNameTokensAndHolders()
{
    FailoverModel model;
    model.append(failover(QStringLiteral("billing"), 9.81));
    const QString victim = model.index(0, FailoverModel::Victim).data(Qt::ToolTipRole).toString();
    QVERIFY2(victim.contains(QStringLiteral("host:100:aaaaaaaa")), qPrintable(victim));
    QVERIFY2(victim.contains(QStringLiteral("41")), qPrintable(victim));
    const QString successor
            = model.index(0, FailoverModel::Successor).data(Qt::ToolTipRole).toString();
    QVERIFY2(successor.contains(QStringLiteral("host:100:bbbbbbbb")), qPrintable(successor));
    QVERIFY2(successor.contains(QStringLiteral("42")), qPrintable(successor));
}

void tst_FailoverModel::replicaModelChangesPrecisely()
{
    ReplicaModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReplicas({replica(QStringLiteral("r1"), ReplicaState::Running),
                       replica(QStringLiteral("r2"), ReplicaState::Running)});
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setReplicas(
            {replica(QStringLiteral("r1"), ReplicaState::Running),
             replica(QStringLiteral("r2"), ReplicaState::Killed, {QStringLiteral("billing")})});
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    const QModelIndex first = changed.at(0).at(0).value<QModelIndex>();
    const QModelIndex last = changed.at(0).at(1).value<QModelIndex>();
    QCOMPARE(first.row(), 1);
    QCOMPARE(last.row(), 1);
    QCOMPARE(first.column(), int(ReplicaModel::State));
    QCOMPARE(last.column(), int(ReplicaModel::Leading));
    QCOMPARE(model.index(1, ReplicaModel::Leading).data().toString(), QStringLiteral("billing"));

    changed.clear();
    model.setReplicas(model.replicas());
    QCOMPARE(changed.count(), 0);
}

void tst_FailoverModel::replicaModelAddsAndRemoves()
{
    ReplicaModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReplicas({replica(QStringLiteral("r1"), ReplicaState::Running),
                       replica(QStringLiteral("r2"), ReplicaState::Running),
                       replica(QStringLiteral("r3"), ReplicaState::Running)});
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setReplicas({replica(QStringLiteral("r1"), ReplicaState::Running),
                       replica(QStringLiteral("r3"), ReplicaState::Running),
                       replica(QStringLiteral("r4"), ReplicaState::Starting)});
    QCOMPARE(removed.count(), 1);
    QCOMPARE(inserted.count(), 1);
    QStringList ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids.append(model.index(row, ReplicaModel::Replica).data().toString());
    QCOMPARE(ids, (QStringList{"r1", "r3", "r4"}));
    model.setReplicas({replica(QStringLiteral("r4"), ReplicaState::Running),
                       replica(QStringLiteral("r1"), ReplicaState::Running)});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, ReplicaModel::Replica).data().toString(), QStringLiteral("r4"));
    QCOMPARE(model.index(0, ReplicaModel::State).data().toString(), QStringLiteral("running"));
}

QTEST_GUILESS_MAIN(tst_FailoverModel)
#include "tst_failovermodel.moc"
