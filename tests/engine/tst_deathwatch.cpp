// The contender's death watch (migration 0179): one direct session per live holder, waiting on the
// holder's marker key, against a real Postgres (the watch is always direct; the suite runs again
// through PgBouncer with nothing else changed).

#include "lease/constants.h"
#include "lease/deathwatch.h"
#include "measurement.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <atomic>
#include <mutex>
#include <optional>

using namespace std::chrono_literals;
using leader::lease::DeathWatch;
using leader::lease::HolderSession;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

// What the callback saw.
class Deaths final
{
public:
    void record(const std::set<std::string> &roles)
    {
        const std::lock_guard lock(m_mutex);
        m_roles.push_back(roles);
    }
    int count() const
    {
        const std::lock_guard lock(m_mutex);
        return static_cast<int>(m_roles.size());
    }
    std::set<std::string> last() const
    {
        const std::lock_guard lock(m_mutex);
        return m_roles.empty() ? std::set<std::string>{} : m_roles.back();
    }

private:
    mutable std::mutex m_mutex;
    std::vector<std::set<std::string>> m_roles;
};

} // namespace

class TestDeathWatch final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void wakesTheRolesOfAHolderWhoseSessionEnds();
    void leavesAMarkerOfAnotherIncarnationAlone();
    void stopLeavesNoWaitingBackend();
    void waitOutlastsTheLoginsTimeouts_data();
    void waitOutlastsTheLoginsTimeouts();

private:
    // A marker session holding its key, as a holder's listener does.
    std::int64_t holdMarker(Connection &session);
    QString field(const std::string &sql);
    std::int64_t incarnation()
    {
        return field("SELECT leader_ext.leader_server_incarnation()").toLongLong();
    }
    // Watch sessions of this database waiting for a lock.
    int waiting() { return field(WaitingSql).toInt(); }

    static constexpr const char *WaitingSql
            = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "
              "database = (SELECT oid FROM pg_database WHERE datname = current_database())";

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_inspect;
};

void TestDeathWatch::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("deathwatch");
    m_db->migrateLease();
    m_inspect = std::make_unique<Connection>(m_db->connectDirect(Login::App));
}

std::int64_t TestDeathWatch::holdMarker(Connection &session)
{
    return session
            .exec("marker",
                  "SELECT k, pg_advisory_lock(k) FROM (SELECT (9::bigint << 32) | pg_backend_pid() "
                  "AS k) AS s",
                  {}, 5s)
            .toInt64(0, 0);
}

QString TestDeathWatch::field(const std::string &sql)
{
    const leader::pg::Result result = m_inspect->exec("inspect", sql, {}, 5s);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

// Nothing while the holder lives (its watch is queued behind the marker's lock), then the roles it
// was seen holding, once, EarlyTakeGrace after its session ended: a live holder repairs its row
// within that grace (amendment 2026-12-05). Checked: without the grace in DeathWatch::run the
// wake comes ~50 ms after the close and this fails.
void TestDeathWatch::wakesTheRolesOfAHolderWhoseSessionEnds()
{
    std::optional<Connection> holder(m_db->connectDirect(Login::App));
    const HolderSession marker{holdMarker(*holder), incarnation()};
    Deaths deaths;
    DeathWatch watch({.url = m_db->directUrl(Login::App)},
                     [&deaths](const std::set<std::string> &roles) { deaths.record(roles); });
    watch.watch(marker, "billing");
    watch.watch(marker, "dunning");
    QCOMPARE(watch.watching(), std::size_t(1));
    QTRY_COMPARE_WITH_TIMEOUT(waiting(), 1, 5000);
    QCOMPARE(deaths.count(), 0);

    holder.reset();
    QElapsedTimer sinceDeath;
    sinceDeath.start();
    QTRY_COMPARE_WITH_TIMEOUT(deaths.count(), 1, 3000);
    const qint64 woken = sinceDeath.elapsed();
    leader::test::reportMeasurement(QString::asprintf(
            "death watch: woken %.3f s after the holder's session closed "
            "(grace %lld ms)",
            woken / 1000.0, static_cast<long long>(leader::lease::EarlyTakeGrace.count())));
    QVERIFY2(woken >= leader::lease::EarlyTakeGrace.count(), qPrintable(QString::number(woken)));
    QCOMPARE(deaths.last(), (std::set<std::string>{"billing", "dunning"}));
    QTRY_COMPARE_WITH_TIMEOUT(watch.watching(), std::size_t(0), 2000);
    QCOMPARE(waiting(), 0);
}

// After a restart, a crash restart or a failover the marker's lock is free for nothing: a watch on
// another incarnation's marker ends without waking anyone. Checked: without the incarnation test in
// DeathWatch::run the roles are woken at once and this fails.
void TestDeathWatch::leavesAMarkerOfAnotherIncarnationAlone()
{
    Deaths deaths;
    DeathWatch watch({.url = m_db->directUrl(Login::App)},
                     [&deaths](const std::set<std::string> &roles) { deaths.record(roles); });
    Connection holder = m_db->connectDirect(Login::App);
    const std::int64_t key = holdMarker(holder);
    holder.close();
    watch.watch({key, incarnation() + 1}, "billing");
    QTRY_COMPARE_WITH_TIMEOUT(watch.watching(), std::size_t(0), 3000);
    QCOMPARE(deaths.count(), 0);
}

// A stopped watch closes its waiting session, and the server ends that backend within a second
// (client_connection_check_interval) instead of keeping it until the holder dies.
void TestDeathWatch::stopLeavesNoWaitingBackend()
{
    Connection holder = m_db->connectDirect(Login::App);
    const HolderSession marker{holdMarker(holder), incarnation()};
    Deaths deaths;
    DeathWatch watch({.url = m_db->directUrl(Login::App)},
                     [&deaths](const std::set<std::string> &roles) { deaths.record(roles); });
    watch.watch(marker, "billing");
    QTRY_COMPARE_WITH_TIMEOUT(waiting(), 1, 5000);
    QElapsedTimer stopping;
    stopping.start();
    watch.stop();
    QVERIFY2(stopping.elapsed() < 1000, qPrintable(QString::number(stopping.elapsed())));
    QTRY_COMPARE_WITH_TIMEOUT(waiting(), 0, 3000);
    watch.watch(marker, "billing"); // a stopped watch takes no more
    QCOMPARE(watch.watching(), std::size_t(0));
    QCOMPARE(deaths.count(), 0);
}

void TestDeathWatch::waitOutlastsTheLoginsTimeouts_data()
{
    QTest::addColumn<QString>("setting");
    QTest::addColumn<int>("since"); // server_version_num
    QTest::newRow("statement_timeout") << "statement_timeout" << 0;
    QTest::newRow("transaction_timeout (PostgreSQL 17)") << "transaction_timeout" << 170000;
}

// A DBA's timeout on the app login (here as libpq's startup options, to the same effect) would end
// each 30 s wait early: statement_timeout cancels it, PostgreSQL 17's transaction_timeout ends the
// whole session. Either ended the watch, and the holder's death was seen only at its expiry. The
// watch's own session sets both to 0 (where the server has them); lock_timeout still bounds each
// wait. Checked once: without them in DeathWatch's setup both rows fail (no wait reaches 2 s).
void TestDeathWatch::waitOutlastsTheLoginsTimeouts()
{
    QFETCH(QString, setting);
    QFETCH(int, since);
    if (field("SHOW server_version_num").toInt() < since)
        QSKIP("the server has no such setting");
    std::optional<Connection> holder(m_db->connectDirect(Login::App));
    const HolderSession marker{holdMarker(*holder), incarnation()};
    Deaths deaths;
    DeathWatch watch({.url = m_db->directUrl(Login::App) + "?options=-c%20" + setting.toStdString()
                             + "%3D1s"},
                     [&deaths](const std::set<std::string> &roles) { deaths.record(roles); });
    watch.watch(marker, "billing");
    QTRY_COMPARE_WITH_TIMEOUT(waiting(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(
            field(std::string(WaitingSql)
                  + " AND pid IN (SELECT pid FROM "
                    "pg_stat_activity WHERE query_start < now() - interval '2 s')"),
            QStringLiteral("1"), 5000);
    QCOMPARE(watch.watching(), std::size_t(1));

    holder.reset();
    QTRY_COMPARE_WITH_TIMEOUT(deaths.count(), 1, 3000);
}

QTEST_GUILESS_MAIN(TestDeathWatch)
#include "tst_deathwatch.moc"
