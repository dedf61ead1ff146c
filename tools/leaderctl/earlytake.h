#pragma once

#include <string>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leaderctl {

// leaderctl early-take on|off ROLE...: flips extension 0180's per-role switch in one statement
// (all roles or none), and prints one line per role saying what it is now and what it was.
void earlyTake(leader::pg::Connection &connection, const std::vector<std::string> &roles, bool on);

} // namespace leaderctl
