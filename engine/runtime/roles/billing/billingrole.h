#pragma once

#include "roles/role.h"

namespace leader::roles {

// billing: GetDueBilling (fenced) → per subscription, the period close in one transaction, then
// the charge under its attempt key; a declined charge opens a dunning run.
class BillingRole final : public Role
{
public:
    explicit BillingRole(RoleOptions options);
    std::string_view name() const override { return lease::nameOf(lease::Role::Billing); }
    void tick(lease::TickContext &context) override;

private:
    RoleOptions m_options;
};

} // namespace leader::roles
