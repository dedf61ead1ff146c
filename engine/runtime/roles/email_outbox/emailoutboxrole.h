#pragma once

#include "roles/role.h"

namespace leader::roles {

// email_outbox: claimBatch (fenced) → send → markCAS, one guarded step per email.
class EmailOutboxRole final : public Role
{
public:
    explicit EmailOutboxRole(RoleOptions options);
    std::string_view name() const override { return lease::nameOf(lease::Role::EmailOutbox); }
    void tick(lease::TickContext &context) override;

private:
    RoleOptions m_options;
};

} // namespace leader::roles
