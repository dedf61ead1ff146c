// Migration 0178: the replica registry, as the logins that use it see it (hardcount_app writes
// through the two functions, hardcount_monitor reads the view; the owner only moves last_seen into
// the past as if the time had passed), straight to Postgres and again through PgBouncer; and an
// engine replica beating once a period and deleting its row on a clean stop.
//
// Mutation checks, each done once: without the view's `last_seen > now() - interval '35 seconds'`
// every row reads alive (stateFollowsLastSeen, rows "36 s" and "1 h"); with the prune's
// `last_seen < now() - interval '24 hours'` replaced by "every other row" a recent row goes too
// (beatPrunesOnlyRowsUnseenFor24h); without leader_replica_gone's `holder_id = p_holder_id` a
// clean stop deletes every replica (goneDeletesOnlyItsOwnRow); without the roles CHECK a sixth or
// an empty role is accepted (seenRejects); without the REVOKE on leader_replica_seen the monitor
// and a login without grants may beat (refused); without listReplicas' UndefinedTable branch an
// older schema is an error (olderSchemaReadsUnavailable); with Replica::stop never deregistering
// the row stays, and with the registrar waiting a quarter period the gaps shrink to 76 ms
// (replicaBeatsOncePerPeriodAndLeavesOnAStop). With listReplicas' marker column reading no lock
// (`AND false` in its WHERE) every marker reads gone (markerHeldFollowsTheLock, rows "held",
// "terminated", "closed"; aReplicasMarkerIsSeenUntilItIsKilled); without `l.objid::bigint = l.pid`
// the other pid's key counts, and without `l.mode = 'ExclusiveLock'` the shared one does.

#include "lease/constants.h"
#include "lease/replicaregistry.h"
#include "lease/wakelistener.h"
#include "monitor/statusreader.h"
#include "pg/error.h"
#include "replica/profile.h"
#include "replica/replica.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <functional>
#include <memory>

using namespace std::chrono_literals;
using leader::lease::RegisteredReplica;
using leader::lease::ReplicaInfo;
using leader::lease::ReplicaState;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(Login)

namespace {

constexpr auto Short = 5s;

ReplicaInfo info(const std::string &holder, std::vector<std::string> roles = {"billing"})
{
    return {.holderId = holder,
            .host = "host-a",
            .pid = 4242,
            .version = "9.9.9",
            .roles = std::move(roles)};
}

// A marker taken as WakeListener takes it; returns its key.
std::int64_t takeMarker(Connection &session, const std::string &holder)
{
    return session
            .exec("marker",
                  "SELECT k, pg_advisory_lock(k)"
                  " FROM (SELECT ($1::bigint << 32) | pg_backend_pid() AS k) s",
                  {leader::lease::WakeListener::sessionKeyPrefix(holder)}, Short)
            .toInt64(0, 0);
}

std::optional<RegisteredReplica> find(const std::vector<RegisteredReplica> &rows,
                                      const std::string &holder)
{
    for (const RegisteredReplica &row : rows)
        if (row.replica.holderId == holder)
            return row;
    return std::nullopt;
}

} // namespace

class TestReplicaRegistry final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void seenCreatesThenRefreshes();
    void stateFollowsLastSeen_data();
    void stateFollowsLastSeen();
    void ageNeverNegative();
    void beatPrunesOnlyRowsUnseenFor24h();
    void goneDeletesOnlyItsOwnRow();
    void seenRejects_data();
    void seenRejects();
    void refused_data();
    void refused();
    void olderSchemaReadsUnavailable();
    void replicaBeatsOncePerPeriodAndLeavesOnAStop();
    void markerHeldFollowsTheLock_data();
    void markerHeldFollowsTheLock();
    void aReplicasMarkerIsSeenUntilItIsKilled();
    void namedBeatRecordsNameAndMarker();
    void aLateReaderSeesAnEndedMarker_data();
    void aLateReaderSeesAnEndedMarker();
    void aReplicaStartsOnARegistryWithoutNames();
    void theViewReadsTheLockTableOnce();

private:
    void ownerExec(const std::string &sql) { m_owner->exec("test setup", sql, {}, Short); }
    std::vector<RegisteredReplica> list(Connection &connection);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_monitor;
    std::unique_ptr<Connection> m_owner;
};

void TestReplicaRegistry::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("replicaregistry");
    m_db->migrateDemo(); // an engine replica needs the five roles' domain
    m_app = std::make_unique<Connection>(m_db->connect(Login::App));
    m_monitor = std::make_unique<Connection>(m_db->connect(Login::Monitor));
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestReplicaRegistry::init()
{
    ownerExec("DELETE FROM leader_ext.leader_replicas");
}

std::vector<RegisteredReplica> TestReplicaRegistry::list(Connection &connection)
{
    const auto rows = leader::lease::listReplicas(connection);
    if (!rows)
        qFatal("the registry is unavailable");
    return *rows;
}

void TestReplicaRegistry::seenCreatesThenRefreshes()
{
    leader::lease::replicaSeen(*m_app, info("a:1:00000001", {"billing", "dunning"}), Short);
    std::vector<RegisteredReplica> rows = list(*m_monitor);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].replica.holderId, std::string("a:1:00000001"));
    QCOMPARE(rows[0].replica.host, std::string("host-a"));
    QCOMPARE(rows[0].replica.pid, 4242);
    QCOMPARE(rows[0].replica.version, std::string("9.9.9"));
    QCOMPARE(rows[0].replica.roles, (std::vector<std::string>{"billing", "dunning"}));
    QCOMPARE(rows[0].startedAt, rows[0].lastSeen);
    QCOMPARE(rows[0].state, ReplicaState::Alive);
    QVERIFY(rows[0].lastSeenAgeSeconds < 5);

    // As if 10 s had passed: the next beat keeps the start and moves last seen to now.
    ownerExec("UPDATE leader_ext.leader_replicas SET started_at = started_at - interval '10 s', "
              "last_seen = last_seen - interval '10 s'");
    QVERIFY(list(*m_app)[0].lastSeenAgeSeconds >= 10);
    leader::lease::replicaSeen(*m_app, info("a:1:00000001", {"billing"}), Short);
    rows = list(*m_app);
    QCOMPARE(rows.size(), std::size_t(1));
    QVERIFY(rows[0].lastSeenAgeSeconds < 5);
    QVERIFY2(rows[0].startedAt < rows[0].lastSeen,
             (rows[0].startedAt + " " + rows[0].lastSeen).c_str());
    QCOMPARE(rows[0].replica.roles, std::vector<std::string>{"billing"});
    QCOMPARE(m_owner->exec("started",
                           "SELECT round(extract(epoch FROM last_seen - started_at)) "
                           "FROM leader_ext.leader_replicas",
                           {}, Short)
                     .toDouble(0, 0),
             10.0);
}

void TestReplicaRegistry::stateFollowsLastSeen_data()
{
    using leader::lease::ReplicaSeenEvery;
    using leader::lease::StatementTimeout;
    QTest::addColumn<int>("secondsAgo");
    QTest::addColumn<QString>("state");
    QTest::newRow("just seen") << 0 << "alive";
    // Two beats missed, the second after waiting out its statement timeout: still alive.
    const auto twoBeats = std::chrono::duration_cast<std::chrono::seconds>(2 * ReplicaSeenEvery
                                                                           + StatementTimeout);
    QTest::newRow("two beats late") << static_cast<int>(twoBeats.count()) << "alive";
    QTest::newRow("36 s") << 36 << "gone";
    QTest::newRow("1 h") << 3600 << "gone";
}

void TestReplicaRegistry::stateFollowsLastSeen()
{
    QFETCH(int, secondsAgo);
    QFETCH(QString, state);
    leader::lease::replicaSeen(*m_app, info("a:1:00000001"), Short);
    ownerExec("UPDATE leader_ext.leader_replicas SET started_at = started_at - interval '"
              + std::to_string(secondsAgo) + " s', last_seen = last_seen - interval '"
              + std::to_string(secondsAgo) + " s'");
    const std::vector<RegisteredReplica> rows = list(*m_monitor);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(std::string(leader::lease::nameOf(rows[0].state))), state);
    QVERIFY2(rows[0].lastSeenAgeSeconds >= secondsAgo
                     && rows[0].lastSeenAgeSeconds < secondsAgo + 5,
             qPrintable(QString::number(rows[0].lastSeenAgeSeconds)));
}

void TestReplicaRegistry::ageNeverNegative()
{
    // A database clock stepped backwards must not show a negative age.
    leader::lease::replicaSeen(*m_app, info("a:1:00000001"), Short);
    ownerExec("UPDATE leader_ext.leader_replicas SET started_at = now() + interval '1 h', "
              "last_seen = now() + interval '1 h'");
    const std::vector<RegisteredReplica> rows = list(*m_monitor);
    QCOMPARE(rows[0].lastSeenAgeSeconds, 0.0);
    QCOMPARE(rows[0].state, ReplicaState::Alive);
}

void TestReplicaRegistry::beatPrunesOnlyRowsUnseenFor24h()
{
    leader::lease::replicaSeen(*m_app, info("killed:1:00000001"), Short);
    leader::lease::replicaSeen(*m_app, info("killed:2:00000002"), Short);
    ownerExec("UPDATE leader_ext.leader_replicas SET started_at = now() - interval '25 h', "
              "last_seen = now() - interval '24 h 1 s' WHERE holder_id = 'killed:1:00000001'");
    ownerExec("UPDATE leader_ext.leader_replicas SET started_at = now() - interval '25 h', "
              "last_seen = now() - interval '23 h 59 min' WHERE holder_id = 'killed:2:00000002'");
    QCOMPARE(list(*m_monitor).size(), std::size_t(2)); // a read prunes nothing

    leader::lease::replicaSeen(*m_app, info("me:3:00000003"), Short);
    const std::vector<RegisteredReplica> rows = list(*m_monitor);
    QVERIFY(!find(rows, "killed:1:00000001"));
    QCOMPARE(find(rows, "killed:2:00000002")->state, ReplicaState::Gone);
    QCOMPARE(find(rows, "me:3:00000003")->state, ReplicaState::Alive);
}

void TestReplicaRegistry::goneDeletesOnlyItsOwnRow()
{
    leader::lease::replicaSeen(*m_app, info("a:1:00000001"), Short);
    leader::lease::replicaSeen(*m_app, info("b:2:00000002"), Short);
    QVERIFY(leader::lease::replicaGone(*m_app, "a:1:00000001", Short));
    const std::vector<RegisteredReplica> rows = list(*m_monitor);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].replica.holderId, std::string("b:2:00000002"));
    QVERIFY(!leader::lease::replicaGone(*m_app, "a:1:00000001", Short));
}

void TestReplicaRegistry::seenRejects_data()
{
    QTest::addColumn<QString>("holder");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("pid");
    QTest::addColumn<QString>("version");
    QTest::addColumn<QStringList>("roles");
    const QStringList billing{"billing"};
    QTest::newRow("a sixth role") << "a:1:0"
                                  << "h" << 1 << "v" << QStringList{"billing", "payroll"};
    QTest::newRow("an empty role") << "a:1:0"
                                   << "h" << 1 << "v" << QStringList{"billing", ""};
    QTest::newRow("no holder id") << ""
                                  << "h" << 1 << "v" << billing;
    QTest::newRow("no host") << "a:1:0"
                             << "" << 1 << "v" << billing;
    QTest::newRow("pid 0") << "a:1:0"
                           << "h" << 0 << "v" << billing;
    QTest::newRow("no version") << "a:1:0"
                                << "h" << 1 << "" << billing;
}

void TestReplicaRegistry::seenRejects()
{
    QFETCH(QString, holder);
    QFETCH(QString, host);
    QFETCH(int, pid);
    QFETCH(QString, version);
    QFETCH(QStringList, roles);
    ReplicaInfo replica{.holderId = holder.toStdString(),
                        .host = host.toStdString(),
                        .pid = pid,
                        .version = version.toStdString(),
                        .roles = {}};
    for (const QString &role : roles)
        replica.roles.push_back(role.toStdString());
    try {
        leader::lease::replicaSeen(*m_app, replica, Short);
        QFAIL("the row was accepted");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::CheckViolation));
    }
    QVERIFY(list(*m_monitor).empty());
}

void TestReplicaRegistry::refused_data()
{
    QTest::addColumn<Login>("login");
    QTest::addColumn<QString>("sql");
    // The app writes through the functions alone, so no row can claim a clock but the database's.
    QTest::newRow("app inserts a row") << Login::App
                                       << "INSERT INTO leader_ext.leader_replicas VALUES ('x:1:0', "
                                          "'x', 1, 'v', '{}', now(), now())";
    QTest::newRow("app moves last_seen")
            << Login::App
            << "UPDATE leader_ext.leader_replicas SET last_seen = now() + interval '1 day'";
    QTest::newRow("app deletes every row")
            << Login::App << "DELETE FROM leader_ext.leader_replicas";
    QTest::newRow("app truncates") << Login::App << "TRUNCATE leader_ext.leader_replicas";
    QTest::newRow("app alters the table")
            << Login::App
            << "ALTER TABLE leader_ext.leader_replicas DROP CONSTRAINT leader_replicas_named";
    QTest::newRow("monitor beats")
            << Login::Monitor
            << "SELECT leader_ext.leader_replica_seen('m:1:0', 'm', 1, 'v', ARRAY['billing'])";
    QTest::newRow("monitor deletes a replica")
            << Login::Monitor << "SELECT leader_ext.leader_replica_gone('a:1:00000001')";
    QTest::newRow("monitor reads the table")
            << Login::Monitor << "SELECT * FROM leader_ext.leader_replicas";
    QTest::newRow("nobody reads the view")
            << Login::Nobody << "SELECT * FROM leader_ext.leader_replicas_status";
    QTest::newRow("nobody beats")
            << Login::Nobody << "SELECT leader_ext.leader_replica_seen('n:1:0', 'n', 1, 'v', '{}')";
}

void TestReplicaRegistry::refused()
{
    QFETCH(Login, login);
    QFETCH(QString, sql);
    Connection connection = m_db->connect(login);
    try {
        connection.exec("refused", sql.toStdString(), {}, Short);
        QFAIL("the statement was allowed");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::InsufficientPrivilege));
        QVERIFY(!error.isTransport());
    }
}

void TestReplicaRegistry::olderSchemaReadsUnavailable()
{
    leader::lease::replicaSeen(*m_app, info("a:1:00000001"), Short);
    using leader::schema::MigrationSet;
    leader::schema::Migrator migrator(*m_owner);
    const auto restore = qScopeGuard([&migrator] {
        migrator.migrate({MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo});
    });
    // The demo's migrations are newer, so they go (and come back) too.
    QCOMPARE(migrator.rollbackTo(178), (std::vector<int>{1003, 1002, 1001, 190, 189, 188, 187, 186,
                                                         185, 184, 183, 182, 181, 180, 179, 178}));
    QVERIFY(!leader::lease::listReplicas(*m_monitor).has_value());
    QVERIFY(!leader::lease::listReplicas(*m_app).has_value());
    // Readers need no 0178; a replica does, and says so.
    try {
        leader::schema::requireExtension(*m_app, leader::schema::probeFeatures(*m_app), "a replica",
                                         leader::schema::Extension::ReplicaRegistry);
        QFAIL("a schema without 0178 was accepted for a replica");
    } catch (const leader::schema::SchemaError &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains("needs the extension leader_ext 0178"),
                 error.what());
        QVERIFY2(QString::fromUtf8(error.what()).contains("leaderctl migrate"), error.what());
    }
    QCOMPARE(migrator.migrate({MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo}),
             (std::vector<int>{178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190,
                               1001, 1002, 1003}));
    QVERIFY(leader::lease::listReplicas(*m_monitor)->empty());
    QVERIFY(leader::schema::probeFeatures(*m_app).complete());
}

// One leader_replica_seen statement a period, counted by a statement-level trigger the test adds
// (an upsert fires AFTER INSERT once per statement), with the period shortened to 300 ms; then a
// clean stop deletes the row. docs/lease-runtime.md has the figure for the real 15 s.
void TestReplicaRegistry::replicaBeatsOncePerPeriodAndLeavesOnAStop()
{
    constexpr auto Every = 300ms;
    ownerExec("CREATE TABLE test_beats (at timestamptz NOT NULL DEFAULT clock_timestamp(), "
              "op text NOT NULL)");
    // The table named with its schema: the trigger fires inside leader_replica_seen, whose
    // search_path is pg_catalog, pg_temp (migration 0181).
    ownerExec("CREATE FUNCTION test_count_beat() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
              "INSERT INTO public.test_beats (op) VALUES (TG_OP); RETURN NULL; END $$");
    ownerExec("CREATE TRIGGER test_count_beat AFTER INSERT ON leader_ext.leader_replicas "
              "FOR EACH STATEMENT EXECUTE FUNCTION test_count_beat()");
    const auto dropCounter = qScopeGuard([this] {
        ownerExec("DROP TRIGGER test_count_beat ON leader_ext.leader_replicas");
        ownerExec("DROP FUNCTION test_count_beat()");
        ownerExec("DROP TABLE test_beats");
    });

    leader::replica::ReplicaOptions options;
    options.id = "registry";
    options.database.url = m_db->url(Login::App);
    options.roles = leader::replica::selectRoles(leader::replica::demoProfile(), {"billing"});
    options.fastWake = false;
    options.registryEvery = Every;
    leader::replica::Replica replica(std::move(options));
    replica.start();
    QTRY_VERIFY_WITH_TIMEOUT(find(list(*m_monitor), replica.holderId()).has_value(), 5000);
    const RegisteredReplica row = *find(list(*m_monitor), replica.holderId());
    QCOMPARE(row.replica.roles, std::vector<std::string>{"billing"});
    QCOMPARE(row.replica.version, std::string(LEADER_VERSION));
    QCOMPARE(row.state, ReplicaState::Alive);
    QTRY_VERIFY_WITH_TIMEOUT(
            m_owner->exec("beats", "SELECT count(*) FROM test_beats", {}, Short).toInt64(0, 0) >= 8,
            10000);
    replica.stop();
    QVERIFY(!find(list(*m_monitor), replica.holderId()));

    // Never two beats in one period: the gaps between statements are the period (the wait starts
    // after a beat's statement returns, so a gap is never shorter, less the server's jitter).
    const leader::pg::Result gaps = m_owner->exec(
            "gaps",
            "SELECT count(*), min(gap), max(gap) FROM (SELECT extract(epoch FROM at - lag(at) "
            "OVER (ORDER BY at)) * 1000 AS gap FROM test_beats) g WHERE gap IS NOT NULL",
            {}, Short);
    const double minimum = gaps.toDouble(0, 1);
    QVERIFY2(minimum >= 0.8 * Every.count(),
             qPrintable(QStringLiteral("%1 gaps, shortest %2 ms, longest %3 ms")
                                .arg(gaps.toInt64(0, 0))
                                .arg(minimum)
                                .arg(gaps.toDouble(0, 2))));
}

// A marker, as WakeListener takes it: the exclusive session lock on the holder id's hash << 32 |
// the session's own backend pid, on a direct session (a pooler's would not keep it). Then its end,
// as a reaper's pg_terminate_backend or the process's death closing the socket: the lock is gone
// with the backend. Locks that are not a marker never count.
void TestReplicaRegistry::markerHeldFollowsTheLock_data()
{
    QTest::addColumn<QString>("lock");
    QTest::addColumn<bool>("held");
    QTest::addColumn<QString>("end");
    QTest::newRow("held") << "pg_advisory_lock(k)" << true << "";
    QTest::newRow("terminated") << "pg_advisory_lock(k)" << true << "terminate";
    QTest::newRow("closed") << "pg_advisory_lock(k)" << true << "close";
    QTest::newRow("no lock") << "1" << false << "";
    // A death watch waits on the key shared; granted only once the marker has ended.
    QTest::newRow("shared") << "pg_advisory_lock_shared(k)" << false << "";
    QTest::newRow("another pid's key") << "pg_advisory_lock(k + 1)" << false << "";
}

void TestReplicaRegistry::markerHeldFollowsTheLock()
{
    QFETCH(QString, lock);
    QFETCH(bool, held);
    QFETCH(QString, end);
    const std::string holder = "marker-host:77:0000beef";
    leader::lease::replicaSeen(*m_app, info(holder), Short);
    auto marker = std::make_unique<Connection>(m_db->connectDirect(Login::App));
    const std::int64_t pid
            = marker->exec("marker",
                           "SELECT pg_backend_pid(), " + lock.toStdString()
                                   + " FROM (SELECT ($1::bigint << 32) | pg_backend_pid() AS k) s",
                           {leader::lease::WakeListener::sessionKeyPrefix(holder)}, Short)
                      .toInt64(0, 0);
    QCOMPARE(find(list(*m_monitor), holder)->markerHeld, held);
    QCOMPARE(find(list(*m_app), holder)->markerHeld, held);
    if (end.isEmpty())
        return;
    if (end == "terminate")
        m_app->exec("reaper", "SELECT pg_terminate_backend($1::int)", {pid}, Short);
    else
        marker->close();
    // The end is the server's to complete: the lock goes when the backend does.
    QTRY_VERIFY_WITH_TIMEOUT(m_owner->exec("backend",
                                           "SELECT count(*) FROM pg_stat_activity "
                                           "WHERE pid = $1",
                                           {pid}, Short)
                                             .toInt64(0, 0)
                                     == 0,
                             5000);
    const RegisteredReplica row = *find(list(*m_monitor), holder);
    QVERIFY(!row.markerHeld);
    QCOMPARE(row.state, ReplicaState::Alive); // the beats alone would say so for 35 s
}

// The engine's own marker is the one the registry read recognises, and a killed replica's ends.
void TestReplicaRegistry::aReplicasMarkerIsSeenUntilItIsKilled()
{
    leader::replica::ReplicaOptions options;
    options.id = "marked";
    options.database.url = m_db->url(Login::App);
    // Through PgBouncer a replica has its marker only from a direct listening session.
    options.listen.url = m_db->directUrl(Login::App);
    options.roles = leader::replica::selectRoles(leader::replica::demoProfile(), {"billing"});
    leader::replica::Replica replica(std::move(options));
    replica.start();
    QTRY_VERIFY_WITH_TIMEOUT(find(list(*m_monitor), replica.holderId()).has_value()
                                     && find(list(*m_monitor), replica.holderId())->markerHeld,
                             5000);
    // With 0182 its row names it and records its marker at once, not a beat period (15 s) after
    // the first beat, which went out before the marker existed (checked once: without
    // Registrar::beatNow this waits out its 5 s).
    const auto named = [this, &replica] {
        return find(*leader::lease::listReplicas(*m_monitor, true), replica.holderId());
    };
    QTRY_VERIFY_WITH_TIMEOUT(named()->markerRecorded, 5000);
    QCOMPARE(named()->replica.name, std::string("marked"));
    QVERIFY(named()->markerHeld);
    QCOMPARE(named()->state, ReplicaState::Alive);
    replica.kill(); // no clean stop: the row stays, as a SIGKILL leaves it
    QTRY_VERIFY_WITH_TIMEOUT(!find(list(*m_monitor), replica.holderId())->markerHeld, 5000);
    // The view says gone, where before 0182 only a reader that had seen the marker could tell.
    QCOMPARE(named()->state, ReplicaState::Gone);
    QVERIFY(named()->lastSeenAgeSeconds < 30);
}

// The two facts of 0182 travel and come back; an earlier replica's five-argument beat resolves to
// the same function (its defaults) and records neither; an earlier reader sees neither.
void TestReplicaRegistry::namedBeatRecordsNameAndMarker()
{
    const std::string holder = "named-host:31:0000cafe";
    Connection session = m_db->connectDirect(Login::App);
    ReplicaInfo replica = info(holder);
    replica.name = "r7";
    replica.markerSession = takeMarker(session, holder);
    leader::lease::replicaSeen(*m_app, replica, Short, {}, true);
    RegisteredReplica row = *find(*leader::lease::listReplicas(*m_monitor, true), holder);
    QCOMPARE(row.replica.name, std::string("r7"));
    QCOMPARE(row.replica.markerSession, replica.markerSession);
    QVERIFY(row.markerRecorded);
    QVERIFY(row.markerHeld);
    QCOMPARE(row.state, ReplicaState::Alive);
    // A reader that does not ask (an older schema's columns) reads what it always did.
    row = *find(list(*m_monitor), holder);
    QCOMPARE(row.replica.name, std::string());
    QVERIFY(!row.markerRecorded);

    leader::lease::replicaSeen(*m_app, info(holder), Short);
    row = *find(*leader::lease::listReplicas(*m_monitor, true), holder);
    QCOMPARE(row.replica.name, std::string());
    QVERIFY(!row.replica.markerSession);
    QVERIFY(!row.markerRecorded);
}

// A reader that starts after the death (leaderctl replicas, a console opened later) never saw
// the marker held: the row's record of it is what tells, the view and the console's reader
// agree, and a replica without a marker is still judged by its beats alone. Checked once: without
// the view's `r.marker_session IS NOT NULL AND m.high IS NULL` the rows "closed" and "terminated"
// read alive; without StatusReader::replicas' markerRecorded, markerEnded stays false for them.
void TestReplicaRegistry::aLateReaderSeesAnEndedMarker_data()
{
    QTest::addColumn<bool>("marker"); // the beat records one
    QTest::addColumn<QString>("end");
    QTest::addColumn<bool>("gone");
    QTest::newRow("closed") << true << "close" << true;
    QTest::newRow("terminated") << true << "terminate" << true;
    QTest::newRow("held") << true << "" << false;
    QTest::newRow("no marker recorded") << false << "close" << false;
}

void TestReplicaRegistry::aLateReaderSeesAnEndedMarker()
{
    QFETCH(bool, marker);
    QFETCH(QString, end);
    QFETCH(bool, gone);
    const std::string holder = "late-host:41:0000f00d";
    auto session = std::make_unique<Connection>(m_db->connectDirect(Login::App));
    const std::int64_t key = takeMarker(*session, holder);
    ReplicaInfo replica = info(holder);
    replica.name = "r4";
    if (marker)
        replica.markerSession = key;
    leader::lease::replicaSeen(*m_app, replica, Short, {}, true);
    const std::int64_t pid = key & 0xffffffff;
    if (end == "terminate")
        m_app->exec("reaper", "SELECT pg_terminate_backend($1::int)", {pid}, Short);
    else if (end == "close")
        session->close();
    QTRY_VERIFY_WITH_TIMEOUT(
            end.isEmpty()
                    || m_owner->exec("backend",
                                     "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", {pid},
                                     Short)
                                       .toInt64(0, 0)
                               == 0,
            5000);

    // Readers that start now.
    Connection late = m_db->connect(Login::Monitor);
    const RegisteredReplica row = *find(*leader::lease::listReplicas(late, true), holder);
    QCOMPARE(row.state, gone ? ReplicaState::Gone : ReplicaState::Alive);
    QCOMPARE(row.replica.name, std::string("r4"));
    QVERIFY(row.lastSeenAgeSeconds < 30);
    std::stop_source stop;
    leader::monitor::StatusReader reader(m_db->url(Login::Monitor), stop.get_token(), Short);
    QVERIFY(std::holds_alternative<leader::monitor::Access>(reader.open()));
    const auto listed = reader.replicas();
    QVERIFY(std::holds_alternative<leader::monitor::ReplicaList>(listed));
    int found = 0;
    for (const leader::monitor::ReplicaRow &read :
         std::get<leader::monitor::ReplicaList>(listed).replicas) {
        if (read.holderId != holder)
            continue;
        ++found;
        QCOMPARE(read.alive, !gone);
        QCOMPARE(read.markerEnded, gone);
        QCOMPARE(read.name, std::string("r4"));
    }
    QCOMPARE(found, 1);
}

// 0182 is used where it is, not required: on 0181 a replica starts and beats 0178's five
// arguments. Checked once: with Replica::start requiring every extension it refuses to start,
// and with the registrar sending 0182's seven arguments regardless its row never appears.
void TestReplicaRegistry::aReplicaStartsOnARegistryWithoutNames()
{
    using leader::schema::MigrationSet;
    leader::schema::Migrator migrator(*m_owner);
    const auto restore = qScopeGuard([&migrator] {
        migrator.rollbackTo(1001);
        migrator.migrate({MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo});
    });
    QCOMPARE(migrator.rollbackTo(182),
             (std::vector<int>{1003, 1002, 1001, 190, 189, 188, 187, 186, 185, 184, 183, 182}));
    QCOMPARE(migrator.migrate({MigrationSet::Demo}), (std::vector<int>{1001, 1002, 1003}));
    QVERIFY(!leader::schema::probeFeatures(*m_app).has(leader::schema::Extension::ReplicaNames));

    leader::replica::ReplicaOptions options;
    options.id = "older";
    options.database.url = m_db->url(Login::App);
    options.listen.url = m_db->directUrl(Login::App);
    options.roles = leader::replica::selectRoles(leader::replica::demoProfile(), {"billing"});
    options.registryEvery = 300ms;
    leader::replica::Replica replica(std::move(options));
    replica.start();
    QTRY_VERIFY_WITH_TIMEOUT(find(list(*m_monitor), replica.holderId()).has_value(), 5000);
    // Beats keep working: started_at stays, last_seen moves.
    const std::string first = find(list(*m_monitor), replica.holderId())->lastSeen;
    QTRY_VERIFY_WITH_TIMEOUT(find(list(*m_monitor), replica.holderId())->lastSeen != first, 5000);
    QCOMPARE(find(list(*m_monitor), replica.holderId())->state, ReplicaState::Alive);
    replica.stop();
}

// 0187: the view reads pg_locks once per query, however many replicas are registered (0182's
// lateral lookup called pg_lock_status() once per row: 5 x 1,000 calls for one replica's count of
// its peers at 1,000 replicas, which melted the server down; docs/benchmarks/scale.md). Checked
// once: on 0183's view (0187's down script) the function scan's loops are the row count, 40.
// The answers stay per replica: held markers alive, ended ones gone, and a marker key's high
// half held twice (two sessions) still one row.
void TestReplicaRegistry::theViewReadsTheLockTableOnce()
{
    Connection markers = m_db->connectDirect(Login::App);
    Connection second = m_db->connectDirect(Login::App);
    constexpr int Replicas = 40;
    for (int i = 0; i < Replicas; ++i) {
        const std::string holder = "scale-host:" + std::to_string(i) + ":0000abcd";
        ReplicaInfo replica = info(holder);
        replica.name = "s" + std::to_string(i);
        // Even replicas' markers are held; odd ones recorded a key no session holds (a pid of 1).
        replica.markerSession
                = i % 2 == 0
                          ? takeMarker(markers, holder)
                          : m_owner->exec("key", "SELECT ($1::bigint << 32) | 1",
                                          {leader::lease::WakeListener::sessionKeyPrefix(holder)},
                                          Short)
                                    .toInt64(0, 0);
        leader::lease::replicaSeen(*m_app, replica, Short, {}, true);
    }
    // The same high half as replica 0's marker, held exclusively by another session too.
    takeMarker(second, "scale-host:0:0000abcd");

    const QJsonDocument plan = QJsonDocument::fromJson(QByteArray::fromStdString(std::string(
            m_owner->exec("plan",
                          "EXPLAIN (ANALYZE, FORMAT JSON) SELECT holder_id, state, marker_held"
                          " FROM leader_ext.leader_replicas_status",
                          {}, Short)
                    .text(0, 0))));
    QList<QJsonObject> scans;
    std::function<void(const QJsonObject &)> walk = [&](const QJsonObject &node) {
        if (node.value("Function Name").toString() == "pg_lock_status")
            scans.append(node);
        for (const QJsonValue &child : node.value("Plans").toArray())
            walk(child.toObject());
    };
    walk(plan.array().first().toObject().value("Plan").toObject());
    QCOMPARE(scans.size(), 1);
    QCOMPARE(scans.first().value("Actual Loops").toInt(), 1);

    const auto rows = list(*m_monitor);
    QCOMPARE(int(rows.size()), Replicas);
    for (int i = 0; i < Replicas; ++i) {
        const auto row = find(rows, "scale-host:" + std::to_string(i) + ":0000abcd");
        QVERIFY(row);
        QCOMPARE(row->state, i % 2 == 0 ? ReplicaState::Alive : ReplicaState::Gone);
    }
}

QTEST_GUILESS_MAIN(TestReplicaRegistry)
#include "tst_replicaregistry.moc"
