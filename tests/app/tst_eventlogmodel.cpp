#include "models/eventlogmodel.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace leader::console;

namespace {

EventLogEntry entry(const QString &source, const QString &role, const QString &event,
                    qint64 token = 0, const QString &detail = {})
{
    EventLogEntry e;
    e.time = QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC);
    e.source = source;
    e.role = role;
    e.event = event;
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
    QCOMPARE(buffer.data(), header + ",Source,Role,Event,Token,Detail\r\n" + time
                                    + ",r1,billing,released,7," + field + "\r\n");
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
    QCOMPARE(lines.size(), 3); // header, one row, and the empty rest after the last CRLF
    QVERIFY(lines.at(1).endsWith(",panel,,fault,,kill r2\r"));
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

QTEST_GUILESS_MAIN(tst_EventLogModel)
#include "tst_eventlogmodel.moc"
