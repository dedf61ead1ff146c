// How much work waits for each role (issue 36 point 4, extension 0186 and the demo's 1003), against
// a real Postgres and again through PgBouncer: the demo's five sources count known due
// subscriptions, runs, outbox rows, events and deliveries, with their oldest ages on the database
// clock, and follow the work as it is done; a failing source gives its error row while the others
// report; register refuses what is not a source and writes nothing; the monitor role reads
// everything and writes nothing; StatusReader::poll returns the rows, and the status rows alone
// when the backlog cannot be read.
//
// Mutation check, done once: with leader_backlog's per-source exception handler deleted from
// 0186, every row of aFailingSourceGivesItsErrorRow fails: the whole statement fails with the
// source's error, and the other roles report nothing.

#include "monitor/statusreader.h"
#include "pg/error.h"
#include "testdatabase.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <stop_token>

using namespace std::chrono_literals;
using leader::monitor::BacklogRow;
using leader::monitor::StatusReader;
using leader::monitor::StatusRows;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;
// Seconds between stamping an item (N seconds before the owner's now()) and reading its age: the
// two statements' transactions, on a loaded machine.
constexpr double Slack = 10;

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The demo's sources as 1003 registers them.
constexpr const char *RegisterDemoSql = R"sql(
SELECT leader_ext.leader_backlog_register(s.role, s.fn::regprocedure, s.what)
  FROM (VALUES ('billing', 'public.demo_billing_backlog()', 'due subscriptions'),
               ('dunning', 'public.demo_dunning_backlog()', 'due runs'),
               ('email_outbox', 'public.demo_email_outbox_backlog()', 'pending outbox rows'),
               ('webhook_outbox', 'public.demo_webhook_outbox_backlog()', 'undispatched events'),
               ('webhook_delivery', 'public.demo_webhook_delivery_backlog()', 'due deliveries'))
       AS s (role, fn, what)
)sql";

// Known work, each item stamped a known number of seconds before the database's now(), and items
// each source must leave out (not due, done, cancelled, dead).
constexpr const char *WorkloadSql = R"sql(
INSERT INTO tenants (name) SELECT 't' || g FROM generate_series(1, 5) AS g;
INSERT INTO subscriptions (tenant_id, status, amount_cents, period_seconds, period_start,
                           next_billing_at)
VALUES (1, 'active', 100, 60, now() - interval '1 day', now() - interval '300 seconds'),
       (2, 'active', 100, 60, now() - interval '1 day', now() - interval '200 seconds'),
       (3, 'active', 100, 60, now() - interval '1 day', now() - interval '100 seconds'),
       (4, 'active', 100, 60, now() - interval '1 day', now() + interval '1 hour'),
       (5, 'canceled', 100, 60, now() - interval '1 day', now() - interval '900 seconds');
INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents)
SELECT id, period_start, next_billing_at, 100 FROM subscriptions ORDER BY id;
INSERT INTO dunning_runs (invoice_id, status, next_attempt_at)
VALUES (1, 'active', now() - interval '120 seconds'),
       (2, 'active', now() - interval '60 seconds'),
       (3, 'active', now() + interval '1 hour'),
       (4, 'recovered', now() - interval '999 seconds');
INSERT INTO webhook_events (tenant_id, kind, created_at, dispatched_at)
VALUES (1, 'k', now() - interval '400 seconds', NULL),
       (2, 'k', now() - interval '40 seconds', NULL),
       (3, 'k', now() - interval '4000 seconds', now()),
       (4, 'k', now() - interval '10 seconds', NULL);
INSERT INTO webhook_deliveries (event_id, status, next_attempt_at)
VALUES (1, 'pending', now() - interval '30 seconds'),
       (2, 'pending', now() + interval '1 hour'),
       (3, 'delivered', now() - interval '500 seconds'),
       (4, 'dead', now() - interval '600 seconds');
INSERT INTO email_outbox (tenant_id, kind, recipient, status, created_at)
VALUES (1, 'k', 'r', 'queued', now() - interval '50 seconds'),
       (2, 'k', 'r', 'claimed', now() - interval '70 seconds'),
       (3, 'k', 'r', 'sent', now() - interval '800 seconds');
)sql";

const BacklogRow *find(const std::vector<BacklogRow> &rows, const QString &role)
{
    for (const BacklogRow &row : rows)
        if (qs(row.role) == role)
            return &row;
    return nullptr;
}

} // namespace

class TestBacklog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void countsFollowTheDemoWorkload_data();
    void countsFollowTheDemoWorkload();
    void aFailingSourceGivesItsErrorRow_data();
    void aFailingSourceGivesItsErrorRow();
    void aSourceWithoutExecuteGivesAPermissionRow();
    void registerRefusesAndWritesNothing_data();
    void registerRefusesAndWritesNothing();
    void monitorReadsAndWritesNothing_data();
    void monitorReadsAndWritesNothing();
    void statusReaderReadsTheBacklog();

private:
    std::vector<BacklogRow> read(Login login);
    QString registry();

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
    std::stop_source m_stop;
};

void TestBacklog::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("backlog");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestBacklog::init()
{
    // The demo's five sources, each granted again, and nothing else registered.
    m_db->resetDemo();
    m_owner->execScript("reset the backlog", R"sql(
SELECT leader_ext.leader_backlog_unregister(role) FROM leader_ext.leader_backlog_sources;
GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() TO hardcount_monitor;
DROP SCHEMA IF EXISTS backlog_private CASCADE;
DROP FUNCTION IF EXISTS public.test_backlog_source();
)sql",
                        Short);
    m_owner->exec("register the demo's", RegisterDemoSql, {}, Short);
}

// The rows; none, with the test failed, when the statement fails.
std::vector<BacklogRow> TestBacklog::read(Login login)
{
    Connection connection = m_db->connect(login);
    try {
        return leader::monitor::readBacklog(connection, Short);
    } catch (const leader::pg::Error &error) {
        [&] {
            QFAIL(error.what());
        }();
        return {};
    }
}

QString TestBacklog::registry()
{
    const leader::pg::Result result = m_owner->exec(
            "registry",
            "SELECT coalesce(string_agg(format('%s %s %s %s', role, source, what, registered_at), "
            "', ' ORDER BY role), '') FROM leader_ext.leader_backlog_sources",
            {}, Short);
    return qs(result.text(0, 0));
}

void TestBacklog::countsFollowTheDemoWorkload_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("what");
    QTest::addColumn<qint64>("pending");
    QTest::addColumn<double>("oldest"); // seconds; negative: none
    QTest::addColumn<QString>("done");  // the role's work done on its oldest item
    QTest::addColumn<qint64>("pendingAfter");
    QTest::addColumn<double>("oldestAfter");
    QTest::newRow("billing") << "billing"
                             << "due subscriptions" << qint64(3) << 300.0
                             << "UPDATE subscriptions SET next_billing_at = now() + interval '1 "
                                "hour' WHERE tenant_id = 1"
                             << qint64(2) << 200.0;
    QTest::newRow("dunning") << "dunning"
                             << "due runs" << qint64(2) << 120.0
                             << "UPDATE dunning_runs SET status = 'recovered' WHERE invoice_id = 1"
                             << qint64(1) << 60.0;
    QTest::newRow("email_outbox")
            << "email_outbox"
            << "pending outbox rows" << qint64(2) << 70.0
            << "UPDATE email_outbox SET status = 'sent', sent_at = now() WHERE tenant_id = 2"
            << qint64(1) << 50.0;
    QTest::newRow("webhook_outbox")
            << "webhook_outbox"
            << "undispatched events" << qint64(3) << 400.0
            << "UPDATE webhook_events SET dispatched_at = now() WHERE tenant_id = 1" << qint64(2)
            << 40.0;
    QTest::newRow("webhook_delivery")
            << "webhook_delivery"
            << "due deliveries" << qint64(1) << 30.0
            << "UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() "
               "WHERE event_id = 1"
            << qint64(0) << -1.0;
}

void TestBacklog::countsFollowTheDemoWorkload()
{
    QFETCH(QString, role);
    QFETCH(QString, what);
    QFETCH(qint64, pending);
    QFETCH(double, oldest);
    QFETCH(QString, done);
    QFETCH(qint64, pendingAfter);
    QFETCH(double, oldestAfter);
    m_owner->execScript("workload", WorkloadSql, Short);
    const auto check = [&](qint64 expected, double age) {
        const std::vector<BacklogRow> rows = read(Login::Monitor);
        QCOMPARE(rows.size(), std::size_t(5));
        const BacklogRow *row = find(rows, role);
        QVERIFY(row);
        QCOMPARE(qs(row->what), what);
        QVERIFY2(row->error.empty(), row->error.c_str());
        QVERIFY(row->pending);
        QCOMPARE(qint64(*row->pending), expected);
        if (age < 0) {
            QVERIFY(!row->oldestAgeSeconds);
        } else {
            QVERIFY(row->oldestAgeSeconds);
            QVERIFY2(*row->oldestAgeSeconds >= age && *row->oldestAgeSeconds < age + Slack,
                     qPrintable(QString::number(*row->oldestAgeSeconds)));
        }
    };
    check(pending, oldest);
    if (QTest::currentTestFailed())
        return;
    m_owner->exec("done", done.toStdString(), {}, Short);
    check(pendingAfter, oldestAfter);
    if (QTest::currentTestFailed())
        return;
    // A new item falls due: counted at once, the oldest unchanged unless it is older.
    m_owner->execScript("more", R"sql(
INSERT INTO tenants (name) VALUES ('late');
INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start, next_billing_at)
SELECT max(id), 100, 60, now() - interval '1 day', now() - interval '5 seconds' FROM tenants;
INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents)
SELECT max(id), now() - interval '1 day', now() - interval '5 seconds', 100 FROM subscriptions;
INSERT INTO dunning_runs (invoice_id, next_attempt_at)
SELECT max(id), now() - interval '5 seconds' FROM invoices;
INSERT INTO webhook_events (tenant_id, kind, created_at)
SELECT max(id), 'k', now() - interval '5 seconds' FROM tenants;
INSERT INTO webhook_deliveries (event_id, next_attempt_at)
SELECT max(id), now() - interval '5 seconds' FROM webhook_events;
INSERT INTO email_outbox (tenant_id, kind, recipient, created_at)
SELECT max(id), 'k', 'r', now() - interval '5 seconds' FROM tenants;
)sql",
                        Short);
    check(pendingAfter + 1, oldestAfter < 0 ? 5.0 : oldestAfter);
}

void TestBacklog::aFailingSourceGivesItsErrorRow_data()
{
    QTest::addColumn<QString>("body"); // of a STABLE plpgsql source, or "dropped"
    QTest::addColumn<QString>("error");
    QTest::newRow("raises, a secret masked")
            << "BEGIN RAISE EXCEPTION 'queue unreachable: password=hunter2 host=q'; END"
            << "P0001: queue unreachable: password=*** host=q";
    QTest::newRow("first line only") << "BEGIN RAISE EXCEPTION E'first line\\nsecond line'; END"
                                     << "P0001: first line";
    QTest::newRow("two rows")
            << "BEGIN RETURN QUERY SELECT 1::bigint, now() UNION ALL SELECT 2, now(); END"
            << "P0003: query returned more than one row";
    QTest::newRow("no row") << "BEGIN RETURN; END"
                            << "P0002: query returned no rows";
    QTest::newRow("division by zero") << "BEGIN RETURN QUERY SELECT (1 / 0)::bigint, now(); END"
                                      << "22012: division by zero";
    QTest::newRow("dropped") << "dropped"
                             << "42883: the backlog source (function ";
}

void TestBacklog::aFailingSourceGivesItsErrorRow()
{
    QFETCH(QString, body);
    QFETCH(QString, error);
    const bool dropped = body == QLatin1String("dropped");
    m_owner->exec(
            "source",
            "CREATE FUNCTION public.test_backlog_source() "
            "RETURNS TABLE (pending bigint, oldest_pending_at timestamptz) "
            "LANGUAGE plpgsql STABLE AS $$ "
                    + (dropped ? std::string("BEGIN RETURN QUERY SELECT 0::bigint, now(); END")
                               : body.toStdString())
                    + " $$",
            {}, Short);
    m_owner->exec("register",
                  "SELECT leader_ext.leader_backlog_register('dunning', "
                  "'public.test_backlog_source()', 'failing things')",
                  {}, Short);
    if (dropped)
        m_owner->exec("drop", "DROP FUNCTION public.test_backlog_source()", {}, Short);
    m_owner->execScript("workload", WorkloadSql, Short);

    for (const Login login : {Login::Monitor, Login::App}) {
        const std::vector<BacklogRow> rows = read(login);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(rows.size(), std::size_t(5));
        for (const BacklogRow &row : rows) {
            if (row.role == "dunning") {
                QCOMPARE(qs(row.what), QStringLiteral("failing things"));
                QVERIFY(!row.pending);
                QVERIFY(!row.oldestAgeSeconds);
                QVERIFY2(qs(row.error).startsWith(error), row.error.c_str());
                QVERIFY(!qs(row.error).contains(u'\n'));
                QVERIFY(!qs(row.error).contains(QLatin1String("hunter2")));
            } else {
                QVERIFY2(row.error.empty(), row.error.c_str());
                QVERIFY(row.pending && *row.pending > 0);
            }
        }
    }
}

void TestBacklog::aSourceWithoutExecuteGivesAPermissionRow()
{
    m_owner->execScript("revoke",
                        "REVOKE EXECUTE ON FUNCTION public.demo_dunning_backlog() "
                        "FROM hardcount_monitor",
                        Short);
    m_owner->execScript("workload", WorkloadSql, Short);
    const std::vector<BacklogRow> monitor = read(Login::Monitor);
    const BacklogRow *dunning = find(monitor, QStringLiteral("dunning"));
    QVERIFY(dunning);
    QVERIFY(!dunning->pending);
    QCOMPARE(qs(dunning->error),
             QStringLiteral("42501: permission denied for function demo_dunning_backlog"));
    const BacklogRow *billing = find(monitor, QStringLiteral("billing"));
    QVERIFY(billing && billing->pending && billing->error.empty());
    QCOMPARE(qint64(*billing->pending), qint64(3));
    // The app keeps its own grant.
    const std::vector<BacklogRow> appRows = read(Login::App);
    const BacklogRow *app = find(appRows, QStringLiteral("dunning"));
    QVERIFY(app && app->pending && app->error.empty());
    QCOMPARE(qint64(*app->pending), qint64(2));
}

void TestBacklog::registerRefusesAndWritesNothing_data()
{
    QTest::addColumn<QString>("source"); // CREATE FUNCTION ... for public.test_backlog_source
    QTest::addColumn<QString>("call");   // the register call's arguments
    QTest::addColumn<QString>("message");
    const QString good = "CREATE FUNCTION public.test_backlog_source() RETURNS TABLE (pending "
                         "bigint, oldest_pending_at timestamptz) LANGUAGE sql STABLE AS "
                         "'SELECT 1::bigint, now()'";
    QTest::newRow("an argument")
            << "CREATE FUNCTION public.test_backlog_source(int) RETURNS TABLE (pending bigint, "
               "oldest_pending_at timestamptz) LANGUAGE sql STABLE AS 'SELECT 1::bigint, now()'"
            << "'billing', 'public.test_backlog_source(int)', 'things'"
            << "must be a function without arguments";
    QTest::newRow("another column")
            << "CREATE FUNCTION public.test_backlog_source() RETURNS TABLE (n bigint, "
               "oldest_pending_at timestamptz) LANGUAGE sql STABLE AS 'SELECT 1::bigint, now()'"
            << "'billing', 'public.test_backlog_source()', 'things'"
            << "must return (pending bigint, oldest_pending_at timestamptz), not TABLE(n bigint";
    QTest::newRow("an integer count")
            << "CREATE FUNCTION public.test_backlog_source() RETURNS TABLE (pending int, "
               "oldest_pending_at timestamptz) LANGUAGE sql STABLE AS 'SELECT 1, now()'"
            << "'billing', 'public.test_backlog_source()', 'things'"
            << "must return (pending bigint, oldest_pending_at timestamptz)";
    QTest::newRow("a scalar")
            << "CREATE FUNCTION public.test_backlog_source() RETURNS bigint LANGUAGE sql STABLE "
               "AS 'SELECT 1::bigint'"
            << "'billing', 'public.test_backlog_source()', 'things'"
            << "must return (pending bigint, oldest_pending_at timestamptz), not bigint";
    QTest::newRow("volatile") << "CREATE FUNCTION public.test_backlog_source() RETURNS TABLE "
                                 "(pending bigint, oldest_pending_at timestamptz) LANGUAGE sql "
                                 "AS 'SELECT 1::bigint, now()'"
                              << "'billing', 'public.test_backlog_source()', 'things'"
                              << "refused: the backlog source public.test_backlog_source() must "
                                 "be STABLE";
    QTest::newRow("empty what") << good << "'billing', 'public.test_backlog_source()', ' '"
                                << "counts must be 1 to 60 characters";
    QTest::newRow("NULL what") << good << "'billing', 'public.test_backlog_source()', NULL"
                               << "counts must be 1 to 60 characters";
    QTest::newRow("what too long")
            << good << "'billing', 'public.test_backlog_source()', repeat('x', 61)"
            << "counts must be 1 to 60 characters";
    QTest::newRow("empty role") << good << "'', 'public.test_backlog_source()', 'things'"
                                << "needs the role whose backlog the source counts";
    QTest::newRow("no source") << good << "'billing', NULL, 'things'"
                               << "needs an existing source function for billing";
    QTest::newRow("a schema the monitor may not use")
            << "CREATE SCHEMA backlog_private; CREATE FUNCTION "
               "backlog_private.test_backlog_source() "
               "RETURNS TABLE (pending bigint, oldest_pending_at timestamptz) LANGUAGE sql STABLE "
               "AS 'SELECT 1::bigint, now()'"
            << "'billing', 'backlog_private.test_backlog_source()', 'things'"
            << "hardcount_monitor may not use the schema backlog_private";
}

void TestBacklog::registerRefusesAndWritesNothing()
{
    QFETCH(QString, source);
    QFETCH(QString, call);
    QFETCH(QString, message);
    m_owner->execScript("source", source.toStdString(), Short);
    const QString before = registry();
    try {
        m_owner->exec("register",
                      "SELECT leader_ext.leader_backlog_register(" + call.toStdString() + ")", {},
                      Short);
        QFAIL("registered");
    } catch (const leader::pg::Error &error) {
        // What reading would refuse (0190: a VOLATILE source, among others) is refused as reading
        // refuses it, as a privilege; the rest as a wrong argument.
        QCOMPARE(qs(error.sqlstate()), message.startsWith(QLatin1String("refused: "))
                                               ? QStringLiteral("42501")
                                               : QStringLiteral("22023"));
        QVERIFY2(qs(error.what()).contains(message), error.what());
    }
    QCOMPARE(registry(), before);
    // Nor granted to the readers.
    const leader::pg::Result granted = m_owner->exec(
            "granted",
            "SELECT coalesce(bool_or(p.proacl::text LIKE '%hardcount_%'), false)::text "
            "FROM pg_proc AS p WHERE p.proname = 'test_backlog_source'",
            {}, Short);
    QCOMPARE(qs(granted.text(0, 0)), QStringLiteral("false"));
}

void TestBacklog::monitorReadsAndWritesNothing_data()
{
    QTest::addColumn<int>("login"); // a Login
    QTest::addColumn<QString>("statement");
    for (const Login login : {Login::Monitor, Login::App}) {
        const char *who = login == Login::Monitor ? "monitor" : "app";
        QTest::addRow("%s registers", who)
                << int(login)
                << "SELECT leader_ext.leader_backlog_register('billing', "
                   "'public.demo_dunning_backlog()', 'due runs')";
        QTest::addRow("%s unregisters", who)
                << int(login) << "SELECT leader_ext.leader_backlog_unregister('billing')";
        QTest::addRow("%s inserts", who)
                << int(login)
                << "INSERT INTO leader_ext.leader_backlog_sources (role, source, what) "
                   "VALUES ('x', 'public.demo_dunning_backlog()', 'due runs')";
        QTest::addRow("%s updates", who)
                << int(login) << "UPDATE leader_ext.leader_backlog_sources SET what = 'x'";
        QTest::addRow("%s deletes", who)
                << int(login) << "DELETE FROM leader_ext.leader_backlog_sources";
    }
    // The sources read the domain's tables as their owner; the monitor may not.
    QTest::newRow("monitor reads the tables")
            << int(Login::Monitor) << "SELECT count(*) FROM subscriptions";
}

void TestBacklog::monitorReadsAndWritesNothing()
{
    QFETCH(int, login);
    QFETCH(QString, statement);
    const QString before = registry();
    Connection connection = m_db->connect(static_cast<Login>(login));
    // It reads: the registry and every source, through leader_backlog.
    QCOMPARE(leader::monitor::readBacklog(connection, Short).size(), std::size_t(5));
    QCOMPARE(connection
                     .exec("registry", "SELECT count(*) FROM leader_ext.leader_backlog_sources", {},
                           Short)
                     .toInt64(0, 0),
             5);
    try {
        connection.exec("write", statement.toStdString(), {}, Short);
        QFAIL("allowed");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(qs(error.sqlstate()), QStringLiteral("42501"));
    }
    QCOMPARE(registry(), before);
}

void TestBacklog::statusReaderReadsTheBacklog()
{
    m_owner->execScript("workload", WorkloadSql, Short);
    StatusReader reader(m_db->url(Login::Monitor), m_stop.get_token(), Short);
    const auto opened = reader.open();
    QVERIFY(std::holds_alternative<leader::monitor::Access>(opened));
    auto polled = reader.poll();
    QVERIFY(std::holds_alternative<StatusRows>(polled));
    {
        const StatusRows &rows = std::get<StatusRows>(polled);
        QCOMPARE(rows.roles.size(), std::size_t(5));
        QVERIFY2(rows.backlogError.empty(), rows.backlogError.c_str());
        QCOMPARE(rows.backlog.size(), std::size_t(5));
        QCOMPARE(qs(rows.backlog.front().role), QStringLiteral("billing"));
        QCOMPARE(qint64(rows.backlog.front().pending.value_or(-1)), qint64(3));
    }

    // The backlog statement refused: the status rows still come, the reason in one line.
    m_owner->execScript("revoke",
                        "REVOKE EXECUTE ON FUNCTION leader_ext.leader_backlog() "
                        "FROM hardcount_monitor",
                        Short);
    polled = reader.poll();
    QVERIFY(std::holds_alternative<StatusRows>(polled));
    const StatusRows &rows = std::get<StatusRows>(polled);
    QCOMPARE(rows.roles.size(), std::size_t(5));
    QVERIFY(rows.backlog.empty());
    QVERIFY2(qs(rows.backlogError)
                             .contains(QLatin1String("permission denied for function "
                                                     "leader_backlog"))
                     && qs(rows.backlogError).contains(QLatin1String("42501")),
             rows.backlogError.c_str());
    QVERIFY(!qs(rows.backlogError).contains(u'\n'));
    QVERIFY(!qs(rows.backlogError).contains(qs(m_db->url(Login::Monitor))));
    // The session is still good for the next poll.
    m_owner->execScript(
            "grant", "GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() TO hardcount_monitor",
            Short);
    polled = reader.poll();
    QVERIFY(std::holds_alternative<StatusRows>(polled));
    QCOMPARE(std::get<StatusRows>(polled).backlog.size(), std::size_t(5));
}

QTEST_GUILESS_MAIN(TestBacklog)
#include "tst_backlog.moc"
