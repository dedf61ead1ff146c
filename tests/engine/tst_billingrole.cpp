// The billing role against a real Postgres and again through PgBouncer in transaction mode:
// ClosePeriodTx's one-winner CAS (ADR-115), the snapshot predicates one by one, the invoice
// dedup index, and a full tick that invoices each due period once.

#include "lease/manager.h"
#include "roles/billing/billingstore.h"
#include "roles/role.h"
#include "testdatabase.h"

#include <QtTest>

#include <latch>
#include <memory>
#include <thread>

using namespace std::chrono_literals;
using leader::lease::LeadResult;
using leader::lease::Manager;
using leader::lease::TickContext;
using leader::pg::Connection;
using leader::roles::billing::CloseOutcome;
using leader::roles::billing::DueSubscription;
using leader::roles::billing::PeriodClose;
using leader::test::Login;
using leader::test::TestDatabase;

class TestBillingRole final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void closePeriodHasOneWinner();
    void staleSnapshotIsRefused_data();
    void staleSnapshotIsRefused();
    void invoicedPeriodIsNotAnnouncedAgain();
    void tickInvoicesEachDuePeriodOnce();

private:
    int count(const std::string &sql);
    // A subscription whose period [now - 1 h, now - 1 min) is due; the next ends in the future.
    std::int64_t seedDueSubscription(std::int64_t amountCents);
    DueSubscription snapshot(std::int64_t subscription);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestBillingRole::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("billing");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestBillingRole::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

int TestBillingRole::count(const std::string &sql)
{
    return static_cast<int>(m_owner->exec("inspect", sql, {}, 5s).toInt64(0, 0));
}

std::int64_t TestBillingRole::seedDueSubscription(std::int64_t amountCents)
{
    return m_owner
            ->exec("seed",
                   "WITH t AS (INSERT INTO tenants (name) VALUES ('billing') RETURNING id) "
                   "INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, "
                   "                           period_start, next_billing_at) "
                   "SELECT id, $1, 3600, now() - interval '1 hour', now() - interval '1 minute' "
                   "  FROM t RETURNING id",
                   {amountCents}, 5s)
            .toInt64(0, 0);
}

DueSubscription TestBillingRole::snapshot(std::int64_t subscription)
{
    const leader::pg::Result row = m_owner->exec(
            "snapshot",
            "SELECT id, tenant_id, status, amount_cents, period_start::text, next_billing_at::text "
            "FROM subscriptions WHERE id = $1",
            {subscription}, 5s);
    return {row.toInt64(0, 0), row.toInt64(0, 1),           std::string(row.text(0, 2)),
            row.toInt64(0, 3), std::string(row.text(0, 4)), std::string(row.text(0, 5))};
}

// Deleting both period predicates (period_start and next_billing_at) from ClosePeriodTx makes
// this fail: every racer advances the period again. Either one alone still holds here, so
// each is pinned on its own by staleSnapshotIsRefused. Deleting closePeriod's WatermarkMoved
// return fails it too: the losers go on to write.
void TestBillingRole::closePeriodHasOneWinner()
{
    constexpr int Writers = 20;
    const DueSubscription due = snapshot(seedDueSubscription(1000));
    std::vector<Connection> connections;
    for (int writer = 0; writer < Writers; ++writer) {
        connections.push_back(m_db->connect(Login::App));
        connections.back().open();
    }
    std::vector<PeriodClose> closes(Writers, PeriodClose{CloseOutcome::AlreadyInvoiced});
    std::vector<std::string> failures(Writers);
    std::latch start(Writers);
    std::vector<std::thread> threads;
    for (int writer = 0; writer < Writers; ++writer) {
        threads.emplace_back([&, writer] {
            start.arrive_and_wait();
            try {
                closes[writer]
                        = leader::roles::billing::closePeriod(connections[writer], due, writer + 1);
            } catch (const std::exception &error) {
                failures[writer] = error.what();
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();

    int winner = -1;
    for (int writer = 0; writer < Writers; ++writer) {
        QVERIFY2(failures[writer].empty(), failures[writer].c_str());
        if (closes[writer].outcome == CloseOutcome::Invoiced) {
            QCOMPARE(winner, -1);
            winner = writer;
        } else {
            QCOMPARE(closes[writer].outcome, CloseOutcome::WatermarkMoved);
        }
    }
    QVERIFY(winner >= 0);
    const std::string id = std::to_string(due.id);
    QCOMPARE(count("SELECT count(*) FROM invoices WHERE subscription_id = " + id), 1);
    QCOMPARE(count("SELECT count(*) FROM invoices WHERE created_token = "
                   + std::to_string(winner + 1)),
             1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'invoice.finalized'"), 1);
    QCOMPARE(count("SELECT count(*) FROM watermark_history WHERE subscription_id = " + id), 1);
    QCOMPARE(count("SELECT count(*) FROM watermark_history WHERE token = "
                   + std::to_string(winner + 1)),
             1);
    QCOMPARE(count("SELECT count(*) FROM subscriptions WHERE id = " + id + " AND period_start = '"
                   + due.nextBillingAt + "' AND next_billing_at = '" + due.nextBillingAt
                   + "'::timestamptz + " + "interval '1 hour'"),
             1);
}

void TestBillingRole::staleSnapshotIsRefused_data()
{
    QTest::addColumn<QString>("change");
    // Each row fails with its predicate deleted from ClosePeriodTx: status, next_billing_at
    // (the watermark), period_start.
    QTest::newRow("canceled") << "UPDATE subscriptions SET status = 'canceled' WHERE id = $1";
    QTest::newRow("truncated") << "UPDATE subscriptions "
                                  "SET next_billing_at = next_billing_at - interval '1 minute' "
                                  "WHERE id = $1";
    QTest::newRow("restarted") << "UPDATE subscriptions "
                                  "SET period_start = period_start + interval '1 minute' "
                                  "WHERE id = $1";
}

void TestBillingRole::staleSnapshotIsRefused()
{
    QFETCH(QString, change);
    const DueSubscription due = snapshot(seedDueSubscription(1000));
    m_owner->exec("change", change.toStdString(), {due.id}, 5s);
    Connection app = m_db->connect(Login::App);
    QCOMPARE(leader::roles::billing::closePeriod(app, due, 1).outcome,
             CloseOutcome::WatermarkMoved);
    QCOMPARE(count("SELECT count(*) FROM invoices"), 0);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 0);
    QCOMPARE(count("SELECT count(*) FROM watermark_history"), 0);
}

// Another period writer invoiced the period first: the close advances and announces nothing.
// Fails with the changed-rows gate in front of invoice.finalized deleted (the event fires), and
// with ON CONFLICT DO NOTHING deleted (the dedup index refuses the insert).
void TestBillingRole::invoicedPeriodIsNotAnnouncedAgain()
{
    const DueSubscription due = snapshot(seedDueSubscription(1000));
    m_owner->exec("first invoice",
                  "INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents) "
                  "VALUES ($1, $2::timestamptz, $3::timestamptz, $4)",
                  {due.id, due.periodStart, due.nextBillingAt, due.amountCents}, 5s);
    Connection app = m_db->connect(Login::App);
    QCOMPARE(leader::roles::billing::closePeriod(app, due, 1).outcome,
             CloseOutcome::AlreadyInvoiced);
    QCOMPARE(count("SELECT count(*) FROM invoices"), 1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 0);
    QCOMPARE(count("SELECT count(*) FROM watermark_history WHERE reason = 'advance'"), 1);
}

void TestBillingRole::tickInvoicesEachDuePeriodOnce()
{
    // 1400 is divisible by 7: the provider declines it, so its invoice opens a dunning run.
    std::vector<DueSubscription> due;
    for (const std::int64_t amount : {1000, 1400, 2500})
        due.push_back(snapshot(seedDueSubscription(amount)));
    m_owner->exec("not due",
                  "INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, "
                  "                           period_start, next_billing_at) "
                  "SELECT id, 900, 3600, now(), now() + interval '1 hour' FROM tenants LIMIT 1",
                  {}, 5s);

    Manager manager({.database = {.url = m_db->url(Login::App)}});
    const std::unique_ptr<leader::roles::Role> billing
            = leader::roles::makeRole("billing", {.perItemLatency = 10ms, .batchSize = 2});
    QVERIFY(billing);
    const auto tick = [&](TickContext &context) {
        billing->tick(context);
    };
    // A batch of two per tick: the third due subscription is billed by the second tick.
    for (int expectedClaims : {2, 3}) {
        const LeadResult result = manager.lead("billing", 0ms, tick);
        QVERIFY(result.acquired);
        QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'billing'"), expectedClaims);
    }

    QCOMPARE(count("SELECT count(*) FROM invoices"), 3);
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'invoice.finalized'"), 3);
    QCOMPARE(count("SELECT count(*) FROM watermark_history WHERE reason = 'advance'"), 3);
    for (const DueSubscription &subscription : due) {
        const std::string id = std::to_string(subscription.id);
        QCOMPARE(count("SELECT count(*) FROM invoices WHERE subscription_id = " + id
                       + " AND period_start = '" + subscription.periodStart + "' AND period_end = '"
                       + subscription.nextBillingAt + "'"),
                 1);
        QCOMPARE(count("SELECT count(*) FROM subscriptions WHERE id = " + id
                       + " AND period_start = '" + subscription.nextBillingAt + "'"),
                 1);
    }
    QCOMPARE(count("SELECT count(*) FROM provider_charges p JOIN invoices i "
                   "ON p.idempotency_key = 'inv_' || i.id || '_attempt_1'"),
             3);
    QCOMPARE(count("SELECT count(*) FROM external_effects WHERE kind = 'charge'"), 3);
    QCOMPARE(count("SELECT count(*) FROM invoices WHERE status = 'paid'"), 2);
    QCOMPARE(count("SELECT count(*) FROM dunning_runs r JOIN invoices i ON i.id = r.invoice_id "
                   "WHERE i.amount_cents = 1400 AND r.attempt_count = 1 AND i.status = 'open'"),
             1);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts WHERE attempt_no = 1"), 1);

    // Nothing is due any more: the next tick claims nothing and writes nothing.
    QVERIFY(manager.lead("billing", 0ms, tick).acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log"), 3);
    QCOMPARE(count("SELECT count(*) FROM invoices"), 3);
    QCOMPARE(count("SELECT count(*) FROM external_effects"), 3);
}

QTEST_GUILESS_MAIN(TestBillingRole)
#include "tst_billingrole.moc"
