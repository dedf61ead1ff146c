// The demo workload against a real database: it stops at whichever bound comes first, count or
// time, or when told to from another thread, and creates exactly what it reports.

#include "demo/workload.h"
#include "pg/connection.h"
#include "testdatabase.h"

#include <QtTest>

#include <memory>
#include <stdexcept>
#include <thread>

using namespace std::chrono_literals;
using leader::demo::Workload;
using leader::demo::WorkloadCounts;
using leader::demo::WorkloadEnd;
using leader::demo::WorkloadOptions;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

struct Totals
{
    std::int64_t tenants, subscriptions, declining, events, emails, dueSoon;
};

} // namespace

class TestWorkload final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void boundedByCount();
    void boundedByTime();
    void stopsFromAnotherThread();
    void refusesUnboundedOptions_data();
    void refusesUnboundedOptions();

private:
    Totals totals();
    void verifyCreated(const Totals &before, const WorkloadCounts &counts);

    std::unique_ptr<TestDatabase> m_db;
};

void TestWorkload::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("workload");
    m_db->migrateDemo();
}

Totals TestWorkload::totals()
{
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    // Due soon: a period already elapsed, the watermark within the workload's dueWithin (10 s).
    const leader::pg::Result result = owner.exec("totals", R"sql(
SELECT (SELECT count(*) FROM tenants),
       (SELECT count(*) FROM subscriptions),
       (SELECT count(*) FROM subscriptions WHERE amount_cents % 7 = 0),
       (SELECT count(*) FROM webhook_events),
       (SELECT count(*) FROM email_outbox),
       (SELECT count(*) FROM subscriptions
         WHERE status = 'active' AND period_start <= now() - period_seconds * interval '1 second'
           AND next_billing_at > period_start AND next_billing_at <= now() + interval '11 seconds')
)sql",
                                                 {}, 5s);
    return {result.toInt64(0, 0), result.toInt64(0, 1), result.toInt64(0, 2),
            result.toInt64(0, 3), result.toInt64(0, 4), result.toInt64(0, 5)};
}

void TestWorkload::verifyCreated(const Totals &before, const WorkloadCounts &counts)
{
    const Totals after = totals();
    QCOMPARE(after.tenants - before.tenants, counts.tenants);
    QCOMPARE(after.subscriptions - before.subscriptions, counts.subscriptions);
    QCOMPARE(after.declining - before.declining, counts.declining);
    QCOMPARE(after.events - before.events, counts.webhookEvents);
    QCOMPARE(after.emails - before.emails, counts.emails);
    QCOMPARE(after.dueSoon - before.dueSoon, counts.subscriptions);
    QCOMPARE(counts.subscriptions, counts.tenants);
    QCOMPARE(counts.webhookEvents, counts.tenants);
    QCOMPARE(counts.emails, counts.tenants);
}

void TestWorkload::boundedByCount()
{
    const Totals before = totals();
    leader::pg::Connection app = m_db->connect(Login::App);
    Workload workload(app, {.ratePerSecond = 200, .count = 25, .duration = 60s});
    const auto started = std::chrono::steady_clock::now();
    const WorkloadCounts counts = workload.run();
    const auto took = std::chrono::steady_clock::now() - started;
    QCOMPARE(counts.end, WorkloadEnd::Count);
    QCOMPARE(counts.tenants, 25);
    // One in five (the default) declines: sequence numbers 5, 10, ..., 25.
    QCOMPARE(counts.declining, 5);
    // A steady rate: 25 at 200/s take about 120 ms, not one burst.
    QVERIFY2(took >= 100ms && took < 10s,
             qPrintable(QString::number(std::chrono::duration<double>(took).count())));
    verifyCreated(before, counts);
}

void TestWorkload::boundedByTime()
{
    const Totals before = totals();
    leader::pg::Connection app = m_db->connect(Login::App);
    Workload workload(app, {.ratePerSecond = 20, .count = 1'000'000, .duration = 500ms});
    const auto started = std::chrono::steady_clock::now();
    const WorkloadCounts counts = workload.run();
    const auto took = std::chrono::steady_clock::now() - started;
    QCOMPARE(counts.end, WorkloadEnd::Duration);
    QVERIFY2(took >= 500ms && took < 10s,
             qPrintable(QString::number(std::chrono::duration<double>(took).count())));
    // 1 at once, then 20/s for 0.5 s.
    QVERIFY2(counts.tenants >= 1 && counts.tenants <= 11,
             qPrintable(QString::number(counts.tenants)));
    verifyCreated(before, counts);
}

void TestWorkload::stopsFromAnotherThread()
{
    const Totals before = totals();
    leader::pg::Connection app = m_db->connect(Login::App);
    Workload workload(app, {.ratePerSecond = 2, .count = 1000, .duration = 120s});
    WorkloadCounts counts;
    std::thread runner([&] { counts = workload.run(); });
    QTRY_VERIFY_WITH_TIMEOUT(totals().tenants > before.tenants, 10'000);
    const auto stopped = std::chrono::steady_clock::now();
    workload.stop();
    runner.join();
    QVERIFY(std::chrono::steady_clock::now() - stopped < 5s);
    QCOMPARE(counts.end, WorkloadEnd::Stopped);
    QVERIFY(counts.tenants >= 1 && counts.tenants < 1000);
    verifyCreated(before, counts);
}

void TestWorkload::refusesUnboundedOptions_data()
{
    QTest::addColumn<double>("rate");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<int>("durationMs");
    QTest::newRow("zero rate") << 0.0 << qint64(10) << 1000;
    QTest::newRow("negative count") << 10.0 << qint64(-1) << 1000;
    QTest::newRow("zero duration") << 10.0 << qint64(10) << 0;
}

void TestWorkload::refusesUnboundedOptions()
{
    QFETCH(double, rate);
    QFETCH(qint64, count);
    QFETCH(int, durationMs);
    leader::pg::Connection app = m_db->connect(Login::App);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             Workload(app, {.ratePerSecond = rate,
                                            .count = count,
                                            .duration = std::chrono::milliseconds(durationMs)}));
}

QTEST_GUILESS_MAIN(TestWorkload)
#include "tst_workload.moc"
