#include "billingstore.h"

#include "lease/tick.h"

#include <stdexcept>

namespace leader::roles::billing {

namespace {

constexpr std::string_view GetDueBillingSql = R"sql(
WITH due AS (
    SELECT s.id, s.tenant_id, s.status, s.amount_cents, s.period_start, s.next_billing_at
      FROM subscriptions s
     WHERE s.status = 'active'
       AND s.next_billing_at <= now()
       AND leader_fence($1, $2)
     ORDER BY s.next_billing_at, s.id
     LIMIT $3
), refused AS (
    INSERT INTO fence_refusals (role, token, claim)
    SELECT $1, $2, 'subscription.GetDueBilling' WHERE NOT leader_fence($1, $2)
), logged AS (
    INSERT INTO claim_log (role, token, item) SELECT $1, $2, 'subscription:' || id FROM due
)
SELECT id, tenant_id, status, amount_cents, period_start::text, next_billing_at::text
  FROM due
 ORDER BY next_billing_at, id
)sql";

// ADR-115: the first statement of the period writer's transaction. Each predicate is part of
// the snapshot proof; a truncation from a fresh snapshot would pass, a stale write cannot.
constexpr std::string_view ClosePeriodSql = R"sql(
UPDATE subscriptions
   SET period_start = next_billing_at,
       next_billing_at = next_billing_at + period_seconds * interval '1 second'
 WHERE id = $1
   AND status = $2
   AND period_start = $3::timestamptz
   AND next_billing_at = $4::timestamptz
RETURNING next_billing_at::text
)sql";

constexpr std::string_view RecordAdvanceSql = R"sql(
INSERT INTO watermark_history (subscription_id, old_watermark, new_watermark, reason, token)
VALUES ($1, $2::timestamptz, $3::timestamptz, 'advance', $4)
)sql";

constexpr std::string_view InsertInvoiceSql = R"sql(
INSERT INTO invoices (subscription_id, period_start, period_end, amount_cents, created_token)
VALUES ($1, $2::timestamptz, $3::timestamptz, $4, $5)
ON CONFLICT (subscription_id, period_start) DO NOTHING
RETURNING id
)sql";

constexpr std::string_view FinalizedEventSql = R"sql(
INSERT INTO webhook_events (tenant_id, kind, payload)
VALUES ($1, 'invoice.finalized',
        jsonb_build_object('invoice_id', $2::bigint, 'subscription_id', $3::bigint,
                           'amount_cents', $4::bigint))
)sql";

// The workload's deterministic provider: amounts divisible by 7 are declined for the first
// 1 + amount % 3 attempts, so dunning sees runs that recover at once, recover late, and exhaust.
constexpr std::string_view ChargeSql = R"sql(
WITH answered AS (
    INSERT INTO provider_charges (idempotency_key, invoice_id, amount_cents, outcome)
    VALUES ($1, $2, $3,
            CASE WHEN $3::bigint % 7 = 0 AND $4::int <= 1 + $3::bigint % 3
                 THEN 'declined' ELSE 'succeeded' END)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING outcome
), effect AS (
    INSERT INTO external_effects (kind, idempotency_key, role, token)
    VALUES ('charge', $1, $5, $6)
)
SELECT outcome FROM answered
UNION ALL
SELECT outcome FROM provider_charges WHERE idempotency_key = $1
)sql";

constexpr std::string_view MarkPaidSql
        = "UPDATE invoices SET status = 'paid' WHERE id = $1 AND status = 'open'";

} // namespace

std::vector<DueSubscription> getDueBilling(lease::TickContext &context, int limit)
{
    const lease::Fence fence = lease::fence(&context);
    const pg::Result rows = context.exec("subscription.GetDueBilling", GetDueBillingSql,
                                         {fence.role, fence.token, limit});
    std::vector<DueSubscription> due;
    for (int row = 0; row < rows.rows(); ++row)
        due.push_back({rows.toInt64(row, 0), rows.toInt64(row, 1), std::string(rows.text(row, 2)),
                       rows.toInt64(row, 3), std::string(rows.text(row, 4)),
                       std::string(rows.text(row, 5))});
    return due;
}

PeriodClose closePeriod(Executor executor, const DueSubscription &due, std::int64_t token)
{
    Transaction transaction(executor);
    const pg::Result closed
            = executor.exec("subscription.ClosePeriodTx", ClosePeriodSql,
                            {due.id, due.status, due.periodStart, due.nextBillingAt});
    // ErrWatermarkMoved: the loser rolls back its empty transaction and writes nothing.
    if (closed.rows() == 0)
        return {CloseOutcome::WatermarkMoved};
    executor.exec("subscription.recordAdvance", RecordAdvanceSql,
                  {due.id, due.nextBillingAt, closed.text(0, 0), token});
    const pg::Result invoice
            = executor.exec("invoice.create", InsertInvoiceSql,
                            {due.id, due.periodStart, due.nextBillingAt, due.amountCents, token});
    PeriodClose result{CloseOutcome::AlreadyInvoiced};
    if (invoice.rows() == 1) {
        result = {CloseOutcome::Invoiced, invoice.toInt64(0, 0)};
        executor.exec("invoice.dispatchFinalized", FinalizedEventSql,
                      {due.tenantId, result.invoiceId, due.id, due.amountCents});
    }
    transaction.commit();
    return result;
}

ChargeOutcome charge(Executor executor, const ChargeRequest &request, std::string_view role,
                     std::int64_t token)
{
    const std::string key = "inv_" + std::to_string(request.invoiceId) + "_attempt_"
                            + std::to_string(request.attempt);
    const pg::Result answer = executor.exec(
            "provider.charge", ChargeSql,
            {key, request.invoiceId, request.amountCents, request.attempt, role, token});
    // Empty only when a concurrent first call for the key committed after this statement's
    // snapshot: the step fails and the next tick asks again under the same key.
    if (answer.rows() == 0)
        throw std::runtime_error("provider answer for " + key + " not visible yet");
    return answer.text(0, 0) == "succeeded" ? ChargeOutcome::Succeeded : ChargeOutcome::Declined;
}

void markPaid(Executor executor, std::int64_t invoiceId)
{
    executor.exec("invoice.markPaid", MarkPaidSql, {invoiceId});
}

} // namespace leader::roles::billing
