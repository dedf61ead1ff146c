// The History view's model, its filter, its CSV and the view itself, without a database: columns
// and headers naming the zone, the time rule's switch changing only the time cells, the filter by
// role and text, ISO 8601 with the offset and RFC 4180 quoting in the export, and the one line a
// database without the pause log gets instead of the table.

#include "core/timerule.h"
#include "models/eventlogmodel.h"
#include "models/pauselogfilter.h"
#include "models/pauselogmodel.h"
#include "ui/pausehistory.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBuffer>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTextDocument>

#include <ctime>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::TimeZoneMode)

namespace {

QDateTime utc(int hour, int minute, int second = 0, int ms = 0)
{
    return QDateTime(QDate(2026, 12, 3), QTime(hour, minute, second, ms), Qt::UTC);
}

PauseLogEntry row(qint64 id, const QString &role, PauseAction action, const QDateTime &at,
                  const QString &login, const QString &by = {}, const QString &reason = {},
                  const QDateTime &until = {}, const QDateTime &endedPause = {})
{
    return {id, role, action, at, login, by, reason, until, endedPause};
}

// billing paused by alice with a timed end, then unpaused by bob; dunning paused before the log
// and expired; newest first, as the database answers.
QList<PauseLogEntry> entries()
{
    return {row(4, "dunning", PauseAction::Expire, utc(11, 0), "lt_app"),
            row(3, "billing", PauseAction::Unpause, utc(10, 30, 0, 250), "lt_ops", "bob@ops",
                "fixed", {}, utc(10, 0)),
            row(2, "billing", PauseAction::Pause, utc(10, 0), "lt_ops", "alice@ops",
                "halt, \"now\"\nplease", utc(11, 0)),
            row(1, "webhook_outbox", PauseAction::Pause, utc(9, 0), "lt_app", "carol",
                "SMTP rotation")};
}

} // namespace

class TstPauseLogModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void columnsAndCells()
    {
        PauseLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        TimeRule rule;
        rule.setMode(TimeZoneMode::Utc);
        model.setTimeRule(&rule);
        model.setEntries(entries());
        QCOMPARE(model.columnCount(), int(PauseLogModel::ColumnCount));
        QCOMPARE(model.rowCount(), 4);
        const auto cell = [&model](int row, int column) {
            return model.index(row, column).data().toString();
        };
        QCOMPARE(cell(2, PauseLogModel::Time), QStringLiteral("2026-12-03 10:00:00"));
        QCOMPARE(cell(2, PauseLogModel::Role), QStringLiteral("billing"));
        QCOMPARE(cell(2, PauseLogModel::Action), QStringLiteral("pause"));
        QCOMPARE(cell(2, PauseLogModel::Login), QStringLiteral("lt_ops"));
        QCOMPARE(cell(2, PauseLogModel::By), QStringLiteral("alice@ops"));
        QCOMPARE(cell(2, PauseLogModel::Until), QStringLiteral("2026-12-03 11:00:00"));
        QCOMPARE(cell(2, PauseLogModel::EndedPause), QString());
        QCOMPARE(cell(3, PauseLogModel::Until), QStringLiteral("until unpaused"));
        QCOMPARE(cell(1, PauseLogModel::EndedPause), QStringLiteral("2026-12-03 10:00:00"));
        QCOMPARE(cell(1, PauseLogModel::Until), QString());
        QCOMPARE(cell(0, PauseLogModel::EndedPause), QStringLiteral("before the log"));
        QCOMPARE(model.index(1, PauseLogModel::Time).data(PauseLogModel::RawRole).toDateTime(),
                 utc(10, 30, 0, 250));
        QVERIFY(model.index(1, PauseLogModel::Time)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QLatin1String("10:30:00.250 +00:00")));
    }

    void headersNameTheZone_data()
    {
        QTest::addColumn<TimeZoneMode>("mode");
        QTest::addColumn<QString>("zone");
        QTest::newRow("utc") << TimeZoneMode::Utc << QStringLiteral("UTC");
        QTest::newRow("local") << TimeZoneMode::Local << QStringLiteral("local UTC+05:30");
    }

    void headersNameTheZone()
    {
        QFETCH(TimeZoneMode, mode);
        QFETCH(QString, zone);
        TimeRule rule;
        rule.setMode(mode);
        PauseLogModel model;
        model.setTimeRule(&rule);
        const auto header = [&model](int column) {
            return model.headerData(column, Qt::Horizontal).toString();
        };
        QCOMPARE(header(PauseLogModel::Time), QStringLiteral("Time (%1)").arg(zone));
        QCOMPARE(header(PauseLogModel::Until), QStringLiteral("Until (%1)").arg(zone));
        QCOMPARE(header(PauseLogModel::EndedPause), QStringLiteral("Ended pause (%1)").arg(zone));
        QCOMPARE(header(PauseLogModel::Login), QStringLiteral("Login"));
        QCOMPARE(header(PauseLogModel::Reason), QStringLiteral("Reason"));
    }

    // A switch of zone changes the time cells and their headers, nothing else, and no reset.
    void timeRuleSwitchIsPrecise()
    {
        PauseLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        TimeRule rule;
        rule.setMode(TimeZoneMode::Utc);
        model.setTimeRule(&rule);
        model.setEntries(entries());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        rule.setMode(TimeZoneMode::Local);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 2);
        const int last = model.rowCount() - 1;
        const auto range = [&changed](int signal) {
            const auto arguments = changed.at(signal);
            const auto from = arguments.at(0).value<QModelIndex>();
            const auto to = arguments.at(1).value<QModelIndex>();
            return QList<int>{from.row(), from.column(), to.row(), to.column()};
        };
        QCOMPARE(range(0), (QList<int>{0, PauseLogModel::Time, last, PauseLogModel::Time}));
        QCOMPARE(range(1), (QList<int>{0, PauseLogModel::Until, last, PauseLogModel::EndedPause}));
        QVERIFY(changed.at(0).at(2).value<QList<int>>().contains(ExportRole));
        QCOMPARE(headers.count(), 2);
        QCOMPARE(model.index(2, PauseLogModel::Time).data().toString(),
                 QStringLiteral("2026-12-03 15:30:00"));
    }

    void filtersByRoleAndText_data()
    {
        QTest::addColumn<QString>("role");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<qint64>>("ids");
        QTest::newRow("everything") << QString() << QString() << QList<qint64>{4, 3, 2, 1};
        QTest::newRow("billing") << QStringLiteral("billing") << QString() << QList<qint64>{3, 2};
        QTest::newRow("no rows of email_outbox")
                << QStringLiteral("email_outbox") << QString() << QList<qint64>{};
        QTest::newRow("text in reason, any case")
                << QString() << QStringLiteral("smtp") << QList<qint64>{1};
        QTest::newRow("text in login")
                << QString() << QStringLiteral("lt_app ") << QList<qint64>{4, 1};
        QTest::newRow("role and text")
                << QStringLiteral("billing") << QStringLiteral("bob") << QList<qint64>{3};
        QTest::newRow("role and text elsewhere")
                << QStringLiteral("dunning") << QStringLiteral("bob") << QList<qint64>{};
    }

    void filtersByRoleAndText()
    {
        QFETCH(QString, role);
        QFETCH(QString, text);
        QFETCH(QList<qint64>, ids);
        PauseLogModel model;
        model.setEntries(entries());
        PauseLogFilter filter;
        QAbstractItemModelTester tester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        filter.setRole(role);
        filter.setText(text);
        QList<qint64> shown;
        for (int row = 0; row < filter.rowCount(); ++row)
            shown.append(model.entry(filter.mapToSource(filter.index(row, 0)).row()).id);
        QCOMPARE(shown, ids);
    }

    // What File > Export writes: the rows shown, times in ISO 8601 with the zone's offset, and a
    // reason with a comma, quotes and a line break in one quoted field.
    void exportsIsoTimesAndQuotesReasons_data()
    {
        QTest::addColumn<TimeZoneMode>("mode");
        QTest::addColumn<QString>("pausedAt");
        QTest::addColumn<QString>("until");
        QTest::newRow("utc") << TimeZoneMode::Utc << QStringLiteral("2026-12-03T10:00:00.000+00:00")
                             << QStringLiteral("2026-12-03T11:00:00.000+00:00");
        QTest::newRow("local") << TimeZoneMode::Local
                               << QStringLiteral("2026-12-03T15:30:00.000+05:30")
                               << QStringLiteral("2026-12-03T16:30:00.000+05:30");
    }

    void exportsIsoTimesAndQuotesReasons()
    {
        QFETCH(TimeZoneMode, mode);
        QFETCH(QString, pausedAt);
        QFETCH(QString, until);
        TimeRule rule;
        rule.setMode(mode);
        PauseLogModel model;
        model.setTimeRule(&rule);
        model.setEntries(entries());
        PauseLogFilter filter;
        filter.setSourceModel(&model);
        filter.setRole(QStringLiteral("billing"));
        QBuffer buffer;
        QVERIFY(buffer.open(QIODevice::WriteOnly));
        QString error;
        QVERIFY2(exportCsv(&buffer, &filter, &error), qPrintable(error));
        const QString csv = QString::fromUtf8(buffer.data());
        const QStringList lines = csv.split(QStringLiteral("\r\n"));
        QCOMPARE(lines.size(), 4); // header, two rows, the empty tail
        QVERIFY2(lines.at(0).startsWith(QStringLiteral("Time (")), qPrintable(lines.at(0)));
        QCOMPARE(lines.at(2),
                 QStringLiteral("%1,billing,pause,lt_ops,alice@ops,\"halt, \"\"now\"\"\nplease\","
                                "%2,")
                         .arg(pausedAt, until));
        QVERIFY2(lines.at(1).endsWith(QLatin1Char(',') + pausedAt), qPrintable(lines.at(1)));
        const QRegularExpression iso(
                QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$)"));
        QVERIFY(iso.match(lines.at(1).section(QLatin1Char(','), 0, 0)).hasMatch());
    }

    // An older schema: one line instead of the table; a later good read brings the table back.
    void unavailableIsOneLine()
    {
        TimeRule rule;
        PauseHistory view(&rule);
        QSignalSpy reads(&view, &PauseHistory::readRequested);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(reads.count(), 1);
        QCOMPARE(reads.at(0).at(0).value<PauseLogSince>(), PauseLogSince::Week);
        auto *stack = view.findChild<QStackedWidget *>();
        auto *line = view.findChild<QLabel *>(QStringLiteral("pauseHistoryUnavailable"));
        QVERIFY(stack && line);
        view.setResult(PauseLogResult{.unavailable
                                      = QStringLiteral("pause log unavailable: migration 0177 not "
                                                       "applied (run leaderctl migrate)")});
        QCOMPARE(stack->currentWidget(), line);
        QCOMPARE(line->text(), QStringLiteral("Pause log unavailable: migration 0177 not applied "
                                              "(run leaderctl migrate)"));
        view.setResult(PauseLogResult{.entries = entries()});
        QCOMPARE(stack->currentWidget(),
                 view.findChild<QTableView *>(QStringLiteral("pauseHistoryView")));
        QCOMPARE(view.filter()->rowCount(), 4);
        view.setRole(QStringLiteral("billing"));
        QCOMPARE(view.filter()->rowCount(), 2);
        // A failed read keeps the last good rows and says why under them.
        view.setResult(PauseLogResult{.error = QStringLiteral("not connected")});
        QCOMPARE(view.filter()->rowCount(), 2);
        QVERIFY(view.findChild<QLabel *>(QStringLiteral("pauseHistoryState"))
                        ->text()
                        .contains(QLatin1String("not connected")));
        // Its own pause or unpause makes it read again; a failed one does not.
        view.onActionFinished(PauseAction::Pause, false);
        view.onActionFinished(PauseAction::Unpause, true);
        QCOMPARE(reads.count(), 2);
    }
};

// Issue 31, finding 7: database text in a tooltip or a label shows as written. Checked once
// without the fix: the Reason tooltip was the raw "<b>x</b>..." (rendered as bold with an image)
// and both labels were Qt::AutoText.
class TstPauseLogPlainText final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tooltipShowsReasonAsWritten()
    {
        const QString reason = QStringLiteral("<b>x</b><img src=\"file:///etc/hostname\"> & more");
        PauseLogModel model;
        model.setEntries(
                {row(1, "billing", PauseAction::Pause, utc(9, 0), "lt_app", "<i>eve</i>", reason)});
        const QString tip = model.index(0, PauseLogModel::Reason).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("&lt;b&gt;x&lt;/b&gt;&lt;img")), qPrintable(tip));
        // What QToolTip shows of it: the reason's own characters, no markup applied.
        QTextDocument shown;
        if (Qt::mightBeRichText(tip))
            shown.setHtml(tip);
        else
            shown.setPlainText(tip);
        QCOMPARE(shown.toPlainText(), reason);
        // A tooltip Qt would not take for HTML is left as it was.
        model.setEntries(
                {row(1, "billing", PauseAction::Pause, utc(9, 0), "lt_app", "bob", "a < b & c")});
        QCOMPARE(model.index(0, PauseLogModel::Reason).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("a < b & c"));
    }

    void labelsArePlainText()
    {
        TimeRule rule;
        PauseHistory view(&rule);
        const QString error = QStringLiteral("<b>x</b><img src=\"file:///etc/hostname\">");
        view.setResult(PauseLogResult{.error = error});
        auto *state = view.findChild<QLabel *>(QStringLiteral("pauseHistoryState"));
        QVERIFY(state);
        QCOMPARE(state->textFormat(), Qt::PlainText);
        QVERIFY(state->text().contains(error));
        view.setResult(PauseLogResult{.unavailable = error});
        auto *line = view.findChild<QLabel *>(QStringLiteral("pauseHistoryUnavailable"));
        QVERIFY(line);
        QCOMPARE(line->textFormat(), Qt::PlainText);
    }
};

int main(int argc, char **argv)
{
    // Before anything reads the zone: local time is Kolkata's, UTC+05:30 all year.
    qputenv("TZ", "Asia/Kolkata");
    tzset();
    QApplication app(argc, argv);
    TstPauseLogModel test;
    TstPauseLogPlainText plainText;
    return QTest::qExec(&test, argc, argv) | QTest::qExec(&plainText, argc, argv);
}

#include "tst_pauselogmodel.moc"
