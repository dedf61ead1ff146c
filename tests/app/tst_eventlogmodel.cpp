#include "models/eventfoldmodel.h"
#include "models/eventlogmodel.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::EventSeverity)

namespace {

EventLogEntry entry(const QString &source, const QString &role, const QString &event,
                    qint64 token = 0, const QString &detail = {})
{
    EventLogEntry e;
    e.time = QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC);
    e.source = source;
    e.role = role;
    e.event = eventKindFromName(event).value(); // the tests name kinds as the log shows them
    e.token = token;
    e.detail = detail;
    return e;
}

void fill(EventLogModel &model)
{
    model.append(entry("r1", "billing", "acquired", 100));
    model.append(entry("r2", "dunning", "acquired", 200));
    model.append(entry("r1", "billing", "released", 100, "completed"));
    model.append(entry("panel", {}, "fault", 0, "kill r2"));
    model.append(entry("r3", "billing", "acquired", 101));
    model.append(entry("r2", "dunning", "lost", 200, "heartbeat_timeout"));
}

} // namespace

class tst_EventLogModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void appendsAndShows();
    void dropsOldestPastCapacity();
    void repeatsCollapse_data();
    void repeatsCollapse();
    void filters_data();
    void filters();
    void exportsCsv_data();
    void exportsCsv();
    void exportsWhatTheFilterShows();
    void refusesUnwritableDevice();
    void severityPerKind_data();
    void severityPerKind();
    void kindNamesParseBack();
    void foldsRoutinePerRole();
    void foldUpdatesOnlyItsLine();
    void showsEverythingAtOneSwitch();
    void foldDropsWithTheLog();
    void filtersByRoleAndKind_data();
    void filtersByRoleAndKind();
    void exportSaysWhichView();
    void headersExplain();
};

void tst_EventLogModel::appendsAndShows()
{
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    fill(model);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(inserted.count(), 6);
    QCOMPARE(model.columnCount(), int(EventLogModel::ColumnCount));
    QCOMPARE(model.index(0, EventLogModel::Token).data().toString(), QStringLiteral("100"));
    QCOMPARE(model.index(3, EventLogModel::Token).data().toString(), QString());
    QCOMPARE(model.index(3, EventLogModel::Detail).data().toString(), QStringLiteral("kill r2"));
    QCOMPARE(model.index(0, EventLogModel::Time).data(EventLogModel::RawRole).toDateTime(),
             QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC));
    QCOMPARE(model.headerData(EventLogModel::Event, Qt::Horizontal).toString(),
             QStringLiteral("Event"));
}

void tst_EventLogModel::dropsOldestPastCapacity()
{
    EventLogModel model(3);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    for (int i = 1; i <= 5; ++i)
        model.append(entry("r1", "billing", "acquired", i));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(removed.count(), 2);
    QCOMPARE(removed.at(0).at(1).toInt(), 0);
    QCOMPARE(removed.at(0).at(2).toInt(), 0);
    QCOMPARE(model.index(0, EventLogModel::Token).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(2, EventLogModel::Token).data().toString(), QStringLiteral("5"));
}

void tst_EventLogModel::repeatsCollapse_data()
{
    QTest::addColumn<QList<EventLogEntry>>("entries");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("lastRepeats"); // of the first row of the second entry's kind
    const EventLogEntry failed = entry("console", {}, "connection", 0, "cannot reach the server");
    const EventLogEntry other = entry("workload", {}, "error", 0, "retrying in 5 s");
    QTest::newRow("the same line again") << QList<EventLogEntry>{failed, failed, failed} << 1 << 3;
    QTest::newRow("with other lines between")
            << QList<EventLogEntry>{failed, other, failed, other, failed} << 2 << 3;
    EventLogEntry changed = failed;
    changed.detail = QStringLiteral("authentication failed");
    QTest::newRow("another detail is a new line")
            << QList<EventLogEntry>{failed, changed, failed} << 3 << 1;
    QTest::newRow("another token is a new line")
            << QList<EventLogEntry>{entry("r1", "billing", "late_beat", 7),
                                    entry("r1", "billing", "late_beat", 8)}
            << 2 << 1;
}

// A retry failing alike is one line, at its first time, with a count and the last time; a different
// failure, or another tick's event, is a line of its own.
void tst_EventLogModel::repeatsCollapse()
{
    QFETCH(QList<EventLogEntry>, entries);
    QFETCH(int, rows);
    QFETCH(int, lastRepeats);
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QDateTime time = entries.first().time;
    for (EventLogEntry e : std::as_const(entries)) {
        e.time = time;
        time = time.addSecs(5);
        model.appendOrRepeat(e);
    }
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(model.entry(0).repeats, lastRepeats);
    if (lastRepeats > 1) {
        QCOMPARE(model.entry(0).time, entries.first().time);
        QCOMPARE(model.entry(0).lastTime, time.addSecs(-5));
        const QString detail = model.index(0, EventLogModel::Detail).data().toString();
        QVERIFY2(detail.contains(QStringLiteral("×%1, last at").arg(lastRepeats)),
                 qPrintable(detail));
    }
}

void tst_EventLogModel::filters_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("role");
    QTest::addColumn<QList<qint64>>("tokens"); // the Token column of the rows shown, 0 for none

    QTest::newRow("everything") << QString() << QString() << QString()
                                << QList<qint64>{100, 200, 100, 0, 101, 200};
    QTest::newRow("source") << QString() << "r1" << QString() << QList<qint64>{100, 100};
    QTest::newRow("role") << QString() << QString() << "dunning" << QList<qint64>{200, 200};
    QTest::newRow("source and role") << QString() << "r3"
                                     << "billing" << QList<qint64>{101};
    QTest::newRow("text in detail, any case")
            << "HEARTBEAT" << QString() << QString() << QList<qint64>{200};
    QTest::newRow("text in event")
            << "acquired" << QString() << QString() << QList<qint64>{100, 200, 101};
    QTest::newRow("text in token") << "101" << QString() << QString() << QList<qint64>{101};
    QTest::newRow("text and source") << "acquired"
                                     << "r2" << QString() << QList<qint64>{200};
    QTest::newRow("nothing matches") << "panic" << QString() << QString() << QList<qint64>{};
    QTest::newRow("panel") << QString() << "panel" << QString() << QList<qint64>{0};
}

void tst_EventLogModel::filters()
{
    QFETCH(QString, text);
    QFETCH(QString, source);
    QFETCH(QString, role);
    QFETCH(QList<qint64>, tokens);

    EventLogModel model;
    fill(model);
    EventLogFilter filter;
    QAbstractItemModelTester tester(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&model);
    filter.setText(text);
    filter.setSource(source);
    filter.setRole(role);
    QList<qint64> shown;
    for (int row = 0; row < filter.rowCount(); ++row)
        shown.append(
                filter.index(row, EventLogModel::Token).data(EventLogModel::RawRole).toLongLong());
    QCOMPARE(shown, tokens);

    // New rows pass the same filter.
    model.append(entry("r1", "billing", "acquired", 300));
    const bool passes = (source.isEmpty() || source == QLatin1String("r1"))
                        && (role.isEmpty() || role == QLatin1String("billing"))
                        && (text.isEmpty() || QStringLiteral("acquired").contains(text));
    QCOMPARE(filter.rowCount(), int(tokens.size()) + (passes ? 1 : 0));
}

void tst_EventLogModel::exportsCsv_data()
{
    QTest::addColumn<QString>("detail");
    QTest::addColumn<QByteArray>("field");
    QTest::newRow("plain") << "completed" << QByteArray("completed");
    QTest::newRow("empty") << QString() << QByteArray();
    QTest::newRow("comma") << "a, b" << QByteArray("\"a, b\"");
    QTest::newRow("quote") << "say \"hi\"" << QByteArray("\"say \"\"hi\"\"\"");
    QTest::newRow("newline") << "line 1\nline 2" << QByteArray("\"line 1\nline 2\"");
    QTest::newRow("carriage return") << "a\r\nb" << QByteArray("\"a\r\nb\"");
    QTest::newRow("all") << "\",\n" << QByteArray("\"\"\",\n\"");
    QTest::newRow("utf-8") << QStringLiteral("r\u00e9sum\u00e9 \u2192 r1")
                           << QStringLiteral("r\u00e9sum\u00e9 \u2192 r1").toUtf8();
}

void tst_EventLogModel::exportsCsv()
{
    QFETCH(QString, detail);
    QFETCH(QByteArray, field);
    EventLogModel model;
    model.append(entry("r1", "billing", "released", 7, detail));
    QBuffer buffer;
    QVERIFY(buffer.open(QIODevice::WriteOnly));
    QString error;
    QVERIFY2(exportCsv(&buffer, &model, &error), qPrintable(error));
    // The time as ISO 8601 with the offset, whatever the cell shows.
    const QByteArray time
            = model.index(0, EventLogModel::Time).data(leader::console::ExportRole).toByteArray();
    QVERIFY2(QDateTime::fromString(QString::fromUtf8(time), Qt::ISODateWithMs)
                     == QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC),
             time.constData());
    const QByteArray header
            = model.headerData(EventLogModel::Time, Qt::Horizontal).toString().toUtf8();
    QCOMPARE(buffer.data(), header + ",Severity,Source,Role,Event,Token,Detail\r\n" + time
                                    + ",routine,r1,billing,released,7," + field + "\r\n");
}

void tst_EventLogModel::exportsWhatTheFilterShows()
{
    EventLogModel model;
    fill(model);
    EventLogFilter filter;
    filter.setSourceModel(&model);
    filter.setSource(QStringLiteral("panel"));
    QBuffer buffer;
    QVERIFY(buffer.open(QIODevice::WriteOnly));
    QString error;
    QVERIFY2(exportCsv(&buffer, &filter, &error), qPrintable(error));
    const QList<QByteArray> lines = buffer.data().split('\n');
    QCOMPARE(lines.size(), 4); // the view, the header, one row, the empty rest after the last CRLF
    QCOMPARE(lines.at(0), QByteArray("# Event log as shown: every event; source panel\r"));
    QVERIFY(lines.at(2).endsWith(",notable,panel,,fault,,kill r2\r"));
}

void tst_EventLogModel::refusesUnwritableDevice()
{
    EventLogModel model;
    fill(model);
    QBuffer buffer;
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    QString error;
    QVERIFY(!exportCsv(&buffer, &model, &error));
    QVERIFY(!error.isEmpty());
}

void tst_EventLogModel::severityPerKind_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("event");
    QTest::addColumn<EventSeverity>("severity");
    // Every kind the producers write (engine/core/lease/events.cpp, engine/sim/demo/demorunner.cpp,
    // models/statusdiff.cpp, ui/mainwindow.cpp, ui/pausecontroller.cpp): core/demotypes.h's
    // EventKind.
    const auto routine = EventSeverity::Routine;
    const auto notable = EventSeverity::Notable;
    const auto alert = EventSeverity::Alert;
    QTest::newRow("replica acquired") << "r1"
                                      << "acquired" << routine;
    QTest::newRow("replica released") << "r1"
                                      << "released" << routine;
    QTest::newRow("poll acquired") << "poll"
                                   << "acquired" << routine;
    QTest::newRow("poll rotation") << "poll"
                                   << "rotation" << routine;
    QTest::newRow("poll state") << "poll"
                                << "state" << routine;
    QTest::newRow("poll new holder") << "poll"
                                     << "new holder" << routine;
    QTest::newRow("poll takeover") << "poll"
                                   << "takeover" << notable;
    QTest::newRow("poll after pause") << "poll"
                                      << "after pause" << notable;
    QTest::newRow("poll paused") << "poll"
                                 << "paused" << notable;
    QTest::newRow("poll unpaused") << "poll"
                                   << "unpaused" << notable;
    QTest::newRow("poll pause ended") << "poll"
                                      << "pause ended" << notable;
    QTest::newRow("poll age ok") << "poll"
                                 << "age ok" << notable;
    QTest::newRow("poll age warning") << "poll"
                                      << "age warning" << alert;
    QTest::newRow("poll age alert") << "poll"
                                    << "age alert" << alert;
    QTest::newRow("replica lost") << "r2"
                                  << "lost" << notable;
    QTest::newRow("replica paused_observed") << "r2"
                                             << "paused_observed" << notable;
    QTest::newRow("replica late_beat") << "r2"
                                       << "late_beat" << alert;
    QTest::newRow("replica release_failed") << "r2"
                                            << "release_failed" << alert;
    QTest::newRow("panel fault") << "panel"
                                 << "fault" << notable;
    QTest::newRow("panel takeover") << "panel"
                                    << "takeover" << notable;
    QTest::newRow("panel no_takeover") << "panel"
                                       << "no_takeover" << alert;
    QTest::newRow("workload error") << "workload"
                                    << "error" << alert;
    QTest::newRow("console pause") << "console"
                                   << "pause" << notable;
    QTest::newRow("console unpause") << "console"
                                     << "unpause" << notable;
    QTest::newRow("console drill") << "console"
                                   << "drill" << notable;
    QTest::newRow("console connection") << "console"
                                        << "connection" << notable;
    QTest::newRow("console guard") << "console"
                                   << "guard" << notable;
    QTest::newRow("console demo") << "console"
                                  << "demo" << notable;
    QTest::newRow("console alert") << "console"
                                   << "alert" << alert;
    QTest::newRow("console poll failed") << "console"
                                         << "poll failed" << alert;
    QTest::newRow("console error") << "console"
                                   << "error" << alert;
    QTest::newRow("console history") << "console"
                                     << "history" << alert;
    QTest::newRow("console keychain") << "console"
                                      << "keychain" << notable;
    QTest::newRow("console --role") << "console"
                                    << "--role" << notable;
    QTest::newRow("console privileges") << "console"
                                        << "privileges" << notable;
    QTest::newRow("console schema") << "console"
                                    << "schema" << notable;
}

// Each kind has its severity, shown as a shape and a word (not colour alone) and exported as the
// word. Checked to fail with severityOf() answering Notable for every kind.
void tst_EventLogModel::severityPerKind()
{
    QFETCH(QString, source);
    QFETCH(QString, event);
    QFETCH(EventSeverity, severity);
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(entry(source, "billing", event));
    const QModelIndex cell = model.index(0, EventLogModel::Severity);
    QCOMPARE(cell.data(EventLogModel::RawRole).toInt(), int(severity));
    QCOMPARE(cell.data(ExportRole).toString(), severityName(severity));
    const QString shown = cell.data().toString();
    QVERIFY2(shown.endsWith(severityName(severity)) && shown.size() > severityName(severity).size(),
             qPrintable(shown));
    QVERIFY(cell.data(Qt::ForegroundRole).value<QColor>().isValid());
}

// Every kind has one name in the table, and the name parses back to it: the kind filter and the
// tests name kinds that way. Checked to fail with two kinds sharing a name.
void tst_EventLogModel::kindNamesParseBack()
{
    QSet<QString> names;
    for (int value = int(EventKind::Acquired); value <= int(EventKind::Demo); ++value) {
        const auto kind = EventKind(value);
        const QString name = eventKindName(kind);
        QVERIFY(!name.isEmpty());
        QVERIFY2(!names.contains(name), qPrintable(name));
        names.insert(name);
        QCOMPARE(eventKindFromName(name), std::optional<EventKind>(kind));
    }
    QCOMPARE(eventKindFromName(u"fence_anomaly"), std::nullopt);
}

namespace {

EventLogEntry at(int second, const QString &source, const QString &role, const QString &event,
                 qint64 token = 0, const QString &detail = {})
{
    EventLogEntry e = entry(source, role, event, token, detail);
    e.time = e.time.addSecs(second);
    return e;
}

QStringList shownEvents(const QAbstractItemModel &model)
{
    QStringList events;
    for (int row = 0; row < model.rowCount(); ++row)
        events << model.index(row, EventLogModel::Role).data().toString() + u':'
                          + model.index(row, EventLogModel::Event).data().toString();
    return events;
}

} // namespace

// Each role's routine events fold into one line in the log's order; a notable event about the
// role closes it, and its next routine events count on a new line after. Checked to fail with
// take() giving every event a line of its own.
void tst_EventLogModel::foldsRoutinePerRole()
{
    EventLogModel log;
    EventFoldModel fold;
    QAbstractItemModelTester tester(&fold, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fold.setLog(&log);
    log.append(at(0, "r1", "billing", "acquired", 1));
    log.append(at(1, "poll", "billing", "rotation", 1, "r1 -> r2"));
    log.append(at(1, "r2", "dunning", "acquired", 5));
    log.append(at(2, "r1", "billing", "released", 1, "completed"));
    log.append(at(3, "r2", "billing", "acquired", 2));
    log.append(at(4, "panel", {}, "fault", 0, "kill r2"));
    log.append(at(5, "r2", "dunning", "released", 5, "completed"));
    log.append(at(20, "poll", "billing", "takeover", 3, "r2 -> r3"));
    log.append(at(21, "r3", "billing", "acquired", 3));
    log.append(at(22, "r3", "billing", "released", 3, "completed"));

    QCOMPARE(shownEvents(fold), (QStringList{"billing:routine ×4", "dunning:routine ×2", ":fault",
                                             "billing:takeover", "billing:routine ×2"}));
    QCOMPARE(fold.index(0, 0).data(EventFoldModel::FoldedCountRole).toInt(), 4);
    QCOMPARE(fold.index(2, 0).data(EventFoldModel::FoldedCountRole).toInt(), 0);
    QCOMPARE(fold.index(0, EventLogModel::Time).data(EventLogModel::RawRole).toDateTime(),
             at(0, {}, {}, "acquired").time);
    QCOMPARE(fold.index(0, EventLogModel::Source).data().toString(),
             QStringLiteral("poll, r1, r2"));
    QCOMPARE(fold.index(0, EventLogModel::Token).data().toString(), QStringLiteral("2"));
    QCOMPARE(fold.index(0, EventLogModel::Severity).data(ExportRole).toString(),
             QStringLiteral("routine"));
    const QString detail = fold.index(0, EventLogModel::Detail).data().toString();
    QVERIFY2(detail.startsWith(QLatin1String("last at ")), qPrintable(detail));
    QVERIFY2(detail.endsWith(QLatin1String(": r2 acquired; in all 2 acquired, 1 released, "
                                           "1 rotation")),
             qPrintable(detail));
    QCOMPARE(fold.index(0, 0).data(EventLogModel::KindsRole).toStringList(),
             (QStringList{"acquired", "released", "rotation"}));
    QCOMPARE(fold.roles(), (QStringList{"billing", "dunning"}));
    QCOMPARE(fold.kinds(), (QStringList{"acquired", "fault", "released", "rotation", "takeover"}));
    // An event's own line is the log's.
    QCOMPARE(fold.index(3, EventLogModel::Detail).data().toString(), QStringLiteral("r2 -> r3"));
}

// A routine event on a role's open line inserts no row and changes that line only. Checked to fail
// with dataChanged() over every row.
void tst_EventLogModel::foldUpdatesOnlyItsLine()
{
    EventLogModel log;
    EventFoldModel fold;
    QAbstractItemModelTester tester(&fold, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fold.setLog(&log);
    log.append(at(0, "r1", "billing", "acquired", 1));
    log.append(at(0, "r1", "dunning", "acquired", 7));
    log.append(at(1, "poll", "dunning", "paused", 7, "by ops"));
    QCOMPARE(fold.rowCount(), 3);

    QSignalSpy inserted(&fold, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&fold, &QAbstractItemModel::dataChanged);
    for (int tick = 2; tick < 39; ++tick)
        log.append(at(tick, tick % 2 ? "r1" : "r2", "billing", "rotation", tick));
    QCOMPARE(inserted.count(), 0);
    QCOMPARE(changed.count(), 37);
    for (const QList<QVariant> &signal : std::as_const(changed)) {
        const auto topLeft = signal.at(0).value<QModelIndex>();
        const auto bottomRight = signal.at(1).value<QModelIndex>();
        QCOMPARE(topLeft.row(), 0);
        QCOMPARE(bottomRight.row(), 0);
    }
    QCOMPARE(fold.index(0, 0).data(EventFoldModel::FoldedCountRole).toInt(), 38);
    QCOMPARE(fold.index(0, EventLogModel::Event).data().toString(), QStringLiteral("routine ×38"));
    QCOMPARE(fold.rowCount(), 3);
}

// One switch shows every event of the log, and back. Checked to fail with setShowRoutine()
// keeping the folding.
void tst_EventLogModel::showsEverythingAtOneSwitch()
{
    EventLogModel log;
    fill(log);
    EventFoldModel fold;
    QAbstractItemModelTester tester(&fold, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fold.setLog(&log);
    QCOMPARE(shownEvents(fold),
             (QStringList{"billing:routine ×3", "dunning:routine ×1", ":fault", "dunning:lost"}));
    fold.setShowRoutine(true);
    QVERIFY(fold.showsRoutine());
    QCOMPARE(shownEvents(fold), shownEvents(log));
    log.append(entry("r1", "billing", "released", 101));
    QCOMPARE(fold.rowCount(), log.rowCount());
    fold.setShowRoutine(false);
    QCOMPARE(shownEvents(fold),
             (QStringList{"billing:routine ×4", "dunning:routine ×1", ":fault", "dunning:lost"}));
}

// Past the log's capacity, the lines of the entries it dropped go, a folded line with its first
// entry. Checked to fail with onRowsRemoved() keeping every line.
void tst_EventLogModel::foldDropsWithTheLog()
{
    EventLogModel log(4);
    EventFoldModel fold;
    QAbstractItemModelTester tester(&fold, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fold.setLog(&log);
    log.append(at(0, "r1", "billing", "acquired", 1));
    log.append(at(1, "panel", {}, "fault", 0, "kill r1"));
    log.append(at(2, "r2", "billing", "acquired", 2));
    log.append(at(3, "poll", "billing", "takeover", 2));
    QCOMPARE(shownEvents(fold), (QStringList{"billing:routine ×2", ":fault", "billing:takeover"}));
    log.append(at(4, "r2", "billing", "released", 2));
    QCOMPARE(shownEvents(fold), (QStringList{":fault", "billing:takeover", "billing:routine ×1"}));
    log.append(at(5, "r2", "billing", "acquired", 3));
    log.append(at(6, "r2", "billing", "released", 3));
    QCOMPARE(shownEvents(fold), (QStringList{"billing:takeover", "billing:routine ×3"}));
    log.clear();
    QCOMPARE(fold.rowCount(), 0);
    log.append(at(7, "r2", "billing", "acquired", 4));
    QCOMPARE(shownEvents(fold), (QStringList{"billing:routine ×1"}));
}

void tst_EventLogModel::filtersByRoleAndKind_data()
{
    QTest::addColumn<bool>("showRoutine");
    QTest::addColumn<QString>("role");
    QTest::addColumn<QStringList>("kinds");
    QTest::addColumn<QStringList>("shown");

    QTest::newRow("folded, everything")
            << false << QString() << QStringList()
            << QStringList{"billing:routine ×3", "dunning:routine ×1", ":fault", "dunning:lost"};
    QTest::newRow("folded, role") << false << "dunning" << QStringList()
                                  << QStringList{"dunning:routine ×1", "dunning:lost"};
    QTest::newRow("folded, a kind folded in a line")
            << false << QString() << QStringList{"released"} << QStringList{"billing:routine ×3"};
    QTest::newRow("folded, two kinds") << false << QString() << QStringList{"fault", "lost"}
                                       << QStringList{":fault", "dunning:lost"};
    QTest::newRow("folded, role and kind")
            << false << "dunning" << QStringList{"acquired"} << QStringList{"dunning:routine ×1"};
    QTest::newRow("all, kind") << true << QString() << QStringList{"acquired"}
                               << QStringList{"billing:acquired", "dunning:acquired",
                                              "billing:acquired"};
    QTest::newRow("all, role and kind")
            << true << "billing" << QStringList{"released"} << QStringList{"billing:released"};
    QTest::newRow("a kind not in the log")
            << false << QString() << QStringList{"paused"} << QStringList();
}

// Checked to fail with filterAcceptsRow() ignoring the kinds.
void tst_EventLogModel::filtersByRoleAndKind()
{
    QFETCH(bool, showRoutine);
    QFETCH(QString, role);
    QFETCH(QStringList, kinds);
    QFETCH(QStringList, shown);
    EventLogModel log;
    fill(log);
    EventFoldModel fold;
    fold.setLog(&log);
    fold.setShowRoutine(showRoutine);
    EventLogFilter filter;
    QAbstractItemModelTester tester(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&fold);
    filter.setRole(role);
    filter.setKinds(QSet<QString>(kinds.cbegin(), kinds.cend()));
    QCOMPARE(shownEvents(filter), shown);
}

// The export's first line names the view: folded or not, and the filters. Checked to fail with
// exportCsv() not writing the note.
void tst_EventLogModel::exportSaysWhichView()
{
    EventLogModel log;
    fill(log);
    EventFoldModel fold;
    fold.setLog(&log);
    EventLogFilter filter;
    filter.setSourceModel(&fold);
    filter.setRole(QStringLiteral("billing"));
    filter.setKinds({QStringLiteral("acquired")});
    filter.setText(QStringLiteral("r1"));
    const auto lines = [&filter] {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QString error;
        if (!exportCsv(&buffer, &filter, &error))
            return QList<QByteArray>{error.toUtf8()};
        return buffer.data().split('\n');
    };
    QList<QByteArray> csv = lines();
    QCOMPARE(csv.size(), 4); // the note, the header, one folded line, the rest after the last CRLF
    QCOMPARE(csv.at(0), QByteArray("\"# Event log as shown: notable and alert events, each role's "
                                   "routine events folded into one counting line; role billing; "
                                   "kinds acquired; text \"\"r1\"\"\"\r"));
    QVERIFY2(csv.at(1).startsWith("Time ("), csv.at(1).constData());
    QVERIFY2(csv.at(2).contains(",routine,\"r1, r3\",billing,routine ×3,101,"),
             csv.at(2).constData());
    fold.setShowRoutine(true);
    filter.setText({});
    csv = lines();
    QCOMPARE(csv.at(0),
             QByteArray("# Event log as shown: every event; role billing; kinds acquired\r"));
    QCOMPARE(csv.size(), 5);
}

// Each header explains itself in a tooltip, for the words the column's width leaves no room for.
void tst_EventLogModel::headersExplain()
{
    EventLogModel log;
    EventFoldModel fold;
    fold.setLog(&log);
    for (int column = 0; column < EventLogModel::ColumnCount; ++column) {
        QVERIFY(!log.headerData(column, Qt::Horizontal).toString().isEmpty());
        QVERIFY(!fold.headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }
}

QTEST_MAIN(tst_EventLogModel)
#include "tst_eventlogmodel.moc"
