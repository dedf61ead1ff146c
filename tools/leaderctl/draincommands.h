#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace leader::pg {
class Connection;
}

// leaderctl's drain and undrain commands over lease/draincontrol (extension 0183): what they print
// and their exit codes.
namespace leaderctl {

// Exit codes of their own, beside leaderctl's 0 to 5.
inline constexpr int DrainRefusedExit = 6;  // a role would be left with no eligible replica
inline constexpr int DrainTimedOutExit = 7; // --wait: still running at --timeout

struct DrainOptions
{
    std::string replica; // its leader-replica --id
    std::string by;
    std::string reason;
    bool force = false;
    bool wait = false;
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// "90s", "2m", "500ms", "1h" as a duration; nullopt for anything else.
std::optional<std::chrono::milliseconds> durationFrom(std::string_view text);

// One line for the drain (or the drain that was there already); with wait, a second one once
// the replica reports drained, or naming the roles still running at the timeout. Returns the exit
// code. A database without 0183 throws schema::SchemaError; a refusal pg::Error.
int drain(leader::pg::Connection &connection, const DrainOptions &options);
int undrain(leader::pg::Connection &connection, const std::string &replica, const std::string &by,
            const std::string &reason);

} // namespace leaderctl
