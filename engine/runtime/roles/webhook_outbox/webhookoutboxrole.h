#pragma once

#include "roles/role.h"

namespace leader::roles {

// webhook_outbox: ProcessBatch (fenced) claims undispatched events and creates their deliveries
// in the same statement; webhook_delivery sends them.
class WebhookOutboxRole final : public Role
{
public:
    explicit WebhookOutboxRole(RoleOptions options);
    std::string_view name() const override { return lease::nameOf(lease::Role::WebhookOutbox); }
    void tick(lease::TickContext &context) override;

private:
    RoleOptions m_options;
};

} // namespace leader::roles
