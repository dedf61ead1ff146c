// The fleet window against real databases (straight to Postgres and again through PgBouncer): two
// databases polled at once while a third hangs (a port that accepts and never answers) — the live
// ones keep updating, the hung one is stale and says it is connecting, and closing the window
// stops every poller, the hung one's included, within the session's bound. A database that
// refuses every connection opens no dialog, on any retry: its tab says so and the others stay
// usable (issue 33). The overview's model runs under QAbstractItemModelTester throughout. A
// session's takeover reaches its own tab and row only (issue 34). The window closes even when its
// tabs' poll threads ended before it asked them to.

#include "core/consolesession.h"
#include "endpollthread.h"
#include "loopbackport.h"
#include "models/fleetmodel.h"
#include "testdatabase.h"
#include "ui/connectionbanner.h"
#include "ui/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>

#include <memory>

using namespace leader::console;
using leader::test::Login;
using leader::test::LoopbackPort;
using leader::test::TestDatabase;
using Level = FleetModel::Level;

namespace {

constexpr int Timeout = 20000;

QString cell(const FleetModel *model, int row, int column)
{
    return model->index(row, column).data().toString();
}

int visibleDialogs()
{
    int count = 0;
    for (QWidget *widget : QApplication::topLevelWidgets())
        count += widget->isVisible() && qobject_cast<QDialog *>(widget) ? 1 : 0;
    return count;
}

} // namespace

class TstFleetWindow final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TestDatabase> m_first;
    std::unique_ptr<TestDatabase> m_second;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_first = std::make_unique<TestDatabase>("fleet_a");
        m_first->migrateLease();
        m_second = std::make_unique<TestDatabase>("fleet_b");
        m_second->migrateLease();
        qputenv("PGPASSWORD", qgetenv("LEADER_TEST_PASSWORD"));
    }

    void cleanupTestCase()
    {
        m_second.reset();
        m_first.reset();
    }

    // The hung database's connect waits up to 60 s in its own worker; the live ones must not wait
    // with it.
    void aHungDatabaseDelaysNoOther()
    {
        const LoopbackPort hung(LoopbackPort::Behaviour::Silent);
        m_second->resetLeases();
        m_second->connect(Login::Owner)
                .exec("pause", "SELECT leader_pause('dunning', 'alice@ops', 'fleet test')", {},
                      std::chrono::seconds(5));

        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        options.fleet = {
                {false, QString::fromStdString(m_first->url(Login::Monitor))},
                {false, QStringLiteral("postgresql://monitor@127.0.0.1:%1/hung?connect_timeout=60")
                                .arg(hung.port())},
                {false, QString::fromStdString(m_second->url(Login::Monitor))},
        };
        FleetWindow window(options);
        FleetModel *model = window.model();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(window.pages().size(), 3);
        QCOMPARE(window.windowTitle(), QStringLiteral("Fleet — 3 databases"));
        window.show();
        window.start();

        // Each live database polls on and on while the hung one has not answered once.
        QSignalSpy first(window.pages().at(0)->session(), &ConsoleSession::snapshot);
        QSignalSpy second(window.pages().at(2)->session(), &ConsoleSession::snapshot);
        QSignalSpy hungRows(window.pages().at(1)->session(), &ConsoleSession::snapshot);
        QTRY_VERIFY_WITH_TIMEOUT(first.size() >= 4 && second.size() >= 4, Timeout);
        QCOMPARE(hungRows.size(), 0);

        QCOMPARE(cell(model, 0, FleetModel::Connection), QStringLiteral("connected"));
        QVERIFY(model->health(0) != Level::Stale);
        QCOMPARE(model->health(1), Level::Stale);
        QVERIFY(cell(model, 1, FleetModel::Connection) != QLatin1String("connected"));
        // The paused role shows in its database's row, and only there.
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, 2, FleetModel::Paused), QStringLiteral("dunning"),
                                  Timeout);
        QCOMPARE(cell(model, 0, FleetModel::Paused), QString());
        // Freshly migrated: its roles never ran but are not due yet (starting, counted as ok), so
        // the pause is the worst (issue 33; the overview read "warn: billing, …" before).
        QCOMPARE(model->health(2), Level::Paused);
        QCOMPARE(cell(model, 2, FleetModel::Health), QStringLiteral("paused"));
        QVERIFY(model->index(2, FleetModel::Health)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QLatin1String("dunning: paused")));

        // Closing stops every poller, the one stuck in its connect included.
        QElapsedTimer closing;
        closing.start();
        window.close();
        for (MainWindow *page : window.pages()) {
            QTRY_VERIFY_WITH_TIMEOUT(page->session()->phase() == ConsoleSession::Phase::Finished,
                                     10000);
        }
        QTRY_VERIFY(!window.isVisible());
        qInfo("closing the fleet with a hung database took %lld ms", closing.elapsed());
    }

    // One database of the fleet refuses every connection (a closed loopback port) through four
    // attempts of the poller's backoff (0, 1, 3, 8 s; the backoff has no test hook, and the next
    // attempts are 5 s apart like the fourth). No dialog is visible on any of them and nothing is
    // modal (QTest's clicks reach a window a modal dialog blocks, so the modal check is what says
    // the other tabs take input); the unreachable tab says so, counting, and is marked for the
    // other tabs; the live tab, clicked, keeps polling; the window closes within the session's
    // bound. Checked: with the dialog reopened on each failure not yet answered (the code before
    // issue 33) every attempt counts one dialog.
    void anUnreachableDatabaseOpensNoDialog()
    {
        const LoopbackPort closed(LoopbackPort::Behaviour::Refuse);
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        options.fleet = {
                {false, QString::fromStdString(m_first->url(Login::Monitor))},
                {false,
                 QStringLiteral("postgresql://monitor@127.0.0.1:%1/gone").arg(closed.port())},
        };
        QList<int> dialogsAtEachFailure;
        int modalAtAFailure = 0;
        FleetWindow window(options);
        QAbstractItemModelTester tester(window.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        MainWindow *live = window.pages().at(0);
        MainWindow *gone = window.pages().at(1);
        connect(gone->session(), &ConsoleSession::connectionChanged, &window,
                [&](ConnectionState state) {
                    if (state != ConnectionState::Failed)
                        return;
                    dialogsAtEachFailure.append(visibleDialogs());
                    modalAtAFailure += QApplication::activeModalWidget() ? 1 : 0;
                });
        window.show();
        window.start();

        QTRY_VERIFY_WITH_TIMEOUT(dialogsAtEachFailure.size() >= 4, Timeout);
        QCOMPARE(dialogsAtEachFailure, QList<int>(dialogsAtEachFailure.size(), 0));
        QCOMPARE(modalAtAFailure, 0);
        QVERIFY(!QApplication::activeModalWidget());

        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("fleetTabs"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(gone);
        auto *banner = gone->findChild<ConnectionBanner *>();
        QVERIFY(banner && banner->isVisible());
        QVERIFY2(banner->text().startsWith(QStringLiteral("Cannot connect — retrying")),
                 qPrintable(banner->text()));
        QVERIFY(!tabs->tabIcon(tabs->indexOf(gone)).isNull());
        QVERIFY(tabs->tabIcon(tabs->indexOf(live)).isNull());
        QVERIFY(!live->findChild<ConnectionBanner *>()->isVisible());
        QCOMPARE(cell(window.model(), 0, FleetModel::Connection), QStringLiteral("connected"));

        // The live database's tab, by a click as the operator would: input reaches it.
        QTabBar *bar = tabs->tabBar();
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(tabs->indexOf(live)).center());
        QCOMPARE(tabs->currentWidget(), live);
        QSignalSpy liveRows(live->session(), &ConsoleSession::snapshot);
        QTRY_VERIFY_WITH_TIMEOUT(liveRows.size() >= 2, Timeout);

        QElapsedTimer closing;
        closing.start();
        window.close();
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 3000);
        qInfo("closing the fleet with an unreachable database took %lld ms", closing.elapsed());
        QVERIFY(closing.elapsed() < 2 * ConsoleSession::DatabaseShutdownBoundMs);
        QCOMPARE(visibleDialogs(), 0);
    }

    // Closing the fleet when every tab's poll thread has already ended (on a busy machine one may
    // end between its session's quit() and its look at the thread): the window still closes.
    // Found by CI: each session finished inside the window's closeEvent, and the window's close()
    // nested in it was dropped. Checked to fail with ConsoleSession::shutdown() emitting finished
    // from within (the window stayed open).
    void closesWhenEveryPollThreadHasEnded()
    {
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        options.fleet = {{false, QString::fromStdString(m_first->url(Login::Monitor))},
                         {false, QString::fromStdString(m_second->url(Login::Monitor))}};
        FleetWindow window(options);
        window.show();
        window.start();
        for (MainWindow *page : window.pages()) {
            QSignalSpy rows(page->session(), &ConsoleSession::snapshot);
            QVERIFY(rows.wait(Timeout));
        }
        for (MainWindow *page : window.pages())
            QVERIFY(leader::test::endPollThreadFirst(page->session()));

        window.close();
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 2 * ConsoleSession::DatabaseShutdownBoundMs);
        for (MainWindow *page : window.pages())
            QCOMPARE(page->session()->phase(), ConsoleSession::Phase::Finished);
    }

    // The title counts the databases in words (checked once: the former title read "1
    // database(s)", with no translation loaded to resolve %n). Not started: nothing connects.
    void titleCountsDatabases_data()
    {
        QTest::addColumn<int>("databases");
        QTest::addColumn<QString>("title");
        QTest::newRow("one") << 1 << "Fleet — 1 database";
        QTest::newRow("two") << 2 << "Fleet — 2 databases";
    }

    void titleCountsDatabases()
    {
        QFETCH(int, databases);
        QFETCH(QString, title);
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        for (int i = 0; i < databases; ++i)
            options.fleet.append(
                    {false, QStringLiteral("postgresql://monitor@127.0.0.1:1/db%1").arg(i)});
        FleetWindow window(options);
        QCOMPARE(window.windowTitle(), title);
    }

    // A session's takeover reaches its tab's Failovers list and its row of the overview, and no
    // other: both listen to the session, not to each other. Not started: nothing connects.
    void aSessionsTakeoverReachesItsTabAndItsRow()
    {
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Fleet;
        for (int i = 0; i < 2; ++i)
            options.fleet.append(
                    {false, QStringLiteral("postgresql://monitor@127.0.0.1:1/db%1").arg(i)});
        FleetWindow window(options);
        Failover takeover;
        takeover.role = QStringLiteral("billing");
        takeover.fault = QStringLiteral("expiry (database)");
        takeover.victim = QStringLiteral("host:1:aaaaaaaa");
        takeover.successor = QStringLiteral("host:2:bbbbbbbb");
        takeover.acquiredAt = QDateTime::currentDateTimeUtc();
        takeover.gapSeconds = 10.5;
        Q_EMIT window.pages().at(1)->session()->takeover(takeover);

        QVERIFY(cell(window.model(), 0, FleetModel::LastTakeover).isEmpty());
        QVERIFY2(cell(window.model(), 1, FleetModel::LastTakeover)
                         .startsWith(QStringLiteral("billing: host:1:aaaaaaaa → host:2:bbbbbbbb")),
                 qPrintable(cell(window.model(), 1, FleetModel::LastTakeover)));
        const auto failoversOf = [&window](int page) {
            return window.pages().at(page)->findChild<QAbstractItemModel *>(
                    QStringLiteral("failoverModel"));
        };
        QCOMPARE(failoversOf(0)->rowCount(), 0);
        QCOMPARE(failoversOf(1)->rowCount(), 1);
    }
};

QTEST_MAIN(TstFleetWindow)
#include "tst_fleetwindow.moc"
