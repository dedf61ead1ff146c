// The fault switchboard (faults/switchboard.h) as the replicas, the console and the drills use it:
// freeze, kill, sever, slow and panic against a real Postgres and again through PgBouncer in
// transaction mode; the step guard's armed panic; and the conninfo rewriting that points a routed
// connection at its link proxy.

#include "eventrecorder.h"
#include "faults/linkproxy.h"
#include "faults/switchboard.h"
#include "germannumbers.h"
#include "lease/constants.h"
#include "lease/manager.h"
#include "leasenames.h"
#include "measurement.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "roles/billing/billingstore.h"
#include "scheduler/rolerunner.h"
#include "scheduler/stepguard.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QtTest>

#include <libpq-fe.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>

using namespace std::chrono_literals;
using leader::faults::Switchboard;
using leader::lease::EventKind;
using leader::lease::LeadResult;
using leader::lease::LossReason;
using leader::lease::Manager;
using leader::lease::Outcome;
using leader::lease::TickContext;
using leader::lease::TransitionEvent;
using leader::pg::Connection;
using leader::scheduler::InjectedPanic;
using leader::scheduler::StepGuard;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

using Recorder = leader::test::EventRecorder;

// What the contender saw in the one tick it led.
struct ContenderTick
{
    std::int64_t token = 0;
    std::string acquiredAt; // the row's acquired_at, as the database prints it
    int claimed = -1;
};

// A second, plain replica's billing runner: it polls until the row is acquirable (the runner sleeps
// until the row's expiry), leads one tick, claims, and with an hour's interval leads no other.
class Contender final
{
public:
    explicit Contender(const std::string &url)
        : m_manager({.database = {.url = url}, .holderId = "contender:2:00000002"})
        , m_runner(m_manager,
                   {"billing", 1h, [this](TickContext &context) {
                        ContenderTick tick;
                        tick.token = leader::lease::fence(&context).token;
                        tick.acquiredAt = context.exec("acquired at",
                                                       "SELECT acquired_at::text FROM "
                                                       "leader_leases WHERE role = $1",
                                                       {"billing"})
                                                  .text(0, 0);
                        tick.claimed = static_cast<int>(
                                leader::roles::billing::getDueBilling(context, 50).size());
                        const std::lock_guard lock(m_mutex);
                        m_tick = tick;
                    }})
    {
        m_runner.start();
    }
    ~Contender()
    {
        m_manager.shutdown();
        m_runner.stop();
    }
    std::optional<ContenderTick> tick() const
    {
        const std::lock_guard lock(m_mutex);
        return m_tick;
    }

private:
    Manager m_manager;
    leader::scheduler::RoleRunner m_runner;
    mutable std::mutex m_mutex;
    std::optional<ContenderTick> m_tick;
};

constexpr const char *DueSubscriptionSql
        = "WITH t AS (INSERT INTO tenants (name) VALUES ('faults') RETURNING id) "
          "INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start, "
          "                           next_billing_at) "
          "SELECT id, 1000, 3600, now() - interval '2 hours', now() - interval '1 hour' FROM t";

double seconds(std::chrono::steady_clock::duration duration)
{
    return std::chrono::duration<double>(duration).count();
}

// The keyword=value pairs libpq reads from a conninfo string or URL, sorted; only what it states.
QStringList conninfoPairs(const std::string &conninfo)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.c_str(), &error);
    QStringList pairs;
    if (!options) {
        pairs << QStringLiteral("unparsable: %1").arg(QString::fromUtf8(error ? error : ""));
        PQfreemem(error);
        return pairs;
    }
    for (PQconninfoOption *option = options; option->keyword; ++option)
        if (option->val && *option->val)
            pairs << QString::fromUtf8(option->keyword) + "=" + QString::fromUtf8(option->val);
    PQconninfoFree(options);
    pairs.sort();
    return pairs;
}

// A one-shot gate for a thread to wait at.
class Gate final
{
public:
    void open()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_open = true;
        }
        m_changed.notify_all();
    }
    void wait()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_open; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_open = false;
};

using BoardAction = std::function<void(Switchboard &)>;

} // namespace

Q_DECLARE_METATYPE(BoardAction)

class TestFaults final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void frozenClaimIsNotSentAfterTheAbandon();
    void killStopsEveryStatementAtOnce();
    void killWithoutALinkStillStopsEveryStatement();
    void describeTellsWhatIsInForce_data();
    void describeTellsWhatIsInForce();
    void describeWritesADecimalPointInAnyLocale();
    void severCutsTheLinkAndHealRestoresIt();
    void linkFaultsNeedATcpConnection_data();
    void linkFaultsNeedATcpConnection();
    void armedPanicFiresOnceInItsStep_data();
    void armedPanicFiresOnceInItsStep();
    void armedPanicIsThisThreadsOnly();
    void throughAddressKeepsTheConnection_data();
    void throughAddressKeepsTheConnection();

private:
    QString field(const std::string &sql);
    std::int64_t count(const std::string &sql) { return field(sql).toLongLong(); }
    std::string appUrl() const { return m_db->url(Login::App); }

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestFaults::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("faults");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestFaults::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

QString TestFaults::field(const std::string &sql)
{
    const leader::pg::Result result = m_owner->exec("inspect", sql, {}, 5s);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

// A holder frozen mid-tick (SIGSTOP, a GC pause) resumes after a contender took the role over: its
// claim, blocked in the fault gate after the tick's own abandon check passed, is judged again after
// the gate and never sent, so the database sees no stale claim at all (a real SIGSTOP between that
// check and the write is the fence's, which tst_stalefence and the failover benchmark's SIGSTOP
// trials pin). Checked: with the start check after the gate removed from Connection::run the
// claim goes out under the stale token and the fence refuses it (a fence_refusals row), and this
// fails; with the gate call removed the claim goes out at once, unfrozen, and this fails too.
void TestFaults::frozenClaimIsNotSentAfterTheAbandon()
{
    m_owner->exec("seed", DueSubscriptionSql, {}, 5s);
    Switchboard board;
    const leader::pg::ConnectOptions routed = board.route({.url = appUrl()});
    QVERIFY(board.hasLink());
    leader::lease::EventBus events;
    Recorder recorder(events);
    Manager holder({.database = routed,
                    .heartbeat = routed,
                    .holderId = "frozen:1:00000001",
                    .events = &events});

    constexpr auto Frozen = 12s; // past the lease's expiry (10 s), so the contender gets in first
    std::int64_t staleToken = 0;
    int fresh = -1;
    bool frozenRefused = false;
    std::chrono::steady_clock::duration frozenFor{};
    auto tick = std::async(std::launch::async, [&] {
        return holder.lead("billing", 0ms, [&](TickContext &context) {
            staleToken = leader::lease::fence(&context).token;
            fresh = static_cast<int>(leader::roles::billing::getDueBilling(context, 50).size());
            // The freeze starts here, so the next claim passes the tick's abandon check and then
            // blocks in the gate: deterministic, whatever the scheduling.
            board.freeze(Frozen);
            const auto before = std::chrono::steady_clock::now();
            try {
                leader::roles::billing::getDueBilling(context, 50);
            } catch (const leader::lease::TickCancelled &) {
                frozenRefused = true;
                frozenFor = std::chrono::steady_clock::now() - before;
                throw;
            }
        });
    });
    // The work freezes the board after its first claim.
    QTRY_VERIFY_WITH_TIMEOUT(QString::fromStdString(board.describe()).startsWith("frozen "), 5000);
    QCOMPARE(recorder.count(EventKind::Acquired), 1);

    Contender contender(appUrl());
    QTRY_VERIFY_WITH_TIMEOUT(contender.tick().has_value(), 15000);
    QVERIFY(tick.wait_for(10s) == std::future_status::ready);
    const LeadResult result = tick.get();
    const ContenderTick taken = *contender.tick();

    QVERIFY(frozenRefused);
    QVERIFY(seconds(frozenFor) >= seconds(Frozen) - 0.5);
    QCOMPARE(fresh, 1);
    QVERIFY2(taken.token > staleToken, qPrintable(QString::number(taken.token)));
    QCOMPARE(taken.claimed, 1); // the contender's claim is fenced by a current token
    // Nothing of the frozen holder reached the database after the takeover: no claim, and so
    // nothing for the fence to refuse.
    const std::string stale = std::to_string(staleToken);
    QCOMPARE(count("SELECT count(*) FROM fence_refusals"), std::int64_t(0));
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE token = " + stale), std::int64_t(1));
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE token = " + stale + " AND claimed_at >= '"
                   + taken.acquiredAt + "'::timestamptz"),
             std::int64_t(0));
    // The frozen holder gave up at its abandon; its RELEASE (not a claim, and token-guarded)
    // changed nothing.
    QVERIFY(result.acquired);
    QCOMPARE(result.outcome, Outcome::Lost);
    QCOMPARE(result.lossReason, LossReason::HeartbeatTimeout);
    QCOMPARE(recorder.count(EventKind::Lost), 1);
    QVERIFY(recorder.last(EventKind::Released).has_value());
    QCOMPARE(recorder.last(EventKind::Released)->detail, std::string("the row was no longer ours"));
    QCOMPARE(board.describe(), std::string("normal"));
}

// A kill is a process death: from that instant nothing more of the replica reaches the database,
// at once rather than at a deadline, and the lease ends only at its expiry. The bytes are counted
// by a second proxy between the switchboard's link and the server. Checked: with the m_killed
// check removed from Switchboard::gate, each statement waits on the severed link for its deadline
// and the "at once" bound fails.
void TestFaults::killStopsEveryStatementAtOnce()
{
    leader::faults::LinkProxy server("127.0.0.1", m_db->targetPort());
    const std::string url = m_db->urlOnPort(Login::App, server.start());
    Switchboard board;
    const leader::pg::ConnectOptions routed = board.route({.url = url});
    leader::lease::EventBus events;
    Recorder recorder(events);
    Manager holder({.database = routed,
                    .heartbeat = routed,
                    .holderId = "killed:1:00000001",
                    .events = &events});
    Connection opened(routed);
    opened.open();

    Gate resume;
    std::future<LeadResult> tick;
    // After the future, so that a failing check that returns early opens the gate before the
    // future's destructor waits for the work.
    const auto openOnReturn = qScopeGuard([&resume] { resume.open(); });
    std::optional<leader::pg::Error> workError;
    tick = std::async(std::launch::async, [&] {
        return holder.lead("billing", 0ms, [&](TickContext &context) {
            resume.wait();
            try {
                context.exec("after kill", "SELECT 1", {});
            } catch (const leader::pg::Error &error) {
                workError = error;
            }
        });
    });
    QTRY_VERIFY_WITH_TIMEOUT(recorder.count(EventKind::Acquired) == 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(field("SELECT holder_id FROM leader_leases WHERE role = 'billing'"),
                              QStringLiteral("killed:1:00000001"), 5000);

    board.kill();
    QElapsedTimer sinceKill;
    sinceKill.start();
    const std::uint64_t bytesAtKill = server.counters().bytesToUpstream;
    const QString expiresAtKill
            = field("SELECT expires_at::text FROM leader_leases WHERE role = 'billing'");
    QCOMPARE(board.describe(), std::string("killed"));

    // An open connection and a new one alike: the gate throws before a byte is written.
    for (Connection *connection : {&opened, static_cast<Connection *>(nullptr)}) {
        std::optional<Connection> fresh;
        if (!connection)
            connection = &fresh.emplace(routed);
        QElapsedTimer took;
        took.start();
        try {
            connection->exec("after kill",
                             "INSERT INTO claim_log (role, token, item) VALUES ('billing', 0, "
                             "'after kill')",
                             {}, 2s);
            QFAIL("a statement went out after the kill");
        } catch (const leader::pg::Error &error) {
            QVERIFY2(error.notStarted(), error.what());
            QVERIFY2(took.elapsed() < 100, qPrintable(QString::number(took.elapsed())));
        }
    }
    // The heartbeat's RENEW fails the same way: a missed beat, never sent.
    QTRY_VERIFY_WITH_TIMEOUT(recorder.count(EventKind::LateBeat) >= 1,
                             int(leader::lease::HeartbeatEvery.count()) + 2000);
    QVERIFY(recorder.last(EventKind::LateBeat)->detail.find("killed") != std::string::npos);
    resume.open();
    QVERIFY(tick.wait_for(5s) == std::future_status::ready);
    const LeadResult result = tick.get();
    QVERIFY(result.acquired);
    QVERIFY(workError.has_value());
    QVERIFY(workError->notStarted());
    // RELEASE never ran: the row keeps its holder and the expiry it had at the kill.
    QCOMPARE(recorder.count(EventKind::ReleaseFailed), 1);
    QCOMPARE(recorder.count(EventKind::Released), 0);
    QCOMPARE(field("SELECT holder_id || ' ' || expires_at::text FROM leader_leases "
                   "WHERE role = 'billing'"),
             "killed:1:00000001 " + expiresAtKill);
    QCOMPARE(count("SELECT count(*) FROM claim_log WHERE item = 'after kill'"), std::int64_t(0));
    QCOMPARE(server.counters().bytesToUpstream, bytesAtKill);

    // Another replica gets the role at its expiry and not before.
    Contender contender(appUrl());
    QTRY_VERIFY_WITH_TIMEOUT(contender.tick().has_value(),
                             int(leader::lease::LeaseTTL.count()) + 3000);
    const ContenderTick taken = *contender.tick();
    QCOMPARE(field("SELECT '" + taken.acquiredAt + "'::timestamptz >= '"
                   + expiresAtKill.toStdString() + "'::timestamptz"),
             QStringLiteral("t"));
    QVERIFY(taken.token > result.token);
    leader::test::reportMeasurement(
            QString::asprintf("switchboard kill: role acquired elsewhere %.3f s after the kill",
                              sinceKill.elapsed() / 1000.0));
    QCOMPARE(server.counters().bytesToUpstream, bytesAtKill);
    server.stop();
}

// Without a link (a Unix-domain socket) the gate alone carries freeze and kill. Checked: with the
// m_killed check removed from Switchboard::gate, the statement after the kill runs and this fails.
void TestFaults::killWithoutALinkStillStopsEveryStatement()
{
    const char *adminUrl = std::getenv("LEADER_TEST_ADMIN_URL");
    QVERIFY(adminUrl);
    QVERIFY(leader::pg::endpointOf(adminUrl).unixSocket);
    Switchboard board;
    const leader::pg::ConnectOptions routed = board.route({.url = adminUrl});
    QVERIFY(!board.hasLink());
    QCOMPARE(routed.url, std::string(adminUrl)); // not rewritten
    Connection connection(routed);
    QCOMPARE(connection.exec("probe", "SELECT 1", {}, 2s).text(0, 0), std::string_view("1"));

    board.freeze(300ms);
    QElapsedTimer took;
    took.start();
    connection.exec("probe", "SELECT 1", {}, 2s);
    QVERIFY2(took.elapsed() >= 250, qPrintable(QString::number(took.elapsed())));

    board.kill();
    took.restart();
    QVERIFY_THROWS_EXCEPTION(leader::pg::Error, connection.exec("probe", "SELECT 1", {}, 2s));
    QVERIFY(took.elapsed() < 100);
    QCOMPARE(board.describe(), std::string("killed"));
}

void TestFaults::describeTellsWhatIsInForce_data()
{
    QTest::addColumn<BoardAction>("action");
    QTest::addColumn<QString>("expected"); // a regular expression for the whole line

    QTest::newRow("nothing") << BoardAction([](Switchboard &) {}) << "normal";
    QTest::newRow("sever") << BoardAction([](Switchboard &board) { board.sever(60s); })
                           << "severed";
    QTest::newRow("slow") << BoardAction([](Switchboard &board) { board.slow(250ms); })
                          << "slow 250 ms";
    QTest::newRow("sever and slow") << BoardAction([](Switchboard &board) {
        board.slow(40ms);
        board.sever(60s);
    }) << "severed, slow 40 ms";
    QTest::newRow("freeze") << BoardAction([](Switchboard &board) { board.freeze(30s); })
                            << R"(frozen (29\.[5-9]|30\.0) s)";
    QTest::newRow("freeze and sever") << BoardAction([](Switchboard &board) {
        board.freeze(30s);
        board.sever(60s);
    }) << R"(frozen (29\.[5-9]|30\.0) s, severed)";
    QTest::newRow("a freeze that ended")
            << BoardAction([](Switchboard &board) { board.freeze(0ms); }) << "normal";
    QTest::newRow("panic armed") << BoardAction([](Switchboard &board) {
        board.armPanic("billing", "GetDueBilling");
    }) << "panic armed: billing GetDueBilling";
    QTest::newRow("panic armed for the first step")
            << BoardAction([](Switchboard &board) { board.armPanic("dunning", ""); })
            << "panic armed: dunning";
    QTest::newRow("panic taken") << BoardAction([](Switchboard &board) {
        board.armPanic("billing", "GetDueBilling");
        if (board.takePanic("billing") != std::optional<std::string>("GetDueBilling"))
            throw std::runtime_error("takePanic did not return the armed step");
    }) << "normal";
    QTest::newRow("heal ends sever, slow and freeze") << BoardAction([](Switchboard &board) {
        board.sever(60s);
        board.slow(250ms);
        board.freeze(30s);
        board.heal();
    }) << "normal";
    QTest::newRow("heal keeps a panic") << BoardAction([](Switchboard &board) {
        board.armPanic("email_outbox", "claim");
        board.sever(60s);
        board.heal();
    }) << "panic armed: email_outbox claim";
    QTest::newRow("kill") << BoardAction([](Switchboard &board) { board.kill(); }) << "killed";
    QTest::newRow("heal keeps a kill") << BoardAction([](Switchboard &board) {
        board.kill();
        board.heal();
    }) << "killed";
}

void TestFaults::describeTellsWhatIsInForce()
{
    QFETCH(BoardAction, action);
    QFETCH(QString, expected);
    Switchboard board;
    board.route({.url = appUrl()});
    QVERIFY(board.hasLink());
    action(board);
    const QString described = QString::fromStdString(board.describe());
    QVERIFY2(QRegularExpression("^(" + expected + ")$").match(described).hasMatch(),
             qPrintable(described));
    QCOMPARE(board.condition().faulted, expected != QLatin1String("normal"));
}

void TestFaults::describeWritesADecimalPointInAnyLocale()
{
    // The console shows describe() from a process that follows the user's LC_NUMERIC: printf's
    // "%.1f" wrote "frozen 29,9 s" there under de_DE.UTF-8 (checked once).
    LEADER_GERMAN_NUMBERS(german);
    Switchboard board;
    board.freeze(30s);
    const QString described = QString::fromStdString(board.describe());
    QVERIFY2(QRegularExpression(R"(^frozen (29\.[5-9]|30\.0) s$)").match(described).hasMatch(),
             qPrintable(described));
}

// The link faults act on the routed connections themselves, not only on describe().
void TestFaults::severCutsTheLinkAndHealRestoresIt()
{
    Switchboard board;
    Connection connection(board.route({.url = appUrl()}));
    QCOMPARE(connection.exec("probe", "SELECT 1", {}, 2s).text(0, 0), std::string_view("1"));

    board.sever(60s);
    try {
        connection.exec("probe", "SELECT 1", {}, 300ms);
        QFAIL("a statement crossed a severed link");
    } catch (const leader::pg::Error &error) {
        QVERIFY2(error.isTransport() && error.deadlineExceeded(), error.what());
    }
    board.heal();
    QCOMPARE(connection.exec("probe", "SELECT 1", {}, 2s).text(0, 0), std::string_view("1"));

    board.slow(150ms);
    QElapsedTimer took;
    took.start();
    connection.exec("probe", "SELECT 1", {}, 5s);
    QVERIFY2(took.elapsed() >= 300, qPrintable(QString::number(took.elapsed()))); // both ways
    board.heal();
    took.restart();
    connection.exec("probe", "SELECT 1", {}, 5s);
    QVERIFY2(took.elapsed() < 150, qPrintable(QString::number(took.elapsed())));
}

void TestFaults::linkFaultsNeedATcpConnection_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("key=value host=/tmp") << "host=/tmp port=5999 dbname=hardcount user=app";
    QTest::newRow("URL with ?host=") << "postgresql://app@/hardcount?host=/var/run/postgresql";
    QTest::newRow("URL with an encoded socket directory") << "postgresql://app@%2Ftmp:5999/x";
    QTest::newRow("abstract socket") << "host=@leader-test dbname=x";
}

void TestFaults::linkFaultsNeedATcpConnection()
{
    QFETCH(QString, url);
    Switchboard board;
    const leader::pg::ConnectOptions routed = board.route({.url = url.toStdString()});
    QCOMPARE(QString::fromStdString(routed.url), url); // left unproxied
    QVERIFY(routed.gate);                              // but gated
    QVERIFY(!board.hasLink());
    for (const auto &fault : std::vector<std::function<void()>>{[&] { board.sever(1s); },
                                                                [&] {
                                                                    board.slow(100ms);
                                                                }}) {
        try {
            fault();
            QFAIL("a link fault was accepted without a link");
        } catch (const std::logic_error &error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains("Unix-domain socket") && message.contains("TCP"),
                     qPrintable(message));
        }
    }
    board.heal(); // nothing to heal: no throw
    QCOMPARE(board.describe(), std::string("normal"));
}

void TestFaults::armedPanicFiresOnceInItsStep_data()
{
    QTest::addColumn<QString>("armed");
    QTest::addColumn<QStringList>("steps");
    QTest::addColumn<QString>("panicking"); // the step that throws; empty: none

    const QStringList billing{"GetDueBilling", "subscription 1", "subscription 2", "cleanup"};
    QTest::newRow("exact name") << "GetDueBilling" << billing << "GetDueBilling";
    QTest::newRow("prefix, first match only") << "subscription" << billing << "subscription 1";
    QTest::newRow("a later step") << "cleanup" << billing << "cleanup";
    QTest::newRow("empty: the first step") << "" << billing << "GetDueBilling";
    QTest::newRow("a step that never runs") << "subscription 9" << billing << "";
    QTest::newRow("longer than the name") << "GetDueBillingX" << billing << "";
    QTest::newRow("case matters") << "getduebilling" << billing << "";
}

// Checked: with `t_armedPanic.reset()` removed from StepGuard::run, "prefix, first match only"
// fails (both subscriptions panic).
void TestFaults::armedPanicFiresOnceInItsStep()
{
    QFETCH(QString, armed);
    QFETCH(QStringList, steps);
    QFETCH(QString, panicking);

    QStringList ran;
    QStringList failed;
    bool fired = false;
    bool firedBefore = true;
    {
        StepGuard::ArmedPanic panic(armed.toStdString());
        firedBefore = panic.fired();
        StepGuard guard("billing");
        for (const QString &step : steps) {
            if (!guard.run(step.toStdString(), [&] { ran << step; }))
                failed << step;
        }
        fired = panic.fired();
        if (panicking.isEmpty()) {
            QVERIFY(!guard.failed());
            guard.finish(); // nothing to rethrow
        } else {
            QVERIFY(guard.failed());
            try {
                guard.finish();
                QFAIL("finish() did not rethrow the injected panic");
            } catch (const InjectedPanic &error) {
                QVERIFY2(QString::fromUtf8(error.what()).contains(panicking), error.what());
            }
        }
    }
    QVERIFY(!firedBefore);
    QCOMPARE(fired, !panicking.isEmpty());
    QCOMPARE(failed, panicking.isEmpty() ? QStringList() : QStringList{panicking});
    QStringList others = steps;
    others.removeOne(panicking);
    QCOMPARE(ran, others); // the panicking step's body never ran; every other step did

    // Disarmed with its scope, fired or not: the steps, and one named as armed, run clean.
    // Checked: with the reset in ~ArmedPanic removed, the rows that never fire fail here.
    StepGuard guard("billing");
    for (const QString &step : steps + QStringList{armed})
        QVERIFY(guard.run(step.toStdString(), [] {}));
}

// The arming is thread-local: a tick on another thread (another role's runner) is untouched.
void TestFaults::armedPanicIsThisThreadsOnly()
{
    StepGuard::ArmedPanic panic("GetDueBilling");
    bool otherRan = false;
    std::thread([&] {
        StepGuard guard("billing");
        otherRan = guard.run("GetDueBilling", [] {});
    }).join();
    QVERIFY(otherRan);
    QVERIFY(!panic.fired());
    StepGuard guard("billing");
    QVERIFY(!guard.run("GetDueBilling", [] {}));
    QVERIFY(panic.fired());
    QVERIFY_THROWS_EXCEPTION(InjectedPanic, guard.finish());
}

void TestFaults::throughAddressKeepsTheConnection_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("expected"); // throughAddress(url, "127.0.0.1", 40123), parsed
    QTest::addColumn<QString>("host");         // endpointOf(url)
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("unixSocket");

    QTest::newRow("URL, password, sslmode")
            << "postgresql://app:s3cret@db.example.com:6432/hardcount?sslmode=require"
            << QStringList{"dbname=hardcount", "host=db.example.com", "hostaddr=127.0.0.1",
                           "password=s3cret",  "port=40123",          "sslmode=require",
                           "user=app"}
            << "db.example.com" << 6432 << false;
    QTest::newRow("URL, percent-encoded password")
            << "postgresql://app:p%40ss%2Fw@db.example.com/hardcount"
            << QStringList{"dbname=hardcount", "host=db.example.com", "hostaddr=127.0.0.1",
                           "password=p@ss/w",  "port=40123",          "user=app"}
            << "db.example.com" << 5432 << false;
    QTest::newRow("key=value, quoted password")
            << R"(host=db.internal port=5433 user=app password='it\'s \\ "x"' dbname=d )"
               R"(application_name=leader connect_timeout=3)"
            << QStringList{"application_name=leader",
                           "connect_timeout=3",
                           "dbname=d",
                           "host=db.internal",
                           "hostaddr=127.0.0.1",
                           R"(password=it's \ "x")",
                           "port=40123",
                           "user=app"}
            << "db.internal" << 5433 << false;
    // A host list: the first server through the proxy, the others as they were, each with its
    // own port, so libpq can still reach them.
    QTest::newRow("key=value host list")
            << "host=a.example,b.example port=5434,5435 dbname=d user=app password=pw"
            << QStringList{"dbname=d",    "host=a.example,b.example", "hostaddr=127.0.0.1,",
                           "password=pw", "port=40123,5435",          "user=app"}
            << "a.example" << 5434 << false;
    QTest::newRow("URL host list")
            << "postgresql://app:pw@a.example:5434,b.example:5435/d?target_session_attrs=read-write"
            << QStringList{"dbname=d",
                           "host=a.example,b.example",
                           "hostaddr=127.0.0.1,",
                           "password=pw",
                           "port=40123,5435",
                           "target_session_attrs=read-write",
                           "user=app"}
            << "a.example" << 5434 << false;
    QTest::newRow("host list, one port for all")
            << "host=a.example,b.example,c.example port=6000 dbname=d"
            << QStringList{"dbname=d", "host=a.example,b.example,c.example", "hostaddr=127.0.0.1,,",
                           "port=40123,6000,6000"}
            << "a.example" << 6000 << false;
    QTest::newRow("hostaddr list") << "hostaddr=10.0.0.1,10.0.0.2 port=5432 dbname=d"
                                   << QStringList{"dbname=d", "host=127.0.0.1,",
                                                  "hostaddr=127.0.0.1,10.0.0.2", "port=40123,5432"}
                                   << "10.0.0.1" << 5432 << false;
    QTest::newRow("hostaddr given: replaced")
            << "host=db.example.com hostaddr=10.1.2.3 port=5432 dbname=d"
            << QStringList{"dbname=d", "host=db.example.com", "hostaddr=127.0.0.1", "port=40123"}
            << "10.1.2.3" << 5432 << false;
    QTest::newRow("IPv6 literal") << "postgresql://app:pw@[::1]:5433/d"
                                  << QStringList{"dbname=d",    "host=::1",   "hostaddr=127.0.0.1",
                                                 "password=pw", "port=40123", "user=app"}
                                  << "::1" << 5433 << false;
    QTest::newRow("Unix socket directory")
            << "host=/var/run/postgresql port=5999 dbname=d user=app"
            << QStringList{"dbname=d", "host=/var/run/postgresql", "hostaddr=127.0.0.1",
                           "port=40123", "user=app"}
            << "/var/run/postgresql" << 5999 << true;
    QTest::newRow("URL, socket directory in the query")
            << "postgresql://app@/d?host=/tmp&port=6000"
            << QStringList{"dbname=d", "host=/tmp", "hostaddr=127.0.0.1", "port=40123", "user=app"}
            << "/tmp" << 6000 << true;
}

// The result must reach the same database as the same user, with the same credentials and
// options: only the address and port change, and host still names the real server (TLS, .pgpass).
// Checked: with quoted() in conninfo.cpp no longer escaping, the quoted-password row fails.
void TestFaults::throughAddressKeepsTheConnection()
{
    QFETCH(QString, url);
    QFETCH(QStringList, expected);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, unixSocket);

    const std::string rewritten = leader::pg::throughAddress(url.toStdString(), "127.0.0.1", 40123);
    QCOMPARE(conninfoPairs(rewritten), expected);

    const leader::pg::Endpoint endpoint = leader::pg::endpointOf(url.toStdString());
    QCOMPARE(QString::fromStdString(endpoint.host), host);
    QCOMPARE(endpoint.port, port);
    QCOMPARE(endpoint.unixSocket, unixSocket);

    // Rewriting twice (a proxy in front of a proxy) changes only the port again.
    const std::string twice = leader::pg::throughAddress(rewritten, "127.0.0.1", 40124);
    QStringList expectedTwice = expected;
    expectedTwice.replaceInStrings("port=40123", "port=40124");
    QCOMPARE(conninfoPairs(twice), expectedTwice);
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
