#include "billingrole.h"

#include "billingstore.h"
#include "lease/tick.h"
#include "roles/dunning/dunningstore.h"
#include "scheduler/stepguard.h"

namespace leader::roles {

BillingRole::BillingRole(RoleOptions options)
    : m_options(options)
{}

void BillingRole::tick(lease::TickContext &context)
{
    scheduler::StepGuard guard{std::string(name())};
    std::vector<billing::DueSubscription> due;
    guard.run("GetDueBilling", [&] { due = billing::getDueBilling(context, m_options.batchSize); });
    const std::int64_t token = lease::fence(&context).token;
    for (const billing::DueSubscription &subscription : due) {
        guard.run("subscription " + std::to_string(subscription.id), [&] {
            const billing::PeriodClose close = billing::closePeriod(context, subscription, token);
            // A moved watermark: another writer closed this period, and the next tick reads the
            // new one. An invoice someone else created is theirs to charge.
            if (close.outcome != billing::CloseOutcome::Invoiced)
                return;
            if (!context.sleepFor(m_options.perItemLatency))
                context.throwIfCancelled();
            const billing::ChargeOutcome outcome = billing::charge(
                    context, {close.invoiceId, subscription.amountCents, 1}, name(), token);
            if (outcome == billing::ChargeOutcome::Succeeded)
                billing::markPaid(context, close.invoiceId);
            else
                dunning::openRun(context, close.invoiceId, token);
        });
    }
    guard.finish();
}

} // namespace leader::roles
