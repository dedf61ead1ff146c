#pragma once

#include "log/nametable.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leader::schema {
struct LeaseFeatures;
}

// The operator's side of pauses: several roles in one transaction and who paused a role that was
// paused already, with the ADR's leader_pause and leader_unpause alone; pauses that end by
// themselves, an unpause's who and why, and the pause log with extension 0177 (PauseLog). Every
// instant is computed and printed by the database (ISO 8601, UTC, milliseconds); no client clock
// enters.
namespace leader::lease {

// When a pause ends, on the database clock: `after` a Postgres interval ("1 hour"), or `at` a
// timestamptz literal ("2026-12-04 09:00+01"); neither: until leader_unpause. An end needs
// extension 0177.
struct PauseEnd
{
    std::string after;
    std::string at;

    bool isSet() const { return !after.empty() || !at.empty(); }
};

// "15m", "1h", "4h", "2d", "90s" as a Postgres interval ("15 minutes"); nullopt for anything else.
std::optional<std::string> intervalFromDuration(std::string_view duration);

struct PauseRecord
{
    std::string role;
    std::string pausedAt;
    std::string pausedBy;
    std::string reason;
    std::optional<std::string> until;
    // false: the role was paused already and these are that pause's fields; this call changed
    // nothing.
    bool byThisCall = false;
    // true: this call paused the role and leader_pause sent the wake NOTIFY (extension 0176), so
    // its holder stops at once. false after a pause without it: the holder stops at its next
    // heartbeat RENEW, within HeartbeatEvery (its fence is false from the commit on either way).
    bool notified = false;
};

// Pauses every role in one transaction: all of them or, if any call fails (an unknown role, a
// missing privilege, an end not after now), none. With extension 0177 through
// leader_ext.leader_pause (an end may be given), else through the ADR's leader_pause(role, by,
// reason). Throws schema::SchemaError (extensionNeeded's line) for an end without 0177, before
// anything is sent; pg::Error.
std::vector<PauseRecord> pauseRoles(pg::Connection &connection,
                                    const schema::LeaseFeatures &features,
                                    std::span<const std::string> roles, std::string_view by,
                                    std::string_view reason, const PauseEnd &end = {});
// The same, the features probed first (schema::probeFeatures): one more statement.
std::vector<PauseRecord> pauseRoles(pg::Connection &connection, std::span<const std::string> roles,
                                    std::string_view by, std::string_view reason,
                                    const PauseEnd &end = {});

struct UnpauseRecord
{
    std::string role;
    bool wasPaused = false; // false: not paused, or its end had passed (the log says "expire")
    // by and reason went into the pause log (extension 0177); without it the ADR's
    // leader_unpause(role) takes neither, and they are dropped.
    bool attributed = false;
    // As PauseRecord::notified: idle runners poll at once (0176), else within MaxPoll.
    bool notified = false;
};

// Unpauses every role in one transaction. With extension 0177 through leader_ext.leader_unpause,
// recording by and reason in the log (both may be empty: the log then names the login only); else
// through the ADR's leader_unpause(role). Throws pg::Error.
std::vector<UnpauseRecord> unpauseRoles(pg::Connection &connection,
                                        const schema::LeaseFeatures &features,
                                        std::span<const std::string> roles, std::string_view by,
                                        std::string_view reason);
// The same, the features probed first.
std::vector<UnpauseRecord> unpauseRoles(pg::Connection &connection,
                                        std::span<const std::string> roles, std::string_view by,
                                        std::string_view reason);

// What the operator does to a role, and what a line of the pause log records
// (leader_ext.leader_pause_log.action): an Expire is a pause that ended by itself.
enum class PauseAction { Pause, Unpause, Expire };

// The one name table: the pause log's action column, what the tools and the console print.
inline constexpr std::array<Named<PauseAction>, 3> PauseActionNames{{
        {PauseAction::Pause, "pause"},
        {PauseAction::Unpause, "unpause"},
        {PauseAction::Expire, "expire"},
}};
static_assert(namesEveryValue(PauseActionNames));

constexpr std::string_view nameOf(PauseAction action)
{
    return nameIn<PauseAction>(PauseActionNames, action);
}

constexpr std::optional<PauseAction> pauseActionFromName(std::string_view name)
{
    return valueIn<PauseAction>(PauseActionNames, name);
}

struct PauseLogEntry
{
    std::int64_t id = 0;
    std::string role;
    PauseAction action = PauseAction::Pause;
    std::string at;
    std::string login;
    std::optional<std::string> by;
    std::optional<std::string> reason;
    std::optional<std::string> until;    // a pause's planned end
    std::optional<std::string> pausedAt; // an unpause's or expiry's pause
};

struct PauseLogQuery
{
    std::string role; // empty: every role
    // Entries from this far back ("7 days", a Postgres interval) or from this instant (a
    // timestamptz literal); both empty: all of them.
    std::string sinceAgo;
    std::string sinceAt;
    int limit = 1000;
};

// Newest first, from leader_ext.leader_pause_log (extension 0177: check it first, e.g. with
// schema::requireExtension). Throws pg::Error.
std::vector<PauseLogEntry> pauseHistory(pg::Connection &connection, const PauseLogQuery &query);

} // namespace leader::lease
