#pragma once

#include "log/nametable.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace leader::lease {

// The five singleton roles, in the order every listing shows them.
enum class Role { Billing, Dunning, WebhookOutbox, EmailOutbox, WebhookDelivery };

// What each role is: its name (the leader_leases key) and how often it ticks unless a profile
// says otherwise (the demo's intervals, the console's default age thresholds).
struct RoleFacts
{
    Role role;
    std::string_view name;
    std::chrono::seconds defaultInterval;
};

// The one table of the roles. Its names are pinned to migration 0174's CHECK constraint by a test.
inline constexpr std::array<RoleFacts, 5> RoleTable{{
        {Role::Billing, "billing", std::chrono::seconds(60)},
        {Role::Dunning, "dunning", std::chrono::seconds(10)},
        {Role::WebhookOutbox, "webhook_outbox", std::chrono::seconds(2)},
        {Role::EmailOutbox, "email_outbox", std::chrono::seconds(2)},
        {Role::WebhookDelivery, "webhook_delivery", std::chrono::seconds(2)},
}};

// The names alone, in the table's order, for the callers that iterate or look up names.
inline constexpr std::array<std::string_view, RoleTable.size()> Roles = [] {
    std::array<std::string_view, RoleTable.size()> names{};
    std::transform(RoleTable.begin(), RoleTable.end(), names.begin(),
                   [](const RoleFacts &facts) { return facts.name; });
    return names;
}();

inline constexpr std::array<Named<Role>, RoleTable.size()> RoleNames = [] {
    std::array<Named<Role>, RoleTable.size()> names{};
    std::transform(RoleTable.begin(), RoleTable.end(), names.begin(), [](const RoleFacts &facts) {
        return Named<Role>{facts.role, facts.name};
    });
    return names;
}();

constexpr std::string_view nameOf(Role role)
{
    return nameIn<Role>(RoleNames, role);
}

constexpr std::optional<Role> roleFromName(std::string_view name)
{
    return valueIn<Role>(RoleNames, name);
}

constexpr std::chrono::seconds defaultInterval(Role role)
{
    for (const RoleFacts &facts : RoleTable)
        if (facts.role == role)
            return facts.defaultInterval;
    return {};
}

constexpr bool isKnownRole(std::string_view role)
{
    return roleFromName(role).has_value();
}

// The names joined for messages: "billing, dunning, webhook_outbox, email_outbox,
// webhook_delivery".
inline std::string roleList()
{
    std::string list;
    for (const std::string_view role : Roles)
        list.append(list.empty() ? "" : ", ").append(role);
    return list;
}

} // namespace leader::lease
