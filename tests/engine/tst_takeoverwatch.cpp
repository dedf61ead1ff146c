// TakeoverWatch measures a takeover on the database clock, against a real database (straight and
// through PgBouncer in transaction mode), in a process that reads numbers as a German user's
// console does: QCoreApplication calls setlocale(LC_ALL, ""), and under de_DE.UTF-8 std::stod
// reads the epoch "1796283994.973" as 1796283994. The measured instants and gap must keep their
// milliseconds. With std::stod back in pg::Result::toDouble this fails: every instant loses its
// fraction (checked once).

#include "demo/takeoverwatch.h"
#include "germannumbers.h"
#include "lease/constants.h"
#include "lease/manager.h"
#include "lease/statements.h"
#include "scheduler/rolerunner.h"
#include "testdatabase.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>

using namespace std::chrono_literals;
using leader::demo::Takeover;
using leader::demo::TakeoverWatch;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr const char *Victim = "victim:1:0000000a";
constexpr const char *Successor = "successor:2:0000000b";

// An instant or interval of billing's row in epoch milliseconds, rounded by the server and read as
// an integer, so the expected value does not go through the double parsing under test. $1 is the
// victim's last expiry.
qint64 milliseconds(Connection &connection, const std::string &sql, const std::string &lastExpiry)
{
    const leader::pg::Result result
            = connection.exec("expected",
                              "SELECT round(" + sql
                                      + " * 1000)::bigint, $1::timestamptz FROM leader_leases "
                                        "WHERE role = 'billing'",
                              {lastExpiry}, 5s);
    return result.toInt64(0, 0);
}

qint64 epochMilliseconds(Takeover::Time time)
{
    return std::chrono::round<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

} // namespace

class TestTakeoverWatch final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void takeoverKeepsItsMillisecondsUnderAGermanLocale();

private:
    std::unique_ptr<TestDatabase> m_db;
};

void TestTakeoverWatch::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("takeoverwatch");
    m_db->migrateLease();
    m_db->resetLeases();
}

void TestTakeoverWatch::takeoverKeepsItsMillisecondsUnderAGermanLocale()
{
    LEADER_GERMAN_NUMBERS(german); // before any thread starts

    // The victim leads billing, renews once and then goes silent, as a killed replica does.
    Connection app = m_db->connect(Login::App);
    const auto acquired = leader::lease::acquire(app, "billing", Victim, 0ms);
    QVERIFY(acquired);
    QVERIFY(leader::lease::renew(app, "billing", acquired->token, Victim));
    const std::string lastExpiry = std::string(
            app.exec("victim's expiry",
                     "SELECT expires_at::text FROM leader_leases WHERE role = 'billing'", {}, 5s)
                    .text(0, 0));

    std::mutex mutex;
    std::optional<Takeover> measured;
    QStringList missed;
    TakeoverWatch::Options options;
    options.database = {.url = m_db->url(Login::App)};
    options.fault = "kill victim";
    options.victim = "victim";
    options.victimHolder = Victim;
    options.deadline = 25s; // a missed takeover is reported inside the wait below
    TakeoverWatch::Callbacks callbacks;
    callbacks.measured = [&](const Takeover &takeover) {
        const std::lock_guard lock(mutex);
        measured = takeover;
    };
    callbacks.missed = [&](const std::string &, const std::string &message) {
        const std::lock_guard lock(mutex);
        missed.append(QString::fromStdString(message));
    };
    TakeoverWatch watch(options, std::move(callbacks));

    const std::string clock = "extract(epoch FROM clock_timestamp())";
    const qint64 beforeArm = milliseconds(app, clock, lastExpiry);
    QCOMPARE(watch.arm(), std::vector<std::string>{"billing"});
    const qint64 afterArm = milliseconds(app, clock, lastExpiry);
    watch.start();

    // The successor takes the role over at expiry and holds it while the watch looks.
    leader::lease::Manager manager(
            {.database = {.url = m_db->url(Login::App)}, .holderId = Successor});
    leader::scheduler::RoleRunner runner(manager,
                                         {"billing", 1h, [](leader::lease::TickContext &context) {
                                              context.sleepFor(60s);
                                          }});
    // The tick sleeps until the manager shuts down, which has to come before the runner's join.
    const auto stopSuccessor = qScopeGuard([&] {
        manager.shutdown();
        runner.stop();
    });
    runner.start();
    const auto ended = [&] {
        const std::lock_guard lock(mutex);
        return measured.has_value() || !missed.isEmpty();
    };
    QTRY_VERIFY_WITH_TIMEOUT(ended(), 30000);
    Takeover failover;
    {
        const std::lock_guard lock(mutex);
        QVERIFY2(missed.isEmpty(), qPrintable(missed.join(u'\n')));
        failover = *measured;
    }

    // The database's own arithmetic on the same rows, while the successor still holds.
    const std::string ttl = std::to_string(leader::lease::LeaseTTL.count()) + " ms";
    const qint64 expectedAcquired
            = milliseconds(app, "extract(epoch FROM acquired_at)", lastExpiry);
    const qint64 expectedHeartbeat = milliseconds(
            app, "extract(epoch FROM $1::timestamptz - interval '" + ttl + "')", lastExpiry);
    const qint64 expectedGap = milliseconds(
            app, "extract(epoch FROM acquired_at - ($1::timestamptz - interval '" + ttl + "'))",
            lastExpiry);

    QCOMPARE(failover.successorHolder, std::string(Successor));
    QVERIFY(failover.successorToken > acquired->token);
    QVERIFY(!failover.releasedAt);
    QVERIFY(failover.lastHeartbeatAt);
    const qint64 acquiredAt = epochMilliseconds(failover.acquiredAt);
    const qint64 lastHeartbeatAt = epochMilliseconds(*failover.lastHeartbeatAt);
    QVERIFY2(std::abs(acquiredAt - expectedAcquired) <= 1,
             qPrintable(QString::number(acquiredAt - expectedAcquired)));
    QVERIFY2(std::abs(lastHeartbeatAt - expectedHeartbeat) <= 1,
             qPrintable(QString::number(lastHeartbeatAt - expectedHeartbeat)));
    QVERIFY2(std::llabs(std::llround(failover.gapSeconds * 1000) - expectedGap) <= 1,
             qPrintable(QStringLiteral("gap %1 s, expected %2 ms")
                                .arg(QString::number(failover.gapSeconds, 'f', 6))
                                .arg(expectedGap)));
    // The fault instant is the database clock read by arm(), between the two reads around it.
    const qint64 faultAt = epochMilliseconds(failover.faultAt);
    QVERIFY2(faultAt >= beforeArm && faultAt <= afterArm,
             qPrintable(QStringLiteral("%1 not in [%2, %3]")
                                .arg(faultAt)
                                .arg(beforeArm)
                                .arg(afterArm)));
    // Taken over at expiry, never before it.
    QVERIFY2(failover.gapSeconds >= std::chrono::duration<double>(leader::lease::LeaseTTL).count(),
             qPrintable(QString::number(failover.gapSeconds, 'f', 3)));
}

QTEST_GUILESS_MAIN(TestTakeoverWatch)
#include "tst_takeoverwatch.moc"
