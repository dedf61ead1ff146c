#pragma once

#include "stats.h"

#include <cstddef>
#include <optional>
#include <string>

// The benchmarks' table cells and figures.
namespace bench {

// Padding counts characters, not bytes: labels hold arrows.
std::string padRight(const std::string &text, std::size_t width);
std::string padLeft(const std::string &text, std::size_t width);
std::string fixed(double value, int decimals);
// "1.234 s" for decimals 3.
std::string seconds(double value, int decimals);
// A summary's columns: n, 3 wide, then p50, p95 and max in seconds, each width wide after two
// spaces; dashes for no samples.
std::string summaryColumns(const std::optional<Summary> &summary, std::size_t width, int decimals);

} // namespace bench
