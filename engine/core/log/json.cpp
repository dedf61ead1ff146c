#include "json.h"

#include <cstdio>

namespace leader::log {

std::string jsonQuoted(std::string_view text)
{
    std::string quoted = "\"";
    char escaped[16];
    for (std::size_t at = 0; at < text.size(); ++at) {
        const char c = text[at];
        const auto byte = [&](std::size_t i) {
            return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
        };
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\r':
            quoted += "\\r";
            break;
        case '\t':
            quoted += "\\t";
            break;
        default:
            // C0 controls, DEL, C1 controls and the bidirectional controls (U+061C, U+200E/F,
            // U+202A-E, U+2066-9) as \uXXXX: the same JSON value, and a terminal showing the
            // line cannot be steered by them.
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                quoted += escaped;
            } else if (byte(at) == 0xc2 && byte(at + 1) >= 0x80 && byte(at + 1) <= 0x9f) {
                std::snprintf(escaped, sizeof escaped, "\\u%04x", byte(at + 1));
                quoted += escaped;
                at += 1;
            } else if (byte(at) == 0xd8 && byte(at + 1) == 0x9c) {
                quoted += "\\u061c";
                at += 1;
            } else if (byte(at) == 0xe2
                       && ((byte(at + 1) == 0x80
                            && ((byte(at + 2) >= 0x8e && byte(at + 2) <= 0x8f)
                                || (byte(at + 2) >= 0xaa && byte(at + 2) <= 0xae)))
                           || (byte(at + 1) == 0x81 && byte(at + 2) >= 0xa6
                               && byte(at + 2) <= 0xa9))) {
                const unsigned point
                        = 0x2000 | ((byte(at + 1) & 0x3f) << 6) | (byte(at + 2) & 0x3f);
                std::snprintf(escaped, sizeof escaped, "\\u%04x", point);
                quoted += escaped;
                at += 2;
            } else {
                quoted += c;
            }
        }
    }
    return quoted + "\"";
}

} // namespace leader::log
