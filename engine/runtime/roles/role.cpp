#include "role.h"

#include "billing/billingrole.h"
#include "dunning/dunningrole.h"
#include "email_outbox/emailoutboxrole.h"
#include "webhook_delivery/webhookdeliveryrole.h"
#include "webhook_outbox/webhookoutboxrole.h"

namespace leader::roles {

std::unique_ptr<Role> makeRole(std::string_view name, const RoleOptions &options)
{
    if (name == "billing")
        return std::make_unique<BillingRole>(options);
    if (name == "dunning")
        return std::make_unique<DunningRole>(options);
    if (name == "email_outbox")
        return std::make_unique<EmailOutboxRole>(options);
    if (name == "webhook_delivery")
        return std::make_unique<WebhookDeliveryRole>(options);
    if (name == "webhook_outbox")
        return std::make_unique<WebhookOutboxRole>(options);
    return nullptr;
}

} // namespace leader::roles
