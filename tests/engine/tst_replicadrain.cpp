// Draining a replica (issue 36, extension 0183) against a real Postgres and again through PgBouncer
// in transaction mode: a drained replica starts no tick and lets its running one end as it would,
// the drain outlives a restart until undrained, the last eligible replica of a role is drained
// only by force, a drain on its own (SIGTERM's, drainFor) completes a tick that fits its bound and
// leaves one that does not to the stop, and the monitor role reads it all but drains nothing.

#include "lease/draincontrol.h"
#include "pg/error.h"
#include "replica/profile.h"
#include "replica/replica.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <memory>
#include <mutex>

using namespace std::chrono_literals;
using leader::lease::EventKind;
using leader::lease::Outcome;
using leader::pg::Connection;
using leader::replica::Replica;
using leader::replica::ReplicaEvent;
using leader::replica::ReplicaOptions;
using leader::replica::RoleProfile;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

// Every transition of the replicas it is attached to, in order.
class Events final
{
public:
    void attach(Replica &replica)
    {
        replica.subscribe([this](const ReplicaEvent &event) {
            const std::lock_guard lock(m_mutex);
            m_events.push_back(event);
        });
    }
    std::vector<ReplicaEvent> of(EventKind kind, const std::string &replica = {}) const
    {
        const std::lock_guard lock(m_mutex);
        std::vector<ReplicaEvent> found;
        for (const ReplicaEvent &event : m_events)
            if (event.transition.kind == kind && (replica.empty() || event.replica == replica))
                found.push_back(event);
        return found;
    }
    int count(EventKind kind, const std::string &replica = {}) const
    {
        return static_cast<int>(of(kind, replica).size());
    }

private:
    mutable std::mutex m_mutex;
    std::vector<ReplicaEvent> m_events;
};

std::vector<RoleProfile> profile(std::string_view lines, const std::vector<std::string> &roles)
{
    return leader::replica::selectRoles(
            leader::replica::parseProfile(lines, leader::replica::demoProfile()), roles);
}

// A tick of about tick, due again a second after it ends.
std::string billingLines(std::chrono::milliseconds tick)
{
    return "billing.interval = 1s\nbilling.min_tick = " + std::to_string(tick.count()) + "ms\n";
}

} // namespace

class TestReplicaDrain final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void drainedReplicaStartsNoTick();
    void drainOutlivesARestartUntilUndrained();
    void lastEligibleReplicaNeedsForce();
    void unknownReplicaIsRefused();
    void drainOnItsOwn_data();
    void drainOnItsOwn();
    void monitorReadsButCannotDrain();

private:
    ReplicaOptions optionsFor(const std::string &id, std::vector<RoleProfile> roles) const;
    QString field(const std::string &sql);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
};

void TestReplicaDrain::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("replicadrain");
    m_db->migrateDemo();
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestReplicaDrain::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
    m_owner->execScript("clear drains",
                        "DELETE FROM leader_ext.leader_replica_drains;"
                        " TRUNCATE leader_ext.leader_drain_log;"
                        " DELETE FROM leader_ext.leader_replicas;",
                        5s);
}

QString TestReplicaDrain::field(const std::string &sql)
{
    const leader::pg::Result result = m_owner->exec("inspect", sql, {}, 5s);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

// The fast wake on a direct session, as a replica behind a transaction pooler is told to: the
// drain's NOTIFY reaches it at once. The registry beat keeps its production period (15 s), so a
// drain seen within seconds was seen through the NOTIFY.
ReplicaOptions TestReplicaDrain::optionsFor(const std::string &id,
                                            std::vector<RoleProfile> roles) const
{
    ReplicaOptions options;
    options.id = id;
    options.database = {.url = m_db->url(Login::App)};
    options.listen = {.url = m_db->directUrl(Login::App)};
    options.roles = std::move(roles);
    return options;
}

// The running tick ends completed with the token it started with, and no tick starts afterwards.
// Checked: with the drain predicate in Manager::lead deleted, a second tick is acquired and this
// fails.
void TestReplicaDrain::drainedReplicaStartsNoTick()
{
    Events events;
    Replica replica(optionsFor("r1", profile(billingLines(3s), {"billing"})));
    events.attach(replica);
    replica.start();
    QTRY_VERIFY_WITH_TIMEOUT(events.count(EventKind::Acquired) == 1, 10000);
    const std::int64_t token = events.of(EventKind::Acquired).front().transition.token;

    Connection app = m_db->connect(Login::App);
    const leader::lease::DrainRecord record
            = leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", true);
    QVERIFY(record.byThisCall);
    QCOMPARE(record.orphaned, std::vector<std::string>{"billing"}); // the only replica
    QCOMPARE(field("SELECT drain FROM leader_ext.leader_replicas_status WHERE name = 'r1'"),
             QStringLiteral("draining"));

    QTRY_VERIFY_WITH_TIMEOUT(replica.drainStatus().drained, 10000);
    const std::vector<ReplicaEvent> released = events.of(EventKind::Released);
    QCOMPARE(released.size(), std::size_t(1));
    QCOMPARE(released.front().transition.token, token);
    QCOMPARE(released.front().transition.outcome, std::optional<Outcome>(Outcome::Completed));
    // Released as completed: stamped, no cooldown.
    QCOMPARE(
            field("SELECT (holder_id IS NULL) || ',' || (last_tick_ended_at IS NOT NULL) || ',' || "
                  "(not_before IS NULL) FROM leader_leases WHERE role = 'billing'"),
            QStringLiteral("true,true,true"));
    QTRY_COMPARE_WITH_TIMEOUT(
            field("SELECT drain FROM leader_ext.leader_replicas_status WHERE name = 'r1'"),
            QStringLiteral("drained"), 5000);
    QVERIFY(leader::lease::drainProgress(app, "r1").drained);

    // Due every second, yet nothing starts while drained.
    QVERIFY(!QTest::qWaitFor([&] { return events.count(EventKind::Acquired) > 1; }, 3000));
    replica.stop();
}

void TestReplicaDrain::drainOutlivesARestartUntilUndrained()
{
    Connection app = m_db->connect(Login::App);
    Events events;
    {
        Replica first(optionsFor("r1", profile(billingLines(200ms), {"billing"})));
        events.attach(first);
        first.start();
        QTRY_VERIFY_WITH_TIMEOUT(events.count(EventKind::Released) >= 1, 10000);
        leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", true);
        QTRY_VERIFY_WITH_TIMEOUT(first.drainStatus().drained, 10000);
        first.stop(); // a clean stop deletes its registry row; the drain stays
    }
    QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_replicas"), QStringLiteral("0"));
    const int acquiredBefore = events.count(EventKind::Acquired);

    Replica second(optionsFor("r1", profile(billingLines(200ms), {"billing"})));
    events.attach(second);
    second.start();
    // Drained from its first beat, before its runner started.
    QVERIFY(second.drainStatus().drained);
    QVERIFY(!QTest::qWaitFor([&] { return events.count(EventKind::Acquired) > acquiredBefore; },
                             3000));
    QCOMPARE(field("SELECT drain FROM leader_ext.leader_replicas_status WHERE name = 'r1'"),
             QStringLiteral("drained"));

    QVERIFY(leader::lease::undrainReplica(app, "r1", "alice@ops", "deployed"));
    QTRY_VERIFY_WITH_TIMEOUT(events.count(EventKind::Acquired) > acquiredBefore, 5000);
    QVERIFY(!second.drainStatus().draining);
    QCOMPARE(field("SELECT coalesce(drain, 'none') FROM leader_ext.leader_replicas_status"
                   " WHERE name = 'r1'"),
             QStringLiteral("none"));
    QCOMPARE(field("SELECT string_agg(action || ':' || by || ':' || reason, ',' ORDER BY id)"
                   " FROM leader_ext.leader_drain_log"),
             QStringLiteral("drain:alice@ops:deploy,undrain:alice@ops:deployed"));
    QVERIFY(!leader::lease::undrainReplica(app, "r1", "alice@ops", "again"));
    second.stop();
}

// r1 runs billing and dunning, r2 billing: draining r1 would leave dunning to nobody, and once r2
// is drained, billing too. A paused role is nobody's anyway and is not counted.
void TestReplicaDrain::lastEligibleReplicaNeedsForce()
{
    Replica r1(optionsFor("r1", profile("billing.interval = 1h\ndunning.interval = 1h\n",
                                        {"billing", "dunning"})));
    Replica r2(optionsFor("r2", profile("billing.interval = 1h\n", {"billing"})));
    r1.start();
    r2.start();
    Connection app = m_db->connect(Login::App);
    QCOMPARE(leader::lease::drainOrphans(app, "r1"), std::vector<std::string>{"dunning"});
    QCOMPARE(leader::lease::drainOrphans(app, "r2"), std::vector<std::string>{});

    try {
        leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", false);
        QFAIL("drained the last replica of dunning without force");
    } catch (const leader::lease::DrainRefused &refused) {
        QCOMPARE(refused.roles(), std::vector<std::string>{"dunning"});
        QVERIFY2(QString(refused.what()).contains("dunning with no eligible replica"),
                 refused.what());
    }
    QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_drain_log"), QStringLiteral("0"));

    QVERIFY(leader::lease::drainReplica(app, "r2", "alice@ops", "deploy", false).byThisCall);
    try {
        leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", false);
        QFAIL("drained the last replicas of billing and dunning without force");
    } catch (const leader::lease::DrainRefused &refused) {
        QCOMPARE(refused.roles(), (std::vector<std::string>{"billing", "dunning"}));
    }
    // Paused, dunning runs nowhere whoever is drained.
    m_owner->exec("pause", "SELECT leader_pause('dunning', 'test', 'paused')", {}, 5s);
    QCOMPARE(leader::lease::drainOrphans(app, "r1"), std::vector<std::string>{"billing"});

    const leader::lease::DrainRecord forced
            = leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", true);
    QCOMPARE(forced.orphaned, std::vector<std::string>{"billing"});
    QCOMPARE(field("SELECT array_to_string(forced, ',') FROM leader_ext.leader_drain_log"
                   " WHERE name = 'r1'"),
             QStringLiteral("billing"));
    // Drained again: nothing changes, and the record is the first drain's.
    const leader::lease::DrainRecord again
            = leader::lease::drainReplica(app, "r1", "bob@ops", "again", false);
    QVERIFY(!again.byThisCall);
    QCOMPARE(again.drainedBy, std::string("alice@ops"));
    r1.stop();
    r2.stop();
}

void TestReplicaDrain::unknownReplicaIsRefused()
{
    Connection app = m_db->connect(Login::App);
    for (const bool undrain : {false, true}) {
        try {
            if (undrain)
                leader::lease::undrainReplica(app, "nobody", "alice@ops", "x");
            else
                leader::lease::drainReplica(app, "nobody", "alice@ops", "x", true);
            QFAIL("an unknown replica was accepted");
        } catch (const leader::pg::Error &error) {
            QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("22023"));
            QVERIFY2(QString::fromStdString(leader::pg::explain(error))
                             .contains("unknown replica 'nobody'"),
                     leader::pg::explain(error).c_str());
        }
    }
    QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_drain_log"), QStringLiteral("0"));
}

void TestReplicaDrain::drainOnItsOwn_data()
{
    QTest::addColumn<int>("tickMs");
    QTest::addColumn<int>("boundMs");
    QTest::addColumn<bool>("completes");
    QTest::newRow("the tick fits the bound") << 4000 << 10000 << true;
    QTest::newRow("the tick outlasts the bound") << 20000 << 1000 << false;
}

// What SIGTERM does first (leader-replica --drain-on-sigterm): a tick that fits the bound completes
// and the drain returns about when it ends; one that does not is interrupted by the stop.
void TestReplicaDrain::drainOnItsOwn()
{
    QFETCH(int, tickMs);
    QFETCH(int, boundMs);
    QFETCH(bool, completes);
    Events events;
    Replica replica(optionsFor(
            "r1", profile(billingLines(std::chrono::milliseconds(tickMs)), {"billing"})));
    events.attach(replica);
    replica.start();
    QTRY_VERIFY_WITH_TIMEOUT(events.count(EventKind::Acquired) == 1, 10000);
    QElapsedTimer draining;
    draining.start();
    QCOMPARE(replica.drainFor(std::chrono::milliseconds(boundMs)), completes);
    const qint64 drainedAfter = draining.elapsed();
    replica.stop();
    const std::vector<ReplicaEvent> released = events.of(EventKind::Released);
    QCOMPARE(released.size(), std::size_t(1));
    QCOMPARE(released.front().transition.outcome,
             std::optional<Outcome>(completes ? Outcome::Completed : Outcome::Interrupted));
    QCOMPARE(events.count(EventKind::Acquired), 1);
    if (completes)
        QVERIFY2(drainedAfter < tickMs + 1000, qPrintable(QString::number(drainedAfter)));
    else
        QVERIFY2(drainedAfter >= boundMs && drainedAfter < boundMs + 1000,
                 qPrintable(QString::number(drainedAfter)));
}

void TestReplicaDrain::monitorReadsButCannotDrain()
{
    Replica r1(optionsFor("r1", profile(billingLines(200ms), {"billing"})));
    r1.start();
    Connection app = m_db->connect(Login::App);
    leader::lease::drainReplica(app, "r1", "alice@ops", "deploy", true);
    Connection monitor = m_db->connect(Login::Monitor);
    QTRY_VERIFY_WITH_TIMEOUT(leader::lease::drainProgress(monitor, "r1").drained, 10000);
    QCOMPARE(leader::lease::drainOrphans(monitor, "r1"), std::vector<std::string>{"billing"});
    QCOMPARE(QString::fromStdString(std::string(
                     monitor.exec("log", "SELECT by FROM leader_ext.leader_drain_log", {}, 5s)
                             .text(0, 0))),
             QStringLiteral("alice@ops"));
    const auto refused = [&](const std::function<void()> &write) {
        try {
            write();
        } catch (const leader::pg::Error &error) {
            return error.sqlstate() == leader::pg::sqlstate::InsufficientPrivilege;
        }
        return false;
    };
    QVERIFY(refused([&] { leader::lease::undrainReplica(monitor, "r1", "mallory", "x"); }));
    QVERIFY(refused([&] { leader::lease::drainReplica(monitor, "r1", "mallory", "x", true); }));
    QVERIFY(refused(
            [&] { leader::lease::drainBeat(monitor, r1.holderId(), false, std::nullopt, 5s); }));
    QVERIFY(refused(
            [&] { monitor.exec("write", "DELETE FROM leader_ext.leader_drain_log", {}, 5s); }));
    QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_replica_drains"), QStringLiteral("1"));
    r1.stop();
}

QTEST_GUILESS_MAIN(TestReplicaDrain)
#include "tst_replicadrain.moc"
