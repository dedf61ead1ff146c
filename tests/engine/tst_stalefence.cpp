// ADR-114's test lock "stale token claims nothing on each of the five real stores": one
// table-driven test over the fenced claim funnels, against a real Postgres and again through
// PgBouncer in transaction mode. Each row was checked to FAIL with its store's
// AND leader_fence(...) predicate deleted (the stale claim then takes the seeded item).

#include "lease/manager.h"
#include "roles/billing/billingstore.h"
#include "roles/dunning/dunningstore.h"
#include "roles/email_outbox/emailstore.h"
#include "roles/webhook_delivery/deliverystore.h"
#include "roles/webhook_outbox/outboxstore.h"
#include "testdatabase.h"

#include <QtTest>

#include <functional>
#include <memory>

using namespace std::chrono_literals;
using leader::lease::LeadResult;
using leader::lease::Manager;
using leader::lease::TickContext;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

// One fenced claim funnel: the role it belongs to, SQL (run as the owner) that makes one more
// item claimable for it, and the store's claim run inside a led tick, returning the rows claimed.
struct FencedClaim
{
    std::string name;
    std::string role;
    std::string seedSql;
    std::function<int(TickContext &)> claim;
};

template<typename Rows>
int claimed(const Rows &rows)
{
    return static_cast<int>(rows.size());
}

// Add a row per store here: the test below needs nothing else.
std::vector<FencedClaim> fencedClaims()
{
    return {
            {"email_outbox email.claimBatch", "email_outbox",
             "WITH t AS (INSERT INTO tenants (name) VALUES ('stalefence') RETURNING id) "
             "INSERT INTO email_outbox (tenant_id, kind, recipient) "
             "SELECT id, 'receipt', 'ops@example.com' FROM t",
             [](TickContext &context) {
                 return claimed(leader::roles::email::claimBatch(context, 50));
             }},
            {"webhook_outbox webhook.ProcessBatch", "webhook_outbox",
             "WITH t AS (INSERT INTO tenants (name) VALUES ('stalefence') RETURNING id) "
             "INSERT INTO webhook_events (tenant_id, kind) SELECT id, 'invoice.finalized' FROM t",
             [](TickContext &context) {
                 return claimed(leader::roles::webhook::processBatch(context, 50));
             }},
            {"webhook_delivery webhook.ListPendingDeliveries", "webhook_delivery",
             "WITH t AS (INSERT INTO tenants (name) VALUES ('stalefence') RETURNING id), "
             "e AS (INSERT INTO webhook_events (tenant_id, kind, dispatched_at) "
             "      SELECT id, 'invoice.paid', now() FROM t RETURNING id) "
             "INSERT INTO webhook_deliveries (event_id) SELECT id FROM e",
             [](TickContext &context) {
                 return claimed(leader::roles::webhook::listPendingDeliveries(context, 50));
             }},
            {"billing subscription.GetDueBilling", "billing",
             "WITH t AS (INSERT INTO tenants (name) VALUES ('stalefence') RETURNING id) "
             "INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start, "
             "                           next_billing_at) "
             "SELECT id, 1000, 3600, now() - interval '2 hours', now() - interval '1 hour' FROM t",
             [](TickContext &context) {
                 return claimed(leader::roles::billing::getDueBilling(context, 50));
             }},
            {"dunning dunning.ListDueRuns", "dunning",
             "WITH t AS (INSERT INTO tenants (name) VALUES ('stalefence') RETURNING id), "
             "s AS (INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, "
             "                                 period_start, next_billing_at) "
             "      SELECT id, 700, 3600, now() - interval '1 hour', now() + interval '1 hour' "
             "        FROM t RETURNING id), "
             "i AS (INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents) "
             "      SELECT id, now() - interval '2 hours', now() - interval '1 hour', 700 FROM s "
             "      RETURNING id) "
             "INSERT INTO dunning_runs (invoice_id, attempt_count, next_attempt_at) "
             "SELECT id, 1, now() FROM i",
             [](TickContext &context) {
                 return claimed(leader::roles::dunning::listDueRuns(context, 50));
             }},
    };
}

} // namespace

Q_DECLARE_METATYPE(FencedClaim)

class TestStaleFence final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void staleTokenClaimsNothing_data();
    void staleTokenClaimsNothing();

private:
    std::int64_t count(const std::string &sql);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestStaleFence::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("stalefence");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestStaleFence::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

std::int64_t TestStaleFence::count(const std::string &sql)
{
    return m_owner->exec("inspect", sql, {}, 5s).toInt64(0, 0);
}

void TestStaleFence::staleTokenClaimsNothing_data()
{
    QTest::addColumn<FencedClaim>("funnel");
    for (const FencedClaim &funnel : fencedClaims())
        QTest::newRow(funnel.name.c_str()) << funnel;
}

void TestStaleFence::staleTokenClaimsNothing()
{
    QFETCH(FencedClaim, funnel);
    Manager manager({.database = {.url = m_db->url(Login::App)}});
    std::int64_t token = 0;
    int fresh = -1;
    std::int64_t freshLogged = -1;
    int stale = -1;
    bool cancelledBeforeStaleClaim = true;
    std::int64_t logBeforeStaleClaim = -1;
    std::int64_t logAfterStaleClaim = -1;
    std::int64_t refusalsAfterFreshClaim = -1;
    std::int64_t refusalsAfterStaleClaim = -1;
    // Everything runs well inside the first heartbeat (3 s), so the stale claim is refused by the
    // fence in its own snapshot, not by a cancellation the lost RENEW would cause.
    const LeadResult result = manager.lead(funnel.role, 0ms, [&](TickContext &context) {
        token = leader::lease::fence(&context).token;
        m_owner->execScript("seed", funnel.seedSql, 5s);
        fresh = funnel.claim(context);
        freshLogged = count("SELECT count(*) FROM claim_log WHERE role = '" + funnel.role
                            + "' AND token = " + std::to_string(token));
        refusalsAfterFreshClaim = count("SELECT count(*) FROM fence_refusals");
        m_owner->execScript("seed", funnel.seedSql, 5s);
        // A takeover, as the owner: the tick still runs, under a token that is no longer current.
        m_owner->exec("take over",
                      "UPDATE leader_leases SET holder_token = holder_token + 1 WHERE role = $1",
                      {funnel.role}, 5s);
        logBeforeStaleClaim = count("SELECT count(*) FROM claim_log");
        cancelledBeforeStaleClaim = context.isCancelled();
        stale = funnel.claim(context);
        logAfterStaleClaim = count("SELECT count(*) FROM claim_log");
        refusalsAfterStaleClaim = count("SELECT count(*) FROM fence_refusals WHERE role = '"
                                        + funnel.role + "' AND token = " + std::to_string(token));
    });
    QVERIFY(result.acquired);
    QCOMPARE(fresh, 1);
    QCOMPARE(freshLogged, std::int64_t(1));
    QVERIFY(!cancelledBeforeStaleClaim);
    QCOMPARE(stale, 0);
    QCOMPARE(logAfterStaleClaim, logBeforeStaleClaim);
    // The refusal is on record, once, under the stale token (the failover benchmark counts these);
    // a claim the fence let through records none.
    QCOMPARE(refusalsAfterFreshClaim, std::int64_t(0));
    QCOMPARE(refusalsAfterStaleClaim, std::int64_t(1));
}

QTEST_GUILESS_MAIN(TestStaleFence)
#include "tst_stalefence.moc"
