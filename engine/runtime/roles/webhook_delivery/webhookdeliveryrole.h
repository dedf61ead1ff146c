#pragma once

#include "roles/role.h"

namespace leader::roles {

// webhook_delivery: ListPendingDeliveries (fenced) → POST → mark delivered, or count the
// refusal and schedule the retry; each mark is a row CAS on the listed claim. One guarded step
// per delivery.
class WebhookDeliveryRole final : public Role
{
public:
    explicit WebhookDeliveryRole(RoleOptions options);
    std::string_view name() const override { return lease::nameOf(lease::Role::WebhookDelivery); }
    void tick(lease::TickContext &context) override;

private:
    RoleOptions m_options;
};

} // namespace leader::roles
