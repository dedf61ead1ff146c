#pragma once

#include <string>
#include <string_view>

namespace leader::log {

// text as a JSON string literal, quotes included: the one escaper of every JSON the tools write
// (leaderctl --json, leader-replica's event lines, the benchmark's results).
std::string jsonQuoted(std::string_view text);

} // namespace leader::log
