// The email_outbox role: claimBatch → send → markCAS, and the CAS that keeps a superseded
// claimer from marking what a newer claim owns. Direct and through PgBouncer.

#include "lease/manager.h"
#include "roles/email_outbox/emailstore.h"
#include "roles/role.h"
#include "testdatabase.h"

#include <QtTest>

#include <atomic>
#include <latch>
#include <memory>
#include <thread>

using namespace std::chrono_literals;
using leader::lease::Manager;
using leader::lease::TickContext;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

class TestEmailRole final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void tickSendsEachQueuedEmailOnce();
    void markCasHasOneWinner_data();
    void markCasHasOneWinner();
    void staleClaimIsTakenAgainAndItsMarkRefused();

private:
    std::int64_t count(const std::string &sql)
    {
        return m_owner->exec("count", sql, {}, 5s).toInt64(0, 0);
    }
    std::int64_t queue(int emails);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestEmailRole::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("emailrole");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestEmailRole::init()
{
    m_db->resetDemo();
}

std::int64_t TestEmailRole::queue(int emails)
{
    const std::int64_t tenant
            = m_owner->exec("tenant", "INSERT INTO tenants (name) VALUES ('t') RETURNING id", {},
                            5s)
                      .toInt64(0, 0);
    m_owner->exec(
            "queue",
            "INSERT INTO email_outbox (tenant_id, kind, recipient) "
            "SELECT $1, 'invoice', 'ops' || n || '@example.test' FROM generate_series(1, $2) n",
            {tenant, emails}, 5s);
    return tenant;
}

void TestEmailRole::tickSendsEachQueuedEmailOnce()
{
    queue(5);
    Manager manager({.database = {.url = m_db->url(Login::App)}});
    const auto role = leader::roles::makeRole("email_outbox", {.batchSize = 10});
    QVERIFY(manager.lead("email_outbox", 0ms, [&](TickContext &context) { role->tick(context); })
                    .acquired);
    QCOMPARE(count("SELECT count(*) FROM email_outbox WHERE status = 'sent'"), std::int64_t(5));
    QCOMPARE(count("SELECT count(*) FROM external_effects WHERE kind = 'email'"), std::int64_t(5));
    QCOMPARE(count("SELECT count(DISTINCT idempotency_key) FROM external_effects"),
             std::int64_t(5));
    // A second tick finds nothing to claim and sends nothing.
    QVERIFY(manager.lead("email_outbox", 0ms, [&](TickContext &context) { role->tick(context); })
                    .acquired);
    QCOMPARE(count("SELECT count(*) FROM external_effects"), std::int64_t(5));
}

void TestEmailRole::markCasHasOneWinner_data()
{
    QTest::addColumn<bool>("staleRacers");
    // Deleting `status = 'claimed'` from markCAS fails "same claim" (every racer wins); deleting
    // `claim_token = $2` fails "superseded claims" (a stale racer wins). Both checked once.
    QTest::newRow("same claim") << false;
    QTest::newRow("superseded claims") << true;
}

void TestEmailRole::markCasHasOneWinner()
{
    QFETCH(bool, staleRacers);
    queue(1);
    const std::int64_t id = count("SELECT id FROM email_outbox");
    constexpr std::int64_t Token = 1000;
    m_owner->exec(
            "claim",
            "UPDATE email_outbox SET status = 'claimed', claim_token = $1, claimed_at = now()",
            {Token}, 5s);

    constexpr int Racers = 20;
    std::vector<Connection> connections;
    for (int i = 0; i < Racers; ++i)
        connections.push_back(m_db->connect(Login::App));
    std::latch start(Racers);
    std::atomic<int> winners = 0;
    std::atomic<int> staleWinners = 0;
    std::vector<std::thread> threads;
    for (int i = 0; i < Racers; ++i) {
        // Stale racers all hold a claim a newer one superseded.
        const std::int64_t token = staleRacers ? Token - 1 : Token;
        threads.emplace_back([&, i, token] {
            start.arrive_and_wait();
            if (leader::roles::email::markSent(connections[i], id, token)) {
                ++winners;
                if (token != Token)
                    ++staleWinners;
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    QCOMPARE(winners.load(), staleRacers ? 0 : 1);
    QCOMPARE(staleWinners.load(), 0);
    QCOMPARE(count("SELECT count(*) FROM email_outbox WHERE status = 'sent'"),
             std::int64_t(staleRacers ? 0 : 1));
}

void TestEmailRole::staleClaimIsTakenAgainAndItsMarkRefused()
{
    queue(1);
    // A claim its leader never marked (it died mid-send) goes stale after ReclaimAfter.
    m_owner->exec("stale claim",
                  "UPDATE email_outbox SET status = 'claimed', claim_token = 1, "
                  "claimed_at = now() - $1::int * interval '1 second'",
                  {leader::roles::email::ReclaimAfter.count() + 1}, 5s);
    Manager manager({.database = {.url = m_db->url(Login::App)}});
    std::vector<leader::roles::email::QueuedEmail> claimed;
    std::int64_t token = 0;
    QVERIFY(manager.lead("email_outbox", 0ms,
                         [&](TickContext &context) {
                             claimed = leader::roles::email::claimBatch(context, 10);
                             token = leader::lease::fence(&context).token;
                         })
                    .acquired);
    QCOMPARE(claimed.size(), std::size_t(1));
    Connection app = m_db->connect(Login::App);
    // The old claimer resumes and tries to mark: refused, the new claim owns the row.
    QVERIFY(!leader::roles::email::markSent(app, claimed.front().id, 1));
    QVERIFY(leader::roles::email::markSent(app, claimed.front().id, token));
}

QTEST_GUILESS_MAIN(TestEmailRole)
#include "tst_emailrole.moc"
