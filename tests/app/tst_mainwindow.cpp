// The console end to end, as an operator drives it: the embedded demo starts (its own cluster in
// a temporary directory), the five roles appear; a role is paused through the toolbar action and
// its dialog, shows paused, is unpaused and ticks again; a replica killed from the failure panel
// produces a row in the Failovers table; closing the window stops the demo.

#include "models/failovermodel.h"
#include "models/replicamodel.h"
#include "models/statusmodel.h"
#include "ui/failurepanel.h"
#include "ui/mainwindow.h"
#include "ui/pausedialog.h"

#include <QAction>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
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

    QString stateOf(const QString &role) const
    {
        const std::optional<RoleStatus> status = m_window->statusModel()->statusFor(role);
        return status ? leader::console::roleStateText(status->state) : QString();
    }

    PauseDialog *dialog() const { return m_window->findChild<PauseDialog *>(); }

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
        QSignalSpy started(m_window.get(), &MainWindow::demoStarted);
        QSignalSpy failed(m_window.get(), &MainWindow::demoFailed);
        m_window->show();
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(started.count() > 0 || failed.count() > 0, 180000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QCOMPARE(m_window->windowTitle(), QStringLiteral("Leader Console — demo"));
        QTRY_COMPARE_WITH_TIMEOUT(m_window->statusModel()->rowCount(), 5, 30000);
    }

    void pauseAndUnpauseThroughTheUi()
    {
        const QString role = QStringLiteral("email_outbox");
        QVERIFY(m_window->selectRole(role));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pauseAction()->isEnabled(), 20000);

        m_window->pauseAction()->trigger();
        QTRY_VERIFY(dialog());
        QCOMPARE(dialog()->role(), role);
        dialog()->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("end-to-end test"));
        dialog()->findChild<QPushButton *>(QStringLiteral("okButton"))->click();
        // Polls that arrive while the confirmation is up change the table, not the dialog.
        QSignalSpy polled(m_window->statusModel(), &QAbstractItemModel::dataChanged);
        QVERIFY(polled.wait(10000));
        QVERIFY(dialog() && dialog()->isVisible());
        dialog()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(role), QStringLiteral("paused"), 15000);
        const std::optional<RoleStatus> paused = m_window->statusModel()->statusFor(role);
        QCOMPARE(paused->pauseReason, QStringLiteral("end-to-end test"));
        QVERIFY(paused->pausedBy.contains(QLatin1Char('@')));
        QTRY_VERIFY(!m_window->findChild<PauseDialog *>());

        QVERIFY(m_window->selectRole(role));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->unpauseAction()->isEnabled(), 10000);
        QVERIFY(!m_window->pauseAction()->isEnabled());
        m_window->unpauseAction()->trigger();
        QTRY_VERIFY(dialog());
        dialog()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(role) != QLatin1String("paused"), 15000);
        // Ticking again: a completed tick newer than the pause.
        QTRY_VERIFY_WITH_TIMEOUT(m_window->statusModel()->statusFor(role)->lastTickEndedAt
                                         > paused->pausedAt,
                                 30000);
    }

    void killFromThePanelIsAFailover()
    {
        // Billing ticks ~30 s a minute: wait until a hosted replica leads it, then kill that one.
        QString holder;
        QTRY_VERIFY_WITH_TIMEOUT(
                (holder = m_window->statusModel()->statusFor(QStringLiteral("billing"))->holderId)
                                .size()
                        > 0,
                90000);
        ReplicaModel *replicas = m_window->replicaModel();
        QString victim;
        for (int row = 0; row < replicas->rowCount(); ++row) {
            if (replicas->index(row, ReplicaModel::Holder).data().toString() == holder)
                victim = replicas->index(row, ReplicaModel::Replica).data().toString();
        }
        QVERIFY2(!victim.isEmpty(), qPrintable(holder));
        m_window->failurePanel()->selectReplica(victim);
        QCOMPARE(m_window->failurePanel()->selectedReplica(), victim);
        m_window->failurePanel()->findChild<QPushButton *>(QStringLiteral("killButton"))->click();

        FailoverModel *failovers = m_window->failoverModel();
        QTRY_VERIFY_WITH_TIMEOUT(failovers->rowCount() >= 1, 60000);
        bool billing = false;
        for (int row = 0; row < failovers->rowCount(); ++row) {
            if (failovers->index(row, FailoverModel::Role).data().toString()
                == QLatin1String("billing")) {
                billing = true;
                QCOMPARE(failovers->index(row, FailoverModel::Victim).data().toString(), victim);
                QVERIFY(failovers->index(row, FailoverModel::Successor).data().toString()
                        != victim);
            }
        }
        QVERIFY(billing);
    }

    void closingStopsTheDemo()
    {
        QSignalSpy finished(m_window.get(), &MainWindow::shutdownFinished);
        m_window->close();
        QVERIFY(finished.count() > 0 || finished.wait(30000));
        QTRY_VERIFY(!m_window->isVisible());
        m_window.reset();
    }
};

QTEST_MAIN(MainWindowTest)
#include "tst_mainwindow.moc"
