// The event log's dock as the operator uses it: headers that fit in either zone however long the
// log, the "Show routine" switch, the role and kind choices filling in as events arrive, and the
// export naming the view it was made from.

#include "core/timerule.h"
#include "models/eventfoldmodel.h"
#include "models/eventlogmodel.h"
#include "ui/eventlogpane.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QMenu>
#include <QTableView>
#include <QTest>
#include <QToolButton>

#include <ctime>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::TimeZoneMode)

namespace {

EventLogEntry logEntry(int second, const QString &source, const QString &role, const QString &kind,
                       qint64 token = 0, const QString &detail = {})
{
    EventLogEntry entry;
    entry.time = QDateTime(QDate(2026, 12, 5), QTime(18, 0), Qt::UTC).addSecs(second);
    entry.source = source;
    entry.role = role;
    entry.event = eventKindFromName(kind).value(); // named as the log shows it
    entry.token = token;
    entry.detail = detail;
    return entry;
}

// A demo's minute: outbox ticks every second on two roles, one takeover, one age warning.
void fill(EventLogModel &log, int ticks)
{
    for (int tick = 0; tick < ticks; ++tick) {
        const QString replica = tick % 2 ? QStringLiteral("r1") : QStringLiteral("r2");
        for (const char *role : {"email_outbox", "webhook_outbox"}) {
            log.append(logEntry(tick, replica, QLatin1String(role), "acquired", tick));
            log.append(logEntry(tick, replica, QLatin1String(role), "released", tick, "completed"));
            log.append(logEntry(tick, "poll", QLatin1String(role), "rotation", tick, "r1 -> r2"));
        }
        if (tick == ticks / 2)
            log.append(logEntry(tick, "poll", "billing", "takeover", tick, "r2 -> r3"));
    }
    log.append(logEntry(ticks, "poll", "billing", "age warning", 0, "last tick 40.0 s ago"));
}

QStringList shown(const QAbstractItemModel *model)
{
    QStringList events;
    for (int row = 0; row < model->rowCount(); ++row)
        events << model->index(row, EventLogModel::Role).data().toString() + u':'
                          + model->index(row, EventLogModel::Event).data().toString();
    return events;
}

} // namespace

class TstEventLogPane final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headersFit_data();
    void headersFit();
    void showRoutineIsOneClick();
    void roleAndKindChoices();
    void exportNamesTheView();
};

void TstEventLogPane::headersFit_data()
{
    QTest::addColumn<TimeZoneMode>("before");
    QTest::addColumn<TimeZoneMode>("after");
    QTest::addColumn<int>("ticks");
    const auto local = TimeZoneMode::Local;
    const auto utc = TimeZoneMode::Utc;
    QTest::newRow("local, empty log") << local << local << 0;
    QTest::newRow("utc, empty log") << utc << utc << 0;
    QTest::newRow("local, long log") << local << local << 40;
    QTest::newRow("utc, then local past 50 rows") << utc << local << 40;
}

// Every column but the stretched Detail is at least as wide as its header's title (with the
// style's margins) and as its widest value ("age warning"), before the first event, past the
// first 50 rows, and after the zone changes. Checked to fail with the columns sized to the first
// 50 rows' contents as before: "age warning" and the local zone's "Time (local UTC+05:30)" were
// cut in the long logs.
void TstEventLogPane::headersFit()
{
    QFETCH(TimeZoneMode, before);
    QFETCH(TimeZoneMode, after);
    QFETCH(int, ticks);
    TimeRule rule;
    rule.setMode(before);
    EventLogModel log;
    log.setTimeRule(&rule);
    EventLogPane pane(&log);
    pane.resize(900, 400);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    // Every event shown: past the first 50 rows before the "age warning" comes.
    pane.findChild<QCheckBox *>(QStringLiteral("showRoutine"))->setChecked(true);
    fill(log, ticks);
    rule.setMode(after);

    auto *view = pane.findChild<QTableView *>(QStringLiteral("eventView"));
    QHeaderView *header = view->horizontalHeader();
    for (int column = 0; column < EventLogModel::Detail; ++column) {
        const QString title = view->model()->headerData(column, Qt::Horizontal).toString();
        // The header's own measure: the title and the style's margins around it.
        const int needed = std::max(header->fontMetrics().horizontalAdvance(title),
                                    header->sectionSizeHint(column));
        QVERIFY2(view->columnWidth(column) >= needed,
                 qPrintable(QStringLiteral("%1: %2 < %3")
                                    .arg(title)
                                    .arg(view->columnWidth(column))
                                    .arg(needed)));
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            const QString text = view->model()->index(row, column).data().toString();
            QVERIFY2(view->columnWidth(column) >= view->fontMetrics().horizontalAdvance(text),
                     qPrintable(QStringLiteral("%1 in %2").arg(text, title)));
        }
    }
}

// Folded by default: the outboxes' ticks are one counting line each, the takeover and the warning
// their own; one click shows every event, another folds them again. Checked to fail with the
// checkbox not connected to the fold.
void TstEventLogPane::showRoutineIsOneClick()
{
    EventLogModel log;
    fill(log, 10);
    EventLogPane pane(&log);
    QAbstractItemModelTester tester(pane.filter(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    const QStringList folded{"email_outbox:routine ×30", "webhook_outbox:routine ×30",
                             "billing:takeover", "billing:age warning"};
    QCOMPARE(shown(pane.filter()), folded);
    auto *showRoutine = pane.findChild<QCheckBox *>(QStringLiteral("showRoutine"));
    QVERIFY(!showRoutine->isChecked());
    QTest::mouseClick(showRoutine, Qt::LeftButton, {}, QPoint(4, showRoutine->height() / 2));
    QCOMPARE(pane.filter()->rowCount(), log.rowCount());
    QTest::mouseClick(showRoutine, Qt::LeftButton, {}, QPoint(4, showRoutine->height() / 2));
    QCOMPARE(shown(pane.filter()), folded);
}

// The role box and the kinds menu list what the log has held, and filter by it.
// Checked to fail with the role box's choice not reaching the filter.
void TstEventLogPane::roleAndKindChoices()
{
    EventLogModel log;
    EventLogPane pane(&log);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    auto *roles = pane.findChild<QComboBox *>(QStringLiteral("eventRoleFilter"));
    auto *kindButton = pane.findChild<QToolButton *>(QStringLiteral("eventKindFilter"));
    QCOMPARE(roles->count(), 1); // all roles
    fill(log, 4);
    QCOMPARE(roles->count(), 4);
    QCOMPARE(roles->itemText(1), QStringLiteral("billing"));

    roles->setCurrentIndex(roles->findText(QStringLiteral("billing")));
    QCOMPARE(shown(pane.filter()), (QStringList{"billing:takeover", "billing:age warning"}));
    // A new role arriving keeps the choice.
    log.append(logEntry(50, "r1", "dunning", "acquired", 9));
    QCOMPARE(roles->currentText(), QStringLiteral("billing"));

    QMenu *menu = kindButton->menu();
    QAction *warning = nullptr;
    for (QAction *action : menu->actions()) {
        if (action->data().toString() == QLatin1String("age warning"))
            warning = action;
    }
    QVERIFY(warning);
    QVERIFY2(warning->text().contains(severityText(EventSeverity::Alert)),
             qPrintable(warning->text()));
    warning->setChecked(true);
    QCOMPARE(shown(pane.filter()), (QStringList{"billing:age warning"}));
    QCOMPARE(kindButton->text(), QStringLiteral("Kind: age warning"));
    roles->setCurrentIndex(0);
    QCOMPARE(shown(pane.filter()), (QStringList{"billing:age warning"}));
    menu->findChild<QAction *>(QStringLiteral("allKinds"))->trigger();
    QCOMPARE(kindButton->text(), QStringLiteral("Kinds: all"));
    QCOMPARE(pane.filter()->rowCount(), 5); // two outboxes' lines, dunning's, billing's two
}

// What the pane exports starts with the view it showed.
void TstEventLogPane::exportNamesTheView()
{
    EventLogModel log;
    fill(log, 3);
    EventLogPane pane(&log);
    const auto firstLine = [&pane] {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QString error;
        if (!exportCsv(&buffer, pane.filter(), &error))
            return error;
        return QString::fromUtf8(buffer.data().split('\r').constFirst());
    };
    QVERIFY2(firstLine().contains(QLatin1String("routine events folded")), qPrintable(firstLine()));
    pane.findChild<QCheckBox *>(QStringLiteral("showRoutine"))->setChecked(true);
    QCOMPARE(firstLine(), QStringLiteral("# Event log as shown: every event"));
}

int main(int argc, char **argv)
{
    // Before anything reads the zone: local time is Kolkata's, UTC+05:30 all year, the longer
    // header.
    qputenv("TZ", "Asia/Kolkata");
    tzset();
    QApplication app(argc, argv);
    TstEventLogPane test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_eventlogpane.moc"
