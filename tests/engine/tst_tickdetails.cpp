// What each tick did (extension 0184, issue 36 point 3), against a real Postgres and again through
// PgBouncer in transaction mode: Manager::lead records every tick after its RELEASE, whatever its
// outcome, leader_status shows the last one and the hour's counts to the monitor, who may read
// everything and write nothing, and a schema without 0184 still reads.

#include "eventrecorder.h"
#include "lease/manager.h"
#include "monitor/statusreader.h"
#include "pg/error.h"
#include "scheduler/stepguard.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <future>
#include <memory>
#include <stop_token>

using namespace std::chrono_literals;
using leader::lease::EventKind;
using leader::lease::Manager;
using leader::lease::Outcome;
using leader::lease::TickContext;
using leader::monitor::RoleRow;
using leader::monitor::StatusReader;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

struct Replica
{
    explicit Replica(const std::string &url)
        : recorder(events)
        , manager({.database = {.url = url}, .events = &events})
    {
        manager.recordTicks(true);
    }
    leader::lease::EventBus events;
    leader::test::EventRecorder recorder;
    Manager manager;
};

constexpr auto Short = 5s;

} // namespace

class TestTickDetails final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void completedTickIsShownToTheMonitor();
    void lostTickNamesItsReason();
    void failedTickNamesTheStepAndMasksItsError();
    void interruptedTickIsRecorded();
    void hourCountsTheLastSixtyMinutesAndPrunesOlder();
    void staleHolderNeverOverwritesTheRecord_data();
    void staleHolderNeverOverwritesTheRecord();
    void errorTextIsMaskedByTheFunction_data();
    void errorTextIsMaskedByTheFunction();
    void monitorReadsEverythingAndWritesNothing();
    void schemaWithout0184StillReads();

private:
    RoleRow statusOf(const std::string &role, Login login = Login::Monitor);
    QString field(const std::string &sql);
    bool record(const std::string &role, std::int64_t token, const std::string &outcome,
                const std::string &error = {});
    std::int64_t issuedToken(const std::string &role);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
    std::stop_source m_stop;
};

void TestTickDetails::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("tickdetails");
    m_db->migrateLease();
    m_owner = std::make_unique<Connection>(m_db->connectDirect(Login::Owner));
}

void TestTickDetails::init()
{
    m_db->resetLeases();
    for (const char *table : {"leader_tick_last", "leader_tick_counts"})
        m_owner->exec("forget ticks", std::string("DELETE FROM leader_ext.") + table, {}, Short);
}

RoleRow TestTickDetails::statusOf(const std::string &role, Login login)
{
    StatusReader reader(m_db->url(login), m_stop.get_token(), Short);
    const auto opened = reader.open();
    if (!std::holds_alternative<leader::monitor::Access>(opened))
        qFatal("open: %s", std::get<leader::monitor::Failure>(opened).message.c_str());
    const auto polled = reader.poll();
    if (!std::holds_alternative<leader::monitor::StatusRows>(polled))
        qFatal("poll: %s", std::get<leader::monitor::Failure>(polled).message.c_str());
    for (const RoleRow &row : std::get<leader::monitor::StatusRows>(polled).roles)
        if (row.role == role)
            return row;
    qFatal("no row for %s", role.c_str());
}

QString TestTickDetails::field(const std::string &sql)
{
    const leader::pg::Result result = m_owner->exec("field", sql, {}, Short);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

bool TestTickDetails::record(const std::string &role, std::int64_t token,
                             const std::string &outcome, const std::string &error)
{
    return m_db->connect(Login::App)
            .exec("record",
                  "SELECT leader_ext.leader_tick_record($1, $2, 'h', $3, NULL, 1500, "
                  "NULL, $4)",
                  {role, token, outcome, error}, Short)
            .toBool(0, 0);
}

std::int64_t TestTickDetails::issuedToken(const std::string &role)
{
    return field("SELECT holder_token FROM leader_leases WHERE role = '" + role + "'").toLongLong();
}

void TestTickDetails::completedTickIsShownToTheMonitor()
{
    Replica replica(m_db->url(Login::App));
    const auto result = replica.manager.lead("billing", 60s,
                                             [](TickContext &context) { context.sleepFor(300ms); });
    QVERIFY(result.acquired);
    const RoleRow row = statusOf("billing");
    QCOMPARE(row.lastOutcome, std::optional(Outcome::Completed));
    QVERIFY(!row.lastLossReason);
    QVERIFY(row.lastDurationSeconds);
    QVERIFY2(*row.lastDurationSeconds >= 0.3 && *row.lastDurationSeconds < 5,
             qPrintable(QString::number(*row.lastDurationSeconds)));
    QCOMPARE(row.lastHolder, replica.manager.holderId());
    QVERIFY(row.lastEndedAt);
    QVERIFY(row.lastFailedStep.empty());
    QVERIFY(row.lastError.empty());
    QVERIFY(row.lastHour);
    QCOMPARE(row.lastHour->completed, 1);
    QCOMPARE(row.lastHour->lost + row.lastHour->failed + row.lastHour->interrupted, 0);
}

void TestTickDetails::lostTickNamesItsReason()
{
    Replica replica(m_db->url(Login::App));
    auto tick = std::async(std::launch::async, [&] {
        return replica.manager.lead("webhook_outbox", 30s,
                                    [](TickContext &context) { context.sleepFor(60s); });
    });
    QTRY_VERIFY_WITH_TIMEOUT(replica.recorder.count(EventKind::Acquired) == 1, 5000);
    m_owner->exec("pause", "SELECT leader_pause('webhook_outbox', 'test', 'a lost tick')", {},
                  Short);
    QVERIFY(tick.wait_for(10s) == std::future_status::ready);
    QCOMPARE(tick.get().outcome, Outcome::Lost);
    const RoleRow row = statusOf("webhook_outbox");
    QCOMPARE(row.lastOutcome, std::optional(Outcome::Lost));
    QCOMPARE(row.lastLossReason, std::optional(leader::lease::LossReason::Paused));
    QVERIFY(row.lastHour);
    QCOMPARE(row.lastHour->lost, 1);
    QCOMPARE(row.lastHour->completed, 0);
}

void TestTickDetails::failedTickNamesTheStepAndMasksItsError()
{
    Replica replica(m_db->url(Login::App));
    QVERIFY_THROWS_EXCEPTION(
            std::runtime_error, replica.manager.lead("billing", 60s, [](TickContext &) {
                leader::scheduler::StepGuard guard("billing");
                guard.run("reconcile", [] {});
                guard.run("close period", [] {
                    leader::scheduler::StepGuard rows("subscriptions");
                    rows.run("subscription 42", [] {
                        throw std::runtime_error(
                                "charge failed via postgresql://alice:s3cret@db.example/pay "
                                "password=hunter2\nsecond line");
                    });
                    rows.finish();
                });
                guard.finish();
            }));
    const RoleRow row = statusOf("billing");
    QCOMPARE(row.lastOutcome, std::optional(Outcome::Failed));
    QCOMPARE(row.lastFailedStep,
             std::string("billing > close period > subscriptions > subscription 42"));
    QCOMPARE(row.lastError,
             std::string("charge failed via postgresql://alice:***@db.example/pay password=***"));
    QVERIFY(row.lastHour);
    QCOMPARE(row.lastHour->failed, 1);
}

void TestTickDetails::interruptedTickIsRecorded()
{
    Replica replica(m_db->url(Login::App));
    auto tick = std::async(std::launch::async, [&] {
        return replica.manager.lead("dunning", 30s,
                                    [](TickContext &context) { context.sleepFor(60s); });
    });
    QTRY_VERIFY_WITH_TIMEOUT(replica.recorder.count(EventKind::Acquired) == 1, 5000);
    replica.manager.shutdown();
    QVERIFY(tick.wait_for(10s) == std::future_status::ready);
    QCOMPARE(tick.get().outcome, Outcome::Interrupted);
    const RoleRow row = statusOf("dunning");
    QCOMPARE(row.lastOutcome, std::optional(Outcome::Interrupted));
    QVERIFY(row.lastHour);
    QCOMPARE(row.lastHour->interrupted, 1);
}

void TestTickDetails::hourCountsTheLastSixtyMinutesAndPrunesOlder()
{
    // 58 minutes ago is in the hour, 61 is not, on the database clock. Not 59: the hour is read
    // from the minute of the read, and a minute that turns between this INSERT and the read
    // (CI did it at 05:02:59.6) puts a 59-minute row out of it.
    m_owner->exec("old minutes",
                  "INSERT INTO leader_ext.leader_tick_counts (role, minute, completed, lost) "
                  "VALUES ('email_outbox', date_trunc('minute', now()) - interval '58 minutes', "
                  "4, 1), "
                  "('email_outbox', date_trunc('minute', now()) - interval '61 minutes', 50, 50)",
                  {}, Short);
    const std::int64_t token = issuedToken("email_outbox");
    QVERIFY(record("email_outbox", token - 3, "completed"));
    QVERIFY(record("email_outbox", token - 2, "failed"));
    QVERIFY(record("email_outbox", token - 1, "lost"));
    QVERIFY(record("email_outbox", token, "completed"));
    const RoleRow row = statusOf("email_outbox");
    QVERIFY(row.lastHour);
    QCOMPARE(row.lastHour->completed, 6);
    QCOMPARE(row.lastHour->lost, 2);
    QCOMPARE(row.lastHour->failed, 1);
    QCOMPARE(row.lastDurationSeconds, std::optional<double>(1.5));
    // The minute older than the hour went with the first record.
    QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_tick_counts WHERE role = "
                   "'email_outbox' AND minute < date_trunc('minute', now()) - interval '60 "
                   "minutes'"),
             QStringLiteral("0"));
}

void TestTickDetails::staleHolderNeverOverwritesTheRecord_data()
{
    QTest::addColumn<std::int64_t>("behind"); // the late record's token, below the recorded one
    QTest::addColumn<bool>("neverIssued");
    QTest::newRow("older token") << std::int64_t(1) << false;
    QTest::newRow("same token twice") << std::int64_t(0) << false;
    QTest::newRow("token never issued") << std::int64_t(0) << true;
}

void TestTickDetails::staleHolderNeverOverwritesTheRecord()
{
    // Pinned by `OR EXISTS (... t.token >= p_token)` in leader_tick_record: with it deleted, the
    // first two rows fail (the late record overwrites and counts twice; checked once), and by
    // `l.holder_token >= p_token` for the third.
    QFETCH(std::int64_t, behind);
    QFETCH(bool, neverIssued);
    const std::int64_t token = issuedToken("dunning");
    QVERIFY(record("dunning", token, "completed"));
    const std::int64_t late = neverIssued ? token + 1000 : token - behind;
    QVERIFY(!record("dunning", late, "failed", "a stale holder's late report"));
    const RoleRow row = statusOf("dunning");
    QCOMPARE(row.lastOutcome, std::optional(Outcome::Completed));
    QVERIFY(row.lastError.empty());
    QCOMPARE(row.lastHour->completed, 1);
    QCOMPARE(row.lastHour->failed, 0);
}

void TestTickDetails::errorTextIsMaskedByTheFunction_data()
{
    QTest::addColumn<QString>("sent");
    QTest::addColumn<QString>("stored");
    QTest::newRow("URL password") << "connect to postgres://app:pw@10.0.0.1:5432/db failed"
                                  << "connect to postgres://app:***@10.0.0.1:5432/db failed";
    QTest::newRow("https userinfo") << "POST https://hook:t0ps3cret@example.com/x: 500"
                                    << "POST https://hook:***@example.com/x: 500";
    QTest::newRow("keyword forms") << "password='a b' token=abc123, api_key: XYZ secret=\"q\""
                                   << "password=*** token=***, api_key: *** secret=***";
    QTest::newRow("first line only") << "first\r\nsecond password=x"
                                     << "first";
    QTest::newRow("bounded") << QString(400, QLatin1Char('e')) << QString(300, QLatin1Char('e'));
    QTest::newRow("plain text kept") << "no row for subscription 42"
                                     << "no row for subscription 42";
}

void TestTickDetails::errorTextIsMaskedByTheFunction()
{
    // The function masks whatever a caller sends, not only what the engine already masked.
    QFETCH(QString, sent);
    QFETCH(QString, stored);
    QVERIFY(record("billing", issuedToken("billing"), "failed", sent.toStdString()));
    QCOMPARE(QString::fromStdString(statusOf("billing").lastError), stored);
}

void TestTickDetails::monitorReadsEverythingAndWritesNothing()
{
    QVERIFY(record("billing", issuedToken("billing"), "completed"));
    Connection monitor = m_db->connect(Login::Monitor);
    // Every column of the view, and both tables.
    monitor.exec("read", "SELECT * FROM leader_status", {}, Short);
    monitor.exec("read", "SELECT * FROM leader_ext.leader_tick_last", {}, Short);
    monitor.exec("read", "SELECT * FROM leader_ext.leader_tick_counts", {}, Short);
    QCOMPARE(statusOf("billing").lastOutcome, std::optional(Outcome::Completed));
    const std::vector<std::pair<Login, std::string>> writes{
            {Login::Monitor, "SELECT leader_ext.leader_tick_record('billing', 1, 'h', "
                             "'failed', NULL, 1, NULL, NULL)"},
            {Login::Monitor, "UPDATE leader_ext.leader_tick_last SET outcome = 'failed'"},
            {Login::Monitor, "DELETE FROM leader_ext.leader_tick_counts"},
            // The app writes only through the function.
            {Login::App, "UPDATE leader_ext.leader_tick_last SET outcome = 'failed'"},
            {Login::App, "INSERT INTO leader_ext.leader_tick_counts (role, minute, completed) "
                         "VALUES ('billing', now(), 100)"},
    };
    for (const auto &[login, sql] : writes) {
        Connection connection = m_db->connect(login);
        try {
            connection.exec("write", sql, {}, Short);
            QFAIL(qPrintable(QString::fromStdString(leader::test::loginName(login) + ": " + sql)));
        } catch (const leader::pg::Error &error) {
            QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("42501"));
        }
    }
    QCOMPARE(statusOf("billing").lastOutcome, std::optional(Outcome::Completed));
}

void TestTickDetails::schemaWithout0184StillReads()
{
    {
        Connection owner = m_db->connectDirect(Login::Owner);
        const std::vector<int> undone = leader::schema::Migrator(owner).rollbackTo(
                static_cast<int>(leader::schema::Extension::TickDetails));
        QCOMPARE(undone, (std::vector<int>{190, 189, 188, 187, 186, 185, 184}));
    }
    const auto again = qScopeGuard([this] { m_db->migrateLease(); });
    // A replica that believes the schema has it still leads: the failed record is logged only.
    Replica replica(m_db->url(Login::App));
    const auto result = replica.manager.lead("billing", 60s, [](TickContext &) {});
    QVERIFY(result.acquired);
    QCOMPARE(result.outcome, Outcome::Completed);
    QCOMPARE(replica.recorder.last(EventKind::Released)->outcome, Outcome::Completed);
    const RoleRow row = statusOf("billing");
    QCOMPARE(row.state, std::string("free"));
    QVERIFY(!row.lastOutcome);
    QVERIFY(!row.lastDurationSeconds);
    QVERIFY(!row.lastHour);
}

QTEST_GUILESS_MAIN(TestTickDetails)
#include "tst_tickdetails.moc"
