// The one time rule: every table's time cells and headers, the Holders timeline, the chart's
// axis and the exports follow TimeRule between Local and UTC. Run in Asia/Kolkata (UTC+05:30) so
// local time differs from UTC, by a half hour too. Every model runs under
// QAbstractItemModelTester, and a switch announces exactly the time headers and cells.

#include "core/statusexport.h"
#include "core/tickhistory.h"
#include "core/timerule.h"
#include "models/eventlogmodel.h"
#include "models/failovermodel.h"
#include "models/holdertimeline.h"
#include "models/statusmodel.h"
#include "ui/agechart.h"
#include "ui/holdertimelineview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBuffer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <ctime>
#include <memory>

using leader::console::EventKind;
using leader::console::EventLogModel;
using leader::console::FailoverModel;
using leader::console::HolderTimeline;
using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusModel;
using leader::console::StatusSnapshot;
using leader::console::TimeRule;
using leader::console::TimeZoneMode;

namespace {

// 00:00:00.250 UTC is 05:30:00.250 in Kolkata; the polls follow a second later. Cells are checked
// to the ten seconds ("05:30:0"), which the half-hour offset alone changes.
const QDateTime Instant = QDateTime(QDate(2026, 1, 1), QTime(0, 0, 0, 250), Qt::UTC);

StatusSnapshot snapshot()
{
    RoleStatus billing;
    billing.role = QStringLiteral("billing");
    billing.state = RoleState::Led;
    billing.holderId = QStringLiteral("host:1:aaaaaaaa");
    billing.token = 7;
    billing.acquiredAt = Instant;
    billing.expiresInSeconds = 9.0;
    RoleStatus dunning;
    dunning.role = QStringLiteral("dunning");
    dunning.state = RoleState::Paused;
    dunning.token = 3;
    dunning.pausedAt = Instant;
    dunning.pausedBy = QStringLiteral("alice");
    dunning.pauseReason = QStringLiteral("test");
    StatusSnapshot snapshot;
    snapshot.databaseTime = Instant.addSecs(1);
    snapshot.receivedAt = snapshot.databaseTime;
    snapshot.roles = {billing, dunning};
    return snapshot;
}

// One model with one time cell to watch.
struct Subject
{
    std::unique_ptr<QAbstractItemModel> model;
    int row = 0;
    int column = 0;
};

Subject subject(const QString &name, const TimeRule *rule)
{
    if (name.startsWith(QLatin1String("status"))) {
        auto model = std::make_unique<StatusModel>();
        model->setTimeRule(rule);
        model->setSnapshot(snapshot());
        const bool acquired = name.endsWith(QLatin1String("acquired"));
        return {std::move(model), acquired ? 0 : 1,
                acquired ? StatusModel::Acquired : StatusModel::PausedAt};
    }
    if (name == QLatin1String("event log time")) {
        auto model = std::make_unique<EventLogModel>();
        model->setTimeRule(rule);
        model->append({Instant, QStringLiteral("poll"), QStringLiteral("billing"),
                       EventKind::Handover, 7, QString(), QString()});
        return {std::move(model), 0, EventLogModel::Time};
    }
    if (name.startsWith(QLatin1String("failovers"))) {
        auto model = std::make_unique<FailoverModel>();
        model->setTimeRule(rule);
        leader::console::Failover failover;
        failover.role = QStringLiteral("billing");
        failover.lastHeartbeatAt = Instant;
        failover.acquiredAt = Instant;
        failover.gapSeconds = 10;
        model->append(failover);
        return {std::move(model), 0,
                name.endsWith(QLatin1String("acquired")) ? FailoverModel::Acquired
                                                         : FailoverModel::LastHeartbeat};
    }
    auto model = std::make_unique<HolderTimeline>();
    model->setTimeRule(rule);
    StatusSnapshot first = snapshot();
    first.roles.removeLast();
    model->append(first, {}); // the zone shows on any span; how it began does not matter
    return {std::move(model), 0,
            name.endsWith(QLatin1String("from")) ? HolderTimeline::FromColumn
                                                 : HolderTimeline::ToColumn};
}

} // namespace

class TstTimeRule final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCOMPARE(Instant.toLocalTime().offsetFromUtc(), 5 * 3600 + 1800);
    }
    void init() { QSettings().remove(QStringLiteral("view/timeZone")); }

    void formats();
    void persisted();
    void modelsFollowTheRule_data();
    void modelsFollowTheRule();
    void timelineViewFollowsTheModel();
    void chartAxisFollowsTheRule();
    void exportsCarryTheOffset_data();
    void exportsCarryTheOffset();
};

void TstTimeRule::formats()
{
    QCOMPARE(TimeRule::clock(Instant, TimeZoneMode::Local), QStringLiteral("05:30:00"));
    QCOMPARE(TimeRule::clock(Instant, TimeZoneMode::Utc, true), QStringLiteral("00:00:00.250"));
    QCOMPARE(TimeRule::full(Instant, TimeZoneMode::Local),
             QStringLiteral("2026-01-01 05:30:00.250 +05:30"));
    QCOMPARE(TimeRule::iso8601(Instant, TimeZoneMode::Local),
             QStringLiteral("2026-01-01T05:30:00.250+05:30"));
    QCOMPARE(TimeRule::iso8601(Instant, TimeZoneMode::Utc),
             QStringLiteral("2026-01-01T00:00:00.250+00:00"));
    // ISO 8601 that reads back as the same instant.
    QCOMPARE(QDateTime::fromString(TimeRule::iso8601(Instant, TimeZoneMode::Local),
                                   Qt::ISODateWithMs),
             Instant);
    QCOMPARE(TimeRule::header(QStringLiteral("Acquired"), TimeZoneMode::Utc),
             QStringLiteral("Acquired (UTC)"));
    QCOMPARE(TimeRule::header(QStringLiteral("Acquired"), TimeZoneMode::Local),
             QStringLiteral("Acquired (local UTC+05:30)"));
    QVERIFY(TimeRule::clock(QDateTime(), TimeZoneMode::Utc).isEmpty());
    QVERIFY(TimeRule::iso8601(QDateTime(), TimeZoneMode::Utc).isEmpty());
}

void TstTimeRule::persisted()
{
    TimeRule rule;
    QSignalSpy changed(&rule, &TimeRule::changed);
    rule.restore();
    QCOMPARE(rule.mode(), TimeZoneMode::Local);
    QCOMPARE(changed.count(), 0);
    rule.setMode(TimeZoneMode::Utc);
    QCOMPARE(changed.count(), 1);
    rule.setMode(TimeZoneMode::Utc);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(QSettings().value(QStringLiteral("view/timeZone")).toString(), QStringLiteral("utc"));
    TimeRule next;
    QSignalSpy nextChanged(&next, &TimeRule::changed);
    next.restore();
    QCOMPARE(next.mode(), TimeZoneMode::Utc);
    QCOMPARE(nextChanged.count(), 1);
}

void TstTimeRule::modelsFollowTheRule_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("title"); // the header without its zone
    QTest::newRow("status acquired") << "status acquired"
                                     << "Acquired";
    QTest::newRow("status paused at") << "status paused at"
                                      << "Paused at";
    QTest::newRow("event log time") << "event log time"
                                    << "Time";
    QTest::newRow("failovers last heartbeat") << "failovers last heartbeat"
                                              << "Last heartbeat";
    QTest::newRow("failovers acquired") << "failovers acquired"
                                        << "Acquired";
    QTest::newRow("timeline from") << "timeline from"
                                   << "From";
    QTest::newRow("timeline to") << "timeline to"
                                 << "To";
}

void TstTimeRule::modelsFollowTheRule()
{
    QFETCH(QString, name);
    QFETCH(QString, title);
    TimeRule rule;
    const Subject s = subject(name, &rule);
    QAbstractItemModelTester tester(s.model.get(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QModelIndex cell = s.model->index(s.row, s.column);
    const auto header = [&] {
        return s.model->headerData(s.column, Qt::Horizontal, Qt::DisplayRole).toString();
    };

    QVERIFY2(cell.data().toString().startsWith(QLatin1String("05:30:0")),
             qPrintable(cell.data().toString()));
    QCOMPARE(header(), title + QStringLiteral(" (local UTC+05:30)"));
    QVERIFY2(cell.data(Qt::ToolTipRole).toString().contains(QLatin1String("05:30:0")),
             qPrintable(cell.data(Qt::ToolTipRole).toString()));

    QSignalSpy headers(s.model.get(), &QAbstractItemModel::headerDataChanged);
    QSignalSpy cells(s.model.get(), &QAbstractItemModel::dataChanged);
    rule.setMode(TimeZoneMode::Utc);
    QVERIFY2(cell.data().toString().startsWith(QLatin1String("00:00:0")),
             qPrintable(cell.data().toString()));
    QCOMPARE(header(), title + QStringLiteral(" (UTC)"));
    QVERIFY(!cell.data(Qt::ToolTipRole).toString().contains(QLatin1String("05:30:0")));

    // The header and the cell were announced, with the display role; no header of another
    // orientation, no column without a time.
    bool headerAnnounced = false;
    for (const QList<QVariant> &args : std::as_const(headers)) {
        QCOMPARE(args.at(0).value<Qt::Orientation>(), Qt::Horizontal);
        headerAnnounced = headerAnnounced
                          || (args.at(1).toInt() <= s.column && s.column <= args.at(2).toInt());
    }
    QVERIFY(headerAnnounced);
    bool cellAnnounced = false;
    for (const QList<QVariant> &args : std::as_const(cells)) {
        const auto topLeft = args.at(0).toModelIndex();
        const auto bottomRight = args.at(1).toModelIndex();
        const auto roles = args.at(2).value<QList<int>>();
        QVERIFY(!roles.isEmpty());
        if (topLeft.row() <= s.row && s.row <= bottomRight.row() && topLeft.column() <= s.column
            && s.column <= bottomRight.column()) {
            cellAnnounced = cellAnnounced || roles.contains(Qt::DisplayRole);
        }
    }
    QVERIFY(cellAnnounced);

    // Back to local: announced again, shown again.
    headers.clear();
    rule.setMode(TimeZoneMode::Local);
    QVERIFY(!headers.isEmpty());
    QVERIFY(cell.data().toString().startsWith(QLatin1String("05:30:0")));
}

void TstTimeRule::timelineViewFollowsTheModel()
{
    TimeRule rule;
    HolderTimeline model;
    model.setTimeRule(&rule);
    StatusSnapshot first = snapshot();
    first.roles.removeLast();
    model.append(first, {});
    first.databaseTime = Instant.addSecs(5);
    model.append(first, {});
    leader::console::HolderTimelineView view;
    view.setModel(&model);
    view.resize(900, view.sizeHint().height());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const int laneY = view.fontMetrics().height() / 2 + 6;
    const auto tip = [&] {
        QString text;
        for (int x = view.width() - 12; x > view.width() / 2 && text.isEmpty(); x -= 2)
            text = view.toolTipAt(QPoint(x, laneY));
        return text;
    };
    QVERIFY2(tip().contains(QLatin1String("05:30:00.250")), qPrintable(tip()));
    QSignalSpy updated(&model, &HolderTimeline::updated);
    rule.setMode(TimeZoneMode::Utc);
    QCOMPARE(updated.count(), 1); // the view repaints on it
    QVERIFY2(tip().contains(QLatin1String("00:00:00.250")), qPrintable(tip()));
}

void TstTimeRule::chartAxisFollowsTheRule()
{
    leader::console::TickHistory history;
    StatusSnapshot polled = snapshot();
    history.append(polled);
    TimeRule rule;
    leader::console::AgeChart chart;
    chart.setHistory(&history);
    chart.setTimeRule(&rule);
    QCOMPARE(chart.timeAxisLabel(Instant), QStringLiteral("05:30:00"));
    QVERIFY(chart.timeAxisTitle().contains(QLatin1String("local UTC+05:30")));
    rule.setMode(TimeZoneMode::Utc);
    QCOMPARE(chart.timeAxisLabel(Instant), QStringLiteral("00:00:00"));
    QVERIFY(chart.timeAxisTitle().endsWith(QLatin1String("(UTC)")));
    // The range is still the database's: the shift is only for the labels.
    QCOMPARE(chart.rangeEnd(), polled.databaseTime);
}

void TstTimeRule::exportsCarryTheOffset_data()
{
    QTest::addColumn<TimeZoneMode>("mode");
    QTest::addColumn<QString>("acquired"); // billing's acquired_at as exported
    QTest::newRow("local") << TimeZoneMode::Local << "2026-01-01T05:30:00.250+05:30";
    QTest::newRow("utc") << TimeZoneMode::Utc << "2026-01-01T00:00:00.250+00:00";
}

void TstTimeRule::exportsCarryTheOffset()
{
    QFETCH(TimeZoneMode, mode);
    QFETCH(QString, acquired);
    const QString csv = QString::fromUtf8(leader::console::statusToCsv(snapshot(), mode));
    QVERIFY2(csv.contains(QLatin1String(",led,host:1:aaaaaaaa,7,") + acquired + u','),
             qPrintable(csv));
    const QByteArray json = leader::console::statusToJson(snapshot(), mode);
    QVERIFY2(json.contains(acquired.toUtf8()), json.constData());

    TimeRule rule;
    rule.setMode(mode);
    EventLogModel log;
    log.setTimeRule(&rule);
    log.append({Instant, QStringLiteral("poll"), QStringLiteral("billing"), EventKind::Handover, 7,
                QString(), QString()});
    QBuffer buffer;
    QVERIFY(buffer.open(QIODevice::WriteOnly));
    QString error;
    QVERIFY2(leader::console::exportCsv(&buffer, &log, &error), qPrintable(error));
    QVERIFY2(buffer.data().split('\n').value(1).startsWith(QByteArray(acquired.toUtf8() + ',')),
             buffer.data().constData());
}

int main(int argc, char **argv)
{
    // Before anything reads the zone: local time is Kolkata's, UTC+05:30.
    qputenv("TZ", "Asia/Kolkata");
    tzset();
    QApplication app(argc, argv);
    TstTimeRule test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_timerule.moc"
