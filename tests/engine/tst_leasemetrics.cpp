// leader::metrics::LeaseMetrics against a real leader_status, straight to Postgres and through
// PgBouncer in transaction mode: a monitor-only login scrapes the table-derived series, the
// panicked counter exists at 0 from the start (ADR-114 amendment 2026-10-19, item 6), and a read
// that fails marks every role "error" instead of throwing or exporting a stale age.

#include "lease/roles.h"
#include "log/log.h"
#include "metrics/leasemetrics.h"
#include "metrics/registry.h"
#include "pg/connection.h"
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

private:
    std::vector<leader::log::Record> metricsLog();

    std::unique_ptr<TestDatabase> m_db;
    std::mutex m_logMutex;
    std::vector<leader::log::Record> m_log;
};

void TestLeaseMetrics::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("leasemetrics");
    m_db->migrateLease();
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
    const std::lock_guard lock(m_logMutex);
    m_log.clear();
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

QTEST_GUILESS_MAIN(TestLeaseMetrics)
#include "tst_leasemetrics.moc"
