// The webhook_outbox and webhook_delivery roles' ticks against a real Postgres, and again through
// PgBouncer in transaction mode: one delivery per event, the stale-mark CAS, and the retry
// schedule of a refused POST.

#include "lease/manager.h"
#include "roles/role.h"
#include "roles/webhook_delivery/deliverystore.h"
#include "testdatabase.h"

#include <QtTest>

#include <future>
#include <latch>
#include <memory>

using namespace std::chrono_literals;
using leader::lease::LeadResult;
using leader::lease::Manager;
using leader::lease::Outcome;
using leader::lease::TickContext;
using leader::pg::Connection;
using leader::roles::webhook::PendingDelivery;
using leader::test::Login;
using leader::test::TestDatabase;

class TestWebhookRoles final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void oneDeliveryPerEvent();
    void racingMarksExactlyOneWins_data();
    void racingMarksExactlyOneWins();
    void markAfterReclaimIsRefusedAndWritesNothing();
    void refusedPostIsRescheduledThenDead();

private:
    LeadResult tick(std::string_view role, leader::roles::RoleOptions options = {});
    std::int64_t count(const std::string &sql);
    QString field(const std::string &sql);
    void seedEvents(int events, int simulatedFailures = 0);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
    std::unique_ptr<Manager> m_manager;
};

void TestWebhookRoles::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("webhookroles");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
    m_manager = std::make_unique<Manager>(
            leader::lease::ManagerOptions{.database = {.url = m_db->url(Login::App)}});
}

void TestWebhookRoles::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

LeadResult TestWebhookRoles::tick(std::string_view role, leader::roles::RoleOptions options)
{
    const std::unique_ptr<leader::roles::Role> instance = leader::roles::makeRole(role, options);
    return m_manager->lead(role, 0ms, [&](TickContext &context) { instance->tick(context); });
}

std::int64_t TestWebhookRoles::count(const std::string &sql)
{
    return m_owner->exec("inspect", sql, {}, 5s).toInt64(0, 0);
}

QString TestWebhookRoles::field(const std::string &sql)
{
    const leader::pg::Result result = m_owner->exec("inspect", sql, {}, 5s);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

void TestWebhookRoles::seedEvents(int events, int simulatedFailures)
{
    m_owner->exec("seed",
                  "WITH t AS (INSERT INTO tenants (name) VALUES ('webhookroles') RETURNING id) "
                  "INSERT INTO webhook_events (tenant_id, kind, payload) "
                  "SELECT t.id, 'invoice.paid', jsonb_build_object('simulate_failures', $2::int) "
                  "FROM t, generate_series(1, $1)",
                  {events, simulatedFailures}, 5s);
}

void TestWebhookRoles::oneDeliveryPerEvent()
{
    seedEvents(5);
    const LeadResult outbox = tick("webhook_outbox");
    QVERIFY(outbox.acquired);
    QCOMPARE(outbox.outcome, Outcome::Completed);
    QCOMPARE(count("SELECT count(*) FROM webhook_deliveries"), std::int64_t(5));
    QCOMPARE(count("SELECT count(*) FROM webhook_events WHERE dispatched_at IS NOT NULL "
                   "AND dispatch_token = "
                   + std::to_string(outbox.token)),
             std::int64_t(5));
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'webhook_outbox'"),
             std::int64_t(5));
    // Nothing left to dispatch: a second tick claims and creates nothing.
    QVERIFY(tick("webhook_outbox").acquired);
    QCOMPARE(count("SELECT count(*) FROM webhook_deliveries"), std::int64_t(5));
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'webhook_outbox'"),
             std::int64_t(5));

    const LeadResult delivery = tick("webhook_delivery");
    QCOMPARE(delivery.outcome, Outcome::Completed);
    QCOMPARE(count("SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered' "
                   "AND attempts = 1 AND claim_token = "
                   + std::to_string(delivery.token)),
             std::int64_t(5));
    // One POST per event, keyed by the event.
    QCOMPARE(count("SELECT count(DISTINCT idempotency_key) FROM external_effects "
                   "WHERE kind = 'webhook_post' AND idempotency_key IN "
                   "(SELECT 'evt_' || id FROM webhook_events)"),
             std::int64_t(5));
    QCOMPARE(count("SELECT count(*) FROM external_effects"), std::int64_t(5));
    QVERIFY(tick("webhook_delivery").acquired);
    QCOMPARE(count("SELECT count(*) FROM external_effects"), std::int64_t(5));
}

void TestWebhookRoles::racingMarksExactlyOneWins_data()
{
    QTest::addColumn<bool>("firstDelivered");
    QTest::addColumn<bool>("secondDelivered");
    QTest::newRow("delivered vs refused") << true << false;
    // Both leave the row pending: only the attempts count the listing returned stops the second.
    QTest::newRow("refused vs refused") << false << false;
    QTest::newRow("delivered vs delivered") << true << true;
}

void TestWebhookRoles::racingMarksExactlyOneWins()
{
    QFETCH(bool, firstDelivered);
    QFETCH(bool, secondDelivered);
    seedEvents(1);
    QVERIFY(tick("webhook_outbox").acquired);
    // List the delivery in a led tick, then race two marks of that one listing, each on its own
    // connection, as a resumed superseded leader and its successor would. Marks are not fenced;
    // only the row CAS decides.
    std::vector<PendingDelivery> listed;
    const LeadResult listing = m_manager->lead("webhook_delivery", 0ms, [&](TickContext &context) {
        listed = leader::roles::webhook::listPendingDeliveries(context, 10);
    });
    QCOMPARE(listed.size(), std::size_t(1));

    std::latch start(2);
    const auto mark = [&](bool delivered) {
        Connection connection = m_db->connect(Login::App);
        TickContext context("webhook_delivery", listing.token, "marker", 0ms, connection,
                            TickContext::Clock::now());
        start.arrive_and_wait();
        try {
            if (delivered)
                leader::roles::webhook::markDelivered(context, listed.front(), listing.token);
            else
                leader::roles::webhook::markFailed(context, listed.front(), listing.token);
            return true;
        } catch (const leader::roles::webhook::StaleDeliveryMark &) {
            return false;
        }
    };
    auto first = std::async(std::launch::async, mark, firstDelivered);
    auto second = std::async(std::launch::async, mark, secondDelivered);
    const bool firstWon = first.get();
    const bool secondWon = second.get();
    QCOMPARE(int(firstWon) + int(secondWon), 1);
    // The loser changed nothing: one attempt counted, in the winner's state.
    const bool delivered = firstWon ? firstDelivered : secondDelivered;
    QCOMPARE(field("SELECT status || ',' || attempts FROM webhook_deliveries"),
             delivered ? QStringLiteral("delivered,1") : QStringLiteral("pending,1"));
}

void TestWebhookRoles::markAfterReclaimIsRefusedAndWritesNothing()
{
    seedEvents(1);
    QVERIFY(tick("webhook_outbox").acquired);
    // The POST's simulated latency is the window in which a successor reclaims the delivery.
    auto running = std::async(std::launch::async,
                              [&] { return tick("webhook_delivery", {.perItemLatency = 2s}); });
    QTRY_COMPARE_WITH_TIMEOUT(count("SELECT count(*) FROM claim_log WHERE role = "
                                    "'webhook_delivery'"),
                              std::int64_t(1), 5000);
    const std::int64_t successor
            = m_owner->exec("reclaim",
                            "UPDATE webhook_deliveries SET claim_token = claim_token + 1000, "
                            "claimed_at = now() RETURNING claim_token",
                            {}, 5s)
                      .toInt64(0, 0);
    const LeadResult result = running.get();
    // A lost mark is not a failed tick: the successor's claim owns the row.
    QCOMPARE(result.outcome, Outcome::Completed);
    QCOMPARE(field("SELECT status || ',' || attempts || ',' || claim_token "
                   "FROM webhook_deliveries"),
             QStringLiteral("pending,0,%1").arg(successor));
    // The POST itself went out before the mark: at-least-once, and counted.
    QCOMPARE(count("SELECT count(*) FROM external_effects WHERE kind = 'webhook_post'"),
             std::int64_t(1));
}

void TestWebhookRoles::refusedPostIsRescheduledThenDead()
{
    seedEvents(1, 1);
    seedEvents(1, leader::roles::webhook::MaxAttempts);
    QVERIFY(tick("webhook_outbox").acquired);
    QCOMPARE(tick("webhook_delivery").outcome, Outcome::Completed);
    QCOMPARE(count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' "
                   "AND attempts = 1 AND claimed_at IS NULL"),
             std::int64_t(2));
    QCOMPARE(count("SELECT count(*) FROM external_effects"), std::int64_t(0));

    // Not due yet: the next tick claims nothing.
    QVERIFY(tick("webhook_delivery").acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE role = 'webhook_delivery'"),
             std::int64_t(2));

    // Each refusal doubles the wait; the MaxAttempts-th is final. Time passing is simulated by
    // making the deliveries due.
    for (int attempts = 1; attempts < leader::roles::webhook::MaxAttempts; ++attempts) {
        const double backoff
                = leader::roles::webhook::RetryBase.count() / 1000.0 * (1 << (attempts - 1));
        const double wait = field("SELECT extract(epoch FROM next_attempt_at - now()) "
                                  "FROM webhook_deliveries WHERE event_id = 2")
                                    .toDouble();
        QVERIFY2(wait > backoff - 1 && wait <= backoff, qPrintable(QString::number(wait)));
        m_owner->exec("due", "UPDATE webhook_deliveries SET next_attempt_at = now()", {}, 5s);
        QCOMPARE(tick("webhook_delivery").outcome, Outcome::Completed);
    }
    QCOMPARE(field("SELECT status || ',' || attempts FROM webhook_deliveries WHERE event_id = 1"),
             QStringLiteral("delivered,2"));
    QCOMPARE(field("SELECT status || ',' || attempts FROM webhook_deliveries WHERE event_id = 2"),
             QStringLiteral("dead,%1").arg(leader::roles::webhook::MaxAttempts));
    QCOMPARE(field("SELECT string_agg(idempotency_key, ',') FROM external_effects"),
             QStringLiteral("evt_1"));
    // Dead is final: made due again, it is not claimed.
    m_owner->exec("due", "UPDATE webhook_deliveries SET next_attempt_at = now()", {}, 5s);
    const std::int64_t claims = count("SELECT count(*) FROM claim_log");
    QVERIFY(tick("webhook_delivery").acquired);
    QCOMPARE(count("SELECT count(*) FROM claim_log"), claims);
}

QTEST_GUILESS_MAIN(TestWebhookRoles)
#include "tst_webhookroles.moc"
