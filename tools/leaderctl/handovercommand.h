#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace leader::pg {
class Connection;
}

// leaderctl handover over lease/handovercontrol (extension 0185): what it prints and its exit
// codes, those of drain (draincommands.h): 6 refused, 7 --wait timed out.
namespace leaderctl {

struct HandoverOptions
{
    std::string role;
    std::optional<std::string> to; // a replica's leader-replica --id
    std::string by;
    std::string reason;
    bool wait = false;
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// One line for the handover; with wait, a second one once another holder (the named one) has
// acquired the role, with the time from the handover to that ACQUIRE. A database without 0185
// throws schema::SchemaError; a refusal prints one line and returns 6 (an unknown replica throws
// its pg::Error, as drain's does).
int handover(leader::pg::Connection &connection, const HandoverOptions &options);

} // namespace leaderctl
