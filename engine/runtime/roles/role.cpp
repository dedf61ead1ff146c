#include "role.h"

#include "billing/billingrole.h"
#include "dunning/dunningrole.h"
#include "email_outbox/emailoutboxrole.h"
#include "webhook_delivery/webhookdeliveryrole.h"
#include "webhook_outbox/webhookoutboxrole.h"

namespace leader::roles {

std::unique_ptr<Role> makeRole(std::string_view name, const RoleOptions &options)
{
    const std::optional<lease::Role> role = lease::roleFromName(name);
    if (!role)
        return nullptr;
    switch (*role) {
    case lease::Role::Billing:
        return std::make_unique<BillingRole>(options);
    case lease::Role::Dunning:
        return std::make_unique<DunningRole>(options);
    case lease::Role::EmailOutbox:
        return std::make_unique<EmailOutboxRole>(options);
    case lease::Role::WebhookDelivery:
        return std::make_unique<WebhookDeliveryRole>(options);
    case lease::Role::WebhookOutbox:
        return std::make_unique<WebhookOutboxRole>(options);
    }
    return nullptr;
}

} // namespace leader::roles
