#include "pausecontrol.h"

#include "constants.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "pg/transaction.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <charconv>

namespace leader::lease {

namespace {

// Instants leave the database as ISO 8601 UTC with milliseconds, whatever the session's TimeZone.
constexpr std::string_view PauseSql = "SELECT p = now() FROM leader_ext.leader_pause($1, $2, $3,"
                                      " coalesce($4::timestamptz, now() + $5::interval)) p";
// The ADR's own: no end.
constexpr std::string_view AdrPauseSql = "SELECT p = now() FROM leader_pause($1, $2, $3) p";
// p = now() above: leader_pause stamps a pause it makes with the transaction's now(); a pause that
// was there already is older.

// paused_until through to_jsonb: the ADR's leader_status has no such column (NULL then). With
// extension 0189 a pause with an end is held in not_before, and only leader_ext.leader_status
// shows it as a pause.
constexpr std::string_view PausedSql
        = "SELECT to_char(paused_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " paused_by, pause_reason,"
          " to_char((to_jsonb(s) ->> 'paused_until')::timestamptz AT TIME ZONE 'UTC',"
          " 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
          " FROM leader_status AS s WHERE role = $1";
constexpr std::string_view ExtendedPausedSql
        = "SELECT to_char(paused_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " paused_by, pause_reason,"
          " to_char(paused_until AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
          " FROM leader_ext.leader_status WHERE role = $1";

constexpr std::string_view UnpauseSql = "SELECT leader_ext.leader_unpause($1, $2, $3)";
constexpr std::string_view AdrUnpauseSql = "SELECT leader_unpause($1)";

constexpr std::string_view SettleSql = "SELECT leader_ext.leader_pause_settle(NULL)";

constexpr std::string_view HistorySql
        = "SELECT l.id, l.role, l.action,"
          " to_char(l.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), l.login, l.by,"
          " l.reason,"
          " to_char(l.paused_until AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " to_char(p.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
          " FROM leader_ext.leader_pause_log l"
          " LEFT JOIN leader_ext.leader_pause_log p ON p.id = l.pause_id"
          " WHERE ($1::text IS NULL OR l.role = $1)"
          " AND l.at >= coalesce($3::timestamptz, now() - $2::interval, '-infinity')"
          " ORDER BY l.at DESC, l.id DESC LIMIT $4";

pg::Param optional(std::string_view value)
{
    return value.empty() ? pg::Param(nullptr) : pg::Param(value);
}

} // namespace

std::optional<std::string> intervalFromDuration(std::string_view duration)
{
    if (duration.size() < 2)
        return std::nullopt;
    long long amount = 0;
    const char *first = duration.data();
    const char *last = first + duration.size() - 1;
    const auto [end, error] = std::from_chars(first, last, amount);
    if (error != std::errc() || end != last || amount <= 0)
        return std::nullopt;
    const char *unit = nullptr;
    switch (*last) {
    case 's':
        unit = " seconds";
        break;
    case 'm':
        unit = " minutes";
        break;
    case 'h':
        unit = " hours";
        break;
    case 'd':
        unit = " days";
        break;
    default:
        return std::nullopt;
    }
    return std::to_string(amount) + unit;
}

std::vector<PauseRecord> pauseRoles(pg::Connection &connection,
                                    const schema::LeaseFeatures &features,
                                    std::span<const std::string> roles, std::string_view by,
                                    std::string_view reason, const PauseEnd &end)
{
    const bool withLog = features.has(schema::Extension::PauseLog);
    if (end.isSet() && !withLog)
        throw schema::SchemaError(schema::extensionNeeded("a pause that ends by itself",
                                                          schema::Extension::PauseLog));
    const bool notifies = features.has(schema::Extension::PauseNotify);
    return pg::inTransaction(connection, StatementTimeout, [&] {
        std::vector<PauseRecord> records;
        for (const std::string &role : roles) {
            const pg::Result paused
                    = withLog ? connection.exec(
                              "pause", PauseSql,
                              {role, by, reason, optional(end.at), optional(end.after)},
                              StatementTimeout)
                              : connection.exec("pause", AdrPauseSql, {role, by, reason},
                                                StatementTimeout);
            const pg::Result row = connection.exec(
                    "paused",
                    features.has(schema::Extension::AdrFleet) ? ExtendedPausedSql : PausedSql,
                    {role}, StatementTimeout);
            const bool byThisCall = paused.toBool(0, 0);
            records.push_back({role, std::string(row.text(0, 0)), std::string(row.text(0, 1)),
                               std::string(row.text(0, 2)), row.optionalText(0, 3), byThisCall,
                               byThisCall && notifies});
        }
        return records;
    });
}

std::vector<PauseRecord> pauseRoles(pg::Connection &connection, std::span<const std::string> roles,
                                    std::string_view by, std::string_view reason,
                                    const PauseEnd &end)
{
    return pauseRoles(connection, schema::probeFeatures(connection), roles, by, reason, end);
}

std::vector<UnpauseRecord> unpauseRoles(pg::Connection &connection,
                                        const schema::LeaseFeatures &features,
                                        std::span<const std::string> roles, std::string_view by,
                                        std::string_view reason)
{
    const bool withLog = features.has(schema::Extension::PauseLog);
    const bool notifies = features.has(schema::Extension::PauseNotify);
    return pg::inTransaction(connection, StatementTimeout, [&] {
        std::vector<UnpauseRecord> records;
        for (const std::string &role : roles) {
            const pg::Result result
                    = withLog ? connection.exec("unpause", UnpauseSql,
                                                {role, optional(by), optional(reason)},
                                                StatementTimeout)
                              : connection.exec("unpause", AdrUnpauseSql, {role}, StatementTimeout);
            const bool wasPaused = result.toBool(0, 0);
            records.push_back({role, wasPaused, withLog, wasPaused && notifies});
        }
        return records;
    });
}

std::vector<UnpauseRecord> unpauseRoles(pg::Connection &connection,
                                        std::span<const std::string> roles, std::string_view by,
                                        std::string_view reason)
{
    return unpauseRoles(connection, schema::probeFeatures(connection), roles, by, reason);
}

std::vector<PauseLogEntry> pauseHistory(pg::Connection &connection, const PauseLogQuery &query)
{
    // A pause with an end (0189) that ended while no ACQUIRE followed has its expiry logged by
    // the next ACQUIRE, pause or unpause; a reader that may write logs it now, at the pause's
    // end. One that may not (the monitor, a standby, a schema before 0189) reads the log as it is.
    try {
        connection.exec("settle pauses", SettleSql, {}, StatementTimeout);
    } catch (const pg::Error &error) {
        if (error.kind() != pg::ErrorKind::Definite)
            throw;
    }
    const pg::Result result = connection.exec(
            "pause history", HistorySql,
            {optional(query.role), optional(query.sinceAgo), optional(query.sinceAt), query.limit},
            StatementTimeout);
    std::vector<PauseLogEntry> entries;
    entries.reserve(std::size_t(result.rows()));
    for (int row = 0; row < result.rows(); ++row) {
        const std::string_view action = result.text(row, 2);
        const std::optional<PauseAction> parsed = pauseActionFromName(action);
        // The log's CHECK allows these three; anything else is a schema this build does not know.
        if (!parsed)
            throw pg::Error(pg::ErrorKind::Definite, {}, "pause history",
                            "leader_pause_log has an unknown action \"" + std::string(action) + '"',
                            false);
        entries.push_back({result.toInt64(row, 0), std::string(result.text(row, 1)), *parsed,
                           std::string(result.text(row, 3)), std::string(result.text(row, 4)),
                           result.optionalText(row, 5), result.optionalText(row, 6),
                           result.optionalText(row, 7), result.optionalText(row, 8)});
    }
    return entries;
}

} // namespace leader::lease
