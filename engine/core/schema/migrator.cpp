#include "migrator.h"

#include "features.h"
#include "pg/connection.h"
#include "pg/error.h"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace leader::schema {

namespace {

using namespace std::chrono_literals;

constexpr auto MigrationTimeout = 60s;
constexpr auto QueryTimeout = 5s;
// Serialises migrators across replicas and tools; transaction-scoped, so a pooler is fine.
constexpr long long MigrationLockKey = 7'654'114;

// The schemas of the session's search_path (the migrations create in the first and resolve names
// through all of them) and leader_ext (where they create the extensions' objects) where a role
// that is not the owner's may create: the ACL's grantees of CREATE that are PUBLIC or that an app
// or monitor role (hardcount_app, hardcount_monitor, or a role holding one of them; superusers and
// this login aside) acts as, and whether such a role acts as the schema's owner. Everything is
// named with pg_catalog: the check must not be hijackable through the very path it checks.
// me_keeps_create: whether this login may still create there once those grants are revoked. Not
// so in public as PostgreSQL 14 and older install it (the bootstrap superuser's, CREATE to
// PUBLIC): there the database's owner creates only through PUBLIC, and the fix needs a GRANT too.
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
      FROM pg_catalog.unnest(pg_catalog.current_schemas(false)
                             OPERATOR(pg_catalog.||) 'leader_ext'::pg_catalog.name)
               WITH ORDINALITY AS s(name, position)
      JOIN pg_catalog.pg_namespace AS n ON n.nspname OPERATOR(pg_catalog.=) s.name
     WHERE n.nspname OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.name
)
SELECT pg_catalog.quote_ident(s.nspname) AS schema,
       pg_catalog.string_agg(DISTINCT
           CASE WHEN (s.a).grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid((s.a).grantee)) END, ', ')
           FILTER (WHERE (s.a).privilege_type OPERATOR(pg_catalog.=) 'CREATE'::pg_catalog.text
                     AND (s.a).grantee OPERATOR(pg_catalog.<>) s.nspowner
                     AND ((s.a).grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid
                          OR EXISTS (SELECT FROM app
                                      WHERE pg_catalog.pg_has_role(app.oid, (s.a).grantee,
                                                                   'MEMBER')))) AS grantees,
       EXISTS (SELECT FROM app WHERE pg_catalog.pg_has_role(app.oid, s.nspowner, 'MEMBER'))
           AS owner_is_app,
       pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(s.nspowner)) AS owner,
       pg_catalog.quote_ident(current_user) AS me,
       pg_catalog.pg_has_role(current_user, s.nspowner, 'USAGE')
           OR (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r
                WHERE r.rolname OPERATOR(pg_catalog.=) current_user)
           OR coalesce(pg_catalog.bool_or(
                  (s.a).privilege_type OPERATOR(pg_catalog.=) 'CREATE'::pg_catalog.text
                  AND (s.a).grantee OPERATOR(pg_catalog.<>) 0::pg_catalog.oid
                  AND NOT EXISTS (SELECT FROM app
                                   WHERE pg_catalog.pg_has_role(app.oid, (s.a).grantee, 'MEMBER'))
                  AND pg_catalog.pg_has_role(current_user, (s.a).grantee, 'USAGE')), false)
           AS me_keeps_create
  FROM schemas AS s
 GROUP BY s.nspname, s.nspowner, s.position
 ORDER BY s.position
)sql";

// Refuses, in the SQL itself, what refuseCreatableSchemas refuses before leaderctl starts: the
// same query, for files that the application's migration tool runs.
std::string creatableCheckSql()
{
    return R"sql(
DO $leader_ext_check$
DECLARE
    v_row record;
BEGIN
    FOR v_row IN )sql"
           + std::string(CreatableSchemasSql) + R"sql(
    LOOP
        IF v_row.grantees IS NOT NULL AND v_row.me_keeps_create THEN
            RAISE EXCEPTION 'the schema % lets % create objects, which could then run with the owner''s privileges in the lease migrations; revoke it first: REVOKE CREATE ON SCHEMA % FROM %;', v_row.schema, v_row.grantees, v_row.schema, v_row.grantees
                USING ERRCODE = 'insufficient_privilege';
        ELSIF v_row.grantees IS NOT NULL THEN
            RAISE EXCEPTION 'the schema % lets % create objects, which could then run with the owner''s privileges in the lease migrations; revoke it first and let % create there itself: REVOKE CREATE ON SCHEMA % FROM %; GRANT CREATE ON SCHEMA % TO %;', v_row.schema, v_row.grantees, v_row.me, v_row.schema, v_row.grantees, v_row.schema, v_row.me
                USING ERRCODE = 'insufficient_privilege';
        ELSIF v_row.owner_is_app THEN
            RAISE EXCEPTION 'the schema % is owned by %, whose privileges an app or monitor role has: its objects could run with the owner''s privileges in the lease migrations; hand it over first: ALTER SCHEMA % OWNER TO %;', v_row.schema, v_row.owner, v_row.schema, v_row.me
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END LOOP;
END
$leader_ext_check$;
)sql";
}

// Only the owner writes the version table; the app and monitor roles read it to learn which
// extensions are there (schema::probeFeatures).
constexpr std::string_view BootstrapSql = R"sql(
DO $leader_ext$
BEGIN
    IF pg_catalog.to_regnamespace('leader_ext') IS NULL THEN
        CREATE SCHEMA leader_ext;
        COMMENT ON SCHEMA leader_ext IS
            'leader lease extensions beside ADR-114''s schema (docs/extensions.md)';
    END IF;
    IF pg_catalog.to_regclass('leader_ext.migrations') IS NULL THEN
        CREATE TABLE leader_ext.migrations (
            version    bigint PRIMARY KEY,
            name       text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT pg_catalog.now()
        );
        COMMENT ON TABLE leader_ext.migrations IS
            'the leader lease migrations applied to this database, by leaderctl migrate or by the application''s own migration tool';
    END IF;
END
$leader_ext$;
)sql";

constexpr std::string_view GrantsSql = R"sql(
GRANT USAGE ON SCHEMA leader_ext TO hardcount_app, hardcount_monitor;
GRANT SELECT ON leader_ext.migrations TO hardcount_app, hardcount_monitor;
)sql";

// The extensions' bookkeeping goes with the last migration undone.
constexpr std::string_view DropWhenEmptySql = R"sql(
DO $leader_ext$
BEGIN
    IF NOT EXISTS (SELECT FROM leader_ext.migrations) THEN
        DROP TABLE leader_ext.migrations;
        DROP SCHEMA leader_ext;
    END IF;
END
$leader_ext$;
)sql";

std::string quoted(std::string_view text)
{
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string extLabel(const Migration &migration)
{
    return "leader_ext " + versionLabel(migration.version) + " (" + std::string(migration.name)
           + ")";
}

std::string lockSql()
{
    return "SELECT pg_catalog.pg_advisory_xact_lock(" + std::to_string(MigrationLockKey) + ");\n";
}

std::string upCheckSql(const Migration &migration)
{
    const std::string label = quoted(extLabel(migration));
    std::string sql = R"sql(
DO $leader_ext_check$
BEGIN
    IF pg_catalog.to_regclass('leader_leases') IS NULL
       OR NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                       WHERE attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('leader_leases')
                         AND attname OPERATOR(pg_catalog.=) 'not_before' AND NOT attisdropped) THEN
        RAISE EXCEPTION '% needs ADR-114''s migrations 0174 and 0175 (leader_leases with not_before) in the schema %: apply them with the application''s migrations first.', )sql"
                      + label + R"sql(, pg_catalog.current_schema()
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF pg_catalog.to_regclass(pg_catalog.quote_ident(pg_catalog.current_schema())
                              OPERATOR(pg_catalog.||) '.leader_pause_log') IS NOT NULL THEN
        RAISE EXCEPTION 'the extensions are in the schema % as an earlier leaderctl installed them; move them into leader_ext once with: leaderctl migrate --database URL.', pg_catalog.current_schema()
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT FROM leader_ext.migrations
                WHERE version OPERATOR(pg_catalog.=) )sql"
                      + std::to_string(migration.version) + R"sql() THEN
        RAISE EXCEPTION '% is applied already (leader_ext.migrations has it): record it as applied in your migration tool instead of running it again.', )sql"
                      + label + R"sql(
            USING ERRCODE = 'duplicate_object';
    END IF;
)sql";
    if (migration.version > static_cast<int>(FirstExtension)) {
        sql += R"sql(    IF NOT EXISTS (SELECT FROM leader_ext.migrations
                    WHERE version OPERATOR(pg_catalog.=) )sql"
               + std::to_string(migration.version - 1) + R"sql() THEN
        RAISE EXCEPTION '% needs leader_ext )sql"
               + versionLabel(migration.version - 1) + R"sql( first.', )sql" + label + R"sql(
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
)sql";
    }
    return sql + "END\n$leader_ext_check$;\n";
}

std::string downCheckSql(const Migration &migration)
{
    const std::string label = quoted(extLabel(migration));
    return R"sql(
DO $leader_ext_check$
BEGIN
    IF pg_catalog.to_regclass('leader_ext.migrations') IS NULL THEN
        RAISE EXCEPTION '% is not applied (there is no leader_ext.migrations).', )sql"
           + label + R"sql(
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF NOT EXISTS (SELECT FROM leader_ext.migrations
                    WHERE version OPERATOR(pg_catalog.=) )sql"
           + std::to_string(migration.version) + R"sql() THEN
        RAISE EXCEPTION '% is not applied (leader_ext.migrations does not have it).', )sql"
           + label + R"sql(
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT FROM leader_ext.migrations
                WHERE version OPERATOR(pg_catalog.>) )sql"
           + std::to_string(migration.version) + R"sql(
                  AND version OPERATOR(pg_catalog.<) 1000) THEN
        RAISE EXCEPTION '% cannot be undone while a later extension is applied: undo that one first.', )sql"
           + label + R"sql(
            USING ERRCODE = 'dependent_objects_still_exist';
    END IF;
)sql" + "END\n$leader_ext_check$;\n";
}

bool isKnown(int version)
{
    return findMigration(version) != nullptr;
}

} // namespace

std::string versionLabel(int version)
{
    std::string digits = std::to_string(version);
    return std::string(digits.size() < 4 ? 4 - digits.size() : 0, '0') + digits;
}

const Migration *findMigration(int version)
{
    const auto all = embeddedMigrations();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [version](const Migration &m) { return m.version == version; });
    return found == all.end() ? nullptr : &*found;
}

std::string composeUp(const Migration &migration)
{
    // The schemas first: the bootstrap itself must not run into a leader_ext that others own.
    std::string sql = lockSql() + creatableCheckSql() + std::string(BootstrapSql);
    if (migration.set == MigrationSet::Extension)
        sql += upCheckSql(migration);
    sql += "\n" + std::string(migration.up) + "\n" + std::string(GrantsSql)
           + "INSERT INTO leader_ext.migrations (version, name) VALUES ("
           + std::to_string(migration.version) + ", " + quoted(migration.name) + ");\n";
    return sql;
}

std::string composeDown(const Migration &migration)
{
    std::string sql = lockSql() + creatableCheckSql();
    if (migration.set == MigrationSet::Extension)
        sql += downCheckSql(migration);
    return sql + "\n" + std::string(migration.down)
           + "\nDELETE FROM leader_ext.migrations WHERE version = "
           + std::to_string(migration.version) + ";\n" + std::string(DropWhenEmptySql);
}

std::vector<std::string> outsideChanges(const Migration &migration, bool up)
{
    constexpr std::string_view Marker = "-- outside leader_ext: ";
    std::vector<std::string> changes;
    std::istringstream lines{std::string(up ? migration.up : migration.down)};
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with(Marker) && line.substr(Marker.size()) != "nothing")
            changes.push_back(line.substr(Marker.size()));
    }
    return changes;
}

Migrator::Migrator(pg::Connection &connection, Announce announce)
    : m_connection(connection)
    , m_announce(std::move(announce))
{}

std::vector<AppliedMigration> Migrator::applied()
{
    const pg::Result exists = m_connection.exec(
            "find leader_ext.migrations",
            "SELECT CASE WHEN pg_catalog.to_regnamespace('leader_ext') IS NULL THEN false "
            "WHEN NOT pg_catalog.has_schema_privilege('leader_ext', 'USAGE') THEN false "
            "ELSE pg_catalog.to_regclass('leader_ext.migrations') IS NOT NULL END",
            {}, QueryTimeout);
    if (!exists.toBool(0, 0))
        return {};
    const pg::Result result = m_connection.exec(
            "read leader_ext.migrations",
            "SELECT version, name, applied_at FROM leader_ext.migrations ORDER BY version", {},
            QueryTimeout);
    std::vector<AppliedMigration> rows;
    for (int row = 0; row < result.rows(); ++row)
        rows.push_back({static_cast<int>(result.toInt64(row, 0)), std::string(result.text(row, 1)),
                        std::string(result.text(row, 2))});
    return rows;
}

void Migrator::refuseUnknown(const std::vector<AppliedMigration> &applied) const
{
    for (const AppliedMigration &migration : applied) {
        if (!isKnown(migration.version))
            throw SchemaError("the database has migration " + versionLabel(migration.version) + " ("
                              + migration.name
                              + ") that this build does not know; upgrade leader console "
                                "before using it with this database");
    }
}

std::vector<Migration> Migrator::pending(std::initializer_list<MigrationSet> sets)
{
    const std::vector<AppliedMigration> done = applied();
    refuseUnknown(done);
    const LeaseFeatures features = probeFeatures(m_connection);
    if (features.legacyLayout)
        throw SchemaError("the database " + m_connection.target()
                          + " has the extensions where an earlier leaderctl put them; move them "
                            "into leader_ext with: leaderctl migrate --database URL");
    const auto isApplied = [&done](int version) {
        return std::any_of(done.begin(), done.end(),
                           [version](const AppliedMigration &a) { return a.version == version; });
    };
    std::vector<Migration> todo;
    for (const Migration &migration : embeddedMigrations()) {
        if (std::find(sets.begin(), sets.end(), migration.set) == sets.end()
            || isApplied(migration.version))
            continue;
        // ADR-114's own migrations that the application applied: its, not ours to record.
        if (migration.set == MigrationSet::Adr) {
            const bool present
                    = migration.version == 174 ? features.leaseTable : features.notBefore;
            if (present)
                continue;
            if (features.leaseTable && !isApplied(174))
                throw SchemaError("leader_leases in " + m_connection.target()
                                  + " is the application's and lacks ADR-114's migration "
                                  + versionLabel(migration.version) + " ("
                                  + std::string(migration.name)
                                  + "); apply it with the application's migrations");
        }
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
            // This login creating there only through those grants (public before PostgreSQL 15):
            // the REVOKE alone would leave the migrations a bare "permission denied".
            const bool keepsCreate = result.toBool(row, 5);
            const std::string me(result.text(row, 4));
            refusal = "the schema " + schema + " lets " + grantees
                      + " create objects, which could then run with the owner's privileges in "
                        "the lease migrations; revoke it first"
                      + (keepsCreate ? "" : " and let " + me + " create there itself")
                      + ": REVOKE CREATE ON SCHEMA " + schema + " FROM " + grantees + ";"
                      + (keepsCreate ? ""
                                     : " GRANT CREATE ON SCHEMA " + schema + " TO " + me + ";");
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
    if (probeFeatures(m_connection).legacyLayout) {
        refuseCreatableSchemas();
        relocateLegacy();
    }
    std::vector<int> versions;
    const std::vector<Migration> todo = pending(sets);
    if (!todo.empty())
        refuseCreatableSchemas();
    for (const Migration &migration : todo) {
        runInTransaction(migration, true);
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
        const Migration &migration = *findMigration(appliedMigration.version);
        runInTransaction(migration, false);
        versions.push_back(migration.version);
    }
    return versions;
}

void Migrator::relocateLegacy()
{
    constexpr std::string_view Statement = "move the extensions into leader_ext";
    try {
        m_connection.exec(Statement, "BEGIN", {}, QueryTimeout);
        m_connection.exec(Statement, "SELECT pg_catalog.pg_advisory_xact_lock($1)",
                          {MigrationLockKey}, MigrationTimeout);
        // Read as JSON, so any shape reads; only a table of this project's own rows is ours.
        const pg::Result rows = m_connection.exec(
                Statement,
                "SELECT (pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'version')::bigint, "
                "pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'name', "
                "pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'applied_at' "
                "FROM schema_migrations AS m ORDER BY 1",
                {}, QueryTimeout);
        std::vector<AppliedMigration> legacy;
        int legacyVersion = 0;
        for (int row = 0; row < rows.rows(); ++row) {
            const int version = static_cast<int>(rows.toInt64(row, 0));
            const Migration *known = findMigration(version);
            if (!known || known->name != rows.text(row, 1))
                throw SchemaError("schema_migrations in " + m_connection.target() + " has "
                                  + versionLabel(version)
                                  + ", which no leaderctl wrote: the extensions beside it are "
                                    "not leaderctl's to move; move them by hand "
                                    "(docs/extensions.md)");
            legacy.push_back(
                    {version, std::string(rows.text(row, 1)), std::string(rows.text(row, 2))});
            if (known->set == MigrationSet::Extension)
                legacyVersion = std::max(legacyVersion, version);
        }
        // What outlives the move: the pause history and each role's pause end and early take
        // switch. The registry refills within one beat; a holder names its marker again at its
        // next RENEW.
        m_connection.execScript(Statement, R"sql(
CREATE TEMPORARY TABLE leader_legacy_leases ON COMMIT DROP AS
    SELECT role, pg_catalog.to_jsonb(l) AS lease FROM leader_leases AS l;
CREATE TEMPORARY TABLE leader_legacy_log (entry jsonb) ON COMMIT DROP;
)sql",
                                QueryTimeout);
        if (legacyVersion >= static_cast<int>(Extension::PauseLog))
            m_connection.exec(Statement,
                              "INSERT INTO leader_legacy_log SELECT pg_catalog.to_jsonb(p) "
                              "FROM leader_pause_log AS p",
                              {}, MigrationTimeout);
        // Its 0177 down would clear a pause whose end has passed but keep the end, against its own
        // CHECK; without the end it keeps the pause, and the end put back below lets the next
        // ACQUIRE clear it and log the expiry as before the move.
        if (legacyVersion >= static_cast<int>(Extension::PauseLog))
            m_connection.exec(Statement, "UPDATE leader_leases SET paused_until = NULL", {},
                              QueryTimeout);
        const auto downs = legacyExtensionDowns();
        for (auto down = downs.rbegin(); down != downs.rend(); ++down) {
            if (down->version > legacyVersion)
                continue;
            if (m_announce)
                m_announce(*down, false);
            m_connection.execScript(Statement, down->down, MigrationTimeout);
        }
        m_connection.exec(Statement, "DROP TABLE schema_migrations", {}, QueryTimeout);
        for (const AppliedMigration &applied : legacy) {
            const Migration &migration = *findMigration(applied.version);
            if (m_announce)
                m_announce(migration, true);
            m_connection.execScript(Statement,
                                    migration.set == MigrationSet::Extension
                                            ? composeUp(migration)
                                            : lockSql() + std::string(BootstrapSql)
                                                      + std::string(GrantsSql)
                                                      + "INSERT INTO leader_ext.migrations "
                                                        "(version, name) VALUES ("
                                                      + std::to_string(migration.version) + ", "
                                                      + quoted(migration.name) + ");\n",
                                    MigrationTimeout);
            m_connection.exec(Statement,
                              "UPDATE leader_ext.migrations SET applied_at = $2::timestamptz "
                              "WHERE version = $1",
                              {applied.version, applied.appliedAt}, QueryTimeout);
        }
        if (legacyVersion >= static_cast<int>(Extension::PauseLog))
            m_connection.execScript(Statement, R"sql(
INSERT INTO leader_ext.leader_pause_log OVERRIDING SYSTEM VALUE
    SELECT (pg_catalog.jsonb_populate_record(NULL::leader_ext.leader_pause_log, entry)).*
      FROM leader_legacy_log;
SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence('leader_ext.leader_pause_log', 'id'),
                         (SELECT max(id) FROM leader_ext.leader_pause_log))
 WHERE EXISTS (SELECT FROM leader_ext.leader_pause_log);
UPDATE leader_leases AS l
   SET paused_until = (s.lease OPERATOR(pg_catalog.->>) 'paused_until')::timestamptz
  FROM leader_legacy_leases AS s
 WHERE s.role OPERATOR(pg_catalog.=) l.role AND l.paused_at IS NOT NULL
   AND s.lease OPERATOR(pg_catalog.->>) 'paused_until' IS NOT NULL;
)sql",
                                    MigrationTimeout);
        if (legacyVersion >= static_cast<int>(Extension::EarlyTakeSwitch))
            m_connection.execScript(Statement, R"sql(
UPDATE leader_leases AS l
   SET early_take = (s.lease OPERATOR(pg_catalog.->>) 'early_take')::boolean
  FROM leader_legacy_leases AS s
 WHERE s.role OPERATOR(pg_catalog.=) l.role;
)sql",
                                    MigrationTimeout);
        m_connection.exec(Statement, "COMMIT", {}, QueryTimeout);
    } catch (...) {
        rollbackAfterFailure(Statement);
        throw;
    }
}

void Migrator::runInTransaction(const Migration &migration, bool up)
{
    const std::string statement = (up ? "migrate " : "rollback ") + versionLabel(migration.version);
    try {
        m_connection.exec(statement, "BEGIN", {}, QueryTimeout);
        m_connection.exec(statement, "SELECT pg_catalog.pg_advisory_xact_lock($1)",
                          {MigrationLockKey}, MigrationTimeout);
        // Another migrator may have done this one while this one waited for the lock.
        m_connection.execScript(statement, BootstrapSql, QueryTimeout);
        const pg::Result seen = m_connection.exec(
                statement, "SELECT 1 FROM leader_ext.migrations WHERE version = $1",
                {migration.version}, QueryTimeout);
        if ((seen.rows() == 1) == up) {
            m_connection.exec(statement, "ROLLBACK", {}, QueryTimeout);
            return;
        }
        if (m_announce)
            m_announce(migration, up);
        m_connection.execScript(statement, up ? composeUp(migration) : composeDown(migration),
                                MigrationTimeout);
        m_connection.exec(statement, "COMMIT", {}, QueryTimeout);
    } catch (const pg::Error &) {
        rollbackAfterFailure(statement);
        throw;
    }
}

void Migrator::rollbackAfterFailure(std::string_view statement)
{
    if (!m_connection.isOpen() || !m_connection.inTransaction())
        return;
    try {
        m_connection.exec(statement, "ROLLBACK", {}, QueryTimeout);
    } catch (const pg::Error &) {
        m_connection.close(); // the server rolls back a dropped session's transaction
    }
}

} // namespace leader::schema
