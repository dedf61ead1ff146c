#pragma once

#include <cstddef>
#include <string>

// The benchmarks' table cells and figures.
namespace bench {

// Padding counts characters, not bytes: labels hold arrows.
std::string padRight(const std::string &text, std::size_t width);
std::string padLeft(const std::string &text, std::size_t width);
std::string fixed(double value, int decimals);
// "1.234 s" for decimals 3.
std::string seconds(double value, int decimals);

} // namespace bench
