#include "statuscommand.h"

#include "exitcodes.h"
#include "log/json.h"
#include "monitor/statusreader.h"
#include "output.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "schema/features.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace leaderctl {

namespace {

using namespace std::chrono_literals;

// "12 due subscriptions, oldest 3m05s"; "error" when the source failed (its line follows the
// table).
std::string backlogCell(const leader::monitor::BacklogRow &source)
{
    if (!source.pending)
        return "error";
    std::string cell = std::to_string(*source.pending) + " " + source.what;
    if (source.oldestAgeSeconds)
        cell += ", oldest " + formatAge(*source.oldestAgeSeconds);
    return cell;
}

std::string backlogJson(const leader::monitor::BacklogRow &source)
{
    char age[32] = "null";
    if (source.oldestAgeSeconds)
        std::snprintf(age, sizeof age, "%.3f", *source.oldestAgeSeconds);
    return "{\"what\":" + leader::log::jsonQuoted(source.what) + ",\"pending\":"
           + (source.pending ? std::to_string(*source.pending) : std::string("null"))
           + ",\"oldest_pending_age_seconds\":" + age + ",\"error\":"
           + (source.error.empty() ? std::string("null") : leader::log::jsonQuoted(source.error))
           + "}";
}

// The replicas that name no marker for now (0189): their marker session kept being ended while
// they ran, so their leases end at expiry only. A registry the login may not read says nothing.
void printEarlyTakeOff(leader::pg::Connection &connection,
                       const leader::schema::LeaseFeatures &features)
{
    if (!features.has(leader::schema::Extension::AdrFleet))
        return;
    try {
        const leader::pg::Result off = connection.exec("early take off", R"sql(
SELECT coalesce(name, holder_id),
       to_char(early_take_off_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       early_take_off_reason
  FROM leader_ext.leader_replicas_status
 WHERE early_take_off_until IS NOT NULL AND state = 'alive'
 ORDER BY 1
)sql",
                                                       {}, 5s);
        for (int row = 0; row < off.rows(); ++row)
            std::cout << "early take off on " << printable(off.text(row, 0)) << " until "
                      << off.text(row, 1) << ": " << printable(off.text(row, 2))
                      << "; its leases end at their expiry only\n";
    } catch (const leader::pg::Error &error) {
        if (error.kind() != leader::pg::ErrorKind::Definite)
            throw;
    }
}

} // namespace

int status(leader::pg::Connection &connection, bool json)
{
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
    leader::schema::requireAdr(connection, features);
    // The extensions' columns through to_jsonb: NULL where the ADR's leader_status lacks them. With
    // 0189 they are leader_ext.leader_status's, and the ADR's view has the ADR's columns only.
    const bool extendedView = features.has(leader::schema::Extension::AdrFleet);
    std::string statusSql = R"sql(
SELECT role, state, holder_id, holder_token::text,
       to_char(acquired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       expires_in_seconds::text, last_tick_age_seconds::text,
       to_char(last_tick_ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       paused_by, to_char(paused_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       pause_reason, to_char(not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       to_char((to_jsonb(s) ->> 'paused_until')::timestamptz AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       round((to_jsonb(s) ->> 'pause_remaining_seconds')::numeric, 3)::text,
       CASE to_jsonb(s) ->> 'early_take' WHEN 'true' THEN 'on' WHEN 'false' THEN 'off' END,
       (to_jsonb(s) ->> 'last_outcome')
           || coalesce(' (' || (to_jsonb(s) ->> 'last_loss_reason') || ')', ''),
       round((to_jsonb(s) ->> 'last_duration_seconds')::numeric, 3)::text,
       to_jsonb(s) ->> 'completed_last_hour', to_jsonb(s) ->> 'lost_last_hour',
       to_jsonb(s) ->> 'failed_last_hour', to_jsonb(s) ->> 'interrupted_last_hour',
       to_jsonb(s) ->> 'last_failed_step', to_jsonb(s) ->> 'last_error',
       to_jsonb(s) ->> 'last_outcome', to_jsonb(s) ->> 'last_loss_reason',
       (to_jsonb(s) ->> 'completed_last_hour') || '/' || (to_jsonb(s) ->> 'lost_last_hour') || '/'
           || (to_jsonb(s) ->> 'failed_last_hour')
           || CASE to_jsonb(s) ->> 'counts_ours_only' WHEN 'true' THEN ' ours only' ELSE '' END,
       to_jsonb(s) ->> 'counts_ours_only', to_jsonb(s) ->> 'holder_outside',
       round((to_jsonb(s) ->> 'holder_last_duration_seconds')::numeric, 3)::text
  FROM /*view*/ AS s
 ORDER BY array_position(ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                               'webhook_delivery'], role)
)sql";
    statusSql.replace(statusSql.find("/*view*/"), 8,
                      extendedView ? "leader_ext.leader_status" : "leader_status");
    const leader::pg::Result result = connection.exec("status", statusSql, {}, 5s);
    // Column 12 is observed_at, once for the whole document.
    static const std::vector<std::pair<int, std::string>> keys{{0, "role"},
                                                               {1, "state"},
                                                               {2, "holder_id"},
                                                               {3, "holder_token"},
                                                               {4, "acquired_at"},
                                                               {5, "expires_in_s"},
                                                               {6, "last_tick_age_s"},
                                                               {7, "last_tick_ended_at"},
                                                               {8, "paused_by"},
                                                               {9, "paused_at"},
                                                               {10, "pause_reason"},
                                                               {13, "paused_until"},
                                                               {14, "pause_remaining_s"},
                                                               {11, "not_before"},
                                                               {15, "early_take"},
                                                               {24, "last_outcome"},
                                                               {25, "last_loss_reason"},
                                                               {17, "last_duration_s"},
                                                               {22, "last_failed_step"},
                                                               {23, "last_error"},
                                                               {18, "completed_last_hour"},
                                                               {19, "lost_last_hour"},
                                                               {20, "failed_last_hour"},
                                                               {21, "interrupted_last_hour"},
                                                               {27, "counts_ours_only"},
                                                               {28, "holder_outside"}};
    static const std::set<int> numeric{3, 5, 6, 14, 17, 18, 19, 20, 21};
    static const std::set<int> booleans{27, 28};
    const std::string missing = leader::monitor::extensionsSummary(features);
    // Each role's backlog (extension 0186), a second statement; its failure fails nothing else.
    const bool withBacklog = features.has(leader::schema::Extension::Backlog);
    std::map<std::string, leader::monitor::BacklogRow> backlog;
    std::string backlogError;
    if (withBacklog) {
        try {
            for (leader::monitor::BacklogRow &row : leader::monitor::readBacklog(connection, 5s))
                backlog.emplace(row.role, std::move(row));
        } catch (const leader::pg::Error &error) {
            backlogError = leader::pg::explain(error);
        }
    }
    const auto backlogOf
            = [&backlog](std::string_view role) -> const leader::monitor::BacklogRow * {
        const auto found = backlog.find(std::string(role));
        return found == backlog.end() ? nullptr : &found->second;
    };
    if (json) {
        std::cout << "{\"observed_at\":"
                  << (result.rows() ? leader::log::jsonQuoted(std::string(result.text(0, 12)))
                                    : std::string("null"))
                  << ",\"server\":" << leader::log::jsonQuoted(connection.target())
                  << ",\"extension\":" << features.extension << ",\"extensions_missing\":"
                  << (missing.empty() ? std::string("null") : leader::log::jsonQuoted(missing))
                  << ",\"roles\":[";
        for (int row = 0; row < result.rows(); ++row) {
            std::cout << (row ? "," : "") << "{";
            for (std::size_t key = 0; key < keys.size(); ++key) {
                const auto &[c, name] = keys[key];
                std::cout << (key ? "," : "") << leader::log::jsonQuoted(name) << ":";
                if (result.isNull(row, c))
                    std::cout << "null";
                else if (c == 15) // early_take: a boolean
                    std::cout << (result.text(row, c) == "on" ? "true" : "false");
                else if (booleans.contains(c))
                    std::cout << result.text(row, c);
                else if (numeric.contains(c))
                    std::cout << result.text(row, c);
                else
                    std::cout << leader::log::jsonQuoted(std::string(result.text(row, c)));
            }
            if (withBacklog) {
                std::cout << ",\"backlog\":";
                if (const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0)))
                    std::cout << backlogJson(*source);
                else
                    std::cout << "null";
            }
            std::cout << "}";
        }
        std::cout << "]";
        if (withBacklog)
            std::cout << ",\"backlog_error\":"
                      << (backlogError.empty() ? std::string("null")
                                               : leader::log::jsonQuoted(backlogError));
        std::cout << "}\n";
        return Ok;
    }
    // A pause's end and the early take's switch only where the extensions that add them are.
    const bool pauseEnds = features.has(leader::schema::Extension::PauseLog);
    const bool earlyTake = features.has(leader::schema::Extension::EarlyTakeSwitch);
    const bool tickDetails = features.has(leader::schema::Extension::TickDetails);
    std::vector<std::string> headers{
            "ROLE",         "STATE",           "HOLDER",    "TOKEN", "ACQUIRED (UTC)",
            "EXPIRES IN s", "LAST TICK AGE s", "PAUSED BY", "REASON"};
    std::vector<int> columns{0, 1, 2, 3, 4, 5, 6, 8, 10};
    if (pauseEnds) {
        headers.push_back("PAUSED UNTIL (UTC)");
        columns.push_back(13);
    }
    headers.push_back("NOT BEFORE (UTC)");
    columns.push_back(11);
    if (earlyTake) {
        headers.push_back("EARLY TAKE");
        columns.push_back(15);
    }
    if (tickDetails) {
        // The last tick whatever its outcome, and the hour's completed/lost/failed ticks.
        for (const auto &[header, column] : std::vector<std::pair<std::string, int>>{
                     {"OUTCOME", 16}, {"TOOK s", 17}, {"HOUR C/L/F", 26}}) {
            headers.push_back(header);
            columns.push_back(column);
        }
    }
    if (withBacklog)
        headers.push_back("BACKLOG");
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (int row = 0; row < result.rows(); ++row) {
        std::vector<std::optional<std::string>> cells;
        for (int column : columns)
            cells.push_back(result.optionalText(row, column));
        if (withBacklog) {
            const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0));
            cells.push_back(!backlogError.empty() ? std::optional<std::string>("error")
                            : source              ? std::optional(backlogCell(*source))
                                                  : std::nullopt);
        }
        rows.push_back(std::move(cells));
    }
    std::cout << formatTable(headers, rows);
    // A source's error is too long for a column too.
    for (int row = 0; row < result.rows(); ++row) {
        const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0));
        if (source && !source->error.empty())
            std::cout << result.text(row, 0)
                      << ": backlog source failed: " << printable(source->error) << "\n";
    }
    if (!backlogError.empty())
        std::cout << "leaderctl: the backlog could not be read: " << printable(backlogError)
                  << "\n";
    // A failed step and its error are too long for a column: one line each, under the table.
    for (int row = 0; tickDetails && row < result.rows(); ++row) {
        if (result.isNull(row, 22) && result.isNull(row, 23))
            continue;
        std::cout << result.text(row, 0) << ": last tick " << result.text(row, 24);
        if (!result.isNull(row, 22))
            std::cout << " in step \"" << result.text(row, 22) << "\"";
        if (!result.isNull(row, 23))
            std::cout << ": " << result.text(row, 23);
        std::cout << "\n";
    }
    // A holder outside the registry (0189): a replica that speaks only the ADR, or another tool.
    for (int row = 0; row < result.rows(); ++row) {
        if (result.text(row, 28) != "true")
            continue;
        std::cout << result.text(row, 0) << ": held by " << printable(result.text(row, 2))
                  << ", outside the replica registry (a replica that speaks only the ADR): it "
                     "takes no hand-over request and no drain";
        if (!result.isNull(row, 29))
            std::cout << "; its last tick of the role lasted " << result.text(row, 29) << " s";
        std::cout << "\n";
    }
    for (int row = 0; tickDetails && row < result.rows(); ++row)
        if (result.text(row, 27) == "true")
            std::cout << result.text(row, 0)
                      << ": the hour's counts are ours only: holders outside the registry led "
                         "it too, and record no tick\n";
    printEarlyTakeOff(connection, features);
    // The server that answered: with a multi-host URL, the one libpq chose (the new primary
    // after a failover, with target_session_attrs=read-write).
    if (result.rows())
        std::cout << "database clock: " << result.text(0, 12) << " on " << connection.target()
                  << "\n";
    if (!missing.empty())
        std::cout << "leaderctl: " << missing << "\n";
    return Ok;
}

} // namespace leaderctl
