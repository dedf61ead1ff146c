#include "dunningrole.h"

#include "dunningstore.h"
#include "lease/tick.h"
#include "scheduler/stepguard.h"

namespace leader::roles {

DunningRole::DunningRole(RoleOptions options)
    : m_options(options)
{}

void DunningRole::tick(lease::TickContext &context)
{
    scheduler::StepGuard guard{std::string(name())};
    std::vector<dunning::DueRun> runs;
    guard.run("ListDueRuns", [&] { runs = dunning::listDueRuns(context, m_options.batchSize); });
    const std::int64_t token = lease::fence(&context).token;
    for (const dunning::DueRun &run : runs) {
        guard.run("run " + std::to_string(run.id), [&] {
            if (!context.sleepFor(m_options.perItemLatency))
                context.throwIfCancelled();
            // The key is derived from the listed count, so a rewound retry asks the provider
            // again under the same key and gets the same answer.
            const billing::ChargeOutcome outcome = billing::charge(
                    context, {run.invoiceId, run.amountCents, run.attemptCount + 1}, name(), token);
            dunning::recordAttempt(context, run, outcome, token);
        });
    }
    guard.finish();
}

} // namespace leader::roles
