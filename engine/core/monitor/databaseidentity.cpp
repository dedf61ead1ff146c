#include "databaseidentity.h"

#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"

namespace leader::monitor {

namespace {

// Two statements: a function the login may not execute fails the statement naming it at plan
// time, even in a CASE branch that is never taken.
constexpr auto IdentitySql
        = "SELECT has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'),"
          " coalesce(host(inet_server_addr()), 'local') || ':' || current_setting('port'),"
          " current_database()::text";
constexpr auto SystemIdentifierSql
        = "SELECT system_identifier::text FROM pg_catalog.pg_control_system()";

} // namespace

Outcome<DatabaseIdentity> readDatabaseIdentity(const std::string &conninfo, std::stop_token stop,
                                               std::chrono::milliseconds timeout)
{
    pg::Connection connection(pg::ConnectOptions{
            .url = conninfo, .applicationName = "leader-console", .stop = std::move(stop)});
    try {
        connection.open(timeout);
        const pg::Result row = connection.exec("identity", IdentitySql, {}, timeout);
        DatabaseIdentity identity{{}, std::string(row.text(0, 1)), std::string(row.text(0, 2))};
        if (row.toBool(0, 0)) {
            const pg::Result system
                    = connection.exec("system identifier", SystemIdentifierSql, {}, timeout);
            identity.systemIdentifier = system.text(0, 0);
        }
        return identity;
    } catch (const pg::Error &error) {
        return Failure{pg::redactSecrets(pg::explain(error), conninfo), error.sqlstate(),
                       error.isTransport() || error.notStarted()};
    }
}

} // namespace leader::monitor
