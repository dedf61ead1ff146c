#pragma once

#include "migrations.h"

#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leader::schema {

// The database's schema is not one this build can work with; the message says what to do.
class SchemaError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct AppliedMigration
{
    int version;
    std::string name;
    std::string appliedAt;
};

// Applies the embedded migrations in version order, each in its own transaction under a
// transaction-scoped advisory lock (safe through a transaction pooler), recording each in
// leader_ext.migrations: the extension schema's own version table, never the application's
// schema_migrations or any other tool's (docs/extensions.md). Each transaction runs exactly the
// SQL that composeUp / composeDown return, which leaderctl migrate --print-sql also writes for the
// application's own migration tool, so both ways end in the same schema. Throws SchemaError or
// pg::Error.
//
// ADR-114's 0174 and 0175 belong to the application: the migrator applies them only where
// leader_leases does not exist yet (a database of its own), and never undoes what it did not apply.
//
// Before it changes anything it refuses (SchemaError, one line per schema, each with the REVOKE to
// run) a schema on the session's search_path where PUBLIC, hardcount_app, hardcount_monitor or a
// role holding one of them may create objects: the migrations run there as the owner, and such a
// role could plant a function or an operator that they would resolve and run with its privileges.
class Migrator final
{
public:
    // Told each migration just before it is applied or undone, e.g. to name its changes outside
    // leader_ext (outsideChanges); a legacy down script when an earlier install is moved.
    using Announce = std::function<void(const Migration &, bool up)>;

    explicit Migrator(pg::Connection &connection, Announce announce = {});

    std::vector<AppliedMigration> applied();
    std::vector<Migration> pending(std::initializer_list<MigrationSet> sets);
    // Returns the versions it applied: none when the database is up to date. An install of an
    // earlier leaderctl (extensions in the lease schema, its own schema_migrations) is moved into
    // leader_ext first, in one transaction, keeping the pause log and each role's pause end and
    // early take switch; its versions are not among those returned.
    std::vector<int> migrate(std::initializer_list<MigrationSet> sets);
    // Undoes every migration it recorded from the newest down to and including version.
    std::vector<int> rollbackTo(int version);

private:
    void refuseUnknown(const std::vector<AppliedMigration> &applied) const;
    void refuseCreatableSchemas();
    void runInTransaction(const Migration &migration, bool up);
    void relocateLegacy();
    void rollbackAfterFailure(std::string_view statement);

    pg::Connection &m_connection;
    Announce m_announce;
};

// The SQL of one migration as one transaction's body (no BEGIN or COMMIT): the advisory lock, the
// extension schema's bootstrap, for an extension migration a check that refuses with one line
// (ADR-114's schema missing, the previous extension missing, this one applied already, a schema
// others may create in), the migration file itself, the grants, and its row in
// leader_ext.migrations.
std::string composeUp(const Migration &migration);
std::string composeDown(const Migration &migration);
// What a migration changes outside leader_ext, from its "-- outside leader_ext:" header lines.
std::vector<std::string> outsideChanges(const Migration &migration, bool up);
// The embedded migration with this version, or nullptr.
const Migration *findMigration(int version);
// "0176", as the files and the version table name versions.
std::string versionLabel(int version);

} // namespace leader::schema
