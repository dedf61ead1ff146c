#include "webhookdeliveryrole.h"

#include "deliverystore.h"
#include "lease/tick.h"
#include "log/log.h"
#include "scheduler/stepguard.h"

namespace leader::roles {

WebhookDeliveryRole::WebhookDeliveryRole(RoleOptions options)
    : m_options(options)
{}

void WebhookDeliveryRole::tick(lease::TickContext &context)
{
    scheduler::StepGuard guard{std::string(name())};
    std::vector<webhook::PendingDelivery> batch;
    guard.run("list pending deliveries",
              [&] { batch = webhook::listPendingDeliveries(context, m_options.batchSize); });
    const std::int64_t token = lease::fence(&context).token;
    for (const webhook::PendingDelivery &delivery : batch) {
        guard.run("delivery " + std::to_string(delivery.id), [&] {
            if (!context.sleepFor(m_options.perItemLatency))
                context.throwIfCancelled();
            try {
                if (webhook::post(context, delivery, token))
                    webhook::markDelivered(context, delivery, token);
                else
                    webhook::markFailed(context, delivery, token);
            } catch (const webhook::StaleDeliveryMark &stale) {
                // Lost to a newer claim of the row, which owns it now: not a failure of this tick.
                log::write(log::Level::Warning, name(), stale.what(),
                           "token=" + std::to_string(token));
            }
        });
    }
    guard.finish();
}

} // namespace leader::roles
