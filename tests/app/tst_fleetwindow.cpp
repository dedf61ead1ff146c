// The fleet window against real databases (straight to Postgres and again through PgBouncer): two
// databases polled at once while a third hangs (a port that accepts and never answers) — the live
// ones keep updating, the hung one is stale and says it is connecting, and closing the window
// stops every poller, the hung one's included, within the session's bound. The overview's model
// runs under QAbstractItemModelTester throughout.

#include "core/consolesession.h"
#include "loopbackport.h"
#include "models/fleetmodel.h"
#include "testdatabase.h"
#include "ui/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
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
        QCOMPARE(model->health(2), Level::Warn); // never ran, nothing worse: paused ranks below
        QVERIFY(cell(model, 2, FleetModel::Health).startsWith(QLatin1String("warn: ")));
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
};

QTEST_MAIN(TstFleetWindow)
#include "tst_fleetwindow.moc"
