#pragma once

#include "migrations.h"

#include <initializer_list>
#include <stdexcept>
#include <string>
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
// schema_migrations. Throws SchemaError or pg::Error.
//
// Before it changes anything it refuses (SchemaError, one line per schema, each with the REVOKE to
// run) a schema on the session's search_path where PUBLIC, hardcount_app, hardcount_monitor or a
// role holding one of them may create objects: the migrations run there as the owner, and such a
// role could plant a function or an operator that they would resolve and run with its privileges.
class Migrator final
{
public:
    explicit Migrator(pg::Connection &connection);

    std::vector<AppliedMigration> applied();
    std::vector<Migration> pending(std::initializer_list<MigrationSet> sets);
    // Returns the versions it applied: none when the database is up to date.
    std::vector<int> migrate(std::initializer_list<MigrationSet> sets);
    // Undoes every applied migration from the newest down to and including version.
    std::vector<int> rollbackTo(int version);

private:
    void refuseUnknown(const std::vector<AppliedMigration> &applied) const;
    void refuseCreatableSchemas();
    void runInTransaction(const std::string &statement, const Migration &migration, bool up);

    pg::Connection &m_connection;
};

// Checks, by the objects themselves (so a schema that Hardcount's own migrator applied counts),
// that the lease migrations are in place. Throws SchemaError naming what is missing.
void requireLeaseSchema(pg::Connection &connection);
// Checks that migration 0178 is in place: a replica registers itself (leader_replica_seen), so
// that every running replica of this build is listed and none is missed. Readers of the registry
// need no such check: an older database reads as "registry unavailable". Throws SchemaError.
void requireReplicaRegistry(pg::Connection &connection);
// Checks that migration 0179 is in place: a replica's ACQUIRE and RENEW name its marker session
// (holder_session), so a replica refuses a schema without it. Readers and leaderctl do not need it.
void requireHolderSession(pg::Connection &connection);
// Checks that migration 0180 is in place: a replica's ACQUIRE and RENEW read each role's
// early_take switch.
void requireEarlyTakeSwitch(pg::Connection &connection);

} // namespace leader::schema
