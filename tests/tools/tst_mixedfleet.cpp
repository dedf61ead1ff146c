// Mixed fleets (issue 50): our leader-replica and the ADR-literal reference replica
// (tests/fixtures/adr-replica) run the same roles at once, as real processes, both as the App
// login (hardcount_app only), straight to Postgres and through PgBouncer in transaction mode. Our
// replicas name a marker session for the early take; through PgBouncer it is a direct session
// (--listen-database). The ADR-literal replicas use the route under test.
//
// Checked on every run (cleanup()), from the database, from claim_log and from the events:
//  1. no two holders of a role at once: a lease whose token changed while the previous lease was
//     neither released nor expired (database clock) is allowed only as the early take
//     (took_over 'session_ended') of a replica of ours that the test had SIGKILLed before; and
//     per role, claim_log ordered by fenced_at never goes back to a smaller token;
//  2. tokens strictly increase per role;
//  and every acquired event of either kind is an ACQUIRE in the row log, at its db_time, and
//  every ACQUIRE of a replica that was not killed was announced.
// The row log is a test instrument: an AFTER trigger on leader_leases installed by the owner in
// this test's own database (initTestCase), never part of a migration.
//
// The run of the mixed fleet also checks that both kinds get ticks and claim (3), and that a
// SIGKILLed replica of either kind is replaced (4): ours early, theirs at the expiry. The sequence
// issue 50 found (5) and a pause with an end as the reference replica sees it (6) have functions
// of their own.
//
// Without 0189's protection (checked once, on 2026-12-07, PostgreSQL 15, direct and through
// PgBouncer): at the start of aNewReplicaOfOursLeavesTheirLiveLease the owner ran ALTER TABLE
// leader_leases DISABLE TRIGGER leader_leases_writes and installed a BEFORE UPDATE trigger setting
// NEW.holder_session_token := NEW.holder_token on every write. That is how the row looked to our
// ACQUIRE before 0189: a marker stays on it whoever moves the token. (Its took_over assertion was
// left out for that run: without the trigger the ADR's ACQUIRE writes no took_over.) The function
// then failed at its 25 s watch, about 0.3 s after the new replica started; see the comment above
// it. With the trigger disabled alone, it passed: our ACQUIRE's own token comparison refused the
// take, as tst_adrfleet notes.

#include "eventprocess.h"
#include "lease/constants.h"
#include "measurement.h"
#include "pg/connection.h"
#include "replicapath.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <signal.h>

using namespace std::chrono_literals;
using leader::test::EventProcess;
using leader::test::Login;
using leader::test::TestDatabase;

using leader::test::qs;

namespace {

constexpr auto Short = 5s;
// A process's clean stop: both kinds release their running ticks at once, as interrupted.
constexpr int StopDeadlineMs = 10'000;
// Our early take: the dead backend ends at once (direct; through PgBouncer the marker is the
// direct listen session), then the grace, the ACQUIRE and a margin for a loaded machine.
constexpr qint64 EarlyTakeWithinMs = 1500;
// A takeover at expiry: the contender polls at least every MaxPoll; this margin on top.
constexpr qint64 ExpiryMarginMs = 1000;

// The row log: every change of a leader_leases row with the statement's now(). A test
// instrument, installed by the owner in the test's own database; no migration has it.
constexpr std::string_view RowLogSql = R"sql(
CREATE TABLE mixedfleet_lease_log (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role            text NOT NULL,
    op              text NOT NULL,
    at              timestamptz NOT NULL,
    old_token       bigint,
    new_token       bigint,
    old_holder      text,
    new_holder      text,
    old_expires_at  timestamptz,
    new_expires_at  timestamptz,
    old_acquired_at timestamptz,
    new_acquired_at timestamptz,
    took_over       text,
    old_session     bigint,
    new_session     bigint,
    session_token   bigint
);
CREATE FUNCTION mixedfleet_log_lease() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        INSERT INTO public.mixedfleet_lease_log
               (role, op, at, old_token, new_token, old_holder, new_holder, old_expires_at,
                new_expires_at, old_acquired_at, new_acquired_at, took_over, old_session,
                new_session, session_token)
        VALUES (NEW.role, TG_OP, now(), OLD.holder_token, NEW.holder_token, OLD.holder_id,
                NEW.holder_id, OLD.expires_at, NEW.expires_at, OLD.acquired_at, NEW.acquired_at,
                NEW.took_over, OLD.holder_session, NEW.holder_session, NEW.holder_session_token);
    ELSE
        INSERT INTO public.mixedfleet_lease_log
               (role, op, at, new_token, new_holder, new_expires_at, new_acquired_at, took_over,
                new_session, session_token)
        VALUES (NEW.role, TG_OP, now(), NEW.holder_token, NEW.holder_id, NEW.expires_at,
                NEW.acquired_at, NEW.took_over, NEW.holder_session, NEW.holder_session_token);
    END IF;
    RETURN NULL;
END
$fn$;
CREATE TRIGGER mixedfleet_row_log AFTER INSERT OR UPDATE ON leader_leases
    FOR EACH ROW EXECUTE FUNCTION mixedfleet_log_lease();
)sql";

enum class Kind { Ours, Theirs, Tool };

QString kindName(Kind kind)
{
    switch (kind) {
    case Kind::Ours:
        return QStringLiteral("ours");
    case Kind::Theirs:
        return QStringLiteral("ADR-literal");
    case Kind::Tool:
        return QStringLiteral("tool");
    }
    return {};
}

// A PostgreSQL array literal of texts, each element quoted.
std::string arrayLiteral(const QStringList &items)
{
    std::string out = "{";
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += ',';
        out += '"';
        for (const char c : items[i].toStdString()) {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

// Polls condition (which may have side effects: it runs once per round) until it holds or the
// deadline passed; events are processed in between, so the children's output is read.
bool waitFor(int timeoutMs, const std::function<bool()> &condition)
{
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (condition())
            return true;
        if (waited.elapsed() > timeoutMs)
            return false;
        QTest::qWait(25);
    }
}

// One child process: a replica of either kind, or a tool, with what the checks know of it beyond
// its events.
struct Child final
{
    Child(Kind kind, QString id, const QString &program, const QStringList &arguments)
        : kind(kind)
        , id(std::move(id))
    {
        events.start(program, arguments);
    }

    QString describe()
    {
        return QStringLiteral("%1 (%2, %3)").arg(id, kindName(kind), events.holder());
    }

    const Kind kind;
    const QString id;
    // By the test's SIGKILL: it owes no clean stop, and its last ACQUIRE may be unannounced.
    bool killed = false;
    EventProcess events;
};

// A lease that was replaced, as the row log has it.
struct Takeover
{
    QString newHolder;
    QString tookOver;   // empty for NULL
    double afterKill;   // seconds, database clock
    double afterExpiry; // seconds from the replaced lease's expiry; negative: before it
};

} // namespace

class TestMixedFleet final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void aMixedFleetReplacesAKilledReplica_data();
    void aMixedFleetReplacesAKilledReplica();
    void aNewReplicaOfOursLeavesTheirLiveLease();
    void aPauseWithAnEndEndsForTheReferenceReplica();

private:
    leader::pg::Connection &owner() { return *m_owner; }
    QString field(const std::string &sql, std::initializer_list<leader::pg::Param> params = {});
    std::string dbClock() { return field("SELECT clock_timestamp()::text").toStdString(); }

    Child &startOurs(const QString &id, const QString &roles);
    Child &startTheirs(const QString &id, const QString &roles, const QString &interval,
                       const QString &poll);
    Child &startWorkload();
    std::vector<Child *> replicas(Kind kind);
    Child *byHolder(const QString &holder);
    QString describeHolder(const QString &holder);
    int acquisitions(Kind kind);
    // Kills the replica with SIGKILL and waits for its end. killedAt: the database's clock read
    // just before the signal, also recorded for check 1 when the replica is ours.
    void kill(Child &replica, std::string &killedAt);
    // The row log's replacement of role's lease token; nullopt while there is none.
    std::optional<Takeover> takeoverOf(const QString &role, qint64 token,
                                       const std::string &killedAt);
    // Each overlap check 1 does not allow, described; empty when there is none.
    QStringList disallowedOverlaps();
    void stopFleet();
    void verifyInvariants();
    // Each replica's log lines above INFO and those about its marker, and the tools' output: the
    // evidence beside a failure.
    void logReplicaWarnings();

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<leader::pg::Connection> m_owner; // straight to Postgres: the instrument
    std::unique_ptr<leader::pg::Connection> m_app;   // the route under test
    QTemporaryDir m_dir;
    QString m_config;
    std::vector<std::unique_ptr<Child>> m_children;
    // Replicas of ours the test SIGKILLed: holder id and the database instant before the signal.
    std::map<QString, std::string> m_killedOurs;
};

void TestMixedFleet::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(ADR_REPLICA_PATH)).isExecutable(), ADR_REPLICA_PATH);
    QVERIFY2(QFileInfo(leader::test::replicaPath()).isExecutable(),
             qPrintable(leader::test::replicaPath()));
    QVERIFY2(QFileInfo(QStringLiteral(LEADERCTL_PATH)).isExecutable(), LEADERCTL_PATH);
    QVERIFY(m_dir.isValid());
    m_db = std::make_unique<TestDatabase>("mixedfleet");
    m_db->migrateDemo();
    m_owner = std::make_unique<leader::pg::Connection>(m_db->connectDirect(Login::Owner));
    m_app = std::make_unique<leader::pg::Connection>(m_db->connect(Login::App));
    owner().execScript("install the row log", RowLogSql, Short);

    // Every role: a 1 s interval, ticks of at least 2 s (claiming what falls due meanwhile).
    QString profile;
    for (const char *role :
         {"billing", "dunning", "webhook_outbox", "email_outbox", "webhook_delivery"})
        profile += QStringLiteral("%1.interval = 1s\n%1.min_tick = 2s\n").arg(role);
    m_config = m_dir.filePath("fleet.conf");
    QFile file(m_config);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(profile.toUtf8()) > 0);
}

void TestMixedFleet::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
    owner().exec("empty the row log", "TRUNCATE mixedfleet_lease_log RESTART IDENTITY", {}, Short);
    m_killedOurs.clear();
}

void TestMixedFleet::cleanup()
{
    stopFleet();
    verifyInvariants();
    m_children.clear();
}

QString TestMixedFleet::field(const std::string &sql,
                              std::initializer_list<leader::pg::Param> params)
{
    const leader::pg::Result result = owner().exec("inspect", sql, params, Short);
    return result.rows() == 0 || result.isNull(0, 0) ? QString() : qs(result.text(0, 0));
}

Child &TestMixedFleet::startOurs(const QString &id, const QString &roles)
{
    // SIGTERM stops at once (--drain-on-sigterm off): its running ticks are cancelled and released
    // as interrupted, the path the failover benchmarks measure. Replica::stop used to close the
    // marker session before those RELEASEs committed, so another replica of ours could take the
    // stopping one's lease early: seen once on 2026-12-07 through PgBouncer (o2 took
    // webhook_outbox 47 ms after o1 had acquired it, took_over session_ended, o1 alive and
    // stopping; check 1 failed). Fixed: a clean stop keeps the marker until its ticks are
    // released (tst_replica cleanStopIsNeverTakenEarly).
    QStringList arguments;
    arguments << "--database" << qs(m_db->url(Login::App)) << "--config" << m_config << "--roles"
              << roles << "--id" << id << "--early-take"
              << "on"
              << "--drain-on-sigterm"
              << "off";
    // The marker session must be a direct one: PgBouncer's transaction mode holds no session lock.
    if (m_db->viaPgBouncer())
        arguments << "--listen-database" << qs(m_db->directUrl(Login::App));
    m_children.push_back(
            std::make_unique<Child>(Kind::Ours, id, leader::test::replicaPath(), arguments));
    return *m_children.back();
}

Child &TestMixedFleet::startTheirs(const QString &id, const QString &roles, const QString &interval,
                                   const QString &poll)
{
    m_children.push_back(std::make_unique<Child>(
            Kind::Theirs, id, QStringLiteral(ADR_REPLICA_PATH),
            QStringList{"--database", qs(m_db->url(Login::App)), "--id", id, "--roles", roles,
                        "--interval", interval, "--work", "2s", "--poll", poll, "--claim-table"}));
    return *m_children.back();
}

// Due work for our replicas' fenced claims: tenants with a subscription falling due, a webhook
// event and an email, 5 a second for the whole run.
Child &TestMixedFleet::startWorkload()
{
    m_children.push_back(std::make_unique<Child>(
            Kind::Tool, QStringLiteral("workload"), QStringLiteral(LEADERCTL_PATH),
            QStringList{"workload", "--database", qs(m_db->url(Login::App)), "--rate", "5",
                        "--duration", "120"}));
    return *m_children.back();
}

std::vector<Child *> TestMixedFleet::replicas(Kind kind)
{
    std::vector<Child *> found;
    for (const auto &child : m_children)
        if (child->kind == kind)
            found.push_back(child.get());
    return found;
}

Child *TestMixedFleet::byHolder(const QString &holder)
{
    for (const auto &child : m_children)
        if (child->kind != Kind::Tool && child->events.holder() == holder)
            return child.get();
    return nullptr;
}

QString TestMixedFleet::describeHolder(const QString &holder)
{
    Child *child = byHolder(holder);
    return child ? child->describe() : QStringLiteral("unknown holder %1").arg(holder);
}

int TestMixedFleet::acquisitions(Kind kind)
{
    int count = 0;
    for (Child *replica : replicas(kind))
        count += int(replica->events.all("acquired").size());
    return count;
}

void TestMixedFleet::kill(Child &replica, std::string &killedAt)
{
    killedAt = dbClock();
    if (replica.kind == Kind::Ours)
        m_killedOurs[replica.events.holder()] = killedAt;
    replica.killed = true;
    QCOMPARE(::kill(pid_t(replica.events.process().processId()), SIGKILL), 0);
    QVERIFY(replica.events.process().waitForFinished(StopDeadlineMs));
    QCOMPARE(replica.events.process().exitStatus(), QProcess::CrashExit);
}

std::optional<Takeover> TestMixedFleet::takeoverOf(const QString &role, qint64 token,
                                                   const std::string &killedAt)
{
    const leader::pg::Result row = owner().exec(
            "takeover",
            "SELECT new_holder, took_over, extract(epoch FROM at - $3::timestamptz), "
            "extract(epoch FROM at - old_expires_at) FROM mixedfleet_lease_log "
            "WHERE role = $1 AND old_token = $2 AND new_token <> old_token ORDER BY id LIMIT 1",
            {role.toStdString(), token, killedAt}, Short);
    if (row.rows() == 0)
        return std::nullopt;
    return Takeover{row.isNull(0, 0) ? QString() : qs(row.text(0, 0)),
                    row.isNull(0, 1) ? QString() : qs(row.text(0, 1)), row.toDouble(0, 2),
                    row.toDouble(0, 3)};
}

QStringList TestMixedFleet::disallowedOverlaps()
{
    QStringList holders;
    QStringList instants;
    for (const auto &[holder, at] : m_killedOurs) {
        holders << holder;
        instants << qs(at);
    }
    const leader::pg::Result rows
            = owner().exec("overlaps", R"sql(
SELECT l.role, l.old_holder, l.old_token, l.new_holder, l.new_token, l.at::text,
       round(extract(epoch FROM l.old_expires_at - l.at) * 1000)::bigint,
       coalesce(l.took_over, 'NULL'),
       k.killed_at IS NOT NULL AND l.at >= k.killed_at,
       coalesce(l.old_session::text, 'none'), coalesce(l.marked_for::text, 'none')
  FROM (SELECT g.*, lag(g.session_token) OVER (PARTITION BY g.role ORDER BY g.id) AS marked_for
          FROM mixedfleet_lease_log g) l
  LEFT JOIN unnest($1::text[], $2::timestamptz[]) AS k(holder, killed_at)
         ON k.holder = l.old_holder
 WHERE l.op = 'UPDATE' AND l.new_token IS DISTINCT FROM l.old_token
   AND l.old_holder IS NOT NULL AND l.old_expires_at > l.at
   AND NOT (k.killed_at IS NOT NULL AND l.at >= k.killed_at
            AND l.took_over IS NOT DISTINCT FROM 'session_ended')
 ORDER BY l.id
)sql",
                           {arrayLiteral(holders), arrayLiteral(instants)}, Short);
    QStringList found;
    for (int i = 0; i < rows.rows(); ++i)
        found << QStringLiteral("%1: %2 acquired token %3 at %4 while token %5 of %6 was live for "
                                "%7 ms more (took_over %8; %9; the row named marker %10, written "
                                "for token %11)")
                         .arg(qs(rows.text(i, 0)), describeHolder(qs(rows.text(i, 3))),
                              qs(rows.text(i, 4)), qs(rows.text(i, 5)), qs(rows.text(i, 2)),
                              describeHolder(qs(rows.text(i, 1))), qs(rows.text(i, 6)),
                              qs(rows.text(i, 7)),
                              rows.toBool(i, 8) ? QStringLiteral("its holder had been killed")
                                                : QStringLiteral("its holder was not killed"))
                         .arg(qs(rows.text(i, 9)), qs(rows.text(i, 10)));
    return found;
}

void TestMixedFleet::stopFleet()
{
    for (const auto &child : m_children)
        if (child->events.process().state() != QProcess::NotRunning)
            child->events.process().terminate();
    for (const auto &child : m_children) {
        if (child->events.process().state() != QProcess::NotRunning
            && !child->events.process().waitForFinished(StopDeadlineMs)) {
            qWarning().noquote() << child->id << "did not stop on SIGTERM; killed";
            child->events.process().kill();
            child->events.process().waitForFinished();
        }
    }
}

void TestMixedFleet::logReplicaWarnings()
{
    for (const auto &child : m_children) {
        QStringList lines;
        for (const QString &line : child->events.errors().split(u'\n', Qt::SkipEmptyParts))
            if (child->kind == Kind::Tool || !line.contains(" INFO ") || line.contains("marker"))
                lines << line;
        if (child->kind == Kind::Tool)
            lines << child->events.lines();
        if (!lines.isEmpty())
            qInfo().noquote() << child->describe() << "said:\n"
                              << lines.mid(lines.size() - 20).join(u'\n');
    }
}

// Checks 1 and 2, and the events against the row log. Every process has stopped.
void TestMixedFleet::verifyInvariants()
{
    // Each replica the test did not kill stopped cleanly.
    for (const auto &child : m_children) {
        if (child->kind == Kind::Tool || child->killed)
            continue;
        QVERIFY2(child->events.process().exitStatus() == QProcess::NormalExit
                         && child->events.process().exitCode() == 0,
                 qPrintable(child->describe() + ": " + child->events.errors()));
    }

    // 1. No two holders at once, but the early take of a killed replica of ours.
    const QStringList overlaps = disallowedOverlaps();
    if (!overlaps.isEmpty())
        logReplicaWarnings();
    QVERIFY2(overlaps.isEmpty(), qPrintable(overlaps.join(u'\n')));

    // 1, from the work: per role, no claim fenced after a claim of a greater token.
    const leader::pg::Result stale = owner().exec("stale claims", R"sql(
SELECT format('%s: claim_log %s (%s) fenced at %s under token %s after token %s had claimed',
              role, id, item, fenced_at, token, earlier)
  FROM (SELECT c.*, max(c.token) OVER (PARTITION BY c.role ORDER BY c.fenced_at
                                       RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
                                       EXCLUDE GROUP) AS earlier
          FROM claim_log c) s
 WHERE token < earlier
 ORDER BY fenced_at
 LIMIT 10
)sql",
                                                  {}, Short);
    QStringList staleClaims;
    for (int i = 0; i < stale.rows(); ++i)
        staleClaims << qs(stale.text(i, 0));
    QVERIFY2(staleClaims.isEmpty(), qPrintable(staleClaims.join(u'\n')));

    // 2. Tokens strictly increase per role: a changed token is greater than the one before it, in
    // the order the row's writes were serialized (its row lock).
    const leader::pg::Result backwards = owner().exec("tokens", R"sql(
SELECT format('%s: token %s at %s after %s', role, new_token, at, greatest(old_token, previous))
  FROM (SELECT l.*, lag(l.new_token) OVER (PARTITION BY l.role ORDER BY l.id) AS previous
          FROM mixedfleet_lease_log l) s
 WHERE new_token < old_token OR new_token < previous
 LIMIT 10
)sql",
                                                      {}, Short);
    QStringList regressions;
    for (int i = 0; i < backwards.rows(); ++i)
        regressions << qs(backwards.text(i, 0));
    QVERIFY2(regressions.isEmpty(), qPrintable(regressions.join(u'\n')));

    // Both kinds' events against the row log: each acquired event is an ACQUIRE there, with the
    // holder, the token and the statement's now(); each ACQUIRE of a replica that was not killed
    // was announced by one.
    QStringList tokens;
    QStringList holders;
    QStringList times;
    QStringList announcing;
    for (const auto &child : m_children) {
        if (child->kind == Kind::Tool)
            continue;
        for (const QJsonObject &acquired : child->events.all("acquired")) {
            tokens << QString::number(acquired.value("token").toInteger());
            holders << acquired.value("holder").toString();
            times << acquired.value("db_time").toString();
        }
        if (!child->killed)
            announcing << child->events.holder();
    }
    const leader::pg::Result unmatched
            = owner().exec("events", R"sql(
SELECT format('acquired event of %s, token %s at %s: no such ACQUIRE in the row log', e.holder,
              e.token, e.db_time)
  FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS e(token, holder, db_time)
 WHERE NOT EXISTS (SELECT FROM mixedfleet_lease_log l
                    WHERE l.new_token = e.token AND l.new_holder = e.holder
                      AND l.at = e.db_time AND l.old_token IS DISTINCT FROM l.new_token)
UNION ALL
SELECT format('%s acquired %s (token %s) at %s: no acquired event', l.new_holder, l.role,
              l.new_token, l.at)
  FROM mixedfleet_lease_log l
 WHERE l.new_holder = ANY ($4::text[]) AND l.old_token IS DISTINCT FROM l.new_token
   AND NOT EXISTS (SELECT FROM unnest($1::bigint[], $2::text[]) AS e(token, holder)
                    WHERE e.token = l.new_token AND e.holder = l.new_holder)
 LIMIT 10
)sql",
                           {arrayLiteral(tokens), arrayLiteral(holders), arrayLiteral(times),
                            arrayLiteral(announcing)},
                           Short);
    QStringList mismatches;
    for (int i = 0; i < unmatched.rows(); ++i)
        mismatches << qs(unmatched.text(i, 0));
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(u'\n')));
}

void TestMixedFleet::aMixedFleetReplacesAKilledReplica_data()
{
    QTest::addColumn<bool>("killOurs");
    QTest::addColumn<QString>("tookOver");
    // Taken early by our other replica: its marker session ended with the process.
    QTest::newRow("ours killed") << true << QStringLiteral("session_ended");
    // Nobody can take it early: its row names no marker. Taken at its expiry, by either kind.
    QTest::newRow("theirs killed") << false << QStringLiteral("expired");
}

// Two replicas of each kind, every one running the five roles, with due work for ours
// (leaderctl workload) and claims into claim_log for theirs. Both kinds tick and claim (check 3);
// then one replica is SIGKILLed mid-tick, while it holds a role it acquired within the last half
// second, and its lease is taken as its kind allows (check 4); checks 1 and 2 in cleanup().
//
// A role does not pass between the kinds by itself: after its own RELEASE our replica is woken by
// its notification and ACQUIREs about 5 ms after the role is due again, before a reference
// replica's next poll; the reference replica's holder polls again on its own phase and learns
// nothing from ours, while ours reads a role they hold only every MaxPoll. Measured on 2026-12-07
// with the same interval (1 s) for both kinds, two of each on the five roles: which kind led the
// roles was decided by chance and stayed so (ours 49 ticks, theirs 10 over 45 s; ours 0, theirs
// 50 in 30 s; with --poll 500ms, a divisor of the interval, theirs 48, ours 2 in 30 s). So the
// intervals decide it here: the reference replicas' billing and dunning are due 500 ms after a
// tick, before ours (1 s), and they keep them; their outbox roles only 4 s after, so ours takes
// those at its first reading in that gap, and keeps them.
void TestMixedFleet::aMixedFleetReplacesAKilledReplica()
{
    QFETCH(bool, killOurs);
    QFETCH(QString, tookOver);
    const QString all = QStringLiteral("billing,dunning,webhook_outbox,email_outbox,"
                                       "webhook_delivery");
    const QString theirIntervals = QStringLiteral("billing=500ms,dunning=500ms,4s");

    // The reference replicas first, as the product's fleet that ours join.
    startTheirs("a1", all, theirIntervals, "300ms");
    startTheirs("a2", all, theirIntervals, "300ms");
    QTRY_VERIFY_WITH_TIMEOUT(
            replicas(Kind::Theirs)[0]->events.find("started").has_value()
                    && replicas(Kind::Theirs)[1]->events.find("started").has_value(),
            10000);
    startOurs("o1", all);
    startOurs("o2", all);
    startWorkload();
    QTRY_VERIFY_WITH_TIMEOUT(replicas(Kind::Ours)[0]->events.find("started").has_value()
                                     && replicas(Kind::Ours)[1]->events.find("started").has_value(),
                             10000);
    for (Child *replica : replicas(Kind::Ours))
        QCOMPARE(replica->events.find("started")->value("early_take").toBool(), true);

    // 3. Both kinds tick and claim: ours through the demo domain's fenced claims, theirs into
    // claim_log directly.
    const auto claims = [this](bool adr) {
        return field(std::string("SELECT count(*) FROM claim_log WHERE item ")
                     + (adr ? "LIKE" : "NOT LIKE") + " 'adr:%'")
                .toInt();
    };
    const auto counts = [&] {
        return QStringLiteral("acquisitions: ours %1, theirs %2; claims: ours %3, theirs %4")
                .arg(acquisitions(Kind::Ours))
                .arg(acquisitions(Kind::Theirs))
                .arg(claims(false))
                .arg(claims(true));
    };
    const bool ticked = waitFor(30000, [&] {
        return acquisitions(Kind::Ours) >= 3 && acquisitions(Kind::Theirs) >= 3 && claims(false) > 0
               && claims(true) > 0;
    });
    if (!ticked)
        logReplicaWarnings();
    QVERIFY2(ticked, qPrintable(counts()));
    qInfo().noquote() << "before the kill:" << counts();

    // The victim: a replica of the kind holding a role it has just acquired (so it is mid-tick
    // for more than a second yet); ours with its marker named on the row, for this lease.
    const Kind victimKind = killOurs ? Kind::Ours : Kind::Theirs;
    QStringList candidates;
    for (Child *replica : replicas(victimKind))
        candidates << replica->events.holder();
    QString role;
    QString victimHolder;
    qint64 token = 0;
    const bool found = waitFor(20000, [&] {
        const leader::pg::Result held
                = owner().exec("victim",
                               "SELECT role, holder_id, holder_token FROM leader_leases "
                               "WHERE holder_id = ANY ($1::text[]) AND expires_at > now() "
                               "AND acquired_at > now() - interval '500 milliseconds' "
                               "AND ($2::text = 'theirs' OR (holder_session IS NOT NULL "
                               "AND holder_session_token = holder_token)) "
                               "ORDER BY acquired_at DESC LIMIT 1",
                               {arrayLiteral(candidates), killOurs ? "ours" : "theirs"}, Short);
        if (held.rows() == 0)
            return false;
        role = qs(held.text(0, 0));
        victimHolder = qs(held.text(0, 1));
        token = held.toInt64(0, 2);
        return true;
    });
    QVERIFY2(found, qPrintable(QStringLiteral("no %1 replica held a fresh lease; %2")
                                       .arg(kindName(victimKind), counts())));
    Child *victim = byHolder(victimHolder);
    QVERIFY(victim);
    std::string killedAt;
    kill(*victim, killedAt);
    if (QTest::currentTestFailed())
        return;

    // Replaced: ours early by our other replica, theirs once its lease expired.
    const int deadline = killOurs ? 5000
                                  : int((leader::lease::LeaseTTL + leader::lease::MaxPoll).count()
                                        + ExpiryMarginMs + 2000);
    std::optional<Takeover> takeover;
    QVERIFY2(waitFor(deadline,
                     [&] { return (takeover = takeoverOf(role, token, killedAt)).has_value(); }),
             qPrintable(QStringLiteral("%1 of %2 not taken").arg(role, victim->describe())));
    QCOMPARE(takeover->tookOver, tookOver);
    Child *successor = byHolder(takeover->newHolder);
    QVERIFY2(successor, qPrintable(takeover->newHolder));
    if (killOurs) {
        QCOMPARE(successor->kind, Kind::Ours);
        QVERIFY(successor != victim);
        leader::test::reportMeasurement(
                QStringLiteral("%1 killed mid-tick holding %2: taken early by %3 %4 ms after the "
                               "kill, %5 ms before its expiry")
                        .arg(victim->describe(), role, successor->id)
                        .arg(qRound64(takeover->afterKill * 1000))
                        .arg(qRound64(-takeover->afterExpiry * 1000)));
        QVERIFY2(takeover->afterKill * 1000 <= EarlyTakeWithinMs,
                 qPrintable(QString::number(takeover->afterKill)));
    } else {
        leader::test::reportMeasurement(
                QStringLiteral("%1 killed mid-tick holding %2: taken at expiry by %3 (%4) %5 ms "
                               "after the expiry, %6 ms after the kill")
                        .arg(victim->describe(), role, successor->id, kindName(successor->kind))
                        .arg(qRound64(takeover->afterExpiry * 1000))
                        .arg(qRound64(takeover->afterKill * 1000)));
        QVERIFY2(takeover->afterExpiry >= 0, qPrintable(QString::number(takeover->afterExpiry)));
        QVERIFY2(takeover->afterExpiry * 1000 <= leader::lease::MaxPoll.count() + ExpiryMarginMs,
                 qPrintable(QString::number(takeover->afterExpiry)));
    }
    qInfo().noquote() << "over the run:" << counts();
}

// The sequence issue 50 found, on billing only: ours holds billing and is SIGKILLed; the
// reference replica takes it at its expiry; a new replica of ours starts at once. Before 0189 the
// row still named the dead replica's marker after the reference replica's ACQUIRE, which never
// writes holder_session, and the new replica took that live lease early. For the next 25 s the new
// replica must leave it alone (check 1 catches it at once).
//
// Without 0189's protection (see the top of the file for how) this failed, straight to Postgres:
//   FAIL!  : TestMixedFleet::aNewReplicaOfOursLeavesTheirLiveLease() 'overlaps.isEmpty()'
//   returned FALSE. (billing: o2 (ours, vm:15680:4cf2a9bc) acquired token 1796660305752 at
//   2026-12-07 16:18:25.752124+00 while token 1796660295396 of a1 (ADR-literal,
//   vm:15563:fb0b4b39) was live for 9676 ms more (took_over session_ended; its holder was not
//   killed))
// and through PgBouncer the same, live for 9694 ms more; cleanup()'s check 1 then said it again.
// (The message has since gained the marker the row named and the token it was written for.)
void TestMixedFleet::aNewReplicaOfOursLeavesTheirLiveLease()
{
    Child &first = startOurs("o1", "billing");
    // Ours holds billing with its marker named for this lease, acquired just now.
    std::optional<qint64> token;
    const auto freshlyHeld = [&](const QString &holder, bool marker) {
        const leader::pg::Result held = owner().exec(
                "held",
                "SELECT holder_token FROM leader_leases WHERE role = 'billing' AND holder_id = $1 "
                "AND expires_at > now() AND acquired_at > now() - interval '500 milliseconds' "
                "AND (NOT $2::boolean OR (holder_session IS NOT NULL "
                "AND holder_session_token = holder_token))",
                {holder.toStdString(), marker ? "true" : "false"}, Short);
        token = held.rows() == 1 ? std::optional<qint64>(held.toInt64(0, 0)) : std::nullopt;
        return token.has_value();
    };
    QTRY_VERIFY_WITH_TIMEOUT(first.events.find("acquired").has_value(), 10000);
    Child &adr = startTheirs("a1", "billing", "1s", "300ms");
    QTRY_VERIFY_WITH_TIMEOUT(adr.events.find("started").has_value(), 10000);
    QVERIFY2(waitFor(20000, [&] { return freshlyHeld(first.events.holder(), true); }),
             "ours never held billing afresh with its marker named");
    std::string killedAt;
    kill(first, killedAt);
    if (QTest::currentTestFailed())
        return;

    // The reference replica takes it at its expiry.
    std::optional<Takeover> takeover;
    QVERIFY2(waitFor(int((leader::lease::LeaseTTL + leader::lease::MaxPoll).count() + ExpiryMarginMs
                         + 2000),
                     [&] {
                         return (takeover = takeoverOf("billing", *token, killedAt)).has_value();
                     }),
             "the killed replica's billing was never taken");
    QCOMPARE(takeover->newHolder, adr.events.holder());
    QCOMPARE(takeover->tookOver, QStringLiteral("expired"));
    QVERIFY2(takeover->afterExpiry >= 0, qPrintable(QString::number(takeover->afterExpiry)));

    // A new replica of ours, at once: the reference replica's tick has about 2 s to run.
    Child &second = startOurs("o2", "billing");
    QTRY_VERIFY_WITH_TIMEOUT(second.events.find("started").has_value(), 10000);
    QCOMPARE(second.events.find("started")->value("early_take").toBool(), true);
    leader::test::reportMeasurement(
            QStringLiteral("issue 50: billing taken at expiry by %1 %2 ms after it; %3 started")
                    .arg(adr.id)
                    .arg(qRound64(takeover->afterExpiry * 1000))
                    .arg(second.id));
    // For 25 s, no overlap: this wait ends early only on one.
    QStringList overlaps;
    waitFor(25000, [&] { return !(overlaps = disallowedOverlaps()).isEmpty(); });
    QVERIFY2(overlaps.isEmpty(), qPrintable(overlaps.join(u'\n')));
    // It could have taken early: its marker was held all along.
    QCOMPARE(field("SELECT marker_held FROM leader_ext.leader_replicas_status WHERE holder_id = $1",
                   {second.events.holder().toStdString()}),
             QStringLiteral("t"));
    qInfo().noquote() << QStringLiteral("after the restart: %1 acquired billing %2 times, %3 %4 "
                                        "times")
                                 .arg(second.id)
                                 .arg(second.events.all("acquired").size())
                                 .arg(adr.id)
                                 .arg(adr.events.all("acquired").size());
}

// Issue 50, deliverable 4: a pause with an end ends for replicas that speak only the ADR. Three
// reference replicas race for billing (polling every 200 ms); the app pauses it for 3 s. None of
// them acquires before the end, one does within 1 s after it; until then leader_ext.leader_status
// said paused until the end and the ADR's leader_status said cooling (not_before the end); the
// pause log records an expiry at exactly the end. scripts/test-matrix.sh runs this function alone
// on PostgreSQL 14 to 18.
void TestMixedFleet::aPauseWithAnEndEndsForTheReferenceReplica()
{
    for (const char *id : {"a1", "a2", "a3"})
        startTheirs(id, "billing", "1s", "200ms");
    QTRY_VERIFY_WITH_TIMEOUT(acquisitions(Kind::Theirs) >= 1, 10000);
    for (Child *replica : replicas(Kind::Theirs))
        QTRY_VERIFY_WITH_TIMEOUT(replica->events.find("started").has_value(), 10000);
    const QString logFrom = field("SELECT coalesce(max(id), 0) FROM leader_ext.leader_pause_log");

    // Paused as the App login, as any product replica's role may; the end on the database clock.
    const leader::pg::Result paused = m_app->exec(
            "pause",
            "SELECT leader_ext.leader_pause('billing', 'tst_mixedfleet', 'a pause with an end', "
            "now() + interval '3 seconds')::text, (now() + interval '3 seconds')::text",
            {}, Short);
    const std::string pausedAt(paused.text(0, 0));
    const std::string end(paused.text(0, 1));

    // Until the first acquisition after the pause: while the database's clock is before the end,
    // both views say so.
    int readings = 0;
    std::optional<QJsonObject> after;
    QStringList wrong;
    const bool acquired = waitFor(3000 + 1000 + 2000, [&] {
        const leader::pg::Result status = m_app->exec(
                "status",
                "SELECT now() < $1::timestamptz, e.state, e.paused_until = $1::timestamptz, "
                "a.state, a.not_before = $1::timestamptz "
                "FROM leader_ext.leader_status e JOIN leader_status a USING (role) "
                "WHERE role = 'billing'",
                {end}, Short);
        if (status.toBool(0, 0)) {
            ++readings;
            if (qs(status.text(0, 1)) != "paused" || !status.toBool(0, 2)
                || qs(status.text(0, 3)) != "cooling" || !status.toBool(0, 4))
                wrong << QStringLiteral("leader_ext.leader_status %1 (until the end: %2), "
                                        "leader_status %3 (not_before the end: %4)")
                                 .arg(qs(status.text(0, 1)), qs(status.text(0, 2)),
                                      qs(status.text(0, 3)), qs(status.text(0, 4)));
        }
        // The first acquisition after the pause, if any yet: compared on the database's terms.
        QStringList times;
        QList<QJsonObject> events;
        for (Child *replica : replicas(Kind::Theirs)) {
            for (const QJsonObject &event : replica->events.all("acquired")) {
                times << event.value("db_time").toString();
                events << event;
            }
        }
        const leader::pg::Result first = owner().exec(
                "first after the pause",
                "SELECT i FROM unnest($1::timestamptz[]) WITH ORDINALITY AS e(at, i) "
                "WHERE at > $2::timestamptz ORDER BY at LIMIT 1",
                {arrayLiteral(times), pausedAt}, Short);
        if (first.rows() == 1)
            after = events[qsizetype(first.toInt64(0, 0) - 1)];
        return after.has_value();
    });
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(u'\n')));
    QVERIFY2(readings > 0, "the pause's end came before the first reading");
    QVERIFY2(acquired, "nobody acquired billing after the pause's end");
    const std::string at = after->value("db_time").toString().toStdString();
    const double sinceEnd
            = field("SELECT extract(epoch FROM $1::timestamptz - $2::timestamptz)", {at, end})
                      .toDouble();
    leader::test::reportMeasurement(
            QStringLiteral("pause with an end: billing acquired by %1 %2 ms after the end")
                    .arg(after->value("replica").toString())
                    .arg(qRound64(sinceEnd * 1000)));
    QVERIFY2(sinceEnd >= 0, qPrintable(QString::number(sinceEnd)));
    QVERIFY2(sinceEnd < 1.0, qPrintable(QString::number(sinceEnd)));

    // The log: the pause, then its expiry at exactly the end.
    QTRY_COMPARE_WITH_TIMEOUT(
            field("SELECT string_agg(action || CASE WHEN action = 'expire' "
                  "THEN ' at the end: ' || (at = $2::timestamptz) ELSE '' END, ', ' ORDER BY id) "
                  "FROM leader_ext.leader_pause_log WHERE role = 'billing' AND id > $1",
                  {logFrom.toStdString(), end}),
            QStringLiteral("pause, expire at the end: true"), 2000);
    qInfo().noquote()
            << QStringLiteral("pause with an end: %1 status readings before it").arg(readings);
}

QTEST_GUILESS_MAIN(TestMixedFleet)
#include "tst_mixedfleet.moc"
