// The console on a database with ADR-114's 0174 and 0175 only, as the application's own migration
// tool leaves it (straight to Postgres and again through PgBouncer). As the app login, two roles
// are paused at once from the window through the ADR's leader_pause, the end control disabled
// with what it needs beside it, and the pause is said to reach each holder at its next heartbeat;
// they are unpaused through leader_unpause(role), its who and why disabled likewise. The pause
// history and the Replicas tab each show one line of what they need, the early take's place says
// takeovers happen at expiry, the exports carry the rows, and the event log has one schema line
// and no failure. In a fleet, such a database is neither an error nor a warning by itself. Models
// under QAbstractItemModelTester.

#include "core/consolesession.h"
#include "core/statusexport.h"
#include "models/eventlogmodel.h"
#include "models/fleetmodel.h"
#include "models/statusmodel.h"
#include "schema/migrations.h"
#include "testdatabase.h"
#include "ui/fleetwindow.h"
#include "ui/mainwindow.h"
#include "ui/pausedialog.h"
#include "ui/statuspane.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

#include <memory>

using namespace std::chrono_literals;
using namespace leader::console;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr int Timeout = 20000;
const QStringList Pair{QStringLiteral("billing"), QStringLiteral("dunning")};

} // namespace

class TstAdrOnlyConsole final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QAbstractItemModelTester> m_statusTester;
    std::unique_ptr<QAbstractItemModelTester> m_eventTester;

    StatusModel *statusModel() const { return m_window->findChild<StatusModel *>(); }
    EventLogModel *events() const { return m_window->findChild<EventLogModel *>(); }
    StatusPane *pane() const { return m_window->findChild<StatusPane *>(); }
    QAction *action(const char *name) const
    {
        return m_window->findChild<QAction *>(QLatin1String(name));
    }
    template<typename T>
    T *child(const char *name) const
    {
        return m_window->findChild<T *>(QLatin1String(name));
    }
    bool isPaused(const QString &role) const
    {
        const std::optional<RoleStatus> status = statusModel()->statusFor(role);
        return status && status->state == RoleState::Paused;
    }
    // The event log's details of one event, oldest first.
    QStringList logged(EventKind event) const
    {
        QStringList details;
        for (int row = 0; row < events()->rowCount(); ++row) {
            if (events()->entry(row).event == event)
                details << events()->entry(row).detail;
        }
        return details;
    }

    PauseDialog *openDialog(const char *actionName)
    {
        pane()->selectRoles(Pair);
        if (pane()->selectedRoles() != Pair)
            return nullptr;
        QAction *trigger = action(actionName);
        if (!QTest::qWaitFor([trigger] { return trigger->isEnabled(); }, Timeout))
            return nullptr;
        trigger->trigger();
        PauseDialog *dialog = nullptr;
        const bool opened = QTest::qWaitFor(
                [&] { return (dialog = m_window->findChild<PauseDialog *>()) != nullptr; },
                Timeout);
        return opened ? dialog : nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_db = std::make_unique<TestDatabase>("adr_only");
        // As the application's own migration tool applies them: the files' SQL and nothing else,
        // so not even the schema leader_ext exists (tst_statuspoller covers leaderctl's ADR-only).
        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        for (const leader::schema::Migration &migration : leader::schema::embeddedMigrations()) {
            if (migration.set == leader::schema::MigrationSet::Adr)
                owner.execScript("apply " + std::string(migration.name), migration.up, 60s);
        }
        QVERIFY(owner.exec("leader_ext", "SELECT to_regnamespace('leader_ext') IS NULL", {}, 5s)
                        .toBool(0, 0));

        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Database;
        options.databaseUrl = QString::fromStdString(m_db->url(Login::App));
        m_window = std::make_unique<MainWindow>(options);
        m_statusTester = std::make_unique<QAbstractItemModelTester>(
                statusModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_eventTester = std::make_unique<QAbstractItemModelTester>(
                events(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_window->show();
        m_window->start();
        QTRY_COMPARE_WITH_TIMEOUT(statusModel()->rowCount(), 5, Timeout);
    }

    void cleanupTestCase()
    {
        if (m_window) {
            QSignalSpy finished(m_window->session(), &ConsoleSession::finished);
            m_window->close();
            QVERIFY(!finished.isEmpty() || finished.wait(5000));
        }
        m_eventTester.reset();
        m_statusTester.reset();
        m_window.reset();
        m_db.reset();
    }

    // Checked to fail against the reader that required extension 0177 to pause (the action
    // stayed disabled), and with PauseController's heartbeat note removed.
    void pausesTwoRolesThroughTheAdrFunction()
    {
        QAction *pause = action("pauseAction");
        PauseDialog *dialog = openDialog("pauseAction");
        QVERIFY(dialog);
        QVERIFY2(pause->toolTip().contains(QLatin1String("next heartbeat")),
                 qPrintable(pause->toolTip()));
        QCOMPARE(dialog->roles(), Pair);

        // The end: disabled, and why, beside it.
        auto *end = dialog->findChild<QComboBox *>(QStringLiteral("endCombo"));
        auto *needs = dialog->findChild<QLabel *>(QStringLiteral("endNeedsLabel"));
        QVERIFY(end && needs);
        QVERIFY(!end->isEnabled());
        QVERIFY(needs->isVisible());
        QVERIFY2(needs->text().startsWith(QLatin1String("a pause with an end needs the extension "
                                                        "leader_ext 0177")),
                 qPrintable(needs->text()));
        QVERIFY2(needs->text().contains(QLatin1String("leaderctl migrate --print-sql")),
                 qPrintable(needs->text()));

        dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("adr-only drill"));
        dialog->findChild<QPushButton *>(QStringLiteral("okButton"))->click();
        QVERIFY(dialog->isConfirming());
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();

        QTRY_VERIFY_WITH_TIMEOUT(isPaused(Pair.at(0)) && isPaused(Pair.at(1)), Timeout);
        for (const QString &role : Pair) {
            const RoleStatus status = *statusModel()->statusFor(role);
            QCOMPARE(status.pauseReason, QStringLiteral("adr-only drill"));
            QVERIFY(status.pausedBy.contains(QLatin1Char('@')));
            QVERIFY(!status.pausedUntil.isValid());
        }
        // Said once for the request, in the event log and the status bar.
        QTRY_VERIFY_WITH_TIMEOUT(
                !logged(EventKind::Pause).isEmpty()
                        && logged(EventKind::Pause)
                                   .constLast()
                                   .startsWith(QLatin1String("the pause reaches the holder")),
                Timeout);
        const QString note = logged(EventKind::Pause).constLast();
        QVERIFY2(note.contains(QLatin1String("at its next heartbeat (within 3 s), not at once: a "
                                             "pause that reaches the holder at once needs the "
                                             "extension leader_ext 0176")),
                 qPrintable(note));
        QCOMPARE(logged(EventKind::Pause).filter(QLatin1String("next heartbeat")).size(), 1);
        const QString shown = m_window->statusBar()->currentMessage();
        QVERIFY2(shown.contains(QLatin1String("next heartbeat (within 3 s)")), qPrintable(shown));
        QCOMPARE(logged(EventKind::Pause).filter(QLatin1String("failed")).size(), 0);
    }

    // Checked to fail with the dialog's note fields left enabled (setFeatures' disabling removed).
    void unpausesThroughTheAdrFunction()
    {
        QTRY_VERIFY_WITH_TIMEOUT(isPaused(Pair.at(0)) && isPaused(Pair.at(1)), Timeout);
        PauseDialog *dialog = openDialog("unpauseAction");
        QVERIFY(dialog);
        QVERIFY(dialog->isConfirming());
        auto *who = dialog->findChild<QLineEdit *>(QStringLiteral("whoEdit"));
        auto *why = dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"));
        auto *needs = dialog->findChild<QLabel *>(QStringLiteral("noteNeedsLabel"));
        QVERIFY(who && why && needs);
        QVERIFY(!who->isEnabled() && !why->isEnabled());
        QVERIFY(needs->isVisible());
        QVERIFY2(needs->text().startsWith(QLatin1String("who unpaused and why needs the "
                                                        "extension leader_ext 0177")),
                 qPrintable(needs->text()));
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!isPaused(Pair.at(0)) && !isPaused(Pair.at(1)), Timeout);
        QCOMPARE(logged(EventKind::Unpause).filter(QLatin1String("failed")).size(), 0);
    }

    // Checked to fail with the history's export button left enabled.
    void historyAndReplicasSayWhatTheyNeed()
    {
        action("pauseHistoryAction")->trigger();
        auto *history = child<QLabel>("pauseHistoryUnavailable");
        QVERIFY(history);
        QTRY_VERIFY_WITH_TIMEOUT(history->isVisible(), Timeout);
        QVERIFY2(history->text().contains(QLatin1String("needs the extension leader_ext 0177")),
                 qPrintable(history->text()));
        QVERIFY(history->text().at(0).isUpper());
        QVERIFY(child<QLabel>("pauseHistoryState")->text().isEmpty());
        // Nothing to export: off, and why.
        auto *exportLog = child<QPushButton>("pauseHistoryExport");
        QVERIFY(!exportLog->isEnabled());
        QVERIFY2(exportLog->toolTip().contains(QLatin1String("leader_ext 0177")),
                 qPrintable(exportLog->toolTip()));

        auto *registry = child<QLabel>("registryUnavailable");
        QVERIFY(registry);
        QTRY_VERIFY_WITH_TIMEOUT(!registry->text().isEmpty(), Timeout);
        QVERIFY2(registry->text().contains(QLatin1String("needs the extension leader_ext 0178")),
                 qPrintable(registry->text()));
        QVERIFY(!child<QLabel>("registryState")->text().startsWith(QLatin1String("Could not")));
    }

    // The ADR's takeover is at expiry: said where the early take's switch would be, not warned.
    void takeoversAtExpiryAreSaidNotWarned()
    {
        auto *label = child<QLabel>("earlyTakeLabel");
        QVERIFY(label);
        QTRY_VERIFY_WITH_TIMEOUT(label->isVisible(), Timeout);
        QCOMPARE(label->text(), QStringLiteral("takeover at expiry"));
        QVERIFY2(label->toolTip().contains(QLatin1String("needs the extension leader_ext 0179")),
                 qPrintable(label->toolTip()));
    }

    void exportsCarryTheAdrRows()
    {
        QSignalSpy snapshots(m_window->session(), &ConsoleSession::snapshot);
        m_window->session()->refresh();
        QVERIFY(snapshots.wait(Timeout));
        const auto snapshot = snapshots.constLast().at(0).value<StatusSnapshot>();
        QCOMPARE(snapshot.roles.size(), 5);
        const QByteArray csv = statusToCsv(snapshot);
        QCOMPARE(csv.count('\n'), 1 + 5); // the header, five roles
        QVERIFY(csv.contains("\r\nbilling,"));
        const QJsonArray roles = QJsonDocument::fromJson(statusToJson(snapshot))
                                         .object()
                                         .value(QStringLiteral("roles"))
                                         .toArray();
        QCOMPARE(roles.size(), 5);
        QVERIFY(roles.at(0).toObject().value(QStringLiteral("paused_until")).isNull());
    }

    // One plain schema line, however often the console reconnects, and nothing else about it.
    void theEventLogHasOneSchemaLineAndNoFailure()
    {
        const QStringList schema = logged(EventKind::Schema);
        QCOMPARE(schema.size(), 1);
        QVERIFY2(schema.constFirst().contains(QLatin1String("leaderctl migrate")),
                 qPrintable(schema.constFirst()));
        QCOMPARE(logged(EventKind::PollFailed).size(), 0);
        QCOMPARE(logged(EventKind::Privileges).size(), 0);
        QCOMPARE(logged(EventKind::Error).size(), 0);
    }

    // In a fleet, an ADR-only database whose roles tick is as healthy as any.
    void theFleetTakesItAsItIs()
    {
        // Every role unpaused and just ticked (TestDatabase::resetLeases is for the extended
        // table).
        m_db->connect(Login::Owner)
                .exec("ticked",
                      "UPDATE leader_leases SET paused_at = NULL, paused_by = NULL,"
                      " pause_reason = NULL, not_before = NULL, last_tick_ended_at = now(),"
                      " last_tick_holder = 'fleet-test:1:00000001'",
                      {}, 5s);
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        options.fleet = {{false, QString::fromStdString(m_db->url(Login::Monitor))}};
        FleetWindow window(options);
        FleetModel *model = window.model();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        window.show();
        window.start();
        QTRY_COMPARE_WITH_TIMEOUT(model->health(0), FleetModel::Level::Ok, Timeout);
        QCOMPARE(model->index(0, FleetModel::Connection).data().toString(),
                 QStringLiteral("connected"));
        QCOMPARE(model->index(0, FleetModel::Health).data().toString(), QStringLiteral("ok"));
        window.close();
        for (MainWindow *page : window.pages()) {
            QTRY_VERIFY_WITH_TIMEOUT(page->session()->phase() == ConsoleSession::Phase::Finished,
                                     10000);
        }
    }
};

QTEST_MAIN(TstAdrOnlyConsole)
#include "tst_adronlyconsole.moc"
