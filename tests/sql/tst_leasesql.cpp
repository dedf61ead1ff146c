// The lease table's SQL contract (ADR-114 and migrations 0175 to 0179): the four statements as
// the engine sends them, run as a login that holds only hardcount_app, on the database clock,
// straight to Postgres and again through PgBouncer in transaction mode.

#include "lease/constants.h"
#include "lease/statements.h"
#include "pg/error.h"
#include "platform/socketwait.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <libpq-fe.h>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

Q_DECLARE_METATYPE(leader::lease::Outcome)

using namespace std::chrono_literals;
using leader::lease::Outcome;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;
constexpr const char *Me = "me:1:00000001";

QString scalar(Connection &connection, const std::string &sql)
{
    const leader::pg::Result result = connection.exec("test query", sql, {}, Short);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

// The payloads of the NOTIFY leader_leases the listener's session receives until `marker`
// arrives, in order, the marker left out. The marker is sent after what is checked, in a later
// transaction: Postgres delivers notifications in commit order, so whatever the check sent has
// arrived by then, and "nothing" is proven without waiting for a time. Empty with a failure
// recorded when the marker does not come within 5 s.
QStringList notificationsUntil(Connection &listener, const QString &marker)
{
    QStringList payloads;
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (PQconsumeInput(listener.handle()) != 1) {
            QTest::qFail("the LISTEN session broke", __FILE__, __LINE__);
            return {};
        }
        while (PGnotify *notify = PQnotifies(listener.handle())) {
            const QString channel = QString::fromUtf8(notify->relname);
            const QString payload = QString::fromUtf8(notify->extra);
            PQfreemem(notify);
            if (payload == marker)
                return payloads;
            if (channel == QLatin1String("leader_leases"))
                payloads.append(payload);
        }
        const qint64 left = 5000 - waited.elapsed();
        if (left <= 0) {
            QTest::qFail("the marker notification never came", __FILE__, __LINE__);
            return {};
        }
        leader::platform::waitSocket(PQsocket(listener.handle()), leader::platform::WaitFor::Read,
                                     std::chrono::milliseconds(left));
    }
}

} // namespace

class TestLeaseSql final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void acquireLeadsOnlyOneHolder();
    void acquireRacingContendersExactlyOneWins();
    void acquireRespects_data();
    void acquireRespects();
    void acquireRecreatesMissingRow();
    void renewExtendsOnDatabaseClock();
    void renewRefused_data();
    void renewRefused();
    void releaseByOutcome_data();
    void releaseByOutcome();
    void releaseWithStaleTokenChangesNothing();
    void tokenAboveEveryIssuedAfterALostWrite();
    void completedTickWaitsForItsInterval();
    void pauseNullsHolderAndClosesFence();
    void unpauseLeavesRoleDueButKeepsNotBefore();
    void pauseTwiceKeepsTheFirst();
    void pauseRejects_data();
    void pauseRejects();
    void pauseAndUnpauseNotifyWhenTheyChangeTheRow_data();
    void pauseAndUnpauseNotifyWhenTheyChangeTheRow();
    void checksReject_data();
    void checksReject();
    void fence_data();
    void fence();
    void statusStates();
    void tickAgeNeverNegative();
    void reapplyReseedsAboveEveryToken();

    void sessionIsRecordedOnlyWhileItsLockIsHeld();
    void heldRowIsTakenEarlyOnlyOnceItsSessionEnded();
    void sessionOfAnotherIncarnationIsNotTakenEarly();
    void recordedMarkerIsReturned();
    void heldRowIsNotTakenEarlyWithTheSwitchOff();
    void repairedRowIsNotTakenEarly_data();
    void repairedRowIsNotTakenEarly();
    void acquireAnnouncesTheMarkerItRecords();
    void heldAnnouncementParses_data();
    void heldAnnouncementParses();

private:
    // Moves the role's clock-derived columns as if time had passed, as the owner.
    void ownerExec(const std::string &sql) { m_owner->exec("test setup", sql, {}, Short); }
    std::int64_t acquireOrFail(const char *holder, std::chrono::milliseconds interval = 0ms);
    bool release(std::int64_t token, Outcome outcome, std::chrono::milliseconds interval,
                 const char *holder = Me, std::chrono::milliseconds sinceEnd = 0ms);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_owner;
};

void TestLeaseSql::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("leasesql");
    m_db->migrateLease();
    m_app = std::make_unique<Connection>(m_db->connect(Login::App));
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestLeaseSql::init()
{
    m_db->resetLeases();
}

bool TestLeaseSql::release(std::int64_t token, Outcome outcome, std::chrono::milliseconds interval,
                           const char *holder, std::chrono::milliseconds sinceEnd)
{
    return leader::lease::release(*m_app, {.role = "billing",
                                           .token = token,
                                           .holderId = holder,
                                           .outcome = outcome,
                                           .interval = interval,
                                           .sinceEnd = sinceEnd})
            .has_value();
}

std::int64_t TestLeaseSql::acquireOrFail(const char *holder, std::chrono::milliseconds interval)
{
    const auto acquired = leader::lease::acquire(*m_app, "billing", holder, interval);
    if (!acquired)
        qFatal("acquire for %s returned no row", holder);
    return acquired->token;
}

void TestLeaseSql::acquireLeadsOnlyOneHolder()
{
    const auto first = leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms);
    QVERIFY(first.has_value());
    QVERIFY(!first->now.text.empty());
    QVERIFY(first->now.epochSeconds > 1.7e9);
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms));
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms));
    // Roles are independent rows.
    QVERIFY(leader::lease::acquire(*m_app, "dunning", "b:2:00000002", 0ms));
    QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("a:1:00000001"));
}

void TestLeaseSql::acquireRacingContendersExactlyOneWins()
{
    constexpr int Contenders = 8;
    std::vector<Connection> connections;
    for (int i = 0; i < Contenders; ++i)
        connections.push_back(m_db->connect(Login::App));
    std::atomic<int> ready = 0;
    std::atomic<int> winners = 0;
    std::vector<std::thread> threads;
    for (int i = 0; i < Contenders; ++i) {
        threads.emplace_back([&, i] {
            ++ready;
            while (ready.load() < Contenders) {
            }
            if (leader::lease::acquire(connections[i], "webhook_outbox",
                                       "racer:" + std::to_string(i) + ":00000000", 0ms))
                ++winners;
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    QCOMPARE(winners.load(), 1);
}

void TestLeaseSql::acquireRespects_data()
{
    QTest::addColumn<QString>("setup");
    QTest::addColumn<qint64>("intervalMs");
    QTest::addColumn<bool>("acquired");
    // Each refusal row fails when its predicate is deleted from ACQUIRE's WHERE (checked once for
    // all four; without the pause predicate the held-and-paused row also trips a CHECK).
    QTest::newRow("paused")
            << "UPDATE leader_leases SET paused_at = now(), paused_by = 'op', pause_reason = 'test'"
            << qint64(0) << false;
    QTest::newRow("held, not expired")
            << "UPDATE leader_leases SET holder_id = 'x:1:00000000', acquired_at = now(), "
               "expires_at = now() + interval '5 s'"
            << qint64(0) << false;
    QTest::newRow("held, expired")
            << "UPDATE leader_leases SET holder_id = 'x:1:00000000', "
               "acquired_at = now() - interval '20 s', expires_at = now() - interval '1 ms'"
            << qint64(0) << true;
    QTest::newRow("interval not passed")
            << "UPDATE leader_leases SET last_tick_ended_at = now() - interval '59 s'"
            << qint64(60'000) << false;
    QTest::newRow("interval passed")
            << "UPDATE leader_leases SET last_tick_ended_at = now() - interval '61 s'"
            << qint64(60'000) << true;
    QTest::newRow("not_before ahead")
            << "UPDATE leader_leases SET not_before = now() + interval '30 s'" << qint64(0)
            << false;
    QTest::newRow("not_before passed")
            << "UPDATE leader_leases SET not_before = now() - interval '1 ms'" << qint64(0) << true;
    QTest::newRow("never ran") << "SELECT 1" << qint64(3'600'000) << true;
}

void TestLeaseSql::acquireRespects()
{
    QFETCH(QString, setup);
    QFETCH(qint64, intervalMs);
    QFETCH(bool, acquired);
    ownerExec(setup.toStdString() + (setup.startsWith("UPDATE") ? " WHERE role = 'billing'" : ""));
    const auto result = leader::lease::acquire(*m_app, "billing", "me:1:00000001",
                                               std::chrono::milliseconds(intervalMs));
    QCOMPARE(result.has_value(), acquired);
    if (acquired) {
        QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
                 QStringLiteral("me:1:00000001"));
        QCOMPARE(scalar(*m_app, "SELECT round(extract(epoch FROM expires_at - acquired_at))::int "
                                "FROM leader_leases WHERE role = 'billing'"),
                 QString::number(leader::lease::LeaseTTL.count() / 1000));
    }
}

void TestLeaseSql::acquireRecreatesMissingRow()
{
    ownerExec("DELETE FROM leader_leases WHERE role = 'email_outbox'");
    const auto acquired = leader::lease::acquire(*m_app, "email_outbox", "me:1:00000001", 0ms);
    QVERIFY(acquired.has_value());
    // A recreated row starts from epoch milliseconds, above any token issued before.
    const qint64 nowMs
            = scalar(*m_app, "SELECT (extract(epoch FROM now()) * 1000)::bigint").toLongLong();
    QVERIFY2(std::abs(acquired->token - nowMs) < 60'000, "token is not epoch milliseconds");
}

void TestLeaseSql::renewExtendsOnDatabaseClock()
{
    const std::int64_t token = acquireOrFail("me:1:00000001");
    ownerExec(
            "UPDATE leader_leases SET expires_at = now() + interval '1 s' WHERE role = 'billing'");
    QVERIFY(leader::lease::renew(*m_app, "billing", token, Me).has_value());
    const double left = scalar(*m_app, "SELECT extract(epoch FROM expires_at - now()) "
                                       "FROM leader_leases WHERE role = 'billing'")
                                .toDouble();
    QVERIFY2(left > 9.0 && left <= 10.0, qPrintable(QString::number(left)));
}

void TestLeaseSql::renewRefused_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("wrongToken");
    QTest::newRow("wrong token") << QString() << true;
    QTest::newRow("taken over") << "UPDATE leader_leases SET holder_token = holder_token + 1, "
                                   "holder_id = 'other:2:00000002'"
                                << false;
    QTest::newRow("released") << "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, "
                                 "expires_at = NULL"
                              << false;
    QTest::newRow("paused") << "SELECT leader_pause('billing', 'op', 'test')" << false;
    // The right token held by another holder id: what a token issued twice would look like.
    QTest::newRow("same token, other holder")
            << "UPDATE leader_leases SET holder_id = 'other:2:00000002'" << false;
}

void TestLeaseSql::renewRefused()
{
    QFETCH(QString, change);
    QFETCH(bool, wrongToken);
    const std::int64_t token = acquireOrFail("me:1:00000001");
    if (!change.isEmpty())
        ownerExec(change.toStdString()
                  + (change.startsWith("UPDATE") ? " WHERE role = 'billing'" : ""));
    // Zero rows is the definite loss the heartbeat cancels on. Deleting RENEW's token predicate
    // fails "wrong token"; deleting its holder_id predicate fails "same token, other holder" and
    // makes "released" and "paused" write an expiry without a holder, which the CHECK refuses
    // (each checked once).
    QVERIFY(!leader::lease::renew(*m_app, "billing", wrongToken ? token + 1 : token, Me));
}

void TestLeaseSql::releaseByOutcome_data()
{
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<qint64>("intervalMs");
    QTest::addColumn<bool>("stamped");
    QTest::addColumn<int>("cooldownSeconds"); // -1: no not_before
    QTest::addColumn<qint64>("sinceEndMs");
    QTest::newRow("completed") << Outcome::Completed << qint64(30'000) << true << -1 << qint64(0);
    QTest::newRow("interrupted") << Outcome::Interrupted << qint64(30'000) << false << -1
                                 << qint64(0);
    QTest::newRow("failed, short interval")
            << Outcome::Failed << qint64(30'000) << false << 30 << qint64(0);
    // A panicked tick waits one full interval (amendment 2026-10-19), not the 60 s cap.
    QTest::newRow("failed, hourly")
            << Outcome::Failed << qint64(3'600'000) << false << 3600 << qint64(0);
    QTest::newRow("lost, short interval")
            << Outcome::Lost << qint64(30'000) << false << 30 << qint64(0);
    QTest::newRow("lost, hourly") << Outcome::Lost << qint64(3'600'000) << false << 60 << qint64(0);
    // A RELEASE retried after a server restart: the cooldown still ends where it would have
    // (deleting the "- $6" fails these; checked once), and never lies in the past.
    QTest::newRow("lost, retried 20 s late")
            << Outcome::Lost << qint64(30'000) << false << 10 << qint64(20'000);
    QTest::newRow("failed, retried 2 s late")
            << Outcome::Failed << qint64(3'600'000) << false << 3598 << qint64(2'000);
    QTest::newRow("lost, retried after its cooldown")
            << Outcome::Lost << qint64(30'000) << false << 0 << qint64(45'000);
}

void TestLeaseSql::releaseByOutcome()
{
    QFETCH(Outcome, outcome);
    QFETCH(qint64, intervalMs);
    QFETCH(bool, stamped);
    QFETCH(int, cooldownSeconds);
    QFETCH(qint64, sinceEndMs);
    const std::int64_t token = acquireOrFail(Me);
    QVERIFY(release(token, outcome, std::chrono::milliseconds(intervalMs), Me,
                    std::chrono::milliseconds(sinceEndMs)));
    const leader::pg::Result row = m_app->exec(
            "read row",
            "SELECT holder_id, expires_at, last_tick_ended_at IS NOT NULL, last_tick_holder, "
            "round(extract(epoch FROM not_before - now()))::int FROM leader_leases "
            "WHERE role = 'billing'",
            {}, Short);
    QVERIFY(row.isNull(0, 0));
    QVERIFY(row.isNull(0, 1));
    QCOMPARE(row.toBool(0, 2), stamped);
    QCOMPARE(row.isNull(0, 3), !stamped);
    if (stamped)
        QCOMPARE(row.text(0, 3), std::string_view("me:1:00000001"));
    if (cooldownSeconds < 0)
        QVERIFY(row.isNull(0, 4));
    else
        QCOMPARE(row.toInt64(0, 4), std::int64_t(cooldownSeconds));
}

void TestLeaseSql::releaseWithStaleTokenChangesNothing()
{
    const std::int64_t stale = acquireOrFail("old:1:00000001");
    ownerExec(
            "UPDATE leader_leases SET expires_at = now() - interval '1 ms' WHERE role = 'billing'");
    const std::int64_t current = acquireOrFail("new:2:00000002");
    QVERIFY(current > stale);
    // Fails when RELEASE's token predicate is deleted (checked once).
    QVERIFY(!release(stale, Outcome::Completed, 0ms, "old:1:00000001"));
    // The current token from another holder id: fails when RELEASE's holder_id predicate is
    // deleted (checked once).
    QVERIFY(!release(current, Outcome::Completed, 0ms, "old:1:00000001"));
    QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("new:2:00000002"));
    QVERIFY(scalar(*m_app, "SELECT last_tick_ended_at FROM leader_leases WHERE role = 'billing'")
                    .isNull());
}

void TestLeaseSql::tokenAboveEveryIssuedAfterALostWrite()
{
    // A promoted asynchronous standby may not have the primary's last ACQUIREs: its row holds a
    // token below ones already handed out. Simulated by setting the row back, as a lost write
    // would leave it, and expiring the lease.
    std::int64_t highest = 0;
    std::int64_t first = 0;
    for (int tick = 0; tick < 5; ++tick) {
        const std::int64_t token = acquireOrFail(Me);
        QVERIFY(release(token, Outcome::Completed, 0ms));
        first = first ? first : token;
        highest = std::max(highest, token);
    }
    ownerExec("UPDATE leader_leases SET holder_token = " + std::to_string(first - 1'000)
              + ", holder_id = 'lost:1:00000000', acquired_at = now() - interval '20 s', "
                "expires_at = now() - interval '10 s' WHERE role = 'billing'");
    // Five ticks a millisecond apart or less run ahead of the clock by +1; a failover takes far
    // longer than that, which is the amendment's assumption: wait it out on the database clock.
    const std::string clockPassed
            = "SELECT (extract(epoch FROM now()) * 1000)::bigint > " + std::to_string(highest);
    QTRY_COMPARE_WITH_TIMEOUT(scalar(*m_app, clockPassed), QStringLiteral("t"), 5000);
    // With the ADR's literal holder_token + 1 this token is first - 999, issued long ago, and
    // the check fails (checked once by deleting the greatest()).
    const std::int64_t issued = acquireOrFail("other:2:00000002");
    QVERIFY2(issued > highest,
             qPrintable(QStringLiteral("%1 is not above %2").arg(issued).arg(highest)));
}

void TestLeaseSql::completedTickWaitsForItsInterval()
{
    const std::int64_t token = acquireOrFail("me:1:00000001", 1h);
    QVERIFY(release(token, Outcome::Completed, 1h));
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "me:1:00000001", 1h));
    QVERIFY(leader::lease::acquire(*m_app, "billing", "me:1:00000001", 0ms));
}

void TestLeaseSql::pauseNullsHolderAndClosesFence()
{
    const std::int64_t token = acquireOrFail("me:1:00000001");
    const std::string fenceSql = "SELECT leader_fence('billing', " + std::to_string(token) + ")";
    QCOMPARE(scalar(*m_app, fenceSql), QStringLiteral("t"));
    const std::string pausedAt = leader::lease::pause(*m_app, "billing", "alice@ops", "drill");
    QVERIFY(!pausedAt.empty());
    // One statement: the holder is gone and the fence is false from its commit.
    QCOMPARE(scalar(*m_app, fenceSql), QStringLiteral("f"));
    QVERIFY(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'").isNull());
    QVERIFY(!leader::lease::renew(*m_app, "billing", token, Me));
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "other:2:00000002", 0ms));
    QCOMPARE(scalar(*m_app, "SELECT state || '/' || paused_by || '/' || pause_reason "
                            "FROM leader_status WHERE role = 'billing'"),
             QStringLiteral("paused/alice@ops/drill"));
}

void TestLeaseSql::unpauseLeavesRoleDueButKeepsNotBefore()
{
    ownerExec("UPDATE leader_leases SET last_tick_ended_at = now() - interval '2 h' "
              "WHERE role = 'billing'");
    leader::lease::pause(*m_app, "billing", "alice@ops", "drill");
    QVERIFY(leader::lease::unpause(*m_app, "billing"));
    QVERIFY(!leader::lease::unpause(*m_app, "billing"));
    QVERIFY(leader::lease::acquire(*m_app, "billing", "me:1:00000001", 1h));

    init();
    ownerExec(
            "UPDATE leader_leases SET not_before = now() + interval '1 h' WHERE role = 'dunning'");
    leader::lease::pause(*m_app, "dunning", "alice@ops", "drill");
    QVERIFY(leader::lease::unpause(*m_app, "dunning"));
    QVERIFY(!scalar(*m_app, "SELECT not_before FROM leader_leases WHERE role = 'dunning'")
                     .isNull());
    QVERIFY(!leader::lease::acquire(*m_app, "dunning", "me:1:00000001", 0ms));
}

void TestLeaseSql::pauseTwiceKeepsTheFirst()
{
    const std::string first = leader::lease::pause(*m_app, "billing", "alice@ops", "first");
    const std::string second = leader::lease::pause(*m_app, "billing", "bob@ops", "second");
    QCOMPARE(second, first);
    QCOMPARE(scalar(*m_app, "SELECT paused_by FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("alice@ops"));
}

void TestLeaseSql::pauseRejects_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("by");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown role") << "payroll"
                                  << "alice"
                                  << "why"
                                  << "unknown role 'payroll'";
    QTest::newRow("no reason") << "billing"
                               << "alice"
                               << "  "
                               << "needs who pauses and why";
    QTest::newRow("no one") << "billing"
                            << ""
                            << "why"
                            << "needs who pauses and why";
}

void TestLeaseSql::pauseRejects()
{
    QFETCH(QString, role);
    QFETCH(QString, by);
    QFETCH(QString, reason);
    QFETCH(QString, message);
    try {
        leader::lease::pause(*m_app, role.toStdString(), by.toStdString(), reason.toStdString());
        QFAIL("pause was accepted");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::InvalidParameterValue));
        QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
    }
    QCOMPARE(scalar(*m_app, "SELECT count(*) FROM leader_leases WHERE paused_at IS NOT NULL"),
             QStringLiteral("0"));
}

void TestLeaseSql::pauseAndUnpauseNotifyWhenTheyChangeTheRow_data()
{
    QTest::addColumn<QString>("setup");          // as the owner, before the LISTEN
    QTest::addColumn<QStringList>("statements"); // as the app login, as psql would send them
    QTest::addColumn<QStringList>("notified");
    const QString pause = QStringLiteral("SELECT leader_pause('billing', 'alice@ops', 'drill')");
    const QString unpause = QStringLiteral("SELECT leader_unpause('billing')");
    const QString paused = QStringLiteral("UPDATE leader_leases SET paused_at = now(), "
                                          "paused_by = 'op', pause_reason = 'why' "
                                          "WHERE role = 'billing'");
    // The rows that notify fail with the functions' pg_notify calls deleted from migration 0176;
    // "pause of a paused role" and "unpause of an unpaused role" fail with the notification sent
    // whether or not the row changed (both checked once).
    QTest::newRow("pause") << QString() << QStringList{pause} << QStringList{"billing"};
    QTest::newRow("pause of a held role")
            << "UPDATE leader_leases SET holder_id = 'x:1:00000000', acquired_at = now(), "
               "expires_at = now() + interval '5 s' WHERE role = 'billing'"
            << QStringList{pause} << QStringList{"billing"};
    QTest::newRow("pause of a paused role") << paused << QStringList{pause} << QStringList();
    QTest::newRow("pause of a missing row") << "DELETE FROM leader_leases WHERE role = 'billing'"
                                            << QStringList{pause} << QStringList{"billing"};
    QTest::newRow("rolled-back pause")
            << QString() << QStringList{"BEGIN", pause, "ROLLBACK"} << QStringList();
    QTest::newRow("unpause") << paused << QStringList{unpause} << QStringList{"billing"};
    QTest::newRow("unpause of an unpaused role")
            << QString() << QStringList{unpause} << QStringList();
    QTest::newRow("rolled-back unpause")
            << paused << QStringList{"BEGIN", unpause, "ROLLBACK"} << QStringList();
}

void TestLeaseSql::pauseAndUnpauseNotifyWhenTheyChangeTheRow()
{
    QFETCH(QString, setup);
    QFETCH(QStringList, statements);
    QFETCH(QStringList, notified);
    if (!setup.isEmpty())
        ownerExec(setup.toStdString());
    // LISTEN needs a session of its own, which a transaction pooler does not give: the listener
    // goes straight to Postgres on both routes, as leader-replica's --listen-database does.
    Connection listener = m_db->connectDirect(Login::App);
    listener.exec("listen", "LISTEN leader_leases", {}, Short);

    for (const QString &statement : statements)
        m_app->exec("as psql", statement.toStdString(), {}, Short);
    const QString marker = QStringLiteral("marker:") + QTest::currentDataTag();
    m_app->exec("marker", "SELECT pg_notify('leader_leases', $1)", {marker.toStdString()}, Short);
    QCOMPARE(notificationsUntil(listener, marker), notified);
}

void TestLeaseSql::checksReject_data()
{
    QTest::addColumn<QString>("update");
    QTest::newRow("holder without expiry")
            << "SET holder_id = 'x:1:00000000', acquired_at = now(), expires_at = NULL";
    QTest::newRow("expiry without holder") << "SET holder_id = NULL, expires_at = now()";
    QTest::newRow("paused and held")
            << "SET paused_at = now(), paused_by = 'op', pause_reason = 'why', "
               "holder_id = 'x:1:00000000', acquired_at = now(), expires_at = now() + interval '1 "
               "s'";
    QTest::newRow("pause without who") << "SET paused_at = now()";
    QTest::newRow("sixth role") << "SET role = 'payroll'";
}

void TestLeaseSql::checksReject()
{
    QFETCH(QString, update);
    try {
        ownerExec("UPDATE leader_leases " + update.toStdString() + " WHERE role = 'billing'");
        QFAIL("the CHECK let the row through");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::CheckViolation));
    }
}

void TestLeaseSql::fence_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<int>("tokenOffset");
    QTest::addColumn<QString>("role");
    QTest::addColumn<bool>("holds");
    // Deleting the token, role or expiry predicate from leader_fence fails the "older token",
    // "other role" and "expired" rows (checked once). "paused" and "released" are covered twice:
    // both null holder_id and the CHECKs tie a holder to an expiry, so holder_id IS NOT NULL and
    // paused_at IS NULL are defence in depth; deleting either alone leaves them false (checked).
    QTest::newRow("current holder") << QString() << 0 << "billing" << true;
    QTest::newRow("older token") << QString() << -1 << "billing" << false;
    QTest::newRow("other role") << QString() << 0 << "dunning" << false;
    QTest::newRow("expired") << "UPDATE leader_leases SET expires_at = now() - interval '1 ms'" << 0
                             << "billing" << false;
    QTest::newRow("paused") << "SELECT leader_pause('billing', 'op', 'why')" << 0 << "billing"
                            << false;
    QTest::newRow("released")
            << "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, expires_at = NULL"
            << 0 << "billing" << false;
}

void TestLeaseSql::fence()
{
    QFETCH(QString, change);
    QFETCH(int, tokenOffset);
    QFETCH(QString, role);
    QFETCH(bool, holds);
    const std::int64_t token = acquireOrFail("me:1:00000001");
    // dunning's row carries the same token value, so "other role" tests the role predicate.
    ownerExec("UPDATE leader_leases SET holder_token = " + std::to_string(token)
              + " WHERE role = 'dunning'");
    if (!change.isEmpty())
        ownerExec(change.toStdString()
                  + (change.startsWith("UPDATE") ? " WHERE role = 'billing'" : ""));
    QCOMPARE(scalar(*m_app, "SELECT leader_fence('" + role.toStdString() + "', "
                                    + std::to_string(token + tokenOffset) + ")"),
             holds ? QStringLiteral("t") : QStringLiteral("f"));
}

void TestLeaseSql::statusStates()
{
    const auto stateOf = [this](const char *role) {
        return scalar(*m_app,
                      std::string("SELECT state FROM leader_status WHERE role = '") + role + "'");
    };
    QCOMPARE(scalar(*m_app, "SELECT count(*) FILTER (WHERE state = 'never ran' "
                            "AND last_tick_age_seconds IS NULL) FROM leader_status"),
             QStringLiteral("5"));

    const std::int64_t token = acquireOrFail("me:1:00000001");
    QCOMPARE(stateOf("billing"), QStringLiteral("led"));
    QCOMPARE(scalar(*m_app, "SELECT holder_id || ' ' || (expires_in_seconds > 9) "
                            "FROM leader_status WHERE role = 'billing'"),
             QStringLiteral("me:1:00000001 true"));

    QVERIFY(release(token, Outcome::Completed, 0ms));
    QCOMPARE(stateOf("billing"), QStringLiteral("free"));
    const double age = scalar(*m_app, "SELECT last_tick_age_seconds FROM leader_status "
                                      "WHERE role = 'billing'")
                               .toDouble();
    QVERIFY2(age >= 0 && age < 5, qPrintable(QString::number(age)));

    const std::int64_t again = acquireOrFail("me:1:00000001");
    QVERIFY(release(again, Outcome::Lost, 30s));
    QCOMPARE(stateOf("billing"), QStringLiteral("cooling"));
    QVERIFY(scalar(*m_app, "SELECT not_before_in_seconds FROM leader_status "
                           "WHERE role = 'billing'")
                    .toDouble()
            > 25);

    leader::lease::pause(*m_app, "dunning", "alice@ops", "drill");
    QCOMPARE(stateOf("dunning"), QStringLiteral("paused"));
    // An expired lease is nobody's: the view shows no holder for it.
    ownerExec("UPDATE leader_leases SET holder_id = 'dead:1:00000000', acquired_at = now(), "
              "expires_at = now() - interval '1 s' WHERE role = 'email_outbox'");
    QCOMPARE(stateOf("email_outbox"), QStringLiteral("never ran"));
    QVERIFY(scalar(*m_app, "SELECT holder_id FROM leader_status WHERE role = 'email_outbox'")
                    .isNull());
}

void TestLeaseSql::tickAgeNeverNegative()
{
    // A database clock stepped backwards must not export a negative age the alert would ignore.
    ownerExec("UPDATE leader_leases SET last_tick_ended_at = now() + interval '1 h' "
              "WHERE role = 'billing'");
    QCOMPARE(scalar(*m_app, "SELECT last_tick_age_seconds FROM leader_status "
                            "WHERE role = 'billing'")
                     .toDouble(),
             0.0);
}

void TestLeaseSql::reapplyReseedsAboveEveryToken()
{
    std::int64_t highest = 0;
    for (int tick = 0; tick < 3; ++tick) {
        const std::int64_t token = acquireOrFail("me:1:00000001");
        QVERIFY(release(token, Outcome::Completed, 0ms));
        highest = std::max(highest, token);
    }
    highest = std::max<std::int64_t>(
            highest, scalar(*m_app, "SELECT max(holder_token) FROM leader_leases").toLongLong());

    leader::schema::Migrator migrator(*m_owner);
    QCOMPARE(migrator.rollbackTo(174),
             (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183, 182, 181, 180, 179, 178, 177,
                               176, 175, 174}));
    QCOMPARE(scalar(*m_owner, "SELECT to_regclass('leader_leases') IS NULL"), QStringLiteral("t"));
    QCOMPARE(migrator.migrate(
                     {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension}),
             (std::vector<int>{174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187,
                               188, 189, 190}));
    QVERIFY(migrator.migrate({leader::schema::MigrationSet::Adr,
                              leader::schema::MigrationSet::Extension})
                    .empty());

    QCOMPARE(scalar(*m_app, "SELECT count(*) FROM leader_leases WHERE holder_token > "
                                    + std::to_string(highest)),
             QStringLiteral("5"));
}

namespace {

// A marker session as a replica's listener holds one (migration 0179): straight to Postgres,
// holding a session advisory lock on its key for as long as it lives.
struct Marker
{
    Connection session;
    std::int64_t key = 0;
};

Marker holdMarker(const TestDatabase &db)
{
    Connection session = db.connectDirect(Login::App);
    const leader::pg::Result row
            = session.exec("marker",
                           "SELECT k, pg_advisory_lock(k) FROM (SELECT (7::bigint << 32) | "
                           "pg_backend_pid() AS k) AS s",
                           {}, Short);
    return {std::move(session), row.toInt64(0, 0)};
}

std::int64_t incarnation(Connection &connection)
{
    return scalar(connection, "SELECT leader_ext.leader_server_incarnation()").toLongLong();
}

// Whether any session still holds the key exclusively (a shared try-lock is refused).
bool keyHeld(Connection &connection, std::int64_t key)
{
    return connection
            .exec("test query", "SELECT NOT pg_try_advisory_xact_lock_shared($1::bigint)", {key},
                  Short)
            .toBool(0, 0);
}

} // namespace

void TestLeaseSql::sessionIsRecordedOnlyWhileItsLockIsHeld()
{
    Marker marker = holdMarker(*m_db);
    const std::string sessionOf
            = "SELECT coalesce(holder_session::text, 'none') || ' ' || "
              "(holder_session_incarnation = leader_ext.leader_server_incarnation()) "
              "FROM leader_leases WHERE role = 'billing'";
    const QString recorded = QString::number(marker.key) + " true";
    const auto acquired = leader::lease::acquire(*m_app, "billing", Me, 0ms, marker.key);
    QVERIFY(acquired);
    QCOMPARE(scalar(*m_app, sessionOf), recorded);
    QVERIFY(leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, std::nullopt));
    QCOMPARE(scalar(*m_app, sessionOf), QStringLiteral("none true"));
    QVERIFY(leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, marker.key));
    QCOMPARE(scalar(*m_app, sessionOf), recorded);
    // A key nobody holds (pid 1 is never a backend) is not recorded, by ACQUIRE nor RENEW.
    const std::int64_t unheld = (std::int64_t(7) << 32) | 1;
    QVERIFY(leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, unheld));
    QCOMPARE(scalar(*m_app, sessionOf), QStringLiteral("none true"));
    const auto dunning = leader::lease::acquire(*m_app, "dunning", Me, 0ms, unheld);
    QVERIFY(dunning);
    QCOMPARE(scalar(*m_app, "SELECT coalesce(holder_session::text, 'none') FROM leader_leases "
                            "WHERE role = 'dunning'"),
             QStringLiteral("none"));
    QVERIFY(release(acquired->token, Outcome::Completed, 0ms));
    QCOMPARE(scalar(*m_app, "SELECT coalesce(holder_session::text, 'none') || ' ' || "
                            "coalesce(holder_session_incarnation::text, 'none') "
                            "FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("none none"));
}

// A held, unexpired row is refused while its marker lives and taken, before its expiry, once the
// marker's session has ended; a contender refused meanwhile learns the marker to wait on.
// Checked: without the early-take branch of ACQUIRE's WHERE the last acquire never comes and this
// fails.
void TestLeaseSql::heldRowIsTakenEarlyOnlyOnceItsSessionEnded()
{
    std::optional<Marker> marker = holdMarker(*m_db);
    const std::int64_t key = marker->key;
    QVERIFY(leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms, key));
    const QString expiry
            = scalar(*m_app, "SELECT expires_at::text FROM leader_leases WHERE role = 'billing'");

    std::optional<leader::lease::HolderSession> heldBy;
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms, std::nullopt, &heldBy));
    QVERIFY(heldBy.has_value());
    QCOMPARE(heldBy->key, key);
    QCOMPARE(heldBy->incarnation, incarnation(*m_app));

    marker.reset(); // the process dies: its session, and the lock, end with it
    QTRY_VERIFY_WITH_TIMEOUT(!keyHeld(*m_app, key), 5000);
    const auto taken
            = leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms, std::nullopt, &heldBy);
    QVERIFY(taken.has_value());
    QVERIFY(!heldBy.has_value());
    QCOMPARE(scalar(*m_app, "SELECT holder_id || ' ' || (acquired_at < '" + expiry.toStdString()
                                    + "'::timestamptz) FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("b:2:00000002 true"));
    // The old holder's token is fenced off from that instant.
    QCOMPARE(scalar(*m_app,
                    "SELECT leader_fence('billing', " + std::to_string(taken->token - 1) + ")"),
             QStringLiteral("f"));
}

// Advisory locks live one server incarnation: after a restart, a crash restart or a failover the
// marker's lock is gone for every holder, alive or not, so a row seen on another incarnation is
// left to its expiry. Checked: without the incarnation test in ACQUIRE's WHERE this fails.
void TestLeaseSql::sessionOfAnotherIncarnationIsNotTakenEarly()
{
    std::optional<Marker> marker = holdMarker(*m_db);
    const std::int64_t key = marker->key;
    QVERIFY(leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms, key));
    ownerExec("UPDATE leader_leases SET holder_session_incarnation = holder_session_incarnation "
              "+ 1 WHERE role = 'billing'");
    marker.reset();
    QTRY_VERIFY_WITH_TIMEOUT(!keyHeld(*m_app, key), 5000);
    std::optional<leader::lease::HolderSession> heldBy;
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms, std::nullopt, &heldBy));
    QVERIFY2(!heldBy.has_value(), "a marker of another incarnation was offered to wait on");
    QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("a:1:00000001"));
}

// ACQUIRE and RENEW return the marker they recorded: the holder protects its tick only while its
// row names one (amendment 2026-12-05), and a RENEW with none un-names it.
void TestLeaseSql::recordedMarkerIsReturned()
{
    Marker marker = holdMarker(*m_db);
    const auto acquired = leader::lease::acquire(*m_app, "billing", Me, 0ms, marker.key);
    QVERIFY(acquired);
    QCOMPARE(acquired->session, marker.key);
    auto renewed = leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, std::nullopt);
    QVERIFY(renewed);
    QCOMPARE(renewed->session, std::int64_t(0));
    renewed = leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, marker.key);
    QVERIFY(renewed);
    QCOMPARE(renewed->session, marker.key);
    // With the role's early take off, nothing is recorded however held the key is.
    ownerExec("UPDATE leader_leases SET early_take = false WHERE role = 'billing'");
    renewed = leader::lease::renew(*m_app, "billing", acquired->token, Me, {}, marker.key);
    QVERIFY(renewed);
    QCOMPARE(renewed->session, std::int64_t(0));
    QVERIFY(release(acquired->token, Outcome::Completed, 0ms));
    const auto again = leader::lease::acquire(*m_app, "billing", Me, 0ms, marker.key);
    QVERIFY(again);
    QCOMPARE(again->session, std::int64_t(0));
    ownerExec("UPDATE leader_leases SET early_take = true");
}

// The operator's switch (migration 0180): with a role's early take off, its row is taken at its
// expiry only, however dead the holder's marker, and no contender is told a marker to wait on.
// Checked: without `l.early_take` in ACQUIRE's early branch the refused ACQUIRE takes the row and
// this fails.
void TestLeaseSql::heldRowIsNotTakenEarlyWithTheSwitchOff()
{
    std::optional<Marker> marker = holdMarker(*m_db);
    const std::int64_t key = marker->key;
    QVERIFY(leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms, key));
    // Flipped while the role is held: the row still names the marker, as recorded before.
    ownerExec("UPDATE leader_leases SET early_take = false WHERE role = 'billing'");
    const auto restore
            = qScopeGuard([this] { ownerExec("UPDATE leader_leases SET early_take = true"); });
    QCOMPARE(scalar(*m_app, "SELECT holder_session FROM leader_leases WHERE role = 'billing'"),
             QString::number(key));
    marker.reset();
    QTRY_VERIFY_WITH_TIMEOUT(!keyHeld(*m_app, key), 5000);
    std::optional<leader::lease::HolderSession> heldBy;
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms, std::nullopt, &heldBy));
    QVERIFY2(!heldBy.has_value(), "a marker was offered to wait on with the early take off");
    QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("a:1:00000001"));
    QCOMPARE(scalar(*m_app, "SELECT early_take FROM leader_ext.leader_status WHERE role = "
                            "'billing'"),
             QStringLiteral("f"));
    // At its expiry the TTL path takes it, as always.
    ownerExec("UPDATE leader_leases SET expires_at = now() - interval '1 ms' WHERE role = "
              "'billing'");
    QVERIFY(leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms));
    QCOMPARE(scalar(*m_app, "SELECT took_over FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("expired"));
}

void TestLeaseSql::repairedRowIsNotTakenEarly_data()
{
    QTest::addColumn<bool>("rekeyed");
    QTest::newRow("a new marker named") << true;
    QTest::newRow("no marker named") << false;
}

// A live holder whose marker session ended repairs its row within the contender's grace: a RENEW
// naming its new marker, or none. The early ACQUIRE after the grace tests the marker the row names
// then, so the row stays the holder's (amendment 2026-12-05).
void TestLeaseSql::repairedRowIsNotTakenEarly()
{
    QFETCH(bool, rekeyed);
    std::optional<Marker> marker = holdMarker(*m_db);
    const std::int64_t key = marker->key;
    const auto acquired = leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms, key);
    QVERIFY(acquired);
    marker.reset();
    QTRY_VERIFY_WITH_TIMEOUT(!keyHeld(*m_app, key), 5000);
    Marker repaired = holdMarker(*m_db);
    const auto renewed = leader::lease::renew(
            *m_app, "billing", acquired->token, "a:1:00000001", {},
            rekeyed ? std::optional<std::int64_t>(repaired.key) : std::nullopt);
    QVERIFY(renewed);
    QCOMPARE(renewed->session, rekeyed ? repaired.key : 0);
    std::optional<leader::lease::HolderSession> heldBy;
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "b:2:00000002", 0ms, std::nullopt, &heldBy));
    QCOMPARE(heldBy.has_value(), rekeyed);
    if (rekeyed)
        QCOMPARE(heldBy->key, repaired.key);
    QCOMPARE(scalar(*m_app, "SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("a:1:00000001"));
}

// A recorded marker is announced at the ACQUIRE, so that contenders wait for its end from the
// tick's first instant; an ACQUIRE that records none says nothing. LISTEN needs a session of its
// own: straight to Postgres on both routes.
void TestLeaseSql::acquireAnnouncesTheMarkerItRecords()
{
    Connection listener = m_db->connectDirect(Login::App);
    listener.exec("listen", "LISTEN leader_leases", {}, Short);
    const auto announced = [&listener]() -> std::vector<std::string> {
        std::vector<std::string> payloads;
        // The notification is sent at commit; a statement on the listening session delivers it.
        listener.exec("poll", "SELECT 1", {}, Short);
        while (PGnotify *notify = PQnotifies(listener.handle())) {
            payloads.emplace_back(notify->extra);
            PQfreemem(notify);
        }
        return payloads;
    };
    Marker marker = holdMarker(*m_db);
    const auto acquired = leader::lease::acquire(*m_app, "billing", Me, 0ms, marker.key);
    QVERIFY(acquired);
    const std::vector<std::string> payloads = announced();
    QCOMPARE(payloads.size(), std::size_t(1));
    const auto held = leader::lease::parseHeldAnnouncement(payloads.front());
    QVERIFY(held);
    QCOMPARE(held->role, std::string("billing"));
    QCOMPARE(held->holder.key, marker.key);
    QCOMPARE(held->holder.incarnation, incarnation(*m_app));
    QVERIFY(leader::lease::acquire(*m_app, "dunning", Me, 0ms, std::nullopt));
    QVERIFY(announced().empty());
}

void TestLeaseSql::heldAnnouncementParses_data()
{
    QTest::addColumn<QString>("payload");
    QTest::addColumn<bool>("valid");
    QTest::newRow("announcement") << "held billing 30064771075 1733390000123456" << true;
    QTest::newRow("negative incarnation") << "held dunning 30064771075 -17" << true;
    QTest::newRow("a role's name") << "billing" << false;
    QTest::newRow("no key") << "held billing" << false;
    QTest::newRow("no incarnation") << "held billing 30064771075" << false;
    QTest::newRow("trailing text") << "held billing 1 2 3" << false;
    QTest::newRow("not a number") << "held billing x1 2" << false;
    QTest::newRow("empty role") << "held  1 2" << false;
}

void TestLeaseSql::heldAnnouncementParses()
{
    QFETCH(QString, payload);
    QFETCH(bool, valid);
    QCOMPARE(leader::lease::parseHeldAnnouncement(payload.toStdString()).has_value(), valid);
}

QTEST_GUILESS_MAIN(TestLeaseSql)
#include "tst_leasesql.moc"
