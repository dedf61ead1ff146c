#include "migrator.h"

#include "pg/connection.h"
#include "pg/error.h"

#include <algorithm>
#include <chrono>

namespace leader::schema {

namespace {

using namespace std::chrono_literals;

constexpr auto MigrationTimeout = 60s;
constexpr auto QueryTimeout = 5s;
// Serialises migrators across replicas and tools; transaction-scoped, so a pooler is fine.
constexpr long long MigrationLockKey = 7'654'114;

constexpr std::string_view CreateTableSql = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    bigint PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
))sql";

// The schemas of the session's search_path (the migrations create in the first and resolve names
// through all of them) where a role that is not the owner's may create: the ACL's grantees of
// CREATE that are PUBLIC or that an app or monitor role (hardcount_app, hardcount_monitor, or a
// role holding one of them; superusers and this login aside) acts as, and whether such a role acts
// as the schema's owner. Everything is named with pg_catalog: the check must not be hijackable
// through the very path it checks.
constexpr std::string_view CreatableSchemasSql = R"sql(
WITH app AS (
    SELECT r.oid
      FROM pg_catalog.pg_roles AS r
     WHERE NOT r.rolsuper AND r.rolname OPERATOR(pg_catalog.<>) current_user
       AND EXISTS (SELECT FROM pg_catalog.pg_roles AS g
                    WHERE g.rolname OPERATOR(pg_catalog.=)
                          ANY (ARRAY['hardcount_app', 'hardcount_monitor']::pg_catalog.name[])
                      AND pg_catalog.pg_has_role(r.oid, g.oid, 'MEMBER'))
), schemas AS (
    SELECT n.nspname, n.nspowner, s.position,
           pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) AS a
      FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY AS s(name, position)
      JOIN pg_catalog.pg_namespace AS n ON n.nspname OPERATOR(pg_catalog.=) s.name
     WHERE n.nspname OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.name
)
SELECT pg_catalog.quote_ident(s.nspname),
       pg_catalog.string_agg(DISTINCT
           CASE WHEN (s.a).grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid((s.a).grantee)) END, ', ')
           FILTER (WHERE (s.a).privilege_type OPERATOR(pg_catalog.=) 'CREATE'::pg_catalog.text
                     AND (s.a).grantee OPERATOR(pg_catalog.<>) s.nspowner
                     AND ((s.a).grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid
                          OR EXISTS (SELECT FROM app
                                      WHERE pg_catalog.pg_has_role(app.oid, (s.a).grantee,
                                                                   'MEMBER')))),
       EXISTS (SELECT FROM app WHERE pg_catalog.pg_has_role(app.oid, s.nspowner, 'MEMBER')),
       pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(s.nspowner)),
       pg_catalog.quote_ident(current_user)
  FROM schemas AS s
 GROUP BY s.nspname, s.nspowner, s.position
 ORDER BY s.position
)sql";

std::string label(int version)
{
    std::string digits = std::to_string(version);
    return std::string(digits.size() < 4 ? 4 - digits.size() : 0, '0') + digits;
}

bool isKnown(int version)
{
    const auto all = embeddedMigrations();
    return std::any_of(all.begin(), all.end(),
                       [version](const Migration &m) { return m.version == version; });
}

} // namespace

Migrator::Migrator(pg::Connection &connection)
    : m_connection(connection)
{}

std::vector<AppliedMigration> Migrator::applied()
{
    const pg::Result exists = m_connection.exec(
            "schema_migrations exists", "SELECT to_regclass('schema_migrations') IS NOT NULL", {},
            QueryTimeout);
    if (!exists.toBool(0, 0))
        return {};
    try {
        const pg::Result result = m_connection.exec(
                "schema_migrations",
                "SELECT version, name, applied_at FROM schema_migrations ORDER BY version", {},
                QueryTimeout);
        std::vector<AppliedMigration> rows;
        for (int row = 0; row < result.rows(); ++row)
            rows.push_back({static_cast<int>(result.toInt64(row, 0)),
                            std::string(result.text(row, 1)), std::string(result.text(row, 2))});
        return rows;
    } catch (const pg::Error &error) {
        if (error.sqlstate() == pg::sqlstate::UndefinedColumn)
            throw SchemaError("schema_migrations in this database belongs to another migration "
                              "tool; apply the lease schema with that tool, or use a database of "
                              "its own for leaderctl migrate");
        throw;
    }
}

void Migrator::refuseUnknown(const std::vector<AppliedMigration> &applied) const
{
    for (const AppliedMigration &migration : applied) {
        if (!isKnown(migration.version))
            throw SchemaError("the database has migration " + label(migration.version) + " ("
                              + migration.name
                              + ") that this build does not know; upgrade leader console "
                                "before using it with this database");
    }
}

std::vector<Migration> Migrator::pending(std::initializer_list<MigrationSet> sets)
{
    const std::vector<AppliedMigration> done = applied();
    refuseUnknown(done);
    std::vector<Migration> todo;
    for (const Migration &migration : embeddedMigrations()) {
        const bool wanted = std::find(sets.begin(), sets.end(), migration.set) != sets.end();
        const bool isApplied = std::any_of(done.begin(), done.end(), [&](const auto &a) {
            return a.version == migration.version;
        });
        if (wanted && !isApplied)
            todo.push_back(migration);
    }
    return todo;
}

void Migrator::refuseCreatableSchemas()
{
    const pg::Result result
            = m_connection.exec("check schema privileges", CreatableSchemasSql, {}, QueryTimeout);
    std::string refusals;
    for (int row = 0; row < result.rows(); ++row) {
        const std::string schema(result.text(row, 0));
        std::string refusal;
        if (!result.isNull(row, 1)) {
            const std::string grantees(result.text(row, 1));
            refusal = "the schema " + schema + " lets " + grantees
                      + " create objects, which could then run with the owner's privileges in "
                        "the lease migrations; revoke it first: REVOKE CREATE ON SCHEMA "
                      + schema + " FROM " + grantees + ";";
        } else if (result.toBool(row, 2)) {
            refusal = "the schema " + schema + " is owned by " + std::string(result.text(row, 3))
                      + ", whose privileges an app or monitor role has: its objects could run "
                        "with the owner's privileges in the lease migrations; hand it over "
                        "first: ALTER SCHEMA "
                      + schema + " OWNER TO " + std::string(result.text(row, 4)) + ";";
        }
        if (!refusal.empty())
            refusals += (refusals.empty() ? "" : "\n") + refusal;
    }
    if (!refusals.empty())
        throw SchemaError(refusals);
}

std::vector<int> Migrator::migrate(std::initializer_list<MigrationSet> sets)
{
    std::vector<int> versions;
    const std::vector<Migration> todo = pending(sets);
    if (!todo.empty())
        refuseCreatableSchemas();
    for (const Migration &migration : todo) {
        runInTransaction("migrate " + label(migration.version), migration, true);
        versions.push_back(migration.version);
    }
    return versions;
}

std::vector<int> Migrator::rollbackTo(int version)
{
    std::vector<AppliedMigration> done = applied();
    refuseUnknown(done);
    std::vector<int> versions;
    if (std::any_of(done.begin(), done.end(),
                    [version](const AppliedMigration &m) { return m.version >= version; }))
        refuseCreatableSchemas();
    std::reverse(done.begin(), done.end());
    for (const AppliedMigration &appliedMigration : done) {
        if (appliedMigration.version < version)
            break;
        const auto all = embeddedMigrations();
        const auto migration = std::find_if(all.begin(), all.end(), [&](const Migration &m) {
            return m.version == appliedMigration.version;
        });
        runInTransaction("rollback " + label(migration->version), *migration, false);
        versions.push_back(migration->version);
    }
    return versions;
}

void Migrator::runInTransaction(const std::string &statement, const Migration &migration, bool up)
{
    try {
        m_connection.exec(statement, "BEGIN", {}, QueryTimeout);
        m_connection.exec(statement, "SELECT pg_advisory_xact_lock($1)", {MigrationLockKey},
                          MigrationTimeout);
        m_connection.exec(statement, CreateTableSql, {}, QueryTimeout);
        // Another migrator may have done this one while this one waited for the lock.
        const pg::Result seen
                = m_connection.exec(statement, "SELECT 1 FROM schema_migrations WHERE version = $1",
                                    {migration.version}, QueryTimeout);
        if ((seen.rows() == 1) == up) {
            m_connection.exec(statement, "COMMIT", {}, QueryTimeout);
            return;
        }
        m_connection.execScript(statement, up ? migration.up : migration.down, MigrationTimeout);
        if (up)
            m_connection.exec(statement,
                              "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                              {migration.version, migration.name}, QueryTimeout);
        else
            m_connection.exec(statement, "DELETE FROM schema_migrations WHERE version = $1",
                              {migration.version}, QueryTimeout);
        m_connection.exec(statement, "COMMIT", {}, QueryTimeout);
    } catch (const pg::Error &) {
        if (m_connection.isOpen() && m_connection.inTransaction()) {
            try {
                m_connection.exec(statement, "ROLLBACK", {}, QueryTimeout);
            } catch (const pg::Error &) {
                m_connection.close(); // the server rolls back a dropped session's transaction
            }
        }
        throw;
    }
}

void requireLeaseSchema(pg::Connection &connection)
{
    const pg::Result result = connection.exec("check lease schema", R"sql(
SELECT to_regclass('leader_leases') IS NOT NULL,
       to_regprocedure('leader_fence(text,bigint)') IS NOT NULL
           AND to_regclass('leader_status') IS NOT NULL
           AND to_regprocedure('leader_pause(text,text,text)') IS NOT NULL,
       EXISTS (SELECT 1 FROM pg_attribute
                WHERE attrelid = to_regclass('leader_leases') AND attname = 'not_before'
                  AND NOT attisdropped),
       -- 0176: the engine no longer sends the pause wake itself, the functions do (0177 moved
       -- the wake into the new forms, which the ADR's forms call).
       (SELECT count(*) FROM pg_proc
         WHERE oid IN (to_regprocedure('leader_pause(text,text,text)'),
                       to_regprocedure('leader_unpause(text)'),
                       to_regprocedure('leader_pause(text,text,text,timestamptz)'),
                       to_regprocedure('leader_unpause(text,text,text)'))
           AND prosrc LIKE '%pg_notify(''leader_leases''%') >= 2,
       -- 0177: ACQUIRE clears a pause whose paused_until has passed.
       to_regclass('leader_pause_log') IS NOT NULL
           AND EXISTS (SELECT 1 FROM pg_attribute
                        WHERE attrelid = to_regclass('leader_leases') AND attname = 'paused_until'
                          AND NOT attisdropped)
)sql",
                                              {}, QueryTimeout);
    std::string missing;
    if (!result.toBool(0, 0) || !result.toBool(0, 1))
        missing = "0174 (leader_leases, leader_fence, leader_status, leader_pause)";
    else if (!result.toBool(0, 2))
        missing = "0175 (leader_leases.not_before)";
    else if (!result.toBool(0, 3))
        missing = "0176 (leader_pause and leader_unpause send the wake NOTIFY)";
    else if (!result.toBool(0, 4))
        missing = "0177 (leader_pause_log, pauses that end at paused_until)";
    if (!missing.empty())
        throw SchemaError("the database " + connection.target() + " lacks lease migration "
                          + missing + "; apply it with: leaderctl migrate --database URL");
}

void requireReplicaRegistry(pg::Connection &connection)
{
    const pg::Result result = connection.exec(
            "check replica registry",
            "SELECT to_regprocedure('leader_replica_seen(text,text,integer,text,text[])') IS NOT "
            "NULL AND to_regprocedure('leader_replica_gone(text)') IS NOT NULL",
            {}, QueryTimeout);
    if (!result.toBool(0, 0))
        throw SchemaError("the database " + connection.target()
                          + " lacks lease migration 0178 (leader_replicas, the replica registry); "
                            "apply it with: leaderctl migrate --database URL");
}

void requireHolderSession(pg::Connection &connection)
{
    const pg::Result result = connection.exec(
            "check holder session",
            "SELECT to_regprocedure('leader_server_incarnation()') IS NOT NULL AND EXISTS (SELECT "
            "1 "
            "FROM pg_attribute WHERE attrelid = to_regclass('leader_leases') AND attname = "
            "'holder_session' AND NOT attisdropped)",
            {}, QueryTimeout);
    if (!result.toBool(0, 0))
        throw SchemaError("the database " + connection.target()
                          + " lacks lease migration 0179 (leader_leases.holder_session, takeover "
                            "at process death); apply it with: leaderctl migrate --database URL");
}

void requireEarlyTakeSwitch(pg::Connection &connection)
{
    const pg::Result result = connection.exec(
            "check early take switch",
            "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
            "to_regclass('leader_leases') AND attname = 'early_take' AND NOT attisdropped)",
            {}, QueryTimeout);
    if (!result.toBool(0, 0))
        throw SchemaError("the database " + connection.target()
                          + " lacks lease migration 0180 (leader_leases.early_take, the early "
                            "take's off switch); apply it with: leaderctl migrate --database URL");
}

} // namespace leader::schema
