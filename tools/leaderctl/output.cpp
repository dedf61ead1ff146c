#include "output.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace leaderctl {

namespace {

// The length of the well-formed UTF-8 sequence at text[at], or 0 when the bytes there are none.
std::size_t sequenceLength(std::string_view text, std::size_t at)
{
    const auto byte = [&](std::size_t i) {
        return static_cast<unsigned char>(text[i]);
    };
    const unsigned char lead = byte(at);
    const std::size_t length = lead < 0x80                   ? 1
                               : lead >= 0xc2 && lead < 0xe0 ? 2
                               : lead >= 0xe0 && lead < 0xf0 ? 3
                               : lead >= 0xf0 && lead < 0xf5 ? 4
                                                             : 0;
    if (length == 0 || at + length > text.size())
        return 0;
    for (std::size_t i = 1; i < length; ++i)
        if ((byte(at + i) & 0xc0) != 0x80)
            return 0;
    return length;
}

std::uint32_t codePoint(std::string_view sequence)
{
    const auto byte = [&](std::size_t i) {
        return static_cast<unsigned char>(sequence[i]);
    };
    if (sequence.size() == 1)
        return byte(0);
    std::uint32_t value = byte(0) & (0x7f >> sequence.size());
    for (std::size_t i = 1; i < sequence.size(); ++i)
        value = (value << 6) | (byte(i) & 0x3f);
    return value;
}

bool steersDisplay(std::uint32_t c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f
           || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

} // namespace

std::string printable(std::string_view text)
{
    std::string shown;
    char escaped[16];
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = sequenceLength(text, at);
        const std::uint32_t c = length ? codePoint(text.substr(at, length))
                                       : static_cast<unsigned char>(text[at]);
        if (length == 0 || c < 0x20 || c == 0x7f) {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(c));
            shown += escaped;
        } else if (steersDisplay(c)) {
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            shown += escaped;
        } else {
            shown += text.substr(at, length);
        }
        at += length ? length : 1;
    }
    return shown;
}

std::string formatTable(const std::vector<std::string> &headers,
                        const std::vector<std::vector<std::optional<std::string>>> &rows)
{
    std::vector<std::size_t> widths;
    for (const std::string &header : headers)
        widths.push_back(header.size());
    for (const auto &row : rows)
        for (std::size_t column = 0; column < row.size(); ++column)
            widths[column] = std::max(widths[column], printable(row[column].value_or("-")).size());

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
        appendRow(row, [](const std::optional<std::string> &cell) {
            return printable(cell.value_or("-"));
        });
    return out;
}

std::string formatAge(double seconds)
{
    const long long total = seconds > 0 ? static_cast<long long>(seconds) : 0;
    char text[32];
    if (total < 60)
        std::snprintf(text, sizeof text, "%llds", total);
    else if (total < 3600)
        std::snprintf(text, sizeof text, "%lldm%02llds", total / 60, total % 60);
    else if (total < 86400)
        std::snprintf(text, sizeof text, "%lldh%02lldm", total / 3600, total % 3600 / 60);
    else
        std::snprintf(text, sizeof text, "%lldd%02lldh", total / 86400, total % 86400 / 3600);
    return text;
}

} // namespace leaderctl
