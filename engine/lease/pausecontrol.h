#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace leader::pg {
class Connection;
}

// The operator's side of pauses (migration 0177): several roles in one transaction, pauses that
// end by themselves, who paused a role that was paused already, and the pause log. Every instant
// is computed and printed by the database (ISO 8601, UTC, milliseconds); no client clock enters.
namespace leader::lease {

// When a pause ends, on the database clock: `after` a Postgres interval ("1 hour"), or `at` a
// timestamptz literal ("2026-12-04 09:00+01"); neither: until leader_unpause.
struct PauseEnd
{
    std::string after;
    std::string at;
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
};

// Pauses every role in one transaction: all of them or, if any call fails (an unknown role, a
// missing privilege, an end not after now), none. Throws pg::Error.
std::vector<PauseRecord> pauseRoles(pg::Connection &connection, std::span<const std::string> roles,
                                    std::string_view by, std::string_view reason,
                                    const PauseEnd &end = {});

struct UnpauseRecord
{
    std::string role;
    bool wasPaused = false; // false: not paused, or its end had passed (the log says "expire")
};

// Unpauses every role in one transaction, recording by and reason in the log (both may be empty:
// the log then names the login only). Throws pg::Error.
std::vector<UnpauseRecord> unpauseRoles(pg::Connection &connection,
                                        std::span<const std::string> roles, std::string_view by,
                                        std::string_view reason);

struct PauseLogEntry
{
    std::int64_t id = 0;
    std::string role;
    std::string action; // pause, unpause, expire
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

// Newest first. Throws pg::Error.
std::vector<PauseLogEntry> pauseHistory(pg::Connection &connection, const PauseLogQuery &query);

} // namespace leader::lease
