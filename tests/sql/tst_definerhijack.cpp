// Issue 31, finding 1: a member of hardcount_app who may create objects plants operators, functions
// and tables under every name the SECURITY DEFINER functions (the lease schema's and leader_ext's)
// use, in every schema it can create in (public, where the lease schema lives, granted after the
// migration as PostgreSQL before 15 grants it to everyone; a schema of its own; its pg_temp), and
// calls every function through every branch. A planted object that ran inside a definer function
// would run as the owner and write its current_user to the log; none may. And the migrator refuses
// a schema where PUBLIC or an app or monitor role may create (leader_ext too), with the REVOKE
// that fixes it.
//
// Mutation checks, each done once: with migration 0181 rolled back after the migration (its down
// script restores the functions of 0177 and 0178, their search_path the lease schema) both
// planted... tests fail: leader_pause's "already paused" branch ran public.||(text, timestamptz)
// twice and its recreate-a-missing-row branch public.*(numeric, integer), all as lt_owner; and
// everyDefinerFunctionIsPinned names all seven (checked again with the extensions in leader_ext).
// Without Migrator's refuseCreatableSchemas the rows of migratorRefusesACreatableSchema fail (the
// migrations were applied); without leader_ext in its query, the row "leader_ext, to the app
// role" does (checked once). Without the GRANT the refusal adds when the owner creates only
// through the grant it revokes (me_keeps_create; public as PostgreSQL 14 installs it), the row
// "PUBLIC, in a schema another login owns" fails (checked once). Its REVOKE alone was the advice
// on PostgreSQL 14, where leaderctl migrate then stopped at "permission denied for schema public".

#include "lease/statements.h"
#include "pg/error.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <algorithm>
#include <memory>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::loginName;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;

// The operators and functions the definer bodies use, each planted with the same name and argument
// types; the planted one logs and then does what pg_catalog's does, so a hijacked body runs on.
struct Operator
{
    const char *name;
    const char *left;
    const char *right;
    const char *result;
};

constexpr Operator Operators[] = {
        {"||", "text", "timestamptz", "text"},
        {"||", "text", "text", "text"},
        {"=", "text", "text", "boolean"},
        {"<>", "text", "text", "boolean"},
        {"<", "timestamptz", "timestamptz", "boolean"},
        {"<=", "timestamptz", "timestamptz", "boolean"},
        {">", "timestamptz", "timestamptz", "boolean"},
        {"+", "timestamptz", "interval", "timestamptz"},
        {"-", "timestamptz", "interval", "timestamptz"},
        {"*", "numeric", "integer", "numeric"},
        {"-", "timestamptz", "timestamptz", "interval"},
};

struct Function
{
    const char *name;
    const char *arguments; // types, as in the signature
    const char *call;      // pg_catalog's, with $n
    const char *result;
};

constexpr Function Functions[] = {
        {"now", "", "pg_catalog.now()", "timestamptz"},
        {"clock_timestamp", "", "pg_catalog.clock_timestamp()", "timestamptz"},
        {"btrim", "text", "pg_catalog.btrim($1)", "text"},
        {"quote_literal", "text", "pg_catalog.quote_literal($1)", "text"},
        {"pg_notify", "text, text", "pg_catalog.pg_notify($1, $2)", "void"},
        {"set_config", "text, text, boolean", "pg_catalog.set_config($1, $2, $3)", "text"},
        {"current_setting", "text, boolean", "pg_catalog.current_setting($1, $2)", "text"},
        {"pg_has_role", "name, oid, text", "pg_catalog.pg_has_role($1, $2, $3)", "boolean"},
        {"replace", "text, text, text", "pg_catalog.replace($1, $2, $3)", "text"},
        // leader_backlog_register and leader_backlog (0186).
        {"length", "text", "pg_catalog.length($1)", "integer"},
        {"left", "text, integer", "pg_catalog.left($1, $2)", "text"},
        {"split_part", "text, text, integer", "pg_catalog.split_part($1, $2, $3)", "text"},
        {"regexp_replace", "text, text, text, text", "pg_catalog.regexp_replace($1, $2, $3, $4)",
         "text"},
        {"date_part", "text, interval", "pg_catalog.date_part($1, $2)", "double precision"},
        {"has_schema_privilege", "name, oid, text", "pg_catalog.has_schema_privilege($1, $2, $3)",
         "boolean"},
};

// The tables the bodies write, shadowed under their bare names; any write to a shadow is logged.
constexpr const char *Tables[] = {"leader_leases", "leader_pause_log", "leader_replicas"};

std::string plantSql(const std::string &schema)
{
    const auto logged = [&](const std::string &what) {
        return "INSERT INTO attic.hijack_log (what) VALUES ('" + schema + "." + what + "'); ";
    };
    std::string sql;
    int n = 0;
    for (const Operator &op : Operators) {
        const std::string function = schema + ".planted_op" + std::to_string(++n);
        const std::string returned
                = std::string(op.result) == "text" && std::string(op.right) == "timestamptz"
                          ? "$1 OPERATOR(pg_catalog.||) $2::text"
                          : std::string("$1 OPERATOR(pg_catalog.") + op.name + ") $2";
        sql += "CREATE FUNCTION " + function + "(" + op.left + ", " + op.right + ") RETURNS "
               + op.result + " LANGUAGE plpgsql AS $p$ BEGIN " + logged(op.name) + "RETURN "
               + returned + "; END $p$;\n";
        sql += "CREATE OPERATOR " + schema + "." + op.name + " (LEFTARG = " + op.left
               + ", RIGHTARG = " + op.right + ", FUNCTION = " + function + ");\n";
    }
    for (const Function &f : Functions) {
        const bool isVoid = std::string(f.result) == "void";
        sql += "CREATE FUNCTION " + schema + "." + f.name + "(" + f.arguments + ") RETURNS "
               + f.result + " LANGUAGE plpgsql AS $p$ BEGIN " + logged(f.name)
               + (isVoid ? std::string("PERFORM ") + f.call + "; RETURN;"
                         : std::string("RETURN ") + f.call + ";")
               + " END $p$;\n";
    }
    sql += "CREATE FUNCTION " + schema
           + ".planted_max(bigint, bigint) RETURNS bigint LANGUAGE plpgsql AS $p$ BEGIN "
           + logged("max") + "RETURN pg_catalog.greatest($1, $2); END $p$;\n";
    sql += "CREATE AGGREGATE " + schema + ".max(bigint) (SFUNC = " + schema
           + ".planted_max, STYPE = bigint);\n";
    // The demo's backlog sources (1003) count and take the earliest instant.
    sql += "CREATE FUNCTION " + schema
           + ".planted_min(timestamptz, timestamptz) RETURNS timestamptz LANGUAGE plpgsql AS $p$ "
             "BEGIN "
           + logged("min") + "RETURN pg_catalog.least($1, $2); END $p$;\n";
    sql += "CREATE AGGREGATE " + schema + ".min(timestamptz) (SFUNC = " + schema
           + ".planted_min, STYPE = timestamptz);\n";
    sql += "CREATE FUNCTION " + schema
           + ".planted_count(bigint) RETURNS bigint LANGUAGE plpgsql AS $p$ BEGIN "
           + logged("count") + "RETURN $1 OPERATOR(pg_catalog.+) 1; END $p$;\n";
    sql += "CREATE AGGREGATE " + schema + ".count(*) (SFUNC = " + schema
           + ".planted_count, STYPE = bigint, INITCOND = '0');\n";
    for (const char *table : Tables) {
        if (schema == "public" && std::string(table) == "leader_leases")
            continue; // the lease schema: the real table (the others live in leader_ext)
        const std::string qualified = schema + "." + table;
        sql += std::string("CREATE ") + (schema == "pg_temp" ? "TEMPORARY " : "") + "TABLE "
               + qualified + " (id bigint, role text, holder_id text);\n";
        sql += "CREATE TRIGGER planted AFTER INSERT OR UPDATE OR DELETE ON " + qualified
               + " FOR EACH STATEMENT EXECUTE FUNCTION attic.log_write();\n";
    }
    return sql;
}

} // namespace

class TestDefinerHijack final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void plantedObjectsNeverRunAsTheOwner();
    void temporaryShadowsNeverRunAsTheOwner();
    void everyDefinerFunctionIsPinned();
    void backlogRunsNoPlantedObject();
    void migratorRefusesACreatableSchema_data();
    void migratorRefusesACreatableSchema();

private:
    // Every branch of every definer function, called by app; the owner moves pause ends into the
    // past and deletes a row, as time and an accident would.
    void callEveryBranch(Connection &app);
    void expectRefused(Connection &app, const std::string &sql);
    QString ranAsSomeoneElse();

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_owner;
    // Empty before each row of migratorRefusesACreatableSchema.
    std::unique_ptr<TestDatabase> m_fresh;
};

void TestDefinerHijack::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("definerhijack");
    // With the demo: its backlog sources (1003) are definer functions leader_backlog runs.
    m_db->migrateDemo();
    m_fresh = std::make_unique<TestDatabase>("definerhijack_fresh");
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
    // The mistake the definer functions must survive: the app may create in the lease schema
    // (public here), and in a schema of its own.
    m_owner->execScript("open schemas", R"sql(
GRANT CREATE ON SCHEMA public TO hardcount_app;
CREATE SCHEMA attic;
GRANT USAGE, CREATE ON SCHEMA attic TO hardcount_app;
)sql",
                        Short);
    Connection app = m_db->connect(Login::App);
    app.execScript("log", R"sql(
CREATE TABLE attic.hijack_log (who name NOT NULL DEFAULT current_user, what text NOT NULL);
GRANT INSERT, SELECT ON attic.hijack_log TO PUBLIC;
CREATE FUNCTION attic.log_write() RETURNS trigger LANGUAGE plpgsql AS $p$
BEGIN
    INSERT INTO attic.hijack_log (what) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
    RETURN NULL;
END $p$;
)sql",
                   Short);
    // Every schema the app can create in, as the app sees it (its own pg_temp aside: that one is
    // per session, planted in temporaryShadowsNeverRunAsTheOwner).
    const leader::pg::Result schemas
            = app.exec("creatable",
                       "SELECT nspname FROM pg_namespace WHERE has_schema_privilege(oid, 'CREATE') "
                       "AND nspname NOT LIKE 'pg\\_%' ORDER BY nspname",
                       {}, Short);
    QStringList names;
    for (int row = 0; row < schemas.rows(); ++row)
        names << QString::fromUtf8(schemas.text(row, 0));
    QCOMPARE(names, QStringList({"attic", "public"}));
    for (const QString &schema : names)
        app.execScript("plant", plantSql(schema.toStdString()), Short);
}

QString TestDefinerHijack::ranAsSomeoneElse()
{
    const leader::pg::Result result = m_owner->exec(
            "hijacks",
            // format, not ||: this query runs as the owner, and the planted || is on its path.
            "SELECT coalesce(string_agg(format('%s ran %s', who, what), ', '), '') "
            "FROM attic.hijack_log WHERE who <> $1::name",
            {loginName(Login::App)}, Short);
    return QString::fromUtf8(result.text(0, 0));
}

void TestDefinerHijack::expectRefused(Connection &app, const std::string &sql)
{
    try {
        app.exec("refused", sql, {}, Short);
        QFAIL(qPrintable("accepted: " + QString::fromStdString(sql)));
    } catch (const leader::pg::Error &error) {
        QVERIFY2(error.sqlstate() == "22023", qPrintable(QString::fromStdString(error.what())));
    }
}

void TestDefinerHijack::callEveryBranch(Connection &app)
{
    m_db->resetLeases();
    m_owner->exec("clear", "TRUNCATE leader_ext.leader_pause_log", {}, Short);
    const auto call = [&app](const std::string &sql) {
        return std::string(app.exec("call", sql, {}, Short).text(0, 0));
    };
    const auto endPauseNow = [this](const char *role) {
        m_db->endPauseNow(role);
    };
    // leader_pause: pauses; already paused without and with an end (the notice's ||); refused.
    call("SELECT leader_pause('billing', 'alice', 'first')");
    call("SELECT leader_pause('billing', 'bob', 'second')");
    call("SELECT leader_ext.leader_pause('dunning', 'alice', 'first', now() + interval '1 hour')");
    call("SELECT leader_ext.leader_pause('dunning', 'bob', 'second', now() + interval '2 hours')");
    expectRefused(app, "SELECT leader_pause('payroll', 'alice', 'why')");
    expectRefused(app, "SELECT leader_pause('billing', ' ', 'why')");
    expectRefused(
            app,
            "SELECT leader_ext.leader_pause('email_outbox', 'a', 'b', now() - interval '1 s')");
    // leader_unpause: both forms, paused and not, an unknown role.
    QCOMPARE(call("SELECT leader_unpause('billing')"), std::string("t"));
    QCOMPARE(call("SELECT leader_unpause('billing')"), std::string("f"));
    QCOMPARE(call("SELECT leader_ext.leader_unpause('dunning', 'carol', 'back')"),
             std::string("t"));
    expectRefused(app, "SELECT leader_unpause('payroll')");
    expectRefused(app, "SELECT leader_ext.leader_unpause('payroll', 'carol', 'back')");
    // Pauses whose end has passed: a re-pause and an unpause log the expiry (the trigger).
    call("SELECT leader_ext.leader_pause('webhook_outbox', 'alice', 'w', now() + interval '1 "
         "hour')");
    endPauseNow("webhook_outbox");
    call("SELECT leader_pause('webhook_outbox', 'bob', 'again')");
    call("SELECT leader_ext.leader_pause('webhook_delivery', 'alice', 'w', now() + interval '1 "
         "hour')");
    endPauseNow("webhook_delivery");
    QCOMPARE(call("SELECT leader_ext.leader_unpause('webhook_delivery', 'carol', 'late')"),
             std::string("f"));
    // ACQUIRE, RENEW and RELEASE as the app: the claim clears an expired pause (the trigger, and
    // the guard as the app), the release stamps a completed tick.
    call("SELECT leader_ext.leader_pause('email_outbox', 'alice', 'e', now() + interval '1 hour')");
    endPauseNow("email_outbox");
    const auto acquired = leader::lease::acquire(app, "email_outbox", "app:1:00000001", 0ms);
    QVERIFY(acquired.has_value());
    QVERIFY(leader::lease::renew(app, "email_outbox", acquired->token, "app:1:00000001"));
    QVERIFY(leader::lease::release(app, {.role = "email_outbox",
                                         .token = acquired->token,
                                         .holderId = "app:1:00000001",
                                         .outcome = leader::lease::Outcome::Completed}));
    // The tick's record (0184), with an error to mask: regexp_replace, left, split_part.
    QCOMPARE(call("SELECT leader_ext.leader_tick_record('email_outbox', "
                  + std::to_string(acquired->token)
                  + ", 'app:1:00000001', 'completed', NULL, 5, 'step', 'x password=y')::text"),
             std::string("true"));
    // A missing row is recreated paused.
    m_owner->exec("lose a row", "DELETE FROM leader_leases WHERE role = 'billing'", {}, Short);
    call("SELECT leader_pause('billing', 'alice', 'recreated')");
    QCOMPARE(call("SELECT leader_ext.leader_unpause('billing', 'carol', 'done')"),
             std::string("t"));
    // The replica registry's functions.
    call("SELECT leader_ext.leader_replica_seen('h:1:00000001', 'h', 1, 'v', '{billing}')::text");
    // A handover (0185) to a named replica, and its refusals: quote_literal, btrim, ANY.
    m_owner->exec("name it", "UPDATE leader_ext.leader_replicas SET name = 'h1'", {}, Short);
    QCOMPARE(call("SELECT to_holder FROM leader_ext.leader_handover('billing', 'alice', 'move',"
                  " 'h1')"),
             std::string("h:1:00000001"));
    expectRefused(app, "SELECT * FROM leader_ext.leader_handover('billing', 'alice', 'x', 'h9')");
    expectRefused(app, "SELECT * FROM leader_ext.leader_handover('billing', ' ', 'x', 'h1')");
    expectRefused(app, "SELECT * FROM leader_ext.leader_handover('payroll', 'alice', 'x')");
    // 0189: a replica's early take note; the writes trigger's branches, as the app: an ACQUIRE
    // and a RELEASE of a holder outside the registry, a pause with an end held in not_before that
    // the app may not lift by hand.
    QCOMPARE(call("SELECT leader_ext.leader_replica_early_take_off('h:1:00000001', 60000, "
                  "'reaper')::text"),
             std::string("true"));
    const std::string outside
            = call("INSERT INTO leader_leases (role, holder_token, holder_id, acquired_at, "
                   "expires_at) VALUES ('webhook_delivery', 1, 'adr:1:00000001', now(), now() + "
                   "interval '10 seconds') ON CONFLICT (role) DO UPDATE SET holder_token = "
                   "leader_leases.holder_token + 1, holder_id = 'adr:1:00000001', acquired_at = "
                   "now(), expires_at = now() + interval '10 seconds' WHERE "
                   "leader_leases.expires_at IS NULL RETURNING holder_token");
    app.exec("release",
             "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, expires_at = NULL "
             "WHERE role = 'webhook_delivery' AND holder_token = $1 AND holder_id IS NOT NULL",
             {outside}, Short);
    call("SELECT leader_ext.leader_pause('dunning', 'alice', 'end', now() + interval '1 hour')");
    try {
        app.exec("lift", "UPDATE leader_leases SET not_before = NULL WHERE role = 'dunning'", {},
                 Short);
        QFAIL("the app lifted a pause by hand");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("42501"));
    }
    QCOMPARE(call("SELECT leader_ext.leader_replica_gone('h:1:00000001')"), std::string("t"));
    // The guard's clamp, as the app.
    app.exec("future tick",
             "UPDATE leader_leases SET last_tick_ended_at = now() + interval '1 hour' "
             "WHERE role = 'dunning'",
             {}, Short);

    // Each branch did what it does on the real tables.
    const leader::pg::Result log = m_owner->exec(
            "log",
            "SELECT string_agg(format('%s %s %s', role, action, coalesce(by, '-')), ', ' "
            "ORDER BY id) FROM leader_ext.leader_pause_log",
            {}, Short);
    QCOMPARE(QString::fromUtf8(log.text(0, 0)),
             QStringLiteral("billing pause alice, dunning pause alice, billing unpause -, "
                            "dunning unpause carol, webhook_outbox pause alice, "
                            "webhook_outbox expire -, webhook_outbox pause bob, "
                            "webhook_delivery pause alice, webhook_delivery expire -, "
                            "email_outbox pause alice, email_outbox expire -, "
                            "billing pause alice, billing unpause carol, dunning pause alice"));
}

void TestDefinerHijack::plantedObjectsNeverRunAsTheOwner()
{
    Connection app = m_db->connect(Login::App);
    callEveryBranch(app);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(ranAsSomeoneElse(), QString());

    // The plants are live: a body whose search_path is the lease schema (as before 0181) runs
    // the planted || as whoever runs it. Rolled back, so the log stays the app's.
    m_owner->exec("begin", "BEGIN", {}, Short);
    m_owner->exec("path", "SET LOCAL search_path = public", {}, Short);
    m_owner->exec("control", "SELECT ' (until ' || now()", {}, Short);
    const QString control = ranAsSomeoneElse();
    m_owner->exec("rollback", "ROLLBACK", {}, Short);
    QCOMPARE(control, QStringLiteral("lt_owner ran public.||"));
}

void TestDefinerHijack::temporaryShadowsNeverRunAsTheOwner()
{
    // One session (pg_temp lives as long as it), straight to Postgres.
    Connection app = m_db->connectDirect(Login::App);
    app.execScript("plant in pg_temp", plantSql("pg_temp"), Short);
    // pg_temp last for the app's own statements (ACQUIRE, RENEW, RELEASE), which name the tables
    // without a schema and would otherwise find the shadows first (relations are looked up in
    // pg_temp first unless the path says otherwise): that is the app fooling itself, not the
    // owner. The definer functions set their own search_path whatever the session's is.
    app.exec("path", "SET search_path = \"$user\", public, pg_temp", {}, Short);
    callEveryBranch(app);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(ranAsSomeoneElse(), QString());
    // Nothing reached the shadow tables either, not even as the app.
    QCOMPARE(app.exec("shadows", "SELECT count(*) FROM attic.hijack_log WHERE what LIKE 'pg_temp%'",
                      {}, Short)
                     .toInt64(0, 0),
             0);
}

void TestDefinerHijack::everyDefinerFunctionIsPinned()
{
    // A future migration that adds a definer function must pin it too.
    const leader::pg::Result result = m_owner->exec("definers", R"sql(
SELECT count(*), coalesce(string_agg(p.oid::regprocedure::text, ', ')
                              FILTER (WHERE NOT coalesce(p.proconfig, '{}')
                                            @> ARRAY['search_path=pg_catalog, pg_temp']), '')
  FROM pg_proc p
 WHERE p.pronamespace IN ('public'::regnamespace, 'leader_ext'::regnamespace) AND p.prosecdef
)sql",
                                                    {}, Short);
    // 0183 added leader_drain, leader_undrain and leader_replica_drain_beat; 0184
    // leader_tick_record; 0185 leader_handover; the demo's 1003 its five backlog sources; 0189
    // leader_leases_writes, leader_pause_settle and leader_replica_early_take_off.
    QCOMPARE(result.toInt64(0, 0), 20);
    QCOMPARE(QString::fromUtf8(result.text(0, 1)), QString());
    // 0186's functions run as their caller, who may be the owner (register, unregister, a
    // leaderctl status as the owner): pinned as well, and 0190's leader_backlog_refusal.
    const leader::pg::Result invokers = m_owner->exec("backlog functions", R"sql(
SELECT count(*), coalesce(string_agg(p.oid::regprocedure::text, ', ')
                              FILTER (WHERE NOT coalesce(p.proconfig, '{}')
                                            @> ARRAY['search_path=pg_catalog, pg_temp']), '')
  FROM pg_proc p
 WHERE p.pronamespace = 'leader_ext'::regnamespace AND p.proname LIKE 'leader\_backlog%'
)sql",
                                                      {}, Short);
    QCOMPARE(invokers.toInt64(0, 0), 4);
    QCOMPARE(QString::fromUtf8(invokers.text(0, 1)), QString());
}

// The backlog (0186) read and registered with the planted schemas first on the caller's path,
// pg_catalog after them, so that even a plant with pg_catalog's own signature would be found first
// by a body that took the caller's path: the app reads leader_backlog(), which runs the demo's
// definer sources as the owner; the owner registers, reads and unregisters. None runs a plant.
// Checked once each: with leader_backlog's search_path reset (ALTER FUNCTION ... RESET
// search_path), the owner's read ran attic's -(timestamptz, timestamptz) as lt_owner; with
// demo_billing_backlog's reset, the app's straight call ran attic's operators as lt_owner (through
// leader_backlog it takes leader_backlog's pinned path).
void TestDefinerHijack::backlogRunsNoPlantedObject()
{
    m_db->resetDemo();
    // Something pending for every source, so every body runs to its age.
    m_owner->execScript("pending", R"sql(
INSERT INTO tenants (name) VALUES ('t');
INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start, next_billing_at)
SELECT id, 100, 60, now() - interval '2 hours', now() - interval '1 hour' FROM tenants;
INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents)
SELECT id, period_start, next_billing_at, 100 FROM subscriptions;
INSERT INTO dunning_runs (invoice_id, next_attempt_at)
SELECT id, now() - interval '1 minute' FROM invoices;
INSERT INTO webhook_events (tenant_id, kind) SELECT id, 'k' FROM tenants;
INSERT INTO webhook_deliveries (event_id, next_attempt_at)
SELECT id, now() - interval '1 minute' FROM webhook_events;
INSERT INTO email_outbox (tenant_id, kind, recipient) SELECT id, 'k', 'r' FROM tenants;
)sql",
                        Short);
    const auto read = [](Connection &connection) {
        connection.exec("begin", "BEGIN", {}, Short);
        connection.exec("path", "SET LOCAL search_path = attic, public, pg_catalog", {}, Short);
        leader::pg::Result rows = connection.exec(
                "backlog", "SELECT * FROM leader_ext.leader_backlog()", {}, Short);
        connection.exec("commit", "COMMIT", {}, Short);
        return rows;
    };
    Connection app = m_db->connect(Login::App);
    const leader::pg::Result rows = read(app);
    QCOMPARE(rows.rows(), 5);
    for (int row = 0; row < rows.rows(); ++row) {
        QVERIFY2(rows.isNull(row, 4), rows.text(row, 4).data());
        QCOMPARE(rows.toInt64(row, 2), 1);
    }
    // The sources called straight, as the app and the monitor may: their own path holds.
    app.exec("begin", "BEGIN", {}, Short);
    app.exec("path", "SET LOCAL search_path = attic, public, pg_catalog", {}, Short);
    for (const char *source :
         {"demo_billing_backlog", "demo_dunning_backlog", "demo_email_outbox_backlog",
          "demo_webhook_outbox_backlog", "demo_webhook_delivery_backlog"})
        QCOMPARE(app.exec("source", std::string("SELECT pending FROM public.") + source + "()", {},
                          Short)
                         .toInt64(0, 0),
                 1);
    app.exec("commit", "COMMIT", {}, Short);
    QCOMPARE(ranAsSomeoneElse(), QString());

    m_owner->exec("begin", "BEGIN", {}, Short);
    m_owner->exec("path", "SET LOCAL search_path = attic, public, pg_catalog", {}, Short);
    m_owner->exec("unregister", "SELECT leader_ext.leader_backlog_unregister('billing')", {},
                  Short);
    m_owner->exec("register",
                  "SELECT leader_ext.leader_backlog_register('billing', "
                  "'public.demo_billing_backlog()'::regprocedure, 'due subscriptions')",
                  {}, Short);
    // A refusal's branch too (btrim, length).
    m_owner->exec("savepoint", "SAVEPOINT refused", {}, Short);
    expectRefused(*m_owner, "SELECT leader_ext.leader_backlog_register('billing', "
                            "'public.demo_billing_backlog()'::regprocedure, ' ')");
    m_owner->exec("rollback", "ROLLBACK TO SAVEPOINT refused", {}, Short);
    m_owner->exec("commit", "COMMIT", {}, Short);
    QCOMPARE(read(*m_owner).rows(), 5);
    QCOMPARE(ranAsSomeoneElse(), QString());
}

void TestDefinerHijack::migratorRefusesACreatableSchema_data()
{
    QTest::addColumn<QString>("schema"); // opened, and first on the path unless it is leader_ext
    QTest::addColumn<QString>("grantee");
    // Created by a login that is not the owner, and opened with USAGE too: the owner may create
    // there only through the grant, as in public before PostgreSQL 15 (the bootstrap superuser's,
    // USAGE and CREATE to PUBLIC), so the fix must also grant the owner CREATE.
    QTest::addColumn<bool>("othersSchema");
    QTest::newRow("PUBLIC") << "open_schema"
                            << "PUBLIC" << false;
    QTest::newRow("the app role") << "open_schema"
                                  << "hardcount_app" << false;
    QTest::newRow("the monitor role") << "open_schema"
                                      << "hardcount_monitor" << false;
    QTest::newRow("an app login") << "open_schema" << QString::fromStdString(loginName(Login::App))
                                  << false;
    QTest::newRow("leader_ext, to the app role") << "leader_ext"
                                                 << "hardcount_app" << false;
    QTest::newRow("PUBLIC, in a schema another login owns") << "open_schema"
                                                            << "PUBLIC" << true;
}

void TestDefinerHijack::migratorRefusesACreatableSchema()
{
    QFETCH(QString, schema);
    QFETCH(QString, grantee);
    QFETCH(bool, othersSchema);
    // A database of its own each time: the versions applied are the database's
    // (leader_ext.migrations), so a second lease schema beside the first finds nothing to do.
    m_fresh->recreate();
    // Straight to Postgres: the search_path must hold across the migrator's transactions.
    Connection owner = m_fresh->connectDirect(Login::Owner);
    const std::string open = "CREATE SCHEMA " + schema.toStdString() + "; GRANT "
                             + (othersSchema ? "USAGE, CREATE" : "CREATE") + " ON SCHEMA "
                             + schema.toStdString() + " TO " + grantee.toStdString();
    std::unique_ptr<Connection> schemaOwner;
    if (othersSchema) {
        owner.exec("grant",
                   "GRANT CREATE ON DATABASE \"" + m_fresh->name() + "\" TO "
                           + loginName(Login::Nobody),
                   {}, Short);
        schemaOwner = std::make_unique<Connection>(m_fresh->connectDirect(Login::Nobody));
        schemaOwner->execScript("open schema", open, Short);
    } else {
        owner.execScript("open schema", open, Short);
    }
    if (schema != QLatin1String("leader_ext"))
        owner.exec("path", "SET search_path = " + schema.toStdString(), {}, Short);
    using leader::schema::MigrationSet;
    const QString expected
            = "REVOKE CREATE ON SCHEMA " + schema + " FROM " + grantee + ";"
              + (othersSchema ? " GRANT CREATE ON SCHEMA " + schema + " TO "
                                        + QString::fromStdString(loginName(Login::Owner)) + ";"
                              : QString());
    try {
        leader::schema::Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension});
        QFAIL("the migrations were applied to a schema others may create in");
    } catch (const leader::schema::SchemaError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.endsWith(": " + expected), qPrintable(message));
        QVERIFY2(!message.contains(u'\n'), qPrintable(message));
    }
    // A migration printed for another tool refuses with the same line, in its own SQL.
    owner.exec("test", "BEGIN", {}, Short);
    try {
        owner.execScript("test",
                         leader::schema::composeUp(leader::schema::embeddedMigrations().front()),
                         30s);
        QFAIL("the printed migration ran in a schema others may create in");
    } catch (const leader::pg::Error &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(": " + expected), error.what());
    }
    owner.exec("test", "ROLLBACK", {}, Short);
    QCOMPARE(owner.exec("nothing",
                        "SELECT to_regclass('leader_leases') IS NULL "
                        "AND to_regclass('leader_ext.migrations') IS NULL "
                        "AND to_regclass('schema_migrations') IS NULL",
                        {}, Short)
                     .toBool(0, 0),
             true);
    // The line it prints is the fix: run it (as the schema's owner, a DBA's part), and the
    // migrations apply.
    (othersSchema ? *schemaOwner : owner).execScript("fix", expected.toStdString(), Short);
    const std::vector<int> applied
            = leader::schema::Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension});
    QCOMPARE(applied, (std::vector<int>{174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185,
                                        186, 187, 188, 189, 190}));
}

QTEST_GUILESS_MAIN(TestDefinerHijack)
#include "tst_definerhijack.moc"
