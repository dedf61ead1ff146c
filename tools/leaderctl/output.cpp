#include "output.h"

#include <algorithm>
#include <cstdio>

namespace leaderctl {

std::string formatTable(const std::vector<std::string> &headers,
                        const std::vector<std::vector<std::optional<std::string>>> &rows)
{
    std::vector<std::size_t> widths;
    for (const std::string &header : headers)
        widths.push_back(header.size());
    for (const auto &row : rows)
        for (std::size_t column = 0; column < row.size(); ++column)
            widths[column] = std::max(widths[column], row[column].value_or("-").size());

    std::string out;
    const auto appendRow = [&](const auto &cells, auto cellText) {
        for (std::size_t column = 0; column < cells.size(); ++column) {
            const std::string text = cellText(cells[column]);
            out += text;
            if (column + 1 < cells.size())
                out += std::string(widths[column] - text.size() + 2, ' ');
        }
        out += '\n';
    };
    appendRow(headers, [](const std::string &header) { return header; });
    for (const auto &row : rows)
        appendRow(row, [](const std::optional<std::string> &cell) { return cell.value_or("-"); });
    return out;
}

} // namespace leaderctl
