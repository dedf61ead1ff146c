#pragma once

#include "pg/connection.h"

#include <string>

namespace leaderctl {

// An open session to url, named leaderctl in pg_stat_activity.
leader::pg::Connection connect(const std::string &url);

} // namespace leaderctl
