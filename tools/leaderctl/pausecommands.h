#pragma once

#include "lease/pausecontrol.h"

#include <string>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leader::schema {
struct LeaseFeatures;
}

// leaderctl's pause, unpause and history commands over lease/pausecontrol: what they print.
namespace leaderctl {

// One line per role: paused by this call, or who had paused it already (nothing changed then);
// without extension 0176 one more line: the holders stop at their next heartbeat. An end without
// 0177 is refused (schema::SchemaError) before anything changes.
void pause(leader::pg::Connection &connection, const leader::schema::LeaseFeatures &features,
           const std::vector<std::string> &roles, const std::string &by, const std::string &reason,
           const leader::lease::PauseEnd &end);
// One line per role; by and reason given without 0177 add a line saying they were not recorded.
void unpause(leader::pg::Connection &connection, const leader::schema::LeaseFeatures &features,
             const std::vector<std::string> &roles, const std::string &by,
             const std::string &reason);
// The pause log, newest first: a table, or one JSON object with an "entries" array. Needs 0177
// (schema::SchemaError with extensionNeeded's line otherwise).
void history(leader::pg::Connection &connection, const leader::lease::PauseLogQuery &query,
             bool json);

} // namespace leaderctl
