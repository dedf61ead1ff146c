// leader::metrics::LeaseMetrics against a real leader_status, straight to Postgres and through
// PgBouncer in transaction mode: a monitor-only login scrapes the table-derived series, the
// panicked counter exists at 0 from the start (ADR-114 amendment 2026-10-19, item 6), and a read
// that fails marks every role "error" instead of throwing or exporting a stale age. The backlog
// series (extension 0186) come from sources this test registers over a table of its own; a source
// or a backlog read that fails takes only the backlog series down.

#include "lease/roles.h"
#include "log/log.h"
#include "metrics/leasemetrics.h"
#include "metrics/registry.h"
#include "pg/connection.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

using namespace std::chrono_literals;
using leader::lease::LossReason;
using leader::lease::Roles;
using leader::metrics::LeaseMetrics;
using leader::metrics::Registry;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The value of the sample line "<series> <value>"; a null string when the exposition lacks it.
QString sample(const std::string &exposition, const QString &series)
{
    const QStringList lines = qs(exposition).split(u'\n');
    for (const QString &line : lines) {
        if (line.startsWith(series + u' '))
            return line.mid(series.size() + 1);
    }
    return {};
}

QString roleSeries(std::string_view name, std::string_view role)
{
    return qs(name) + "{role=\"" + qs(role) + "\"}";
}

QString stateSeries(std::string_view role, std::string_view state)
{
    return "hardcount_leader_last_tick_state{role=\"" + qs(role) + "\",state=\"" + qs(state)
           + "\"}";
}

// Whether `current` is the one of the role's three state series at 1 (the others at 0); says
// which is not, when one is not.
bool hasState(const std::string &exposition, std::string_view role, std::string_view current)
{
    for (const std::string_view state : {"ok", "never_ran", "error"}) {
        const QString expected = state == current ? "1" : "0";
        if (sample(exposition, stateSeries(role, state)) != expected) {
            qWarning().noquote() << "role" << qs(role) << "state" << qs(state) << "is not"
                                 << expected << "in:\n"
                                 << qs(exposition);
            return false;
        }
    }
    return true;
}

QString pendingSeries(std::string_view role, std::string_view what)
{
    return "hardcount_leader_backlog_pending{role=\"" + qs(role) + "\",what=\"" + qs(what) + "\"}";
}

// The sources' fixture: one row per role says what its source returns, or that it raises, or how
// long it takes. Each source is a function of its own, as a deployment's would be.
constexpr std::string_view FixtureSql = R"sql(
CREATE TABLE backlog_fixture (
    role text PRIMARY KEY,
    pending bigint NOT NULL DEFAULT 0,
    oldest_pending_at timestamptz,
    fails boolean NOT NULL DEFAULT false,
    sleep_seconds double precision NOT NULL DEFAULT 0
);
CREATE FUNCTION backlog_fixture_read(p_role text)
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT
AS $fn$
DECLARE
    v_row backlog_fixture;
BEGIN
    SELECT * INTO STRICT v_row FROM backlog_fixture AS f WHERE f.role = p_role;
    IF v_row.fails THEN
        RAISE EXCEPTION 'the % backlog is out of order', p_role;
    END IF;
    PERFORM pg_sleep(v_row.sleep_seconds);
    RETURN QUERY SELECT v_row.pending, v_row.oldest_pending_at;
END
$fn$;
-- leader_backlog() runs them under its own search_path: they carry their creator's.
CREATE FUNCTION billing_backlog() RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SET search_path FROM CURRENT
AS $fn$ SELECT * FROM backlog_fixture_read('billing') $fn$;
CREATE FUNCTION dunning_backlog() RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SET search_path FROM CURRENT
AS $fn$ SELECT * FROM backlog_fixture_read('dunning') $fn$;
)sql";

} // namespace

class TestLeaseMetrics final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void panickedStartsAtZeroForEveryRole();
    void runnerReportsReachTheExposition();
    void freshSchemaIsNeverRanWithoutAge();
    void completedTickExportsItsAge();
    void pausedRoleIsExported();
    void unreadableStatusIsError_data();
    void unreadableStatusIsError();
    void readFailureIsLoggedOnceAndRecovers();
    void backlogIsExportedPerRegisteredRole_data();
    void backlogIsExportedPerRegisteredRole();
    void failingSourceTakesOnlyItsRoleDown();
    void backlogReadFailureKeepsTheStatus_data();
    void backlogReadFailureKeepsTheStatus();
    void noBacklogWithoutTheExtension();

private:
    std::vector<leader::log::Record> metricsLog();
    void registerSource(std::string_view role, std::string_view what);
    void setFixture(std::string_view role, std::string_view assignments);

    std::unique_ptr<TestDatabase> m_db;
    std::mutex m_logMutex;
    std::vector<leader::log::Record> m_log;
};

void TestLeaseMetrics::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("leasemetrics");
    m_db->migrateLease();
    m_db->connectDirect(Login::Owner).execScript("backlog fixture", FixtureSql, 10s);
    leader::log::setSink([this](const leader::log::Record &record) {
        const std::lock_guard lock(m_logMutex);
        m_log.push_back(record);
    });
}

void TestLeaseMetrics::init()
{
    Connection owner = m_db->connect(Login::Owner);
    owner.exec("reset roles",
               "UPDATE leader_leases SET last_tick_ended_at = NULL, last_tick_holder = NULL, "
               "paused_at = NULL, paused_by = NULL, pause_reason = NULL, not_before = NULL",
               {}, 5s);
    owner.exec("unregister backlog sources",
               "SELECT leader_ext.leader_backlog_unregister(role) "
               "FROM leader_ext.leader_backlog_sources",
               {}, 5s);
    owner.exec("reset backlog fixture", "TRUNCATE backlog_fixture", {}, 5s);
    const std::lock_guard lock(m_logMutex);
    m_log.clear();
}

void TestLeaseMetrics::registerSource(std::string_view role, std::string_view what)
{
    Connection owner = m_db->connect(Login::Owner);
    owner.exec("fixture row",
               "INSERT INTO backlog_fixture (role) VALUES ($1) ON CONFLICT (role) DO NOTHING",
               {role}, 5s);
    owner.exec("register",
               "SELECT leader_ext.leader_backlog_register($1, ($1::text || "
               "'_backlog()')::regprocedure, "
               "$2)",
               {role, what}, 5s);
}

void TestLeaseMetrics::setFixture(std::string_view role, std::string_view assignments)
{
    m_db->connect(Login::Owner)
            .exec("set fixture",
                  "UPDATE backlog_fixture SET " + std::string(assignments) + " WHERE role = $1",
                  {role}, 5s);
}

std::vector<leader::log::Record> TestLeaseMetrics::metricsLog()
{
    const std::lock_guard lock(m_logMutex);
    std::vector<leader::log::Record> records;
    std::copy_if(m_log.begin(), m_log.end(), std::back_inserter(records),
                 [](const leader::log::Record &record) { return record.component == "metrics"; });
    return records;
}

void TestLeaseMetrics::panickedStartsAtZeroForEveryRole()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    const std::string text = registry.exposition();
    for (const std::string_view role : Roles) {
        const QString series = "hardcount_leader_lease_lost_total{reason=\"panicked\",role=\""
                               + qs(role) + "\"}";
        QCOMPARE(sample(text, series), QString("0"));
    }
    QCOMPARE(qs(text).count("hardcount_leader_lease_lost_total{"), qsizetype(Roles.size()));
    // Nothing table-derived exists before the first scrape.
    QVERIFY(!qs(text).contains("hardcount_leader_last_tick"));
    QVERIFY(!qs(text).contains("hardcount_leader_paused"));
}

void TestLeaseMetrics::runnerReportsReachTheExposition()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    metrics.leaseLost("billing", LossReason::Panicked);
    metrics.leaseLost("billing", LossReason::HeartbeatTimeout);
    metrics.tickFinished("billing", 90s);
    metrics.acquireRoundTrip("dunning", 3ms);
    metrics.renewRoundTrip("dunning", 2500ms);
    metrics.renewRoundTrip("dunning", 3s);
    const std::string text = registry.exposition();

    QCOMPARE(
            sample(text, "hardcount_leader_lease_lost_total{reason=\"panicked\",role=\"billing\"}"),
            QString("1"));
    QCOMPARE(sample(text, "hardcount_leader_lease_lost_total{reason=\"heartbeat_timeout\","
                          "role=\"billing\"}"),
             QString("1"));
    QCOMPARE(sample(text, "hardcount_leader_tick_duration_seconds_bucket{role=\"billing\","
                          "le=\"60\"}"),
             QString("0"));
    QCOMPARE(sample(text, "hardcount_leader_tick_duration_seconds_bucket{role=\"billing\","
                          "le=\"120\"}"),
             QString("1"));
    QCOMPARE(sample(text, "hardcount_leader_tick_duration_seconds_sum{role=\"billing\"}"),
             QString("90"));
    QCOMPARE(sample(text, "hardcount_leader_acquire_seconds_bucket{role=\"dunning\","
                          "le=\"0.0025\"}"),
             QString("0"));
    QCOMPARE(sample(text, "hardcount_leader_acquire_seconds_bucket{role=\"dunning\",le=\"0.005\"}"),
             QString("1"));
    // A RENEW at its 2 s deadline still lands in a finite bucket; past it, only in +Inf.
    QCOMPARE(sample(text, "hardcount_leader_renew_seconds_bucket{role=\"dunning\",le=\"2.5\"}"),
             QString("1"));
    QCOMPARE(sample(text, "hardcount_leader_renew_seconds_bucket{role=\"dunning\",le=\"+Inf\"}"),
             QString("2"));
    QCOMPARE(sample(text, "hardcount_leader_renew_seconds_count{role=\"dunning\"}"), QString("2"));
}

void TestLeaseMetrics::freshSchemaIsNeverRanWithoutAge()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection monitor = m_db->connect(Login::Monitor);
    metrics.scrapeStatus(monitor);
    const std::string text = registry.exposition();
    for (const std::string_view role : Roles) {
        QVERIFY(hasState(text, role, "never_ran"));
        QCOMPARE(sample(text, roleSeries("hardcount_leader_paused", role)), QString("0"));
    }
    QVERIFY(!qs(text).contains("hardcount_leader_last_tick_age_seconds{"));
    // Still at 0 after a scrape: the panicked series is the registry's, not the table's.
    QCOMPARE(
            sample(text, "hardcount_leader_lease_lost_total{reason=\"panicked\",role=\"billing\"}"),
            QString("0"));
}

void TestLeaseMetrics::completedTickExportsItsAge()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection owner = m_db->connect(Login::Owner);
    Connection monitor = m_db->connect(Login::Monitor);
    owner.exec("age one role",
               "UPDATE leader_leases SET last_tick_ended_at = now() - interval '42 s' "
               "WHERE role = 'webhook_outbox'",
               {}, 5s);
    metrics.scrapeStatus(monitor);
    std::string text = registry.exposition();

    const auto age
            = sample(text, roleSeries("hardcount_leader_last_tick_age_seconds", "webhook_outbox"));
    bool parsed = false;
    const double seconds = age.toDouble(&parsed);
    QVERIFY2(parsed, text.c_str());
    QVERIFY2(seconds >= 42 && seconds < 72, qPrintable(age));
    QVERIFY(hasState(text, "webhook_outbox", "ok"));
    for (const std::string_view role : Roles) {
        if (role == "webhook_outbox")
            continue;
        QVERIFY(hasState(text, role, "never_ran"));
        QVERIFY(sample(text, roleSeries("hardcount_leader_last_tick_age_seconds", role)).isNull());
    }

    // A completion that goes away (the row was recreated) takes the age series with it.
    owner.exec("forget the completion",
               "UPDATE leader_leases SET last_tick_ended_at = NULL WHERE role = 'webhook_outbox'",
               {}, 5s);
    metrics.scrapeStatus(monitor);
    text = registry.exposition();
    QVERIFY(!qs(text).contains("hardcount_leader_last_tick_age_seconds{"));
    QVERIFY(hasState(text, "webhook_outbox", "never_ran"));
}

void TestLeaseMetrics::pausedRoleIsExported()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection owner = m_db->connect(Login::Owner);
    Connection monitor = m_db->connect(Login::Monitor);
    owner.exec("pause", "SELECT leader_pause('dunning', 'op', 'why')", {}, 5s);
    metrics.scrapeStatus(monitor);
    std::string text = registry.exposition();
    for (const std::string_view role : Roles) {
        QCOMPARE(sample(text, roleSeries("hardcount_leader_paused", role)),
                 QString(role == "dunning" ? "1" : "0"));
        QVERIFY(hasState(text, role, "never_ran"));
    }

    owner.exec("unpause", "SELECT leader_unpause('dunning')", {}, 5s);
    metrics.scrapeStatus(monitor);
    text = registry.exposition();
    QCOMPARE(sample(text, roleSeries("hardcount_leader_paused", "dunning")), QString("0"));
}

void TestLeaseMetrics::unreadableStatusIsError_data()
{
    QTest::addColumn<bool>("reachable");
    QTest::newRow("login without privileges") << true;
    QTest::newRow("server unreachable") << false;
}

void TestLeaseMetrics::unreadableStatusIsError()
{
    QFETCH(bool, reachable);
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection owner = m_db->connect(Login::Owner);
    owner.exec("age one role",
               "UPDATE leader_leases SET last_tick_ended_at = now() - interval '5 s' "
               "WHERE role = 'billing'",
               {}, 5s);
    Connection monitor = m_db->connect(Login::Monitor);
    metrics.scrapeStatus(monitor);
    QVERIFY(!sample(registry.exposition(),
                    roleSeries("hardcount_leader_last_tick_age_seconds", "billing"))
                     .isNull());

    // Port 1 on loopback: nothing listens there, so the connect is refused at once.
    Connection unreadable = reachable ? m_db->connect(Login::Nobody)
                                      : Connection({.url = "postgresql://nobody@127.0.0.1:1/none",
                                                    .connectTimeout = 2s});
    metrics.scrapeStatus(unreadable);
    const std::string text = registry.exposition();
    for (const std::string_view role : Roles)
        QVERIFY(hasState(text, role, "error"));
    QVERIFY(!qs(text).contains("hardcount_leader_last_tick_age_seconds{"));
    QCOMPARE(
            sample(text, "hardcount_leader_lease_lost_total{reason=\"panicked\",role=\"billing\"}"),
            QString("0"));
}

void TestLeaseMetrics::readFailureIsLoggedOnceAndRecovers()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection nobody = m_db->connect(Login::Nobody);
    Connection monitor = m_db->connect(Login::Monitor);
    metrics.scrapeStatus(nobody);
    metrics.scrapeStatus(nobody);
    std::vector<leader::log::Record> records = metricsLog();
    QCOMPARE(records.size(), std::size_t(1));
    QCOMPARE(records.front().level, leader::log::Level::Warning);
    QVERIFY2(qs(records.front().context).contains("permission denied"),
             records.front().context.c_str());

    metrics.scrapeStatus(monitor);
    metrics.scrapeStatus(monitor);
    records = metricsLog();
    QCOMPARE(records.size(), std::size_t(2));
    QCOMPARE(records.back().level, leader::log::Level::Info);
    const std::string text = registry.exposition();
    for (const std::string_view role : Roles)
        QVERIFY(hasState(text, role, "never_ran"));
}

// Each registered role exports its three series, with the `what` it was registered with; a role
// re-registered with another `what`, or unregistered, leaves no series behind. The direct read and
// the replica's (a transaction under SET LOCAL statement_timeout) alike.
void TestLeaseMetrics::backlogIsExportedPerRegisteredRole_data()
{
    QTest::addColumn<bool>("inTransaction");
    QTest::newRow("autocommit") << false;
    QTest::newRow("transaction with a server timeout") << true;
}

void TestLeaseMetrics::backlogIsExportedPerRegisteredRole()
{
    QFETCH(bool, inTransaction);
    const auto timeout = inTransaction ? std::optional(1000ms) : std::nullopt;
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection monitor = m_db->connect(Login::Monitor);
    registerSource("billing", "due subscriptions");
    registerSource("dunning", "due runs");
    setFixture("billing", "pending = 7, oldest_pending_at = now() - interval '90 s'");
    QVERIFY(metrics.scrapeStatus(monitor, timeout));
    std::string text = registry.exposition();

    QCOMPARE(sample(text, pendingSeries("billing", "due subscriptions")), QString("7"));
    bool parsed = false;
    const double age
            = sample(text, roleSeries("hardcount_leader_backlog_oldest_age_seconds", "billing"))
                      .toDouble(&parsed);
    QVERIFY2(parsed && age >= 90 && age < 120, text.c_str());
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "billing")),
             QString("1"));
    // Nothing waiting: 0 pending, age 0 (not absent).
    QCOMPARE(sample(text, pendingSeries("dunning", "due runs")), QString("0"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_oldest_age_seconds", "dunning")),
             QString("0"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "dunning")),
             QString("1"));
    // One set per registered role, none for the others.
    QCOMPARE(qs(text).count("\nhardcount_leader_backlog_pending{"), qsizetype(2));
    QCOMPARE(qs(text).count("\nhardcount_leader_backlog_source_up{"), qsizetype(2));
    for (const std::string_view role : Roles)
        QVERIFY(hasState(text, role, "never_ran"));

    registerSource("billing", "due invoices");
    m_db->connect(Login::Owner)
            .exec("unregister", "SELECT leader_ext.leader_backlog_unregister('dunning')", {}, 5s);
    QVERIFY(metrics.scrapeStatus(monitor, timeout));
    text = registry.exposition();
    QCOMPARE(sample(text, pendingSeries("billing", "due invoices")), QString("7"));
    QVERIFY(sample(text, pendingSeries("billing", "due subscriptions")).isNull());
    QVERIFY(!qs(text).contains("{role=\"dunning\",what="));
    QVERIFY(sample(text, roleSeries("hardcount_leader_backlog_oldest_age_seconds", "dunning"))
                    .isNull());
    QVERIFY(sample(text, roleSeries("hardcount_leader_backlog_source_up", "dunning")).isNull());
    QCOMPARE(qs(text).count("\nhardcount_leader_backlog_pending{"), qsizetype(1));
}

// A source that raises is its role's source_up 0, without its pending and age; the other role and
// the status series are unaffected, and it is logged once, when it starts failing.
void TestLeaseMetrics::failingSourceTakesOnlyItsRoleDown()
{
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection monitor = m_db->connect(Login::Monitor);
    registerSource("billing", "due subscriptions");
    registerSource("dunning", "due runs");
    setFixture("dunning", "pending = 3, oldest_pending_at = now()");
    QVERIFY(metrics.scrapeStatus(monitor, 1000ms));
    QCOMPARE(sample(registry.exposition(), pendingSeries("billing", "due subscriptions")),
             QString("0"));

    setFixture("billing", "fails = true");
    QVERIFY(metrics.scrapeStatus(monitor, 1000ms));
    QVERIFY(metrics.scrapeStatus(monitor, 1000ms));
    std::string text = registry.exposition();
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "billing")),
             QString("0"));
    QVERIFY(sample(text, pendingSeries("billing", "due subscriptions")).isNull());
    QVERIFY(sample(text, roleSeries("hardcount_leader_backlog_oldest_age_seconds", "billing"))
                    .isNull());
    QCOMPARE(sample(text, pendingSeries("dunning", "due runs")), QString("3"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "dunning")),
             QString("1"));
    for (const std::string_view role : Roles)
        QVERIFY(hasState(text, role, "never_ran"));
    const std::vector<leader::log::Record> records = metricsLog();
    QCOMPARE(records.size(), std::size_t(1));
    QCOMPARE(records.front().level, leader::log::Level::Warning);
    QVERIFY2(qs(records.front().context).contains("role=billing")
                     && qs(records.front().context).contains("out of order"),
             records.front().context.c_str());

    setFixture("billing", "fails = false, pending = 4");
    QVERIFY(metrics.scrapeStatus(monitor, 1000ms));
    text = registry.exposition();
    QCOMPARE(sample(text, pendingSeries("billing", "due subscriptions")), QString("4"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "billing")),
             QString("1"));
}

// leader_backlog() as a whole failing (the server's statement timeout, which a source cannot
// catch; the client's deadline, which closes the session; a missing privilege) after leader_status
// was read: the scrape still succeeds with the status readings, every known role's source_up is 0
// without pending or age, and the next scrape on the same connection reads everything again (the
// aborted transaction was rolled back, or the session reopened).
// Mutation-checked once each, both routes: with the backlog's error rethrown (failing the whole
// scrape), every row failed at the breaking scrape; with the transaction left open after the
// failure (no ROLLBACK), "server timeout" and "privilege" failed at the repaired scrape. (COMMIT
// instead of ROLLBACK passes: the server ends an aborted transaction either way.)
void TestLeaseMetrics::backlogReadFailureKeepsTheStatus_data()
{
    QTest::addColumn<QString>("breakIt");
    QTest::addColumn<QString>("repairIt");
    QTest::addColumn<bool>("inTransaction");
    QTest::newRow("server timeout") << "UPDATE backlog_fixture SET sleep_seconds = 3"
                                    << "UPDATE backlog_fixture SET sleep_seconds = 0" << true;
    QTest::newRow("client deadline") << "UPDATE backlog_fixture SET sleep_seconds = 3"
                                     << "UPDATE backlog_fixture SET sleep_seconds = 0" << false;
    QTest::newRow("privilege")
            << "REVOKE EXECUTE ON FUNCTION leader_ext.leader_backlog() FROM hardcount_monitor"
            << "GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() TO hardcount_monitor" << true;
}

void TestLeaseMetrics::backlogReadFailureKeepsTheStatus()
{
    QFETCH(QString, breakIt);
    QFETCH(QString, repairIt);
    QFETCH(bool, inTransaction);
    const auto timeout = inTransaction ? std::optional(1000ms) : std::nullopt;
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection owner = m_db->connect(Login::Owner);
    owner.exec("age one role",
               "UPDATE leader_leases SET last_tick_ended_at = now() - interval '5 s' "
               "WHERE role = 'billing'",
               {}, 5s);
    owner.exec("pause", "SELECT leader_pause('dunning', 'op', 'why')", {}, 5s);
    Connection monitor = m_db->connect(Login::Monitor);
    registerSource("billing", "due subscriptions");
    setFixture("billing", "pending = 5");
    QVERIFY(metrics.scrapeStatus(monitor, timeout));
    QCOMPARE(sample(registry.exposition(), pendingSeries("billing", "due subscriptions")),
             QString("5"));

    Connection ownerDirect = m_db->connectDirect(Login::Owner);
    ownerDirect.exec("break the backlog", breakIt.toStdString(), {}, 5s);
    auto repair = qScopeGuard([&] { ownerDirect.exec("repair", repairIt.toStdString(), {}, 5s); });
    QVERIFY(metrics.scrapeStatus(monitor, timeout));
    std::string text = registry.exposition();
    QVERIFY(hasState(text, "billing", "ok"));
    QVERIFY(!sample(text, roleSeries("hardcount_leader_last_tick_age_seconds", "billing"))
                     .isNull());
    QCOMPARE(sample(text, roleSeries("hardcount_leader_paused", "dunning")), QString("1"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "billing")),
             QString("0"));
    QVERIFY(sample(text, pendingSeries("billing", "due subscriptions")).isNull());
    QVERIFY(sample(text, roleSeries("hardcount_leader_backlog_oldest_age_seconds", "billing"))
                    .isNull());
    const std::vector<leader::log::Record> records = metricsLog();
    QCOMPARE(records.size(), std::size_t(1));
    QVERIFY2(qs(records.front().message).contains("leader_backlog unreadable"),
             records.front().message.c_str());

    repair.dismiss();
    ownerDirect.exec("repair", repairIt.toStdString(), {}, 5s);
    QVERIFY(metrics.scrapeStatus(monitor, timeout));
    text = registry.exposition();
    QCOMPARE(sample(text, pendingSeries("billing", "due subscriptions")), QString("5"));
    QCOMPARE(sample(text, roleSeries("hardcount_leader_backlog_source_up", "billing")),
             QString("1"));
    QVERIFY(hasState(text, "billing", "ok"));
    owner.exec("unpause", "SELECT leader_unpause('dunning')", {}, 5s);
}

// Without 0186 (its down script run) there is no backlog series at all, and the status series are
// as before. A metrics object that exported them drops them on a new session, which probes again.
void TestLeaseMetrics::noBacklogWithoutTheExtension()
{
    registerSource("billing", "due subscriptions");
    Registry registry;
    LeaseMetrics metrics(registry);
    Connection first = m_db->connect(Login::Monitor);
    QVERIFY(metrics.scrapeStatus(first, 1000ms));
    QCOMPARE(sample(registry.exposition(), pendingSeries("billing", "due subscriptions")),
             QString("0"));

    Connection migrations = m_db->connectDirect(Login::Owner);
    leader::schema::Migrator(migrations).rollbackTo(186);
    auto restore = qScopeGuard([this] { m_db->migrateLease(); });
    Connection monitor({.url = m_db->url(Login::Monitor), .connectTimeout = 5s});
    QVERIFY(!monitor.isOpen());
    QVERIFY(metrics.scrapeStatus(monitor, 1000ms));
    std::string text = registry.exposition();
    QVERIFY2(!qs(text).contains("hardcount_leader_backlog"), text.c_str());

    Registry fresh;
    LeaseMetrics freshMetrics(fresh);
    QVERIFY(freshMetrics.scrapeStatus(monitor, 1000ms));
    text = fresh.exposition();
    QVERIFY2(!qs(text).contains("hardcount_leader_backlog"), text.c_str());
    for (const std::string_view role : Roles)
        QVERIFY(hasState(text, role, "never_ran"));
    QVERIFY(metricsLog().empty());
}

QTEST_GUILESS_MAIN(TestLeaseMetrics)
#include "tst_leasemetrics.moc"
