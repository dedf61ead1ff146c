#include "features.h"

#include "migrator.h"
#include "pg/connection.h"

#include <chrono>

namespace leader::schema {

namespace {

using namespace std::chrono_literals;

constexpr auto QueryTimeout = 5s;

// Each guard comes before what it guards (CASE evaluates in order), so a login without USAGE on
// leader_ext, or a database without it, reads as "no extension" instead of failing.
constexpr std::string_view ProbeSql = R"sql(
SELECT pg_catalog.to_regclass('leader_leases') IS NOT NULL
           AND pg_catalog.to_regprocedure('leader_fence(text,bigint)') IS NOT NULL
           AND pg_catalog.to_regclass('leader_status') IS NOT NULL
           AND pg_catalog.to_regprocedure('leader_pause(text,text,text)') IS NOT NULL
           AND pg_catalog.to_regprocedure('leader_unpause(text)') IS NOT NULL,
       EXISTS (SELECT FROM pg_catalog.pg_attribute
                WHERE attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('leader_leases')
                  AND attname OPERATOR(pg_catalog.=) 'not_before' AND NOT attisdropped),
       CASE WHEN pg_catalog.to_regnamespace('leader_ext') IS NULL THEN 'absent'
            WHEN NOT pg_catalog.has_schema_privilege('leader_ext', 'USAGE') THEN 'hidden'
            WHEN pg_catalog.to_regclass('leader_ext.migrations') IS NULL THEN 'absent'
            WHEN NOT pg_catalog.has_table_privilege('leader_ext.migrations', 'SELECT')
                THEN 'hidden'
            ELSE 'readable' END,
       -- What an earlier leaderctl left in the lease schema itself.
       pg_catalog.to_regclass('leader_pause_log') IS NOT NULL
           OR pg_catalog.to_regclass('leader_replicas') IS NOT NULL
           OR pg_catalog.to_regprocedure('leader_server_incarnation()') IS NOT NULL,
       CASE WHEN pg_catalog.to_regclass('schema_migrations') IS NULL THEN false
            ELSE pg_catalog.has_table_privilege('schema_migrations', 'SELECT') END
)sql";

// Any shape of table reads as rows of JSON, so another tool's schema_migrations fails nothing.
constexpr std::string_view LegacyRowsSql = R"sql(
SELECT EXISTS (SELECT FROM schema_migrations AS m
                WHERE pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'version'
                          OPERATOR(pg_catalog.=) '176'
                  AND pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'name'
                          OPERATOR(pg_catalog.=) 'pause_notify')
)sql";

constexpr std::string_view VersionsSql = R"sql(
SELECT version FROM leader_ext.migrations
 WHERE version OPERATOR(pg_catalog.>=) 176 AND version OPERATOR(pg_catalog.<) 1000
 ORDER BY version
)sql";

std::string_view purpose(Extension extension)
{
    switch (extension) {
    case Extension::PauseNotify:
        return "the pause wake NOTIFY";
    case Extension::PauseLog:
        return "the pause log";
    case Extension::ReplicaRegistry:
        return "the replicas registry";
    case Extension::HolderSession:
        return "the takeover at process death";
    case Extension::EarlyTakeSwitch:
        return "the early take switch";
    case Extension::DefinerHardening:
        return "the hardened definer functions";
    case Extension::ReplicaNames:
        return "the replicas' names and markers";
    case Extension::ReplicaDrain:
        return "the replica drain";
    case Extension::TickDetails:
        return "what each tick did";
    case Extension::Handover:
        return "the handover";
    case Extension::Backlog:
        return "the backlog";
    case Extension::RegistryLockScan:
        return "the registry's single lock read";
    case Extension::BoardRead:
        return "the planned-once board read";
    case Extension::AdrFleet:
        return "the extensions beside replicas that speak only the ADR";
    case Extension::SecondReview:
        return "hand-overs and backlog sources guarded";
    }
    return "an extension";
}

} // namespace

LeaseFeatures probeFeatures(pg::Connection &connection)
{
    LeaseFeatures features;
    const pg::Result probe = connection.exec("probe lease schema", ProbeSql, {}, QueryTimeout);
    features.leaseTable = probe.toBool(0, 0);
    features.notBefore = probe.toBool(0, 1);
    const bool versionTable = probe.text(0, 2) == "readable";
    features.extensionsHidden = probe.text(0, 2) == "hidden";
    const bool legacyObjects = probe.toBool(0, 3);
    const bool legacyTable = probe.toBool(0, 4);
    if (versionTable) {
        const pg::Result versions
                = connection.exec("read extension versions", VersionsSql, {}, QueryTimeout);
        for (int row = 0; row < versions.rows(); ++row) {
            if (versions.toInt64(row, 0) != features.extension + (features.extension ? 1 : 176))
                break;
            features.extension = static_cast<int>(versions.toInt64(row, 0));
        }
    }
    if (features.extension == 0) {
        features.legacyLayout = legacyObjects;
        if (!features.legacyLayout && legacyTable)
            features.legacyLayout
                    = connection.exec("read legacy versions", LegacyRowsSql, {}, QueryTimeout)
                              .toBool(0, 0);
    }
    return features;
}

std::string extensionNeeded(std::string_view feature, Extension needed)
{
    return std::string(feature) + " needs the extension " + std::string(ExtensionSchema) + " "
           + versionLabel(static_cast<int>(needed)) + " (" + std::string(purpose(needed))
           + "); add it with leaderctl migrate, or through your own migration tool: leaderctl "
             "migrate --print-sql --format FORMAT --out DIR";
}

void requireAdr(pg::Connection &connection, const LeaseFeatures &features)
{
    std::string missing;
    if (!features.leaseTable)
        missing = "0174 (leader_leases, leader_fence, leader_status, leader_pause, "
                  "leader_unpause)";
    else if (!features.notBefore)
        missing = "0175 (leader_leases.not_before)";
    if (!missing.empty())
        throw SchemaError("the database " + connection.target() + " lacks ADR-114's migration "
                          + missing
                          + " on its search_path; apply it with the application's migrations, "
                            "or on a database of its own with: leaderctl migrate --database URL");
}

void requireExtension(pg::Connection &connection, const LeaseFeatures &features,
                      std::string_view feature, Extension needed)
{
    requireAdr(connection, features);
    if (features.extensionsHidden)
        throw SchemaError(std::string(feature)
                          + " needs the extensions in leader_ext, which the login "
                          + connection.target()
                          + " may not read; connect as a login holding hardcount_app or "
                            "hardcount_monitor (docs/privileges.md)");
    if (features.legacyLayout)
        throw SchemaError("the database " + connection.target()
                          + " has the extensions where an earlier leaderctl put them (the lease "
                            "schema and its schema_migrations); move them into "
                          + std::string(ExtensionSchema)
                          + " with: leaderctl migrate --database URL");
    if (!features.has(needed))
        throw SchemaError(extensionNeeded(feature, needed));
}

} // namespace leader::schema
