#pragma once

#include "roles/role.h"

namespace leader::roles {

// dunning: ListDueRuns (fenced) → per run, the retry charge under the next attempt key, then
// the UpdateRunIfActive transition whose effects fire only when it applied.
class DunningRole final : public Role
{
public:
    explicit DunningRole(RoleOptions options);
    std::string_view name() const override { return lease::nameOf(lease::Role::Dunning); }
    void tick(lease::TickContext &context) override;

private:
    RoleOptions m_options;
};

} // namespace leader::roles
