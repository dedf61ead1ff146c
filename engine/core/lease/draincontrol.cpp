#include "draincontrol.h"

#include "constants.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "pg/transaction.h"

#include <sstream>

namespace leader::lease {

namespace {

constexpr std::string_view DrainSql
        = "SELECT array_to_string(leader_ext.leader_drain($1, $2, $3, $4::boolean), ',')";
// The record as the view shows it; drained_at = now(): this transaction made it.
constexpr std::string_view RecordSql
        = "SELECT to_char(drained_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " drained_by, drain_reason, drained_at = now()"
          " FROM leader_ext.leader_replicas_status WHERE name = $1 AND drained_at IS NOT NULL"
          " LIMIT 1";
constexpr std::string_view UndrainSql = "SELECT leader_ext.leader_undrain($1, $2, $3)";
constexpr std::string_view OrphansSql
        = "SELECT array_to_string(leader_ext.leader_drain_orphans($1), ',')";
constexpr std::string_view ProgressSql
        = "SELECT count(*) > 0, coalesce(bool_or(drained_at IS NOT NULL), false),"
          " coalesce(bool_and(drain = 'drained') FILTER (WHERE state = 'alive'), true),"
          " (SELECT string_agg(DISTINCT x, ',') FROM leader_ext.leader_replicas_status s,"
          "         unnest(s.running_roles) x WHERE s.name = $1 AND s.state = 'alive')"
          " FROM leader_ext.leader_replicas_status WHERE name = $1";
// The hour matches leader_drain_orphans': a holder outside the registry seen that recently may
// run the role.
constexpr std::string_view OutsideSql = R"sql(
SELECT o.role, o.holder_id,
       greatest(0, extract(epoch FROM now() - greatest(o.last_acquired_at, o.last_released_at))),
       coalesce(l.holder_id = o.holder_id AND l.expires_at > now(), false),
       CASE WHEN l.holder_id = o.holder_id AND l.expires_at > now()
            THEN greatest(0, extract(epoch FROM now() - l.acquired_at)) END,
       o.last_duration_seconds
  FROM leader_ext.leader_outside_holders AS o
  LEFT JOIN leader_leases AS l ON l.role = o.role
 WHERE greatest(o.last_acquired_at, o.last_released_at) > now() - interval '1 hour'
   AND ($1::text IS NULL OR o.role = $1)
   AND ($2::text IS NULL OR o.role IN (SELECT unnest(r.roles)
                                         FROM leader_ext.leader_replicas_status AS r
                                        WHERE r.name = $2 AND r.state = 'alive'))
 ORDER BY 3, 1
)sql";

constexpr std::string_view BeatSql
        = "SELECT leader_ext.leader_replica_drain_beat($1, $2::boolean, string_to_array($3, ','))";

std::vector<std::string> split(std::string_view text)
{
    std::vector<std::string> items;
    std::stringstream stream{std::string(text)};
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty())
            items.push_back(item);
    return items;
}

std::string joined(const std::vector<std::string> &items)
{
    std::string text;
    for (const std::string &item : items)
        text += (text.empty() ? "" : ",") + item;
    return text;
}

} // namespace

DrainRecord drainReplica(pg::Connection &connection, std::string_view name, std::string_view by,
                         std::string_view reason, bool force)
{
    try {
        return pg::inTransaction(connection, StatementTimeout, [&] {
            DrainRecord record;
            record.name = std::string(name);
            const pg::Result drained = connection.exec(
                    "drain", DrainSql,
                    {name, by, reason, std::string_view(force ? "true" : "false")},
                    StatementTimeout);
            record.orphaned = split(drained.text(0, 0));
            const pg::Result row
                    = connection.exec("drain record", RecordSql, {name}, StatementTimeout);
            if (row.rows() > 0) {
                record.drainedAt = row.text(0, 0);
                record.drainedBy = row.text(0, 1);
                record.reason = row.text(0, 2);
                record.byThisCall = row.toBool(0, 3);
            }
            return record;
        });
    } catch (const pg::Error &error) {
        // The function's refusal (object_not_in_prerequisite_state) names the roles; the message
        // is its first line.
        if (error.sqlstate() != pg::sqlstate::ObjectNotInPrerequisiteState)
            throw;
        std::vector<std::string> roles = drainOrphans(connection, name);
        std::string message = "draining replica " + std::string(name) + " leaves "
                              + (roles.empty() ? std::string("a role") : joined(roles))
                              + " with no eligible replica; start another replica running it "
                                "first, or drain anyway with --force";
        throw DrainRefused(message, std::move(roles));
    }
}

bool undrainReplica(pg::Connection &connection, std::string_view name, std::string_view by,
                    std::string_view reason)
{
    return connection.exec("undrain", UndrainSql, {name, by, reason}, StatementTimeout)
            .toBool(0, 0);
}

std::vector<std::string> drainOrphans(pg::Connection &connection, std::string_view name)
{
    return split(connection.exec("drain orphans", OrphansSql, {name}, StatementTimeout).text(0, 0));
}

namespace {

std::vector<OutsideHolder> readOutside(pg::Connection &connection, std::string_view role,
                                       std::string_view name)
{
    const pg::Result rows = connection.exec("outside holders", OutsideSql,
                                            {role.empty() ? pg::Param(nullptr) : pg::Param(role),
                                             name.empty() ? pg::Param(nullptr) : pg::Param(name)},
                                            StatementTimeout);
    std::vector<OutsideHolder> holders;
    for (int row = 0; row < rows.rows(); ++row) {
        OutsideHolder &holder = holders.emplace_back();
        holder.role = std::string(rows.text(row, 0));
        holder.holder = std::string(rows.text(row, 1));
        holder.lastSeenAgeSeconds = rows.toDouble(row, 2);
        holder.holdsNow = rows.toBool(row, 3);
        if (!rows.isNull(row, 4))
            holder.heldForSeconds = rows.toDouble(row, 4);
        if (!rows.isNull(row, 5))
            holder.lastTickSeconds = rows.toDouble(row, 5);
    }
    return holders;
}

} // namespace

std::vector<OutsideHolder> outsideHolders(pg::Connection &connection, std::string_view role)
{
    return readOutside(connection, role, {});
}

std::vector<OutsideHolder> outsideHoldersOfReplica(pg::Connection &connection,
                                                   std::string_view name)
{
    return readOutside(connection, {}, name);
}

DrainProgress drainProgress(pg::Connection &connection, std::string_view name)
{
    const pg::Result row = connection.exec("drain progress", ProgressSql, {name}, StatementTimeout);
    DrainProgress progress;
    progress.known = row.toBool(0, 0);
    progress.flagged = row.toBool(0, 1);
    progress.drained = progress.flagged && row.toBool(0, 2);
    if (!row.isNull(0, 3))
        progress.running = split(row.text(0, 3));
    return progress;
}

bool drainBeat(pg::Connection &connection, std::string_view holderId, bool local,
               const std::optional<std::vector<std::string>> &running,
               std::chrono::milliseconds timeout)
{
    return connection
            .exec("drain beat", BeatSql,
                  {holderId, std::string_view(local ? "true" : "false"),
                   running ? pg::Param(joined(*running)) : pg::Param(nullptr)},
                  timeout)
            .toBool(0, 0);
}

} // namespace leader::lease
