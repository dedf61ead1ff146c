// leader::baseline::AdvisoryGate, the session advisory lock ADR-114 replaced, against a real
// Postgres: two gates contend and exactly one holds; a holder whose connection closes (a killed
// process's socket) frees the lock at once; a holder whose session the server ends keeps working
// while another gate leads, and both claims are accepted (no fence). Through PgBouncer in
// transaction mode the same gate is broken, and the pgbouncer variant pins how: a closed holder's
// lock stays on a pooled server connection (stranded, seen in pg_locks), a second gate whose
// try-lock lands on that backend is told it holds the lock too, and an unlock that the pooler
// runs on another backend gives nothing back (false).

#include "baseline/advisorygate.h"
#include "pg/connection.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cstdlib>
#include <memory>
#include <vector>

using namespace std::chrono_literals;
using leader::baseline::AdvisoryGate;
using leader::baseline::advisoryKey;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;
const std::int64_t BillingKey = 76540001;

// The backends of this test's database that hold key, seen from a superuser session: pg_locks
// shows every session's locks, whoever's they are.
std::vector<std::int64_t> holders(Connection &admin, const std::string &database, std::int64_t key)
{
    const leader::pg::Result rows = admin.exec("holders", R"sql(
SELECT pid FROM pg_locks
 WHERE locktype = 'advisory' AND granted AND objsubid = 1
   AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid
   AND database = (SELECT oid FROM pg_database WHERE datname = $2)
 ORDER BY pid
)sql",
                                               {key, database}, Short);
    std::vector<std::int64_t> pids;
    for (int row = 0; row < rows.rows(); ++row)
        pids.push_back(rows.toInt64(row, 0));
    return pids;
}

std::int64_t backendPid(Connection &connection)
{
    return connection.exec("backend pid", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0);
}

} // namespace

class TestAdvisoryGate final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void keysAreTheOldOnes();
    void twoGatesContendExactlyOneHolds();
    void closedHolderFreesTheLock();
    void serverEndedSessionLetsTwoLeadUnfenced();
    void throughPgBouncerTwoGatesBothHold();
    void throughPgBouncerClosedHolderStrandsTheLock();
    void throughPgBouncerUnlockOnAnotherBackendFails();

private:
    leader::pg::ConnectOptions app() const
    {
        return {.url = m_database->url(Login::App), .applicationName = "tst_advisorygate"};
    }

    std::unique_ptr<TestDatabase> m_database;
    std::unique_ptr<Connection> m_admin;
};

void TestAdvisoryGate::initTestCase()
{
    m_database = std::make_unique<TestDatabase>("advisorygate");
    m_database->migrateDemo();
    m_admin = std::make_unique<Connection>(leader::pg::ConnectOptions{
            .url = std::getenv("LEADER_TEST_ADMIN_URL"), .applicationName = "tst_advisorygate"});
}

void TestAdvisoryGate::init()
{
    QVERIFY(holders(*m_admin, m_database->name(), BillingKey).empty());
}

void TestAdvisoryGate::cleanup()
{
    // A stranded lock lives on a pooled server connection: ending every other session of the
    // database frees it for the next test.
    m_admin->exec("end sessions",
                  "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                  "WHERE datname = $1 AND pid <> pg_backend_pid()",
                  {m_database->name()}, Short);
    QTRY_VERIFY_WITH_TIMEOUT(holders(*m_admin, m_database->name(), BillingKey).empty(), 5000);
}

void TestAdvisoryGate::keysAreTheOldOnes()
{
    QCOMPARE(advisoryKey("billing"), std::optional<std::int64_t>(76540001));
    QCOMPARE(advisoryKey("dunning"), std::optional<std::int64_t>(76540002));
    QCOMPARE(advisoryKey("webhook_outbox"), std::optional<std::int64_t>(76540003));
    QCOMPARE(advisoryKey("email_outbox"), std::optional<std::int64_t>(76540004));
    QCOMPARE(advisoryKey("webhook_delivery"), std::optional<std::int64_t>(76540005));
    QVERIFY(!advisoryKey("payroll"));
}

void TestAdvisoryGate::twoGatesContendExactlyOneHolds()
{
    if (m_database->viaPgBouncer())
        QSKIP("session locks do not exclude through a transaction pooler: see the pgbouncer tests");
    AdvisoryGate first(app(), BillingKey);
    AdvisoryGate second(app(), BillingKey);
    const auto won = first.tryLock();
    QVERIFY(won.held);
    QVERIFY(won.atMillis > 0);
    QVERIFY(!second.tryLock().held);
    QCOMPARE(holders(*m_admin, m_database->name(), BillingKey),
             std::vector<std::int64_t>{backendPid(first.connection())});
    QVERIFY(first.unlock().released);
    const auto next = second.tryLock();
    QVERIFY(next.held);
    QVERIFY(next.atMillis >= won.atMillis);
    QVERIFY(!first.tryLock().held);
    QVERIFY(second.unlock().released);
    // Given back twice: the second unlock finds nothing (the server also logs a WARNING).
    QVERIFY(!second.unlock().released);
}

void TestAdvisoryGate::closedHolderFreesTheLock()
{
    if (m_database->viaPgBouncer())
        QSKIP("session locks do not exclude through a transaction pooler: see the pgbouncer tests");
    auto holder = std::make_unique<AdvisoryGate>(app(), BillingKey);
    AdvisoryGate contender(app(), BillingKey);
    QVERIFY(holder->tryLock().held);
    QVERIFY(!contender.tryLock().held);
    // A killed process's kernel closes its socket; the backend sees the end at once on loopback.
    QElapsedTimer freed;
    freed.start();
    holder.reset();
    QTRY_VERIFY_WITH_TIMEOUT(contender.tryLock().held, 2000);
    qInfo("a closed holder's lock was taken after %lld ms", freed.elapsed());
}

void TestAdvisoryGate::serverEndedSessionLetsTwoLeadUnfenced()
{
    if (m_database->viaPgBouncer())
        QSKIP("session locks do not exclude through a transaction pooler: see the pgbouncer tests");
    // The session ends while its process lives on: keepalives that expired, a failover, an
    // operator's pg_terminate_backend. The old holder's work runs on its other connections.
    AdvisoryGate holder(app(), BillingKey);
    Connection holderWork(app());
    AdvisoryGate successor(app(), BillingKey);
    const auto tick = holder.tryLock();
    QVERIFY(tick.held);
    m_admin->exec("end the holder's session", "SELECT pg_terminate_backend($1)",
                  {backendPid(holder.connection())}, Short);
    QTRY_VERIFY_WITH_TIMEOUT(successor.tryLock().held, 2000);
    const char *claim = "INSERT INTO claim_log (role, token, item) VALUES ('billing', $1, $2)";
    holderWork.exec("stale claim", claim, {tick.atMillis, "advisory holder"}, Short);
    Connection successorWork(app());
    successorWork.exec("claim", claim, {std::int64_t{tick.atMillis + 1}, "advisory successor"},
                       Short);
    Connection owner(leader::pg::ConnectOptions{.url = m_database->directUrl(Login::Owner)});
    // Nothing refused the old holder's claim: both are in the log, the stale one after the
    // successor had the lock.
    QCOMPARE(
            owner.exec("claims", "SELECT count(*) FROM claim_log WHERE role = 'billing'", {}, Short)
                    .toInt64(0, 0),
            std::int64_t{2});
    // Its own unlock reconnects and finds no lock to give back: the only sign it had lost.
    QVERIFY(!holder.unlock().released);
    QVERIFY(successor.unlock().released);
    owner.exec("empty the log", "TRUNCATE claim_log", {}, Short);
}

void TestAdvisoryGate::throughPgBouncerTwoGatesBothHold()
{
    if (!m_database->viaPgBouncer())
        QSKIP("a pooler's behaviour: runs in the pgbouncer variant");
    AdvisoryGate first(app(), BillingKey);
    AdvisoryGate second(app(), BillingKey);
    QVERIFY(first.tryLock().held);
    // PgBouncer hands the idle server connection back out (last in, first out), and a session
    // lock is re-entrant in its session: the second gate is told it holds the lock too.
    QVERIFY2(second.tryLock().held, "the second try-lock ran on another backend");
    QCOMPARE(holders(*m_admin, m_database->name(), BillingKey).size(), std::size_t{1});
    qInfo("two gates hold advisory lock %lld at once, on one pooled backend",
          static_cast<long long>(BillingKey));
}

void TestAdvisoryGate::throughPgBouncerClosedHolderStrandsTheLock()
{
    if (!m_database->viaPgBouncer())
        QSKIP("a pooler's behaviour: runs in the pgbouncer variant");
    auto holder = std::make_unique<AdvisoryGate>(app(), BillingKey);
    QVERIFY(holder->tryLock().held);
    const std::vector<std::int64_t> before = holders(*m_admin, m_database->name(), BillingKey);
    QCOMPARE(before.size(), std::size_t{1});
    // The client goes away; PgBouncer keeps the server connection, and its session keeps the lock.
    holder.reset();
    QTest::qWait(1000);
    QCOMPARE(holders(*m_admin, m_database->name(), BillingKey), before);
    qInfo("stranded: backend %lld still holds advisory lock %lld after its client closed",
          static_cast<long long>(before.front()), static_cast<long long>(BillingKey));
}

void TestAdvisoryGate::throughPgBouncerUnlockOnAnotherBackendFails()
{
    if (!m_database->viaPgBouncer())
        QSKIP("a pooler's behaviour: runs in the pgbouncer variant");
    AdvisoryGate holder(app(), BillingKey);
    QVERIFY(holder.tryLock().held);
    const std::vector<std::int64_t> locked = holders(*m_admin, m_database->name(), BillingKey);
    QCOMPARE(locked.size(), std::size_t{1});
    // Other clients' transactions take server connections until one has the lock's backend, as
    // any busy pool does; the holder's next statement then runs on another backend.
    std::vector<std::unique_ptr<Connection>> busy;
    bool lockBackendBusy = false;
    for (int i = 0; i < 15 && !lockBackendBusy; ++i) {
        busy.push_back(std::make_unique<Connection>(app()));
        busy.back()->exec("begin", "BEGIN", {}, Short);
        lockBackendBusy = backendPid(*busy.back()) == locked.front();
    }
    QVERIFY2(lockBackendBusy, "no client transaction was given the lock's backend");
    const auto unlock = holder.unlock();
    QVERIFY2(!unlock.released, "the unlock ran on the backend that holds the lock");
    QCOMPARE(holders(*m_admin, m_database->name(), BillingKey), locked);
    qInfo("pg_advisory_unlock through PgBouncer returned false; backend %lld keeps the lock",
          static_cast<long long>(locked.front()));
    for (const auto &connection : busy)
        connection->exec("rollback", "ROLLBACK", {}, Short);
}

QTEST_GUILESS_MAIN(TestAdvisoryGate)
#include "tst_advisorygate.moc"
