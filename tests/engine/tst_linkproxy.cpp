// leader::faults::LinkProxy between leader::pg::Connection and a real Postgres: pass-through of
// small and large traffic, a sever that looks like a blackhole (the client's deadline fires, no
// reset), held bytes and idle connections surviving a timed sever, connects during a sever, added
// latency, dropping every connection, cutting idle ones, restarting on the same port, and an
// upstream that refuses.
// Always straight to Postgres: the proxy stands in for the network, not for the pooler.

#include "faults/linkproxy.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/process.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <memory>
#include <string>

using namespace std::chrono_literals;
using leader::faults::LinkMode;
using leader::faults::LinkProxy;
using leader::pg::Connection;
using leader::pg::Error;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// postgresql://user:password@host:port/dbname with host:port replaced by the proxy's.
std::string throughProxy(const std::string &url, int port)
{
    const std::size_t at = url.rfind('@');
    const std::size_t slash = url.find('/', at);
    return url.substr(0, at + 1) + "127.0.0.1:" + std::to_string(port) + url.substr(slash);
}

std::int64_t backendPid(Connection &connection)
{
    return connection.exec("backend pid", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0);
}

} // namespace

class TestLinkProxy final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void passesSmallAndLargeTraffic();
    void severHitsTheDeadlineNotAReset();
    void connectWhileSeveredWaitsForItsTimeout();
    void connectDuringTimedSeverCompletesAfterHeal();
    void idleConnectionSurvivesTimedSever();
    void heldStatementIsDeliveredOnHeal();
    void slowDelaysBothDirections();
    void dropAllBreaksEveryConnection();
    void cutIdleClosesOnlyWhatIdles();
    void restartsOnTheSamePort();
    void refusedUpstreamClosesTheClient();

private:
    Connection proxied(std::chrono::milliseconds connectTimeout = Short) const;

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<LinkProxy> m_proxy;
    std::string m_url;
};

void TestLinkProxy::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("linkproxy");
}

void TestLinkProxy::init()
{
    m_proxy = std::make_unique<LinkProxy>(qEnvironmentVariable("LEADER_TEST_HOST").toStdString(),
                                          qEnvironmentVariable("LEADER_TEST_PG_PORT").toInt());
    m_url = throughProxy(m_db->directUrl(Login::Owner), m_proxy->start());
    QVERIFY(m_proxy->isRunning());
    QCOMPARE(m_proxy->mode(), LinkMode::Pass);
}

void TestLinkProxy::cleanup()
{
    m_proxy.reset();
}

Connection TestLinkProxy::proxied(std::chrono::milliseconds connectTimeout) const
{
    return Connection({.url = m_url,
                       .applicationName = "leader-tests linkproxy",
                       .connectTimeout = connectTimeout});
}

void TestLinkProxy::passesSmallAndLargeTraffic()
{
    Connection connection = proxied();
    QCOMPARE(qs(connection.exec("one", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
    const auto before = m_proxy->counters();

    const std::string large(
            connection.exec("large", "SELECT repeat('x', 1000000)", {}, Short).text(0, 0));
    QCOMPARE(large.size(), std::size_t(1000000));
    QCOMPARE(large.find_first_not_of('x'), std::string::npos);
    const std::string parameter(1000000, 'y');
    QCOMPARE(connection.exec("large parameter", "SELECT length($1)", {parameter}, Short)
                     .toInt64(0, 0),
             1000000);

    const auto after = m_proxy->counters();
    QVERIFY(after.bytesToClient - before.bytesToClient >= 1000000);
    QVERIFY(after.bytesToUpstream - before.bytesToUpstream >= 1000000);
    QCOMPARE(after.connectionsAccepted, std::uint64_t(1));
    QCOMPARE(after.connectionsOpen, std::uint64_t(1));
}

void TestLinkProxy::severHitsTheDeadlineNotAReset()
{
    Connection connection = proxied();
    backendPid(connection);
    m_proxy->sever();
    QCOMPARE(m_proxy->mode(), LinkMode::Severed);
    const auto before = m_proxy->counters();

    QElapsedTimer elapsed;
    elapsed.start();
    try {
        connection.exec("severed", "SELECT 1", {}, 500ms);
        QFAIL("a statement went through a severed link");
    } catch (const Error &error) {
        // A reset would surface before the deadline and without deadlineExceeded.
        QVERIFY2(error.deadlineExceeded(), error.what());
    }
    QVERIFY2(elapsed.elapsed() >= 500, qPrintable(QString::number(elapsed.elapsed())));
    QVERIFY2(elapsed.elapsed() < 5000, qPrintable(QString::number(elapsed.elapsed())));
    const auto during = m_proxy->counters();
    QCOMPARE(during.bytesToUpstream, before.bytesToUpstream);
    QCOMPARE(during.bytesToClient, before.bytesToClient);

    m_proxy->heal();
    QCOMPARE(m_proxy->mode(), LinkMode::Pass);
    QCOMPARE(qs(connection.exec("healed", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
}

void TestLinkProxy::connectWhileSeveredWaitsForItsTimeout()
{
    m_proxy->sever();
    const auto accepted = m_proxy->counters().connectionsAccepted;
    Connection connection = proxied(1000ms);
    QElapsedTimer elapsed;
    elapsed.start();
    try {
        connection.open();
        QFAIL("a connect went through a severed link");
    } catch (const Error &error) {
        QVERIFY2(error.deadlineExceeded(), error.what());
    }
    // The remaining time is rounded down to whole milliseconds, hence a little slack.
    QVERIFY2(elapsed.elapsed() >= 990, qPrintable(QString::number(elapsed.elapsed())));
    // The proxy took the handshake and then stayed silent.
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->counters().connectionsAccepted, accepted + 1, 5000);

    m_proxy->heal();
    connection.open();
    QCOMPARE(qs(connection.exec("healed", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
}

void TestLinkProxy::connectDuringTimedSeverCompletesAfterHeal()
{
    QElapsedTimer elapsed;
    elapsed.start();
    m_proxy->sever(300ms);
    Connection connection = proxied(Short);
    connection.open();
    QVERIFY2(elapsed.elapsed() >= 300, qPrintable(QString::number(elapsed.elapsed())));
    QCOMPARE(m_proxy->mode(), LinkMode::Pass);
    QCOMPARE(qs(connection.exec("after heal", "SELECT 1", {}, Short).text(0, 0)),
             QStringLiteral("1"));
}

void TestLinkProxy::idleConnectionSurvivesTimedSever()
{
    Connection connection = proxied();
    const std::int64_t pid = backendPid(connection);
    m_proxy->sever(500ms);
    QCOMPARE(m_proxy->mode(), LinkMode::Severed);
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->mode(), LinkMode::Pass, 5000);
    QCOMPARE(backendPid(connection), pid);
}

void TestLinkProxy::heldStatementIsDeliveredOnHeal()
{
    Connection connection = proxied();
    const std::int64_t pid = backendPid(connection);
    QElapsedTimer elapsed;
    elapsed.start();
    m_proxy->sever(300ms);
    QCOMPARE(backendPid(connection), pid);
    QVERIFY2(elapsed.elapsed() >= 300, qPrintable(QString::number(elapsed.elapsed())));
}

void TestLinkProxy::slowDelaysBothDirections()
{
    Connection connection = proxied();
    backendPid(connection);
    m_proxy->slow(200ms);
    QCOMPARE(m_proxy->mode(), LinkMode::Slow);
    QCOMPARE(m_proxy->latency().count(), 200);

    QElapsedTimer elapsed;
    elapsed.start();
    QCOMPARE(qs(connection.exec("slow", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
    QVERIFY2(elapsed.elapsed() >= 400, qPrintable(QString::number(elapsed.elapsed())));
    // Chunk by chunk delayed, still in order.
    const std::string large(
            connection.exec("slow large", "SELECT repeat('x', 500000) || 'end'", {}, Short)
                    .text(0, 0));
    QCOMPARE(large.size(), std::size_t(500003));
    QCOMPARE(large.find_first_not_of('x'), std::size_t(500000));

    m_proxy->pass();
    QCOMPARE(m_proxy->mode(), LinkMode::Pass);
    QCOMPARE(qs(connection.exec("fast", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
}

void TestLinkProxy::dropAllBreaksEveryConnection()
{
    Connection first = proxied();
    Connection second = proxied();
    backendPid(first);
    backendPid(second);
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->counters().connectionsOpen, std::uint64_t(2), 5000);

    const std::uint64_t accepted = m_proxy->counters().connectionsAccepted;
    m_proxy->dropAll();
    QCOMPARE(m_proxy->counters().connectionsOpen, std::uint64_t(0));
    QCOMPARE(m_proxy->mode(), LinkMode::Pass);
    // Each connection finds its closed session before sending and reconnects through the same
    // proxy: a new session each, not a statement on a dropped one.
    for (Connection *connection : {&first, &second})
        QCOMPARE(qs(connection->exec("reconnected", "SELECT 1", {}, Short).text(0, 0)),
                 QStringLiteral("1"));
    QCOMPARE(m_proxy->counters().connectionsAccepted, accepted + 2);
}

// The idle cut, as HAProxy's timeout client: a session silent for the cut's length is closed, both
// sides (its backend ends), while one that talks more often than that lives on.
void TestLinkProxy::cutIdleClosesOnlyWhatIdles()
{
    Connection silent = proxied();
    Connection chatty = proxied();
    const std::int64_t silentPid = backendPid(silent);
    const std::int64_t chattyPid = backendPid(chatty);
    m_proxy->cutIdle(600ms);
    QElapsedTimer talking;
    talking.start();
    while (talking.elapsed() < 1500) {
        QCOMPARE(backendPid(chatty), chattyPid);
        QTest::qWait(200);
    }
    QCOMPARE(m_proxy->counters().idleCuts, std::uint64_t(1));
    Connection direct = m_db->connectDirect(Login::App);
    QTRY_COMPARE_WITH_TIMEOUT(
            qs(direct.exec("backend gone", "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                           {silentPid}, Short)
                       .text(0, 0)),
            QStringLiteral("0"), 5000);
    // The silent one finds its session closed and reconnects: a new backend.
    QVERIFY(backendPid(silent) != silentPid);
    m_proxy->cutIdle(0ms);
}

void TestLinkProxy::restartsOnTheSamePort()
{
    Connection connection = proxied();
    backendPid(connection);
    const int port = m_proxy->port();
    m_proxy->stop();
    QVERIFY(!m_proxy->isRunning());
    QCOMPARE(m_proxy->port(), 0);
    try {
        connection.exec("stopped", "SELECT 1", {}, Short);
        QFAIL("a statement went through a stopped proxy");
    } catch (const Error &error) {
        QVERIFY2(error.isTransport(), error.what());
    }

    QCOMPARE(m_proxy->start(port), port);
    QCOMPARE(qs(connection.exec("restarted", "SELECT 1", {}, Short).text(0, 0)),
             QStringLiteral("1"));
}

void TestLinkProxy::refusedUpstreamClosesTheClient()
{
    // Nothing listens there, so every dial is refused; the client must hear of it at once rather
    // than wait for its connect timeout.
    LinkProxy proxy("127.0.0.1", leader::platform::freeLoopbackPort());
    Connection connection({.url = throughProxy(m_db->directUrl(Login::Owner), proxy.start()),
                           .applicationName = "leader-tests linkproxy"});
    QElapsedTimer elapsed;
    elapsed.start();
    try {
        connection.open(Short);
        QFAIL("connected through a proxy whose upstream refuses");
    } catch (const Error &error) {
        QVERIFY2(!error.deadlineExceeded(), error.what());
    }
    QVERIFY2(elapsed.elapsed() < 2000, qPrintable(QString::number(elapsed.elapsed())));
    QTRY_COMPARE_WITH_TIMEOUT(proxy.counters().connectionsOpen, std::uint64_t(0), 5000);
    QCOMPARE(proxy.counters().connectionsAccepted, std::uint64_t(1));
}

QTEST_GUILESS_MAIN(TestLinkProxy)
#include "tst_linkproxy.moc"
