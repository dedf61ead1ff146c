#pragma once

#include "lease/pausecontrol.h"

#include <string>
#include <vector>

namespace leader::pg {
class Connection;
}

// leaderctl's pause, unpause and history commands over lease/pausecontrol: what they print.
namespace leaderctl {

// One line per role: paused by this call, or who had paused it already (nothing changed then).
void pause(leader::pg::Connection &connection, const std::vector<std::string> &roles,
           const std::string &by, const std::string &reason, const leader::lease::PauseEnd &end);
void unpause(leader::pg::Connection &connection, const std::vector<std::string> &roles,
             const std::string &by, const std::string &reason);
// The pause log, newest first: a table, or one JSON object with an "entries" array.
void history(leader::pg::Connection &connection, const leader::lease::PauseLogQuery &query,
             bool json);

} // namespace leaderctl
