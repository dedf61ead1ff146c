// leader::pg::ConnectionPool against a real server, straight to Postgres and through PgBouncer in
// transaction mode: it holds at most maxOpen connections, a borrower beyond them waits for one
// to come back or fails clearly at its deadline, and no connect happens under the pool's lock
// (issue 31, finding 4).

#include "loopbackport.h"
#include "pg/error.h"
#include "pg/pool.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using leader::pg::ConnectionPool;
using leader::test::Login;
using leader::test::TestDatabase;

class TestConnectionPool final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void boundedAndFailsClearlyBeyond();
    void aWaitingBorrowerGetsAReturnedConnection();
    void connectsOutsideItsLock();

private:
    std::unique_ptr<TestDatabase> m_db;
};

void TestConnectionPool::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("connectionpool");
}

// Checked: without the bound (take() always making a new connection) the fourth borrower got a
// fourth session and this failed.
void TestConnectionPool::boundedAndFailsClearlyBeyond()
{
    ConnectionPool pool({.url = m_db->url(Login::App), .applicationName = "tst pool"}, 2, 3, 300ms);
    std::vector<ConnectionPool::Lease> lent;
    for (int i = 0; i < 3; ++i) {
        lent.push_back(pool.take());
        lent.back()->exec("open", "SELECT 1", {}, 5s);
    }
    QCOMPARE(pool.size(), std::size_t(3));
    QElapsedTimer waited;
    waited.start();
    try {
        pool.take();
        QFAIL("a fourth connection was lent");
    } catch (const leader::pg::Error &error) {
        QVERIFY(error.notStarted());
        QCOMPARE(error.statement(), std::string("pool"));
        QVERIFY2(QString::fromStdString(error.what())
                         .contains("all 3 connections of \"tst pool\" stayed in use for 300 ms"),
                 error.what());
    }
    QVERIFY2(waited.elapsed() >= 290 && waited.elapsed() < 2000,
             qPrintable(QString::number(waited.elapsed())));
    lent.clear();
    QCOMPARE(pool.size(), std::size_t(2)); // maxIdle kept, the third closed
}

void TestConnectionPool::aWaitingBorrowerGetsAReturnedConnection()
{
    ConnectionPool pool({.url = m_db->url(Login::App), .applicationName = "tst pool"}, 1, 1, 10s);
    std::optional<ConnectionPool::Lease> first(pool.take());
    (*first)->exec("open", "SELECT 1", {}, 5s);
    std::atomic<bool> served = false;
    std::thread borrower([&] {
        ConnectionPool::Lease second = pool.take();
        served = second->isOpen(); // the one given back, still open: not a new one
    });
    first.reset();
    borrower.join();
    QVERIFY(served.load());
    QCOMPARE(pool.size(), std::size_t(1));
}

// One borrower stuck connecting to a server that accepts and never answers must not hold up
// another. Passes on the code before the bound too (connections opened lazily, as now); checked
// against a take() that opens its new connection under the lock: the second take then waited for
// the first connect's timeout and this failed.
void TestConnectionPool::connectsOutsideItsLock()
{
    const leader::test::LoopbackPort silent(leader::test::LoopbackPort::Behaviour::Silent);
    ConnectionPool pool(
            {.url = "postgresql://nobody@127.0.0.1:" + std::to_string(silent.port()) + "/x",
             .applicationName = "tst pool",
             .connectTimeout = 3s},
            2, 4, 10s);
    std::atomic<bool> stuckDone = false;
    std::thread stuck([&] {
        try {
            ConnectionPool::Lease connection = pool.take();
            connection->exec("stuck", "SELECT 1", {}, 5s);
        } catch (const leader::pg::Error &) {
        }
        stuckDone = true;
    });
    const auto joinStuck = qScopeGuard([&stuck] { stuck.join(); });
    // Its connect has reached the silent server once the listening socket has one waiting.
    QVERIFY(silent.connectArrives(5000));
    QElapsedTimer took;
    took.start();
    {
        ConnectionPool::Lease other = pool.take();
    }
    QVERIFY2(took.elapsed() < 200 && !stuckDone.load(),
             qPrintable(QString::number(took.elapsed())));
}

QTEST_GUILESS_MAIN(TestConnectionPool)
#include "tst_connectionpool.moc"
