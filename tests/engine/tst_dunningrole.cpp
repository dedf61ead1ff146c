// The dunning role against a real Postgres and again through PgBouncer in transaction mode:
// UpdateRunIfActive's one-winner CAS (ha-8: it proves the attempt count it was derived from),
// effects only when it applied, a retry that throws is rewound, and full ticks over due runs.

#include "lease/manager.h"
#include "pg/error.h"
#include "roles/dunning/dunningstore.h"
#include "roles/role.h"
#include "testdatabase.h"

#include <QtTest>

#include <latch>
#include <memory>
#include <thread>

using namespace std::chrono_literals;
using leader::lease::Manager;
using leader::lease::TickContext;
using leader::pg::Connection;
using leader::roles::billing::ChargeOutcome;
using leader::roles::dunning::DueRun;
using leader::roles::dunning::RunStatus;
using leader::roles::dunning::Transition;
using leader::test::Login;
using leader::test::TestDatabase;

class TestDunningRole final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void updateRunIfActiveHasOneWinner();
    void finishedRunIsNotRewritten();
    void retryThatThrowsIsRewound();
    void ticksRetryDueRunsToTheirEnd();

private:
    int count(const std::string &sql);
    // An open invoice whose billing charge was declined: its run is due, at attempt 1 of 3.
    std::int64_t seedRun(std::int64_t amountCents, std::string_view status = "active",
                         int attemptCount = 1);
    DueRun listed(std::int64_t run);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestDunningRole::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("dunning");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestDunningRole::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

int TestDunningRole::count(const std::string &sql)
{
    return static_cast<int>(m_owner->exec("inspect", sql, {}, 5s).toInt64(0, 0));
}

std::int64_t TestDunningRole::seedRun(std::int64_t amountCents, std::string_view status,
                                      int attemptCount)
{
    const std::int64_t run
            = m_owner->exec("seed",
                            "WITH t AS (INSERT INTO tenants (name) VALUES ('dunning') "
                            "           RETURNING id), "
                            "s AS (INSERT INTO subscriptions (tenant_id, amount_cents, "
                            "          period_seconds, period_start, next_billing_at) "
                            "      SELECT id, $1, 3600, now(), now() + interval '1 hour' "
                            "        FROM t RETURNING id), "
                            "i AS (INSERT INTO invoices (subscription_id, period_start, "
                            "          period_end, amount_cents) "
                            "      SELECT id, now() - interval '1 hour', now(), $1 FROM s "
                            "      RETURNING id) "
                            "INSERT INTO dunning_runs (invoice_id, status, attempt_count, "
                            "                          next_attempt_at) "
                            "SELECT id, $2, $3, now() FROM i RETURNING id",
                            {amountCents, status, attemptCount}, 5s)
                      .toInt64(0, 0);
    m_owner->exec("seed attempts",
                  "INSERT INTO dunning_attempts (run_id, attempt_no, outcome) "
                  "SELECT $1, n, 'declined' FROM generate_series(1, $2) n",
                  {run, attemptCount}, 5s);
    return run;
}

DueRun TestDunningRole::listed(std::int64_t run)
{
    const leader::pg::Result row = m_owner->exec(
            "listed",
            "SELECT r.id, r.invoice_id, s.tenant_id, i.amount_cents, r.attempt_count "
            "FROM dunning_runs r JOIN invoices i ON i.id = r.invoice_id "
            "JOIN subscriptions s ON s.id = i.subscription_id WHERE r.id = $1",
            {run}, 5s);
    return {row.toInt64(0, 0), row.toInt64(0, 1), row.toInt64(0, 2), row.toInt64(0, 3),
            static_cast<int>(row.toInt64(0, 4))};
}

// Deleting AND attempt_count = $2 from UpdateRunIfActive makes this fail: the first winner leaves
// the run active at attempt 2, so a second racer records attempt 3 (and exhausts the run). So
// does deleting recordAttempt's not-applied return: the losers fire effects.
void TestDunningRole::updateRunIfActiveHasOneWinner()
{
    constexpr int Writers = 20;
    const DueRun run = listed(seedRun(1000));
    std::vector<Connection> connections;
    for (int writer = 0; writer < Writers; ++writer) {
        connections.push_back(m_db->connect(Login::App));
        connections.back().open();
    }
    std::vector<Transition> transitions(Writers);
    std::vector<std::string> failures(Writers);
    std::latch start(Writers);
    std::vector<std::thread> threads;
    for (int writer = 0; writer < Writers; ++writer) {
        threads.emplace_back([&, writer] {
            start.arrive_and_wait();
            try {
                transitions[writer] = leader::roles::dunning::recordAttempt(
                        connections[writer], run, ChargeOutcome::Declined, writer + 1);
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
        if (transitions[writer].applied) {
            QCOMPARE(winner, -1);
            winner = writer;
        }
    }
    QVERIFY(winner >= 0);
    QCOMPARE(transitions[winner].status, RunStatus::Active);
    const std::string id = std::to_string(run.id);
    QCOMPARE(count("SELECT count(*) FROM dunning_runs WHERE id = " + id
                   + " AND status = 'active' AND attempt_count = 2"),
             1);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts WHERE run_id = " + id), 2);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts WHERE attempt_no = 2 AND token = "
                   + std::to_string(winner + 1)),
             1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'dunning.attempt_failed'"), 1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 1);
    QCOMPARE(count("SELECT count(*) FROM email_outbox WHERE kind = 'dunning_warning'"), 1);
    QCOMPARE(count("SELECT count(*) FROM email_outbox"), 1);
}

// Deleting AND status = 'active' from UpdateRunIfActive makes this fail: the recovered run
// records a third attempt, is exhausted, and announces it.
void TestDunningRole::finishedRunIsNotRewritten()
{
    const DueRun run = listed(seedRun(1000, "recovered", 2));
    Connection app = m_db->connect(Login::App);
    QVERIFY(!leader::roles::dunning::recordAttempt(app, run, ChargeOutcome::Declined, 1).applied);
    QCOMPARE(count("SELECT count(*) FROM dunning_runs WHERE status = 'recovered' "
                   "AND attempt_count = 2"),
             1);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts"), 2);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 0);
    QCOMPARE(count("SELECT count(*) FROM email_outbox"), 0);
}

// The event's insert fails after the update applied (the run as listed names a tenant that does
// not exist): everything rolls back, so the run is as listed and its retry is due again.
// Deleting the ROLLBACK in ~Transaction makes this fail: the connection is left in the aborted
// transaction.
void TestDunningRole::retryThatThrowsIsRewound()
{
    DueRun run = listed(seedRun(1000));
    run.tenantId = -1;
    Connection app = m_db->connect(Login::App);
    QVERIFY_THROWS_EXCEPTION(leader::pg::Error, leader::roles::dunning::recordAttempt(
                                                        app, run, ChargeOutcome::Declined, 1));
    QVERIFY(!app.inTransaction());
    QCOMPARE(count("SELECT count(*) FROM dunning_runs WHERE status = 'active' "
                   "AND attempt_count = 1 AND next_attempt_at <= now()"),
             1);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts"), 1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 0);
    QCOMPARE(count("SELECT count(*) FROM email_outbox"), 0);
}

void TestDunningRole::ticksRetryDueRunsToTheirEnd()
{
    // The provider declines an amount divisible by 7 for its first 1 + amount % 3 attempts:
    // 2100 recovers at attempt 2, 700 at attempt 3, and 1400 is declined through attempt 3.
    const std::int64_t early = seedRun(2100);
    const std::int64_t late = seedRun(700);
    const std::int64_t never = seedRun(1400);
    const std::unique_ptr<leader::roles::Role> dunning
            = leader::roles::makeRole("dunning", {.perItemLatency = 10ms});
    QVERIFY(dunning);
    Manager manager({.database = {.url = m_db->url(Login::App)}});
    const auto tick = [&](TickContext &context) {
        dunning->tick(context);
    };

    QVERIFY(manager.lead("dunning", 0ms, tick).acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'dunning'"), 3);
    const auto status = [&](std::int64_t run) {
        const leader::pg::Result row = m_owner->exec(
                "status",
                "SELECT r.status || ' ' || r.attempt_count || ' ' || i.status "
                "FROM dunning_runs r JOIN invoices i ON i.id = r.invoice_id WHERE r.id = $1",
                {run}, 5s);
        return QString::fromUtf8(row.text(0, 0).data(), row.text(0, 0).size());
    };
    QCOMPARE(status(early), QStringLiteral("recovered 2 paid"));
    QCOMPARE(status(late), QStringLiteral("active 2 open"));
    QCOMPARE(status(never), QStringLiteral("active 2 open"));
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'dunning.recovered'"), 1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'dunning.attempt_failed'"), 2);

    // The retries wait RetryEvery: a tick now finds nothing due.
    QVERIFY(manager.lead("dunning", 0ms, tick).acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'dunning'"), 3);

    m_owner->exec("due again", "UPDATE dunning_runs SET next_attempt_at = now()", {}, 5s);
    QVERIFY(manager.lead("dunning", 0ms, tick).acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'dunning'"), 5);
    QCOMPARE(status(early), QStringLiteral("recovered 2 paid"));
    QCOMPARE(status(late), QStringLiteral("recovered 3 paid"));
    QCOMPARE(status(never), QStringLiteral("exhausted 3 uncollectible"));
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE kind = 'dunning.exhausted'"), 1);
    QCOMPARE(count("SELECT count(*) FROM email_outbox WHERE kind = 'dunning_final_notice'"), 1);
    QCOMPARE(count("SELECT count(*) FROM webhook_events"), 5);
    QCOMPARE(count("SELECT count(*) FROM email_outbox"), 5);
    // One charge per attempt key, each recorded as an external effect, and one history row per
    // attempt the runs count.
    QCOMPARE(count("SELECT count(*) FROM provider_charges"), 5);
    QCOMPARE(count("SELECT count(*) FROM external_effects WHERE kind = 'charge'"), 5);
    QCOMPARE(count("SELECT count(*) FROM dunning_attempts"), 3 + 5);
    QCOMPARE(count("SELECT count(*) FROM dunning_runs r WHERE r.attempt_count = "
                   "(SELECT count(*) FROM dunning_attempts a WHERE a.run_id = r.id)"),
             3);
}

QTEST_GUILESS_MAIN(TestDunningRole)
#include "tst_dunningrole.moc"
