#pragma once

#include "roles/executor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace leader::lease {
class TickContext;
}

namespace leader::roles::billing {

// A due subscription as GetDueBilling read it: the (status, period start, watermark) snapshot
// ClosePeriodTx must prove. Timestamps stay Postgres text, so they compare back exactly.
struct DueSubscription
{
    std::int64_t id;
    std::int64_t tenantId;
    std::string status;
    std::int64_t amountCents;
    std::string periodStart;
    std::string nextBillingAt;
};

enum class CloseOutcome {
    Invoiced,        // the period advanced and this call created its invoice
    AlreadyInvoiced, // the period advanced; another writer had invoiced it, nothing announced
    WatermarkMoved,  // ErrWatermarkMoved: the snapshot is stale, nothing written
};

struct PeriodClose
{
    CloseOutcome outcome;
    std::int64_t invoiceId = 0; // when Invoiced
};

enum class ChargeOutcome { Succeeded, Declined };

struct ChargeRequest
{
    std::int64_t invoiceId;
    std::int64_t amountCents;
    int attempt; // 1 for the billing charge, then one more per dunning retry
};

// subscription.GetDueBilling: the role's fenced claim. Active subscriptions whose watermark has
// passed, oldest first, each logged in claim_log; nothing under a superseded token.
std::vector<DueSubscription> getDueBilling(lease::TickContext &context, int limit);

// One transaction: ClosePeriodTx first (row-locks the subscription and proves the snapshot,
// advancing the period), the watermark_history row, the invoice behind
// idx_invoices_billing_period_dedup, and invoice.finalized only if this call inserted it.
PeriodClose closePeriod(Executor executor, const DueSubscription &due, std::int64_t token);

// The simulated provider call under the attempt-sequence key inv_<id>_attempt_<n>: the provider
// keeps the first answer for a key, and every call is an external effect, so a repeated call is
// counted but never charges twice.
ChargeOutcome charge(Executor executor, const ChargeRequest &request, std::string_view role,
                     std::int64_t token);

// The charge succeeded: the invoice is paid, if it was still open.
void markPaid(Executor executor, std::int64_t invoiceId);

} // namespace leader::roles::billing
