#pragma once

#include "lease/roles.h"

#include <chrono>
#include <memory>
#include <string_view>

namespace leader::lease {
class TickContext;
}

namespace leader::roles {

// How a role's tick behaves in the demo and the benchmarks.
struct RoleOptions
{
    // Simulated latency of each item's external call (a webhook POST, an email, a charge), so a
    // tick can take seconds and a takeover can be seen mid-tick.
    std::chrono::milliseconds perItemLatency{0};
    int batchSize = 50;
};

// One of the five singleton roles: its tick's named steps over its store, every statement
// through the tick's context, every claim fenced with the tick's token.
class Role
{
public:
    virtual ~Role() = default;
    virtual std::string_view name() const = 0;
    // Runs one tick; throws what a step threw (after the others ran), TickCancelled when cancelled.
    virtual void tick(lease::TickContext &context) = 0;
};

// The role named name (lease::RoleTable); nullptr for an unknown name.
std::unique_ptr<Role> makeRole(std::string_view name, const RoleOptions &options = {});

} // namespace leader::roles
