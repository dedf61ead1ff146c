#include "text.h"

#include <cstdio>

namespace bench {

std::string padRight(const std::string &text, std::size_t width)
{
    std::size_t characters = 0;
    for (const char c : text)
        characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return text + std::string(width > characters ? width - characters : 1, ' ');
}

std::string padLeft(const std::string &text, std::size_t width)
{
    return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

std::string fixed(double value, int decimals)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string seconds(double value, int decimals)
{
    return fixed(value, decimals) + " s";
}

std::string summaryColumns(const std::optional<Summary> &summary, std::size_t width, int decimals)
{
    const std::string n = padLeft(std::to_string(summary ? summary->n : 0), 3);
    if (!summary) {
        const std::string dash = "  " + padLeft("-", width);
        return n + dash + dash + dash;
    }
    const auto column = [&](double value) {
        return "  " + padLeft(seconds(value, decimals), width);
    };
    return n + column(summary->p50) + column(summary->p95) + column(summary->max);
}

} // namespace bench
