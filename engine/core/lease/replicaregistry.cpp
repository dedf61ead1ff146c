#include "replicaregistry.h"

#include "constants.h"
#include "pg/error.h"
#include "wakelistener.h"

#include <set>
#include <sstream>

namespace leader::lease {

namespace {

// Roles travel as one comma-separated text: role names hold no comma, and the table's CHECK
// refuses anything but the five.
constexpr std::string_view SeenSql
        = "SELECT leader_ext.leader_replica_seen($1, $2, $3, $4, string_to_array($5, ','))";
constexpr std::string_view NamedSeenSql = "SELECT leader_ext.leader_replica_seen($1, $2, $3, $4,"
                                          " string_to_array($5, ','), $6, $7::bigint)";

constexpr std::string_view GoneSql = "SELECT leader_ext.leader_replica_gone($1)";

constexpr std::string_view ListSql
        = "SELECT holder_id, host, pid, version, array_to_string(roles, ','),"
          " to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " to_char(last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " last_seen_age_seconds, state,"
          " to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          // The high halves of the marker keys held now in this database: a marker is the
          // exclusive session lock on hash << 32 | its own backend pid (WakeListener), so a
          // death watch's shared wait or another key with the same high half does not count.
          " (SELECT pg_catalog.string_agg(DISTINCT l.classid::text, ',')"
          "    FROM pg_catalog.pg_locks l"
          "   WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ExclusiveLock'"
          "     AND l.granted AND l.objid::bigint = l.pid"
          "     AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d"
          "                        WHERE d.datname = pg_catalog.current_database()))";
constexpr std::string_view NamedColumnsSql = ", name, marker_session, marker_held";
constexpr std::string_view DrainColumnsSql
        = ", drain, drained_by, drain_reason, array_to_string(running_roles, ',')";
constexpr std::string_view EarlyTakeOffColumnsSql
        = ", to_char(early_take_off_until AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
          " early_take_off_reason";
constexpr std::string_view ListFromSql
        = " FROM leader_ext.leader_replicas_status ORDER BY host, started_at, holder_id";

std::string joined(const std::vector<std::string> &roles)
{
    std::string text;
    for (const std::string &role : roles)
        text += (text.empty() ? "" : ",") + role;
    return text;
}

std::vector<std::string> split(std::string_view text)
{
    std::vector<std::string> items;
    std::stringstream stream{std::string(text)};
    for (std::string item; std::getline(stream, item, ',');)
        items.push_back(item);
    return items;
}

} // namespace

void replicaSeen(pg::Connection &connection, const ReplicaInfo &replica,
                 std::chrono::milliseconds timeout, const pg::StatementWindow &window, bool named)
{
    if (!named) {
        connection.exec("replica seen", SeenSql,
                        {replica.holderId, replica.host, replica.pid, replica.version,
                         joined(replica.roles)},
                        timeout, window);
        return;
    }
    connection.exec(
            "replica seen", NamedSeenSql,
            {replica.holderId, replica.host, replica.pid, replica.version, joined(replica.roles),
             replica.name.empty() ? pg::Param(nullptr) : pg::Param(replica.name),
             replica.markerSession ? pg::Param(*replica.markerSession) : pg::Param(nullptr)},
            timeout, window);
}

void replicaEarlyTakeOff(pg::Connection &connection, std::string_view holderId,
                         std::optional<std::chrono::milliseconds> off, std::string_view reason,
                         std::chrono::milliseconds timeout)
{
    connection.exec(
            "early take off", "SELECT leader_ext.leader_replica_early_take_off($1, $2::bigint, $3)",
            {holderId,
             off ? pg::Param(static_cast<std::int64_t>(off->count())) : pg::Param(nullptr), reason},
            timeout);
}

bool replicaGone(pg::Connection &connection, std::string_view holderId,
                 std::chrono::milliseconds timeout, const pg::StatementWindow &window)
{
    return connection.exec("replica gone", GoneSql, {holderId}, timeout, window).toBool(0, 0);
}

std::optional<std::vector<RegisteredReplica>> listReplicas(pg::Connection &connection, bool named,
                                                           bool drains, bool earlyTakeOff)
{
    drains = drains || earlyTakeOff;
    named = named || drains;
    std::optional<pg::Result> result;
    try {
        const std::string sql = std::string(ListSql) + (named ? std::string(NamedColumnsSql) : "")
                                + (drains ? std::string(DrainColumnsSql) : "")
                                + (earlyTakeOff ? std::string(EarlyTakeOffColumnsSql) : "")
                                + std::string(ListFromSql);
        result = connection.exec("replicas", sql, {}, StatementTimeout);
    } catch (const pg::Error &error) {
        // The one relation the statement names: without it (or without the schema leader_ext)
        // the database lacks extension 0178.
        if (error.sqlstate() == pg::sqlstate::UndefinedTable)
            return std::nullopt;
        throw;
    }
    std::vector<RegisteredReplica> replicas;
    std::set<std::int64_t> markers;
    if (result->rows() > 0) {
        for (const std::string &prefix : split(result->text(0, 10)))
            markers.insert(std::stoll(prefix));
    }
    // Member by member: GCC 12 destroys a member twice when a later initializer throws after a
    // nested designated initializer, and the number conversions throw on bad data.
    for (int row = 0; row < result->rows(); ++row) {
        RegisteredReplica &listed = replicas.emplace_back();
        listed.replica.holderId = result->text(row, 0);
        listed.replica.host = result->text(row, 1);
        listed.replica.pid = static_cast<int>(result->toInt64(row, 2));
        listed.replica.version = result->text(row, 3);
        listed.replica.roles = split(result->text(row, 4));
        listed.startedAt = result->text(row, 5);
        listed.lastSeen = result->text(row, 6);
        listed.lastSeenAgeSeconds = result->toDouble(row, 7);
        // Anything but "alive" reads gone, as it always did.
        listed.state = valueIn<ReplicaState>(ReplicaStateNames, result->text(row, 8))
                               .value_or(ReplicaState::Gone);
        listed.observedAt = result->text(row, 9);
        listed.markerHeld
                = markers.contains(WakeListener::sessionKeyPrefix(listed.replica.holderId));
        if (named) {
            if (!result->isNull(row, 11))
                listed.replica.name = result->text(row, 11);
            if (!result->isNull(row, 12))
                listed.replica.markerSession = result->toInt64(row, 12);
            listed.markerRecorded = listed.replica.markerSession.has_value();
            // The view's own reading, in the same snapshot as its state.
            if (listed.markerRecorded)
                listed.markerHeld = result->toBool(row, 13);
        }
        if (drains) {
            listed.drain = valueIn<DrainState>(DrainStateNames, result->text(row, 14));
            listed.drainedBy = result->text(row, 15);
            listed.drainReason = result->text(row, 16);
            listed.running = split(result->text(row, 17));
        }
        if (earlyTakeOff && !result->isNull(row, 18)) {
            listed.earlyTakeOffUntil = result->text(row, 18);
            listed.earlyTakeOffReason = result->text(row, 19);
        }
    }
    return replicas;
}

} // namespace leader::lease
