#include "emailoutboxrole.h"

#include "emailstore.h"
#include "lease/tick.h"
#include "scheduler/stepguard.h"

namespace leader::roles {

EmailOutboxRole::EmailOutboxRole(RoleOptions options)
    : m_options(options)
{}

void EmailOutboxRole::tick(lease::TickContext &context)
{
    scheduler::StepGuard guard{std::string(name())};
    std::vector<email::QueuedEmail> batch;
    guard.run("claim batch", [&] { batch = email::claimBatch(context, m_options.batchSize); });
    const std::int64_t token = lease::fence(&context).token;
    for (const email::QueuedEmail &queued : batch) {
        guard.run("email " + std::to_string(queued.id), [&] {
            if (!context.sleepFor(m_options.perItemLatency))
                context.throwIfCancelled();
            email::send(context, queued, token);
            email::markSent(context, queued.id, token);
        });
    }
    guard.finish();
}

} // namespace leader::roles
