#include "models/failovermodel.h"
#include "models/replicamodel.h"
#include "models/tones.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QGuiApplication>
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
    void bound_data();
    void bound();
    void instantsInTooltips();
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
    QCOMPARE(model.headerData(FailoverModel::Bound, Qt::Horizontal).toString(),
             QStringLiteral("Bound"));
    // What the dock shows comes first, the instants' columns last.
    QCOMPARE(FailoverModel::Bound, FailoverModel::Gap + 1);
    QVERIFY(FailoverModel::LastHeartbeat > FailoverModel::Bound);
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

// ADR-114: running elsewhere at most 15 s after the last heartbeat. Mutation check (done once):
// with boundText() saying "≤ 15 s ✓" whatever the gap, the "missed" rows failed.
void tst_FailoverModel::bound_data()
{
    QTest::addColumn<double>("gap");
    QTest::addColumn<bool>("cleanStop");
    QTest::addColumn<bool>("met");
    QTest::addColumn<QString>("text");
    QTest::newRow("well within") << 9.81 << false << true << QStringLiteral("≤ 15 s ✓");
    QTest::newRow("past acquirable, within running")
            << 12.5 << false << true << QStringLiteral("≤ 15 s ✓");
    QTest::newRow("just under") << 14.99 << false << true << QStringLiteral("≤ 15 s ✓");
    QTest::newRow("exactly the bound") << 15.0 << false << true << QStringLiteral("≤ 15 s ✓");
    QTest::newRow("just over") << 15.01 << false << false << QStringLiteral("missed");
    QTest::newRow("far over") << 31.0 << false << false << QStringLiteral("missed");
    QTest::newRow("clean stop") << 0.42 << true << true << QStringLiteral("≤ 15 s ✓");
}

void tst_FailoverModel::bound()
{
    QFETCH(double, gap);
    QFETCH(bool, cleanStop);
    QFETCH(bool, met);
    FailoverModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(failover(QStringLiteral("billing"), gap, cleanStop));
    const QModelIndex cell = model.index(0, FailoverModel::Bound);
    QTEST(cell.data().toString(), "text");
    QCOMPARE(cell.data(FailoverModel::RawRole).toBool(), met);
    // Missed on the alert tone, with the palette's text on it.
    const QPalette palette = QGuiApplication::palette();
    QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>(),
             met ? QColor() : toneFill(Tone::Alert, palette));
    QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(),
             met ? toneText(Tone::Good, palette) : palette.color(QPalette::Text));
    const QString tip = cell.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("ADR-114")), qPrintable(tip));
    QVERIFY2(tip.contains(FailoverModel::formatGap(gap)), qPrintable(tip));
    QVERIFY2(tip.endsWith(met ? QStringLiteral("within both") : QStringLiteral("missed"))
                     || (met && gap > AcquirableBoundSeconds),
             qPrintable(tip));
}

// The dock hides the instants' columns: the gap's tooltip says both ends, the fault's the fault.
void tst_FailoverModel::instantsInTooltips()
{
    FailoverModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    leader::console::TimeRule utc;
    utc.setMode(leader::console::TimeZoneMode::Utc);
    model.setTimeRule(&utc);
    model.append(failover(QStringLiteral("billing"), 9.81));
    model.append(failover(QStringLiteral("dunning"), 0.42, true));
    QCOMPARE(model.index(0, FailoverModel::Gap).data(Qt::ToolTipRole).toString(),
             QStringLiteral("last heartbeat 12:00:00.000 (its last expires_at minus the lease TTL) "
                            "to acquired_at 12:00:09.810 of token 42: 9.81 s (database clock, "
                            "UTC)"));
    QVERIFY(model.index(1, FailoverModel::Gap)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("released 12:00:00.000 to acquired_at")));
    QVERIFY(model.index(0, FailoverModel::Fault)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("2024-05-01 12:00:00.000")));

    // A change of zone announces the tooltips that name a time.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    utc.setMode(leader::console::TimeZoneMode::Local);
    bool gapTip = false;
    for (const QList<QVariant> &signal : std::as_const(changed)) {
        const int first = signal.at(0).toModelIndex().column();
        const int last = signal.at(1).toModelIndex().column();
        gapTip = gapTip
                 || (first <= FailoverModel::Gap && FailoverModel::Gap <= last
                     && signal.at(2).value<QList<int>>().contains(Qt::ToolTipRole));
    }
    QVERIFY(gapTip);
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

QTEST_MAIN(tst_FailoverModel) // the bound's colours come from the application's palette
#include "tst_failovermodel.moc"
