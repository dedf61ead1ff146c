#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace leader::lease {

// The five singleton roles. Pinned to migration 0174's CHECK constraint by a test.
inline constexpr std::array<std::string_view, 5> Roles{"billing", "dunning", "webhook_outbox",
                                                       "email_outbox", "webhook_delivery"};

constexpr bool isKnownRole(std::string_view role)
{
    return std::find(Roles.begin(), Roles.end(), role) != Roles.end();
}

} // namespace leader::lease
