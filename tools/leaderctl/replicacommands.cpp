#include "replicacommands.h"

#include "lease/replicaregistry.h"
#include "log/json.h"
#include "output.h"
#include "pg/connection.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <iomanip>
#include <iostream>
#include <locale>
#include <sstream>

namespace leaderctl {

namespace {

std::string seconds(double value)
{
    std::ostringstream text;
    text.imbue(std::locale::classic());
    text << std::fixed << std::setprecision(3) << value;
    return text.str();
}

std::string joined(const std::vector<std::string> &roles)
{
    std::string text;
    for (const std::string &role : roles)
        text += (text.empty() ? "" : ",") + role;
    return text;
}

// Empty when not drained, which the table prints as "-" and JSON as null.
std::string drainName(const std::optional<leader::lease::DrainState> &drain)
{
    return drain ? std::string(leader::lease::nameOf(*drain)) : std::string();
}

} // namespace

void replicas(leader::pg::Connection &connection, bool json)
{
    // With 0182 each row also has the replica's --id and whether its marker still lives. The
    // probe reads a login that may not read leader_ext as having no extension, so the registry's
    // read below still gets its refusal, not "needs the extension" (the probe cannot tell the two
    // apart).
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
    const bool named = features.has(leader::schema::Extension::ReplicaNames);
    // With 0183 each row also has its drain (DRAIN and DRAINED BY, appended after NAME).
    const bool drains = features.has(leader::schema::Extension::ReplicaDrain);
    const std::optional<std::vector<leader::lease::RegisteredReplica>> listed
            = leader::lease::listReplicas(connection, named, drains);
    if (!listed) {
        constexpr std::string_view Feature = "the replica registry";
        leader::schema::requireExtension(connection, leader::schema::probeFeatures(connection),
                                         Feature, leader::schema::Extension::ReplicaRegistry);
        throw leader::schema::SchemaError(leader::schema::extensionNeeded(
                Feature, leader::schema::Extension::ReplicaRegistry));
    }
    if (json) {
        std::cout << "{\"server\":" << leader::log::jsonQuoted(connection.target())
                  << ",\"available\":true,\"observed_at\":"
                  << (listed->empty() ? std::string("null")
                                      : leader::log::jsonQuoted(listed->front().observedAt))
                  << ",\"replicas\":[";
        for (std::size_t i = 0; i < listed->size(); ++i) {
            const leader::lease::RegisteredReplica &row = (*listed)[i];
            std::cout << (i ? "," : "")
                      << "{\"holder_id\":" << leader::log::jsonQuoted(row.replica.holderId)
                      << ",\"host\":" << leader::log::jsonQuoted(row.replica.host)
                      << ",\"pid\":" << row.replica.pid
                      << ",\"version\":" << leader::log::jsonQuoted(row.replica.version)
                      << ",\"roles\":[";
            for (std::size_t r = 0; r < row.replica.roles.size(); ++r)
                std::cout << (r ? "," : "") << leader::log::jsonQuoted(row.replica.roles[r]);
            std::cout << "],\"started_at\":" << leader::log::jsonQuoted(row.startedAt)
                      << ",\"last_seen\":" << leader::log::jsonQuoted(row.lastSeen)
                      << ",\"last_seen_age_s\":" << seconds(row.lastSeenAgeSeconds)
                      << ",\"state\":" << leader::log::jsonQuoted(leader::lease::nameOf(row.state));
            if (named)
                std::cout << ",\"name\":"
                          << (row.replica.name.empty() ? std::string("null")
                                                       : leader::log::jsonQuoted(row.replica.name))
                          << ",\"marker_held\":"
                          << (!row.markerRecorded ? "null"
                              : row.markerHeld    ? "true"
                                                  : "false");
            const auto orNull = [](const std::string &text) {
                return text.empty() ? std::string("null") : leader::log::jsonQuoted(text);
            };
            if (drains)
                std::cout << ",\"drain\":" << orNull(drainName(row.drain))
                          << ",\"drained_by\":" << orNull(row.drainedBy)
                          << ",\"drain_reason\":" << orNull(row.drainReason);
            std::cout << "}";
        }
        std::cout << "]}\n";
        return;
    }
    // NAME is appended: scripts that cut the columns before it read what they always did.
    std::vector<std::string> headers{"HOLDER",          "HOST",       "PID",
                                     "VERSION",         "ROLES",      "STARTED (UTC)",
                                     "LAST SEEN (UTC)", "SEEN AGO s", "STATE"};
    if (named)
        headers.emplace_back("NAME");
    if (drains) {
        headers.emplace_back("DRAIN");
        headers.emplace_back("DRAINED BY");
    }
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const leader::lease::RegisteredReplica &row : *listed) {
        rows.push_back({row.replica.holderId, row.replica.host, std::to_string(row.replica.pid),
                        row.replica.version,
                        row.replica.roles.empty() ? std::nullopt
                                                  : std::optional(joined(row.replica.roles)),
                        row.startedAt, row.lastSeen, seconds(row.lastSeenAgeSeconds),
                        std::string(leader::lease::nameOf(row.state))});
        if (named)
            rows.back().push_back(row.replica.name.empty() ? std::nullopt
                                                           : std::optional(row.replica.name));
        const auto orNone = [](const std::string &text) {
            return text.empty() ? std::nullopt : std::optional(text);
        };
        if (drains) {
            rows.back().push_back(orNone(drainName(row.drain)));
            rows.back().push_back(orNone(row.drainedBy));
        }
    }
    std::cout << formatTable(headers, rows);
    if (listed->empty())
        std::cout << "(no replica registered)\n";
    else
        std::cout << "database clock: " << listed->front().observedAt << " on "
                  << connection.target() << "; alive: seen within the last 35 s"
                  << (named ? " and, for a replica with a marker session, that session held" : "")
                  << "\n";
}

} // namespace leaderctl
