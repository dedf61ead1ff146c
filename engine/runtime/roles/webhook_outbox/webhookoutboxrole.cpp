#include "webhookoutboxrole.h"

#include "outboxstore.h"
#include "scheduler/stepguard.h"

namespace leader::roles {

WebhookOutboxRole::WebhookOutboxRole(RoleOptions options)
    : m_options(options)
{}

void WebhookOutboxRole::tick(lease::TickContext &context)
{
    scheduler::StepGuard guard{std::string(name())};
    guard.run("process batch", [&] { webhook::processBatch(context, m_options.batchSize); });
    guard.finish();
}

} // namespace leader::roles
