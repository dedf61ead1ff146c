#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace leader::lease {

// Bounds leader_ext 0190 enforces in the database (leader_bounded_text), checked by the tools
// first so that the error is one short line before anything connects.
inline constexpr std::size_t MaxWhoOrWhy = 500;    // --by, --reason
inline constexpr std::size_t MaxReplicaName = 128; // --id, --to, a drained replica

// Characters as the database counts them (code points of UTF-8 text).
std::size_t characterCount(std::string_view text);

// "what is N characters long; at most M are taken" when text is longer than most; never echoes
// the text itself.
std::optional<std::string> tooLong(std::string_view what, std::string_view text, std::size_t most);

} // namespace leader::lease
