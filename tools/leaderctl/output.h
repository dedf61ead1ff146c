#pragma once

#include <optional>
#include <string>
#include <vector>

namespace leaderctl {

// A plain-text table with a header row, columns padded to their widest cell; NULL prints as "-".
std::string formatTable(const std::vector<std::string> &headers,
                        const std::vector<std::vector<std::optional<std::string>>> &rows);

} // namespace leaderctl
