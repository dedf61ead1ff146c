// The invariant auditor against a real database: a consistent history holds, and each violation
// planted on top of it breaks exactly the invariant about it, with the offending row shown.
// Duplicated at-least-once effects are counted, never failed.

#include "demo/auditor.h"
#include "pg/connection.h"
#include "testdatabase.h"

#include <QtTest>

#include <algorithm>
#include <memory>

using namespace std::chrono_literals;
using leader::demo::AuditReport;
using leader::demo::InvariantResult;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

// One tenant whose subscription billed two hourly periods (the first paid on the second dunning
// attempt, the second exhausted after three declines) and was then truncated; one webhook event
// dispatched and delivered, one email sent, each with its external effect; and the claims that
// took them, in token order. Fresh database: every id below is 1 or 2.
constexpr std::string_view CleanHistory[] = {
        "INSERT INTO tenants (name) VALUES ('audited tenant')",
        "INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start, "
        "next_billing_at) VALUES (1, 1000, 3600, '2026-01-01 02:00Z', '2026-01-01 02:30Z')",
        "INSERT INTO watermark_history (subscription_id, old_watermark, new_watermark, reason, "
        "token) VALUES (1, '2026-01-01 01:00Z', '2026-01-01 02:00Z', 'advance', 10), "
        "(1, '2026-01-01 02:00Z', '2026-01-01 03:00Z', 'advance', 11), "
        "(1, '2026-01-01 03:00Z', '2026-01-01 02:30Z', 'truncation', NULL)",
        "INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents, status, "
        "created_token) VALUES (1, '2026-01-01 00:00Z', '2026-01-01 01:00Z', 1000, 'paid', 10), "
        "(1, '2026-01-01 01:00Z', '2026-01-01 02:00Z', 1000, 'uncollectible', 11)",
        "INSERT INTO provider_charges (idempotency_key, invoice_id, amount_cents, outcome) VALUES "
        "('inv_1_attempt_1', 1, 1000, 'declined'), ('inv_1_attempt_2', 1, 1000, 'succeeded'), "
        "('inv_2_attempt_1', 2, 1000, 'declined'), ('inv_2_attempt_2', 2, 1000, 'declined'), "
        "('inv_2_attempt_3', 2, 1000, 'declined')",
        "INSERT INTO external_effects (kind, idempotency_key, role, token) VALUES "
        "('charge', 'inv_1_attempt_1', 'billing', 10), ('charge', 'inv_1_attempt_2', 'dunning', "
        "7), "
        "('charge', 'inv_2_attempt_1', 'billing', 11), ('charge', 'inv_2_attempt_2', 'dunning', "
        "7), "
        "('charge', 'inv_2_attempt_3', 'dunning', 8), ('webhook_post', 'evt_1', "
        "'webhook_delivery', 4), ('email', 'email:1', 'email_outbox', 5)",
        "INSERT INTO dunning_runs (invoice_id, status, attempt_count, max_attempts) VALUES "
        "(1, 'recovered', 2, 3), (2, 'exhausted', 3, 3)",
        "INSERT INTO dunning_attempts (run_id, attempt_no, outcome, token) VALUES "
        "(1, 1, 'declined', 7), (1, 2, 'succeeded', 7), (2, 1, 'declined', 7), "
        "(2, 2, 'declined', 7), (2, 3, 'declined', 8)",
        // The second event and email are younger than the grace: not yet owed.
        "INSERT INTO webhook_events (tenant_id, kind, created_at, dispatched_at) VALUES "
        "(1, 'invoice.finalized', now() - interval '10 minutes', now() - interval '9 minutes'), "
        "(1, 'invoice.paid', now(), NULL)",
        "INSERT INTO webhook_deliveries (event_id, status, attempts, delivered_at) VALUES "
        "(1, 'delivered', 1, now() - interval '9 minutes')",
        "INSERT INTO email_outbox (tenant_id, kind, recipient, status, claim_token, claimed_at, "
        "sent_at, created_at) VALUES (1, 'invoice', 'a@tenant.example', 'sent', 5, "
        "now() - interval '9 minutes', now() - interval '9 minutes', now() - interval '10 "
        "minutes'), "
        "(1, 'receipt', 'a@tenant.example', 'queued', NULL, NULL, NULL, now())",
        "INSERT INTO claim_log (role, token, item) VALUES ('billing', 10, 'subscription:1'), "
        "('billing', 11, 'subscription:1'), ('dunning', 7, 'dunning_run:1'), ('dunning', 7, "
        "'dunning_run:2'), "
        "('dunning', 8, 'dunning_run:2'), ('webhook_outbox', 3, 'webhook_event:1'), "
        "('webhook_delivery', 4, 'delivery:1'), ('email_outbox', 5, 'email:1')",
};

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QStringList failing(const AuditReport &report)
{
    QStringList names;
    for (const InvariantResult &invariant : report.invariants) {
        if (!invariant.holds)
            names << qs(invariant.role) + ": " + qs(invariant.name);
    }
    return names;
}

const InvariantResult *find(const AuditReport &report, std::string_view name)
{
    for (const InvariantResult &invariant : report.invariants) {
        if (invariant.name == name)
            return &invariant;
    }
    return nullptr;
}

std::int64_t info(const InvariantResult &invariant, std::string_view label)
{
    for (const auto &[name, value] : invariant.info) {
        if (name == label)
            return value;
    }
    return -1;
}

} // namespace

class TestAuditor final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanHistoryHolds();
    void plantedViolationFailsExactlyItsInvariant_data();
    void plantedViolationFailsExactlyItsInvariant();
    void duplicatePostsAreCountedNotFailed();
    void samplesAreLimitedButTheCountIsNot();

private:
    // Runs statements and the audit in one transaction on the owner's connection, rolled back,
    // so each case starts from the clean history.
    AuditReport auditWith(const QStringList &statements, leader::demo::AuditOptions options = {});

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<leader::pg::Connection> m_owner;
};

void TestAuditor::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("auditor");
    m_db->migrateDemo();
    m_owner = std::make_unique<leader::pg::Connection>(m_db->connect(Login::Owner));
    for (const std::string_view statement : CleanHistory)
        m_owner->exec("plant clean history", statement, {}, 5s);
}

AuditReport TestAuditor::auditWith(const QStringList &statements,
                                   leader::demo::AuditOptions options)
{
    m_owner->exec("begin", "BEGIN", {}, 5s);
    try {
        for (const QString &statement : statements)
            m_owner->exec("plant", statement.toStdString(), {}, 5s);
        AuditReport report = leader::demo::audit(*m_owner, options);
        m_owner->exec("rollback", "ROLLBACK", {}, 5s);
        return report;
    } catch (...) {
        m_owner->exec("rollback", "ROLLBACK", {}, 5s);
        throw;
    }
}

void TestAuditor::cleanHistoryHolds()
{
    // Read as the app role, which is how a replica's operator would run it.
    leader::pg::Connection app = m_db->connect(Login::App);
    const AuditReport report = leader::demo::audit(app);
    QVERIFY2(report.allHold(), qPrintable(failing(report).join("; ")));
    QCOMPARE(report.invariants.size(), std::size_t(13));
    for (const InvariantResult &invariant : report.invariants) {
        QCOMPARE(invariant.offending, 0);
        QVERIFY(invariant.samples.empty());
        QVERIFY2(!invariant.info.empty(), invariant.name.c_str());
    }
    QCOMPARE(info(*find(report, "at most one invoice per subscription and period"), "invoices"), 2);
    const InvariantResult &backward
            = *find(report, "no watermark moved backward but by a truncation");
    QCOMPARE(info(backward, "truncations"), 1);
    QCOMPARE(info(*find(report, "no row claimed under a stale token"), "claims"), 8);
    // The drill report counts stale claims by this flag, not by the invariant's name: one only.
    QVERIFY(find(report, "no row claimed under a stale token")->fencing);
    QCOMPARE(std::count_if(report.invariants.begin(), report.invariants.end(),
                           [](const InvariantResult &invariant) { return invariant.fencing; }),
             1);
    const InvariantResult &delivery
            = *find(report, "every event dispatched past the grace delivered, unless dead");
    QCOMPARE(info(delivery, "webhook_posts"), 1);
    QCOMPARE(info(delivery, "duplicate_posts"), 0);
}

void TestAuditor::plantedViolationFailsExactlyItsInvariant_data()
{
    QTest::addColumn<QStringList>("plant");
    QTest::addColumn<QString>("invariant"); // role: name
    QTest::addColumn<QString>("sample");    // part of the offending row's text

    QTest::newRow("a second succeeded charge for an invoice")
            << QStringList{"INSERT INTO provider_charges (idempotency_key, invoice_id, "
                           "amount_cents, outcome) VALUES ('inv_1_attempt_3', 1, 1000, "
                           "'succeeded')"}
            << "billing: no invoice charged successfully twice"
            << "invoice 1: 2 succeeded charges (inv_1_attempt_2, inv_1_attempt_3)";
    QTest::newRow("a watermark moved backward as an advance")
            << QStringList{"INSERT INTO watermark_history (subscription_id, old_watermark, "
                           "new_watermark, reason, token) VALUES (1, '2026-01-01 02:30Z', "
                           "'2026-01-01 02:10Z', 'advance', 12)"}
            << "billing: no watermark moved backward but by a truncation"
            << "subscription 1 moved back from";
    QTest::newRow("an invoice no watermark advance closed")
            << QStringList{"INSERT INTO invoices (subscription_id, period_start, period_end, "
                           "amount_cents) VALUES (1, '2026-01-01 02:00Z', '2026-01-01 02:30Z', "
                           "1000)"}
            << "billing: every invoice's period closed by a watermark advance"
            << "subscription 1, period";
    QTest::newRow("two invoices' periods overlap")
            << QStringList{"INSERT INTO invoices (subscription_id, period_start, period_end, "
                           "amount_cents) VALUES (1, '2026-01-01 00:30Z', '2026-01-01 01:00Z', "
                           "1000)"}
            << "billing: no two invoices' periods overlap for one subscription"
            << "invoices 1 and ";
    QTest::newRow("a charge call the provider never saw")
            << QStringList{"INSERT INTO external_effects (kind, idempotency_key, role, token) "
                           "VALUES ('charge', 'inv_2_attempt_4', 'dunning', 8)"}
            << "billing: every charge call reached the provider"
            << "charge inv_2_attempt_4 (token 8) has no provider charge";
    QTest::newRow("attempt_count disagrees with the history")
            << QStringList{"UPDATE dunning_runs SET attempt_count = 3 WHERE id = 1"}
            << "dunning: attempt_count equals its attempts, numbered 1..n"
            << "dunning_run 1 (invoice 1): attempt_count 3, 2 attempts recorded (numbers 1,2)";
    QTest::newRow("attempt numbers with a gap")
            << QStringList{"UPDATE dunning_attempts SET attempt_no = 4 WHERE run_id = 2 AND "
                           "attempt_no = 3"}
            << "dunning: attempt_count equals its attempts, numbered 1..n"
            << "dunning_run 2 (invoice 2): attempt_count 3, 3 attempts recorded (numbers 1,2,4)";
    QTest::newRow("all attempts declined but the run still active")
            << QStringList{"UPDATE dunning_runs SET status = 'active' WHERE id = 2"}
            << "dunning: exhausted exactly when max_attempts attempts all declined"
            << "dunning_run 2 (invoice 2): status active, attempt_count 3 of 3, 3 declined";
    QTest::newRow("the last attempt succeeded but the run not recovered")
            << QStringList{"UPDATE dunning_runs SET status = 'active' WHERE id = 1"}
            << "dunning: recovered exactly when the last attempt succeeded"
            << "dunning_run 1 (invoice 1): status active, last attempt 2 succeeded";
    QTest::newRow("an undispatched event older than the grace")
            << QStringList{"INSERT INTO webhook_events (tenant_id, kind, created_at) VALUES "
                           "(1, 'invoice.voided', now() - interval '2 minutes')"}
            << "webhook_outbox: every event past the grace dispatched"
            << "(invoice.voided, tenant 1) created";
    QTest::newRow("a dispatched event never delivered")
            << QStringList{"INSERT INTO webhook_events (tenant_id, kind, created_at, "
                           "dispatched_at) VALUES (1, 'invoice.voided', now() - interval "
                           "'5 minutes', now() - interval '4 minutes')"}
            << "webhook_delivery: every event dispatched past the grace delivered, unless dead"
            << ": no delivery";
    QTest::newRow("a delivery marked delivered that was never posted")
            << QStringList{"DELETE FROM external_effects WHERE idempotency_key = 'evt_1'"}
            << "webhook_delivery: every event dispatched past the grace delivered, unless dead"
            << "webhook_event 1 dispatched";
    QTest::newRow("an email marked sent that never left")
            << QStringList{"DELETE FROM external_effects WHERE idempotency_key = 'email:1'"}
            << "email_outbox: every email past the grace sent"
            << "marked sent, but no email effect email:1";
    QTest::newRow("an unsent email older than the grace")
            << QStringList{"INSERT INTO email_outbox (tenant_id, kind, recipient, created_at) "
                           "VALUES (1, 'dunning.warning', 'b@tenant.example', now() - interval "
                           "'2 minutes')"}
            << "email_outbox: every email past the grace sent"
            << "(dunning.warning to b@tenant.example) created";
    QTest::newRow("a claim under a token lower than an earlier one")
            << QStringList{"INSERT INTO claim_log (role, token, item) VALUES ('billing', 9, "
                           "'subscription:1')"}
            << "all roles: no row claimed under a stale token"
            << "billing claimed subscription:1 under token 9 after token 11 had claimed";
}

void TestAuditor::plantedViolationFailsExactlyItsInvariant()
{
    QFETCH(QStringList, plant);
    QFETCH(QString, invariant);
    QFETCH(QString, sample);
    const AuditReport report = auditWith(plant);
    QCOMPARE(failing(report), QStringList{invariant});
    QVERIFY(!report.allHold());
    for (const InvariantResult &result : report.invariants) {
        if (result.holds)
            continue;
        QCOMPARE(result.offending, 1);
        QCOMPARE(result.samples.size(), std::size_t(1));
        QVERIFY2(qs(result.samples.front()).contains(sample), result.samples.front().c_str());
    }
}

void TestAuditor::duplicatePostsAreCountedNotFailed()
{
    // A takeover re-posted event 1 twice more, and re-sent email 1 once: at-least-once.
    const AuditReport report = auditWith(
            {"INSERT INTO external_effects (kind, idempotency_key, role, token) VALUES "
             "('webhook_post', 'evt_1', 'webhook_delivery', 6), ('webhook_post', 'evt_1', "
             "'webhook_delivery', 9), ('email', 'email:1', 'email_outbox', 6)"});
    QVERIFY2(report.allHold(), qPrintable(failing(report).join("; ")));
    const InvariantResult &delivery
            = *find(report, "every event dispatched past the grace delivered, unless dead");
    QCOMPARE(info(delivery, "webhook_posts"), 3);
    QCOMPARE(info(delivery, "events_posted_twice_or_more"), 1);
    QCOMPARE(info(delivery, "duplicate_posts"), 2);
    const InvariantResult &email = *find(report, "every email past the grace sent");
    QCOMPARE(info(email, "duplicate_sends"), 1);
}

void TestAuditor::samplesAreLimitedButTheCountIsNot()
{
    const AuditReport report
            = auditWith({"INSERT INTO webhook_events (tenant_id, kind, created_at) SELECT 1, "
                         "'bulk.' || n, now() - interval '2 minutes' FROM generate_series(1, 7) n"},
                        {.grace = 60s, .sampleLimit = 3});
    const InvariantResult &outbox = *find(report, "every event past the grace dispatched");
    QVERIFY(!outbox.holds);
    QCOMPARE(outbox.offending, 7);
    QCOMPARE(outbox.samples.size(), std::size_t(3));
    // Oldest offending rows first: by id.
    QVERIFY2(qs(outbox.samples[0]).contains("(bulk.1, tenant 1)"), outbox.samples[0].c_str());
    QVERIFY2(qs(outbox.samples[2]).contains("(bulk.3, tenant 1)"), outbox.samples[2].c_str());
    // A grace longer than the events' age owes nothing yet.
    const AuditReport patient
            = auditWith({"INSERT INTO webhook_events (tenant_id, kind, created_at) VALUES "
                         "(1, 'late', now() - interval '2 minutes')"},
                        {.grace = 600s});
    QVERIFY2(patient.allHold(), qPrintable(failing(patient).join("; ")));
}

QTEST_GUILESS_MAIN(TestAuditor)
#include "tst_auditor.moc"
