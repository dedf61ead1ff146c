#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leaderctl {

// Database text made safe for a terminal: C0 controls (escape, newline included), DEL and bytes
// that are not UTF-8 as \xHH, C1 controls and the bidirectional controls (U+061C, U+200E/F,
// U+202A-U+202E, U+2066-U+2069) as \uXXXX. A holder id, reason or role name then cannot clear
// the screen, move the cursor, forge a line or reorder what the operator reads.
std::string printable(std::string_view text);

// A plain-text table with a header row, columns padded to their widest cell; NULL prints as "-".
// Every cell is printable().
std::string formatTable(const std::vector<std::string> &headers,
                        const std::vector<std::vector<std::optional<std::string>>> &rows);

// An age for a column, to the second and at most two units: "42s", "3m05s", "2h07m", "3d04h".
std::string formatAge(double seconds);

} // namespace leaderctl
