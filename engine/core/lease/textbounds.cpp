#include "textbounds.h"

namespace leader::lease {

std::size_t characterCount(std::string_view text)
{
    std::size_t count = 0;
    for (const char byte : text)
        count += (static_cast<unsigned char>(byte) & 0xC0) != 0x80 ? 1 : 0;
    return count;
}

std::optional<std::string> tooLong(std::string_view what, std::string_view text, std::size_t most)
{
    const std::size_t count = characterCount(text);
    if (count <= most)
        return std::nullopt;
    return std::string(what) + " is " + std::to_string(count) + " characters long; at most "
           + std::to_string(most) + " are taken";
}

} // namespace leader::lease
