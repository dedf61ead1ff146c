// The console end to end, as an operator drives it: the embedded demo starts (its own cluster in
// a temporary directory), the five roles appear; a role is paused by its shortcut (Ctrl+P) and
// its dialog, shows paused, is unpaused (Ctrl+Shift+P) and ticks again; a replica killed from the
// failure panel produces a row in the Failovers table; closing the window stops the demo (roles
// released, its server stopped) within the 5 s the issue allows, threads joined.

#include "core/consolesession.h"
#include "models/failovermodel.h"
#include "models/pauselogmodel.h"
#include "models/replicamodel.h"
#include "models/statusmodel.h"
#include "ui/failurepanel.h"
#include "ui/mainwindow.h"
#include "ui/pausedialog.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace leader::console;

class MainWindowTest final : public QObject
{
    Q_OBJECT

private:
    // Under /tmp and world-searchable: as root the cluster's server runs as another account.
    QTemporaryDir m_directory{QStringLiteral("/tmp/tst_mainwindow-XXXXXX")};
    std::unique_ptr<MainWindow> m_window;

    StatusModel *statusModel() const { return m_window->findChild<StatusModel *>(); }
    ConsoleSession *session() const { return m_window->findChild<ConsoleSession *>(); }
    QAction *action(const char *name) const
    {
        return m_window->findChild<QAction *>(QLatin1String(name));
    }
    FailurePanel *failurePanel() const { return m_window->findChild<FailurePanel *>(); }

    QString stateOf(const QString &role) const
    {
        const std::optional<RoleStatus> status = statusModel()->statusFor(role);
        return status ? leader::console::roleStateText(status->state) : QString();
    }

    void selectRole(const QString &role)
    {
        auto *view = m_window->findChild<QTableView *>(QStringLiteral("statusView"));
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            // Not selectRow(): that follows the keyboard's modifiers, and QTest leaves Ctrl held
            // in QGuiApplication's after a shortcut pressed.
            if (view->model()->index(row, StatusModel::Role).data().toString() == role)
                view->selectionModel()->select(view->model()->index(row, 0),
                                               QItemSelectionModel::ClearAndSelect
                                                       | QItemSelectionModel::Rows);
        }
    }

    PauseDialog *dialog() const { return m_window->findChild<PauseDialog *>(); }

    // The keyboard's way to an action: its shortcut pressed on the window.
    void press(const char *name)
    {
        QApplication::setActiveWindow(m_window.get());
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keySequence(m_window.get(), action(name)->shortcut());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_directory.isValid());
        QVERIFY(QFile::setPermissions(m_directory.path(),
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
                                              | QFile::ReadGroup | QFile::ExeGroup
                                              | QFile::ReadOther | QFile::ExeOther));
        ConsoleOptions options;
        options.demoDirectory = m_directory.filePath(QStringLiteral("demo-cluster"));
        m_window = std::make_unique<MainWindow>(options);
        QSignalSpy started(session(), &ConsoleSession::demoStarted);
        QSignalSpy failed(session(), &ConsoleSession::demoFailed);
        m_window->show();
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(started.count() > 0 || failed.count() > 0, 180000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        // The application's name is added once, by Qt, from the display name.
        QCOMPARE(m_window->windowTitle(), QStringLiteral("demo"));
        QTRY_COMPARE_WITH_TIMEOUT(statusModel()->rowCount(), 5, 30000);
    }

    void pauseAndUnpauseThroughTheUi()
    {
        const QString role = QStringLiteral("email_outbox");
        selectRole(role);
        QTRY_VERIFY_WITH_TIMEOUT(action("pauseAction")->isEnabled(), 20000);

        press("pauseAction");
        QTRY_VERIFY(dialog());
        QCOMPARE(dialog()->roles(), QStringList{role});
        dialog()->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("end-to-end test"));
        dialog()->findChild<QPushButton *>(QStringLiteral("okButton"))->click();
        // Polls that arrive while the confirmation is up change the table, not the dialog.
        QSignalSpy polled(statusModel(), &QAbstractItemModel::dataChanged);
        QVERIFY(polled.wait(10000));
        QVERIFY(dialog() && dialog()->isVisible());
        dialog()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(role), QStringLiteral("paused"), 15000);
        const std::optional<RoleStatus> paused = statusModel()->statusFor(role);
        QCOMPARE(paused->pauseReason, QStringLiteral("end-to-end test"));
        QVERIFY(paused->pausedBy.contains(QLatin1Char('@')));
        QTRY_VERIFY(!m_window->findChild<PauseDialog *>());

        selectRole(role);
        QTRY_VERIFY_WITH_TIMEOUT(action("unpauseAction")->isEnabled(), 10000);
        QVERIFY(!action("pauseAction")->isEnabled());
        press("unpauseAction");
        QTRY_VERIFY(dialog());
        dialog()->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("end-to-end test over"));
        dialog()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(role) != QLatin1String("paused"), 15000);
        // Who unpaused and why reach leader_pause_log, which Role → Pause history reads back.
        selectRole(role);
        action("pauseHistoryAction")->trigger();
        auto *log = m_window->findChild<PauseLogModel *>();
        QVERIFY(log);
        const auto unpauseLogged = [log, role] {
            for (int row = 0; row < log->rowCount(); ++row) {
                const auto cell = [&](int column) {
                    return log->index(row, column).data().toString();
                };
                if (cell(PauseLogModel::Role) == role
                    && cell(PauseLogModel::Action) == QLatin1String("unpause"))
                    return cell(PauseLogModel::Reason) == QLatin1String("end-to-end test over")
                           && cell(PauseLogModel::By).contains(QLatin1Char('@'));
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(unpauseLogged(), 15000);
        // Ticking again: a completed tick newer than the pause.
        QTRY_VERIFY_WITH_TIMEOUT(statusModel()->statusFor(role)->lastTickEndedAt > paused->pausedAt,
                                 30000);
    }

    void killFromThePanelIsAFailover()
    {
        // Billing ticks ~30 s a minute: wait until a hosted replica leads it, then kill that one.
        QString holder;
        QTRY_VERIFY_WITH_TIMEOUT(
                (holder = statusModel()->statusFor(QStringLiteral("billing"))->holderId).size() > 0,
                90000);
        ReplicaModel *replicas = m_window->findChild<ReplicaModel *>();
        QString victim;
        for (int row = 0; row < replicas->rowCount(); ++row) {
            if (replicas->index(row, ReplicaModel::Holder).data().toString() == holder)
                victim = replicas->index(row, ReplicaModel::Replica).data().toString();
        }
        QVERIFY2(!victim.isEmpty(), qPrintable(holder));
        failurePanel()->selectReplica(victim);
        QCOMPARE(failurePanel()->selectedReplica(), victim);
        failurePanel()->findChild<QPushButton *>(QStringLiteral("killButton"))->click();

        // The victim may lead other roles too: their takeovers can come first, each at its own
        // lease's expiry, so wait for billing's row itself.
        FailoverModel *failovers = m_window->findChild<FailoverModel *>();
        const auto billingRow = [failovers] {
            for (int row = 0; row < failovers->rowCount(); ++row) {
                if (failovers->index(row, FailoverModel::Role).data().toString()
                    == QLatin1String("billing"))
                    return row;
            }
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(billingRow() >= 0, 60000);
        const int row = billingRow();
        QCOMPARE(failovers->index(row, FailoverModel::Victim).data().toString(), victim);
        QVERIFY(failovers->index(row, FailoverModel::Successor).data().toString() != victim);
    }

    void closingStopsTheDemo()
    {
        QSignalSpy finished(session(), &ConsoleSession::finished);
        QElapsedTimer timer;
        timer.start();
        m_window->close();
        QVERIFY(finished.count() > 0 || finished.wait(30000));
        QTRY_VERIFY(!m_window->isVisible());
        m_window.reset(); // every worker thread joined here
        const qint64 elapsed = timer.elapsed();
        QVERIFY2(elapsed < 5000, qPrintable(QString::number(elapsed)));
    }
};

QTEST_MAIN(MainWindowTest)
#include "tst_mainwindow.moc"
