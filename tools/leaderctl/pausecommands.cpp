#include "pausecommands.h"

#include "lease/constants.h"
#include "log/json.h"
#include "output.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "schema/features.h"

#include <iostream>

namespace leaderctl {

namespace {

std::string jsonOrNull(const std::optional<std::string> &value)
{
    return value ? leader::log::jsonQuoted(*value) : std::string("null");
}

} // namespace

void pause(leader::pg::Connection &connection, const leader::schema::LeaseFeatures &features,
           const std::vector<std::string> &roles, const std::string &by, const std::string &reason,
           const leader::lease::PauseEnd &end)
{
    bool atHeartbeat = false;
    for (const leader::lease::PauseRecord &record :
         leader::lease::pauseRoles(connection, features, roles, by, reason, end)) {
        const std::string until
                = record.until ? " until " + printable(*record.until) : std::string();
        atHeartbeat = atHeartbeat || (record.byThisCall && !record.notified);
        if (record.byThisCall)
            std::cout << "leaderctl: " << printable(record.role) << " paused at "
                      << printable(record.pausedAt) << " by " << printable(record.pausedBy) << until
                      << "\n";
        else
            std::cout << "leaderctl: " << printable(record.role) << " was already paused at "
                      << printable(record.pausedAt) << " by " << printable(record.pausedBy) << ": "
                      << printable(record.reason) << until << "; nothing changed\n";
    }
    // The fence is false from the commit on either way; only the holder's own stop waits.
    if (atHeartbeat)
        std::cout << "leaderctl: a holder stops at its next heartbeat, within "
                  << leader::lease::HeartbeatEvery / std::chrono::seconds(1) << " s, not at once: "
                  << leader::schema::extensionNeeded("waking it at once",
                                                     leader::schema::Extension::PauseNotify)
                  << "\n";
}

void unpause(leader::pg::Connection &connection, const leader::schema::LeaseFeatures &features,
             const std::vector<std::string> &roles, const std::string &by,
             const std::string &reason)
{
    bool dropped = false;
    for (const leader::lease::UnpauseRecord &record :
         leader::lease::unpauseRoles(connection, features, roles, by, reason)) {
        dropped = !record.attributed;
        std::cout << "leaderctl: " << printable(record.role)
                  << (record.wasPaused ? " unpaused" : " was not paused") << "\n";
    }
    if (dropped && (!by.empty() || !reason.empty()))
        std::cout << "leaderctl: --by and --reason were not recorded: "
                  << leader::schema::extensionNeeded("recording them",
                                                     leader::schema::Extension::PauseLog)
                  << "\n";
}

void history(leader::pg::Connection &connection, const leader::lease::PauseLogQuery &query,
             bool json)
{
    // The log is read first: a login that may not read leader_ext gets its refusal, not "needs
    // the extension" (the features probe cannot tell the two apart).
    std::vector<leader::lease::PauseLogEntry> entries;
    try {
        entries = leader::lease::pauseHistory(connection, query);
    } catch (const leader::pg::Error &error) {
        if (error.sqlstate() != leader::pg::sqlstate::UndefinedTable)
            throw;
        leader::schema::requireExtension(connection, leader::schema::probeFeatures(connection),
                                         "the pause history", leader::schema::Extension::PauseLog);
        throw;
    }
    if (json) {
        std::cout << "{\"server\":" << leader::log::jsonQuoted(connection.target())
                  << ",\"entries\":[";
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const leader::lease::PauseLogEntry &entry = entries[i];
            std::cout << (i ? "," : "") << "{\"id\":" << entry.id
                      << ",\"role\":" << leader::log::jsonQuoted(entry.role) << ",\"action\":"
                      << leader::log::jsonQuoted(std::string(leader::lease::nameOf(entry.action)))
                      << ",\"at\":" << leader::log::jsonQuoted(entry.at)
                      << ",\"login\":" << leader::log::jsonQuoted(entry.login)
                      << ",\"by\":" << jsonOrNull(entry.by)
                      << ",\"reason\":" << jsonOrNull(entry.reason)
                      << ",\"paused_until\":" << jsonOrNull(entry.until)
                      << ",\"pause_at\":" << jsonOrNull(entry.pausedAt) << "}";
        }
        std::cout << "]}\n";
        return;
    }
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const leader::lease::PauseLogEntry &entry : entries)
        rows.push_back({entry.at, entry.role, std::string(leader::lease::nameOf(entry.action)),
                        entry.login, entry.by, entry.reason, entry.until, entry.pausedAt});
    std::cout << formatTable({"AT (UTC)", "ROLE", "ACTION", "LOGIN", "BY", "REASON", "UNTIL (UTC)",
                              "ENDS PAUSE OF (UTC)"},
                             rows);
    if (entries.empty())
        std::cout << "(no pauses recorded"
                  << (query.role.empty() ? "" : " for " + printable(query.role)) << ")\n";
}

} // namespace leaderctl
