// Extension 0189 beside replicas that speak only the ADR (issue 50): the ADR's own statements,
// verbatim (tests/fixtures/adr-replica/README.md says the one fix they need to run), against a
// database with every extension, as the app login, straight to Postgres and through PgBouncer.
//
// Mutation checks, each done once:
//  * earlyTakeTakesOnlyTheLeaseItsMarkerNames: with the trigger leader_leases_writes disabled
//    and ACQUIRE's token comparison removed (StatementShape::markerTokens false), every row but
//    the control failed: the contender took the live lease. With the trigger disabled alone,
//    ACQUIRE's comparison still refused each take, and the rows failed on the stale marker their
//    lease still named.
//  * pauseWithAnEndEndsForTheAdrsAcquire: at 0188, with 0177's form of the pause (paused_until),
//    the ADR's ACQUIRE never succeeded after the end (by hand: the function needs 0189).
//  * onlyTheOwnerLiftsAPauseByHand: with the trigger disabled the app's write lifted the pause,
//    nothing was logged, and the status said "never ran" (by hand, in psql).
//  * drainCountsHoldersOutsideTheRegistry: its first check is the control, the same database
//    before their ACQUIRE.

#include "adrstatements.h"
#include "lease/statements.h"
#include "pg/error.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::test::AdrAcquire;
using leader::test::AdrRelease;
using leader::test::AdrRenew;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;

constexpr std::string_view AdrHolder = leader::test::AdrHolderId;
constexpr std::string_view OursDead = "ours:1:00000001";
constexpr std::string_view OursNext = "ours:2:00000002";
constexpr std::int64_t KeyDead = (std::int64_t(0x1234) << 32) | 101;
constexpr std::int64_t KeyNext = (std::int64_t(0x5678) << 32) | 202;

// The ADR's fifteen columns of leader_status, in its order (0174 with 0175's two).
const QStringList AdrStatusColumns{"role",
                                   "state",
                                   "holder_id",
                                   "holder_token",
                                   "acquired_at",
                                   "expires_in_seconds",
                                   "last_tick_ended_at",
                                   "last_tick_holder",
                                   "last_tick_age_seconds",
                                   "paused_at",
                                   "paused_by",
                                   "pause_reason",
                                   "observed_at",
                                   "not_before",
                                   "not_before_in_seconds"};

QString text(const leader::pg::Result &result, int row = 0, int column = 0)
{
    return result.isNull(row, column)
                   ? QString()
                   : QString::fromStdString(std::string(result.text(row, column)));
}

// A marker session: a direct session holding key's advisory lock until it is closed, as a
// replica's listener does for its process's life.
Connection markerSession(const TestDatabase &db, std::int64_t key)
{
    Connection session = db.connectDirect(Login::App);
    session.exec("marker", "SELECT pg_advisory_lock($1::bigint)", {key}, Short);
    return session;
}

} // namespace

class TestAdrFleet final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void theAdrsViewKeepsItsShape();
    void earlyTakeTakesOnlyTheLeaseItsMarkerNames_data();
    void earlyTakeTakesOnlyTheLeaseItsMarkerNames();
    void theirAcquireSaysHowItFoundTheRow();
    void pauseWithAnEndEndsForTheAdrsAcquire();
    void pauseWithAnEndStopsTheirHolder();
    void statusCallsThePausePausedUntilItEnds();
    void unpauseSaysWhatItChanged_data();
    void unpauseSaysWhatItChanged();
    void onlyTheOwnerLiftsAPauseByHand();
    void aPauseCannotEndAtInfinity();
    void oldFormPausesAreMoved();
    void holdersOutsideTheRegistryAreRecorded();
    void drainCountsHoldersOutsideTheRegistry();
    void hourCountsSayOursOnly();
    void handoverRefusesARolePausedWithAnEnd();

private:
    QString scalar(Connection &connection, const std::string &sql,
                   const std::vector<leader::pg::Param> &params = {});
    // The ADR's ACQUIRE as the app; its token, or nullopt when refused.
    std::optional<std::int64_t> adrAcquire(Connection &connection,
                                           std::string_view role = "billing",
                                           std::string_view holder = AdrHolder);
    bool ourAcquire(std::string_view holder, std::optional<std::int64_t> key);
    void expireNow(const char *role = "billing");

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_owner;
    std::unique_ptr<Connection> m_monitor;
};

void TestAdrFleet::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("adrfleet");
    m_db->migrateLease();
    m_app = std::make_unique<Connection>(m_db->connect(Login::App));
    m_owner = std::make_unique<Connection>(m_db->connectDirect(Login::Owner));
    m_monitor = std::make_unique<Connection>(m_db->connect(Login::Monitor));
}

void TestAdrFleet::init()
{
    m_db->resetLeases();
    m_owner->exec("clear", "TRUNCATE leader_ext.leader_pause_log, leader_ext.leader_replicas", {},
                  Short);
}

QString TestAdrFleet::scalar(Connection &connection, const std::string &sql,
                             const std::vector<leader::pg::Param> &params)
{
    return text(connection.exec("test query", sql, params, Short));
}

std::optional<std::int64_t> TestAdrFleet::adrAcquire(Connection &connection, std::string_view role,
                                                     std::string_view holder)
{
    return leader::test::adrAcquire(connection, role, holder);
}

bool TestAdrFleet::ourAcquire(std::string_view holder, std::optional<std::int64_t> key)
{
    return leader::lease::acquire(*m_app, "billing", holder, 0ms, key).has_value();
}

// As if the lease's time had run out: a held lease's expiry moved just into the past, as the owner
// (the token, the holder and the marker stay).
void TestAdrFleet::expireNow(const char *role)
{
    m_owner->exec("expire",
                  "UPDATE leader_leases SET expires_at = now() - interval '1 millisecond', "
                  "acquired_at = now() - interval '10 seconds' WHERE role = $1",
                  {role}, Short);
}

void TestAdrFleet::theAdrsViewKeepsItsShape()
{
    const auto columns = [this](const std::string &view) {
        const leader::pg::Result result = m_monitor->exec(
                "columns",
                "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum",
                {view}, Short);
        QStringList names;
        for (int row = 0; row < result.rows(); ++row)
            names << text(result, row);
        return names;
    };
    QCOMPARE(columns("leader_status"), AdrStatusColumns);
    // Ours keep the ADR's columns first, in its order, and add every one the console reads.
    const QStringList extended = columns("leader_ext.leader_status");
    QCOMPARE(extended.mid(0, AdrStatusColumns.size()), AdrStatusColumns);
    for (const char *ours :
         {"paused_until", "pause_remaining_seconds", "took_over", "early_take", "last_outcome",
          "completed_last_hour", "holder_outside", "counts_ours_only"})
        QVERIFY2(extended.contains(QString::fromLatin1(ours)), ours);
    // A client that scans the ADR's fifteen columns by position gets them.
    QCOMPARE(m_app->exec("scan", "SELECT * FROM leader_status WHERE role = 'billing'", {}, Short)
                     .columns(),
             AdrStatusColumns.size());
}

void TestAdrFleet::earlyTakeTakesOnlyTheLeaseItsMarkerNames_data()
{
    QTest::addColumn<QString>("sequence");
    QTest::addColumn<bool>("taken");
    // A replica of ours killed while it held billing; theirs took the lease at its expiry; a new
    // replica of ours started (issue 50: two holders for 2.66 s).
    QTest::newRow("killed, theirs at expiry, ours next") << "expiry" << false;
    // Ours led billing and was paused; theirs acquired after the unpause; then the idle replica
    // of ours died (1.1 to 1.3 s of two holders).
    QTest::newRow("pause, unpause, theirs, ours dies idle") << "pause" << false;
    // A DBA hands the lease over by hand (a new token, a new holder) and the old holder dies.
    QTest::newRow("a DBA's write, ours dies") << "dba" << false;
    // The control: ours killed while it held its own lease is taken early, as 0179 and 0180 do.
    QTest::newRow("control: ours killed holding") << "control" << true;
}

void TestAdrFleet::earlyTakeTakesOnlyTheLeaseItsMarkerNames()
{
    QFETCH(QString, sequence);
    QFETCH(bool, taken);
    auto dead = std::make_unique<Connection>(markerSession(*m_db, KeyDead));
    const Connection next = markerSession(*m_db, KeyNext);
    QVERIFY(ourAcquire(OursDead, KeyDead));
    QCOMPARE(scalar(*m_app, "SELECT holder_session FROM leader_leases WHERE role = 'billing'"),
             QString::number(KeyDead));
    if (sequence == "expiry") {
        dead.reset();
        expireNow();
        QVERIFY(adrAcquire(*m_app));
    } else if (sequence == "pause") {
        scalar(*m_app, "SELECT leader_pause('billing', 'alice@ops', 'maintenance')");
        scalar(*m_app, "SELECT leader_unpause('billing')");
        QVERIFY(adrAcquire(*m_app));
        dead.reset();
    } else if (sequence == "dba") {
        m_owner->exec("by hand",
                      "UPDATE leader_leases SET holder_token = holder_token + 1, "
                      "holder_id = 'dba:1:00000001', acquired_at = now(), "
                      "expires_at = now() + interval '10 seconds' WHERE role = 'billing'",
                      {}, Short);
        dead.reset();
    } else {
        dead.reset();
    }
    const QString before = scalar(
            *m_app, "SELECT holder_token || ' ' || holder_id FROM leader_leases WHERE role = "
                    "'billing'");
    // The marker's session ended: its lock is free now, as a contender's shared try-lock sees.
    QTRY_COMPARE_WITH_TIMEOUT(
            scalar(*m_owner, "SELECT pg_try_advisory_xact_lock_shared($1)", {KeyDead}),
            QStringLiteral("t"), 5000);
    QCOMPARE(ourAcquire(OursNext, KeyNext), taken);
    if (taken) {
        QCOMPARE(scalar(*m_app, "SELECT took_over FROM leader_leases WHERE role = 'billing'"),
                 QStringLiteral("session_ended"));
        return;
    }
    QCOMPARE(scalar(*m_app, "SELECT holder_token || ' ' || holder_id FROM leader_leases WHERE "
                            "role = 'billing'"),
             before);
    // Their lease names no marker: nothing a contender could act on.
    QCOMPARE(scalar(*m_app, "SELECT holder_session IS NULL FROM leader_leases WHERE role = "
                            "'billing'"),
             QStringLiteral("t"));
}

// Their ACQUIRE does not write took_over: the row says how it was found all the same.
void TestAdrFleet::theirAcquireSaysHowItFoundTheRow()
{
    QVERIFY(ourAcquire(OursDead, std::nullopt));
    expireNow();
    QVERIFY(adrAcquire(*m_app));
    QCOMPARE(scalar(*m_monitor, "SELECT took_over FROM leader_ext.leader_status WHERE role = "
                                "'billing'"),
             QStringLiteral("expired"));
    m_app->exec("release", AdrRelease,
                {"billing",
                 scalar(*m_app, "SELECT holder_token FROM leader_leases WHERE role = "
                                "'billing'")
                         .toStdString(),
                 "true"},
                Short);
    QVERIFY(adrAcquire(*m_app));
    QCOMPARE(scalar(*m_monitor, "SELECT coalesce(took_over, 'free') FROM leader_ext.leader_status "
                                "WHERE role = 'billing'"),
             QStringLiteral("free"));
}

// The pause's end held in not_before ends it for the ADR's ACQUIRE, on the database clock, with
// several of them racing for the row: exactly one wins, within a second of the end, and none
// before it. The log records the expiry at the pause's end.
void TestAdrFleet::pauseWithAnEndEndsForTheAdrsAcquire()
{
    const double until
            = scalar(*m_app, "SELECT extract(epoch FROM leader_ext.leader_pause('billing', "
                             "'alice@ops', 'deploy', now() + interval '2 seconds') "
                             "+ interval '2 seconds')")
                      .toDouble();
    constexpr int Contenders = 4;
    std::atomic<int> winners = 0;
    std::atomic<double> wonAt = 0;
    std::atomic<bool> early = false;
    std::vector<std::jthread> threads;
    for (int i = 0; i < Contenders; ++i)
        threads.emplace_back([&, i] {
            Connection connection = m_db->connect(Login::App);
            const std::string holder = "adr-host:" + std::to_string(100 + i) + ":0000abcd";
            const auto deadline = std::chrono::steady_clock::now() + 6s;
            while (std::chrono::steady_clock::now() < deadline) {
                const leader::pg::Result result = connection.exec(
                        "adr acquire", AdrAcquire, {"billing", holder, "0 seconds"}, Short);
                if (result.rows() == 1) {
                    winners.fetch_add(1);
                    wonAt.store(result.toDouble(0, 1));
                    early.store(result.toDouble(0, 1) < until);
                    return;
                }
                std::this_thread::sleep_for(20ms);
            }
        });
    threads.clear();
    QCOMPARE(winners.load(), 1);
    QVERIFY2(!early.load(), "acquired before the pause's end");
    QVERIFY2(wonAt.load() - until <= 1.0,
             qPrintable(QStringLiteral("acquired %1 s after the end").arg(wonAt.load() - until)));
    const leader::pg::Result log
            = m_monitor->exec("log",
                              "SELECT action, extract(epoch FROM at), pause_id IS NOT NULL FROM "
                              "leader_ext.leader_pause_log WHERE role = 'billing' ORDER BY id",
                              {}, Short);
    QCOMPARE(log.rows(), 2);
    QCOMPARE(text(log, 1, 0), QStringLiteral("expire"));
    QCOMPARE(log.toDouble(1, 1), until);
    QVERIFY(log.toBool(1, 2));
    QCOMPARE(scalar(*m_monitor, "SELECT count(*) FROM leader_ext.leader_pause_ends"),
             QStringLiteral("0"));
}

// A holder of theirs paused with an end: its fence is false from the commit, its RENEW finds no
// row, and its RELEASE touches nothing, so the pause's end stands.
void TestAdrFleet::pauseWithAnEndStopsTheirHolder()
{
    const std::optional<std::int64_t> token = adrAcquire(*m_app);
    QVERIFY(token);
    const std::string tokenText = std::to_string(*token);
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
                   "interval '1 hour')");
    QCOMPARE(scalar(*m_app, "SELECT leader_fence('billing', $1::bigint)", {tokenText}),
             QStringLiteral("f"));
    QCOMPARE(m_app->exec("renew", AdrRenew, {"billing", tokenText}, Short).rows(), 0);
    m_app->exec("release", AdrRelease, {"billing", tokenText, "false"}, Short);
    QCOMPARE(scalar(*m_app, "SELECT not_before > now() + interval '59 minutes' FROM leader_leases "
                            "WHERE role = 'billing'"),
             QStringLiteral("t"));
    QVERIFY(!adrAcquire(*m_app));
    QVERIFY(!ourAcquire(OursNext, std::nullopt));
}

// Either view, the role's row refuses every ACQUIRE while a status says so: ours reads paused
// with who, why and until; the ADR's reads cooling with the seconds left.
void TestAdrFleet::statusCallsThePausePausedUntilItEnds()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
                   "interval '1 hour')");
    const leader::pg::Result ours = m_monitor->exec(
            "ours",
            "SELECT state, paused_by, pause_reason, paused_until > now(), "
            "pause_remaining_seconds > 3590, not_before FROM leader_ext.leader_status WHERE role "
            "= 'billing'",
            {}, Short);
    QCOMPARE(text(ours, 0, 0), QStringLiteral("paused"));
    QCOMPARE(text(ours, 0, 1), QStringLiteral("alice@ops"));
    QCOMPARE(text(ours, 0, 2), QStringLiteral("deploy"));
    QCOMPARE(text(ours, 0, 3), QStringLiteral("t"));
    QCOMPARE(text(ours, 0, 4), QStringLiteral("t"));
    QVERIFY(ours.isNull(0, 5)); // the pause's end is no cooldown
    const leader::pg::Result adr = m_monitor->exec(
            "adr",
            "SELECT state, not_before_in_seconds > 3590 FROM leader_status WHERE role = "
            "'billing'",
            {}, Short);
    QCOMPARE(text(adr, 0, 0), QStringLiteral("cooling"));
    QCOMPARE(text(adr, 0, 1), QStringLiteral("t"));
}

void TestAdrFleet::unpauseSaysWhatItChanged_data()
{
    QTest::addColumn<QString>("before");
    QTest::addColumn<bool>("said");
    QTest::addColumn<bool>("acquirable");
    QTest::newRow("with an end") << "end" << true << true;
    QTest::newRow("with an end, a cooldown running past it") << "cooling" << true << false;
    QTest::newRow("without an end") << "adr" << true << true;
    QTest::newRow("not paused") << "none" << false << true;
}

// leader_unpause returns true exactly when it ended a pause that held the row, and then the row
// is as before the pause: a cooldown that was running still runs.
void TestAdrFleet::unpauseSaysWhatItChanged()
{
    QFETCH(QString, before);
    QFETCH(bool, said);
    QFETCH(bool, acquirable);
    if (before == "cooling")
        m_owner->exec("cooldown",
                      "UPDATE leader_leases SET not_before = now() + interval '2 hours' WHERE "
                      "role = 'billing'",
                      {}, Short);
    if (before == "end" || before == "cooling")
        scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
                       "interval '1 hour')");
    if (before == "adr")
        scalar(*m_app, "SELECT leader_pause('billing', 'alice@ops', 'deploy')");
    QCOMPARE(scalar(*m_app, "SELECT leader_ext.leader_unpause('billing', 'bob@ops', 'done')"),
             said ? QStringLiteral("t") : QStringLiteral("f"));
    QCOMPARE(adrAcquire(*m_app).has_value(), acquirable);
    QVERIFY(scalar(*m_monitor, "SELECT state FROM leader_ext.leader_status WHERE role = 'billing'")
            != QStringLiteral("paused"));
    // A second unpause changes nothing, and says so.
    QCOMPARE(scalar(*m_app, "SELECT leader_ext.leader_unpause('billing', 'bob@ops', 'again')"),
             QStringLiteral("f"));
}

// The pause's end is not_before, which the app may write (RELEASE does): on an unheld row under a
// pause, only the owner's write counts, and it is logged as the pause's end.
void TestAdrFleet::onlyTheOwnerLiftsAPauseByHand()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
                   "interval '1 hour')");
    try {
        m_app->exec("lift", "UPDATE leader_leases SET not_before = NULL WHERE role = 'billing'", {},
                    Short);
        QFAIL("the app lifted the pause by hand");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("42501"));
    }
    QCOMPARE(
            scalar(*m_monitor, "SELECT state FROM leader_ext.leader_status WHERE role = 'billing'"),
            QStringLiteral("paused"));
    m_owner->exec("lift", "UPDATE leader_leases SET not_before = NULL WHERE role = 'billing'", {},
                  Short);
    QVERIFY(scalar(*m_monitor, "SELECT state FROM leader_ext.leader_status WHERE role = 'billing'")
            != QStringLiteral("paused"));
    QCOMPARE(scalar(*m_monitor, "SELECT string_agg(action, ',' ORDER BY id) FROM "
                                "leader_ext.leader_pause_log WHERE role = 'billing'"),
             QStringLiteral("pause,unpause"));
    QVERIFY(adrAcquire(*m_app));
}

void TestAdrFleet::aPauseCannotEndAtInfinity()
{
    try {
        scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'forever', "
                       "'infinity')");
        QFAIL("a pause ending at infinity was taken");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("22023"));
        QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("give an instant")),
                 error.what());
    }
}

// A pause of 0177's form (paused_at with paused_until) that a database holds when 0189 comes is
// moved into not_before, and then ends for the ADR's ACQUIRE too; one whose end had passed is
// ended, and its expiry logged.
void TestAdrFleet::oldFormPausesAreMoved()
{
    leader::schema::Migrator migrator(*m_owner);
    migrator.rollbackTo(188);
    Connection app = m_db->connect(Login::App);
    app.exec("old pause",
             "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
             "interval '4 seconds')",
             {}, Short);
    app.exec("old pause",
             "SELECT leader_ext.leader_pause('dunning', 'alice@ops', 'deploy', now() + "
             "interval '1 hour')",
             {}, Short);
    m_owner->exec("passed",
                  "UPDATE leader_leases SET paused_until = now() - interval '1 millisecond' WHERE "
                  "role = 'dunning'",
                  {}, Short);
    migrator.migrate({leader::schema::MigrationSet::Extension});
    Connection fresh = m_db->connect(Login::App);
    QCOMPARE(scalar(*m_monitor, "SELECT string_agg(role || ' ' || state, ',' ORDER BY role) FROM "
                                "leader_ext.leader_status WHERE role IN ('billing', 'dunning')"),
             QStringLiteral("billing paused,dunning never ran"));
    QCOMPARE(scalar(fresh, "SELECT paused_at IS NULL FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("t"));
    // Polled by hand: an ACQUIRE that succeeds changes the row, and QTRY evaluates its expression
    // again once it holds.
    QElapsedTimer waited;
    waited.start();
    bool acquired = false;
    while (!acquired && waited.elapsed() < 8000) {
        acquired = adrAcquire(fresh).has_value();
        if (!acquired)
            QTest::qWait(50);
    }
    QVERIFY(acquired);
    QCOMPARE(scalar(*m_monitor, "SELECT string_agg(action, ',' ORDER BY id) FROM "
                                "leader_ext.leader_pause_log WHERE role = 'dunning'"),
             QStringLiteral("pause,expire"));
}

void TestAdrFleet::holdersOutsideTheRegistryAreRecorded()
{
    const std::optional<std::int64_t> token = adrAcquire(*m_app);
    QVERIFY(token);
    QCOMPARE(scalar(*m_monitor, "SELECT holder_outside FROM leader_ext.leader_status WHERE role = "
                                "'billing'"),
             QStringLiteral("t"));
    m_app->exec("release", AdrRelease, {"billing", std::to_string(*token), "true"}, Short);
    const leader::pg::Result row = m_monitor->exec(
            "outside",
            "SELECT holder_id, ticks, last_completed, last_duration_seconds >= 0 FROM "
            "leader_ext.leader_outside_holders WHERE role = 'billing'",
            {}, Short);
    QCOMPARE(row.rows(), 1);
    QCOMPARE(text(row, 0, 0), QString::fromLatin1(AdrHolder));
    QCOMPARE(text(row, 0, 1), QStringLiteral("1"));
    QCOMPARE(text(row, 0, 2), QStringLiteral("t"));
    QCOMPARE(text(row, 0, 3), QStringLiteral("t"));
    // Ours, registered, is no outside holder.
    m_owner->exec("register",
                  "INSERT INTO leader_ext.leader_replicas (holder_id, host, pid, version, roles, "
                  "started_at, last_seen, name) VALUES ($1, 'test', 1, 'test', '{dunning}', now(), "
                  "now(), 'r1')",
                  {OursNext}, Short);
    QVERIFY(leader::lease::acquire(*m_app, "dunning", OursNext, 0ms).has_value());
    QCOMPARE(scalar(*m_monitor, "SELECT holder_outside FROM leader_ext.leader_status WHERE role = "
                                "'dunning'"),
             QStringLiteral("f"));
    QCOMPARE(scalar(*m_monitor, "SELECT count(*) FROM leader_ext.leader_outside_holders WHERE "
                                "role = 'dunning'"),
             QStringLiteral("0"));
}

// A drain leaves no role orphaned that a holder outside the registry ran in the last hour: it
// takes no drain, and runs the role.
void TestAdrFleet::drainCountsHoldersOutsideTheRegistry()
{
    m_owner->exec("register",
                  "INSERT INTO leader_ext.leader_replicas (holder_id, host, pid, version, roles, "
                  "started_at, last_seen, name) VALUES ($1, 'test', 1, 'test', '{billing}', now(), "
                  "now(), 'r1')",
                  {OursNext}, Short);
    QCOMPARE(scalar(*m_app, "SELECT array_to_string(leader_ext.leader_drain_orphans('r1'), ',')"),
             QStringLiteral("billing"));
    QVERIFY(adrAcquire(*m_app));
    QCOMPARE(scalar(*m_app, "SELECT array_to_string(leader_ext.leader_drain_orphans('r1'), ',')"),
             QString());
}

void TestAdrFleet::hourCountsSayOursOnly()
{
    QCOMPARE(scalar(*m_monitor, "SELECT counts_ours_only FROM leader_ext.leader_status WHERE role "
                                "= 'billing'"),
             QStringLiteral("f"));
    QVERIFY(adrAcquire(*m_app));
    QCOMPARE(scalar(*m_monitor, "SELECT counts_ours_only FROM leader_ext.leader_status WHERE role "
                                "= 'billing'"),
             QStringLiteral("t"));
}

void TestAdrFleet::handoverRefusesARolePausedWithAnEnd()
{
    QVERIFY(adrAcquire(*m_app));
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'deploy', now() + "
                   "interval '1 hour')");
    try {
        scalar(*m_app, "SELECT * FROM leader_ext.leader_handover('billing', 'bob@ops', 'move')");
        QFAIL("a paused role was handed over");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("55000"));
    }
}

QTEST_GUILESS_MAIN(TestAdrFleet)
#include "tst_adrfleet.moc"
