#include "dunningstore.h"

#include "lease/tick.h"

namespace leader::roles::dunning {

namespace {

constexpr std::string_view OpenRunSql = R"sql(
WITH run AS (
    INSERT INTO dunning_runs (invoice_id, attempt_count, next_attempt_at)
    VALUES ($1, 1, now() + $2::int * interval '1 second')
    ON CONFLICT (invoice_id) DO NOTHING
    RETURNING id
)
INSERT INTO dunning_attempts (run_id, attempt_no, outcome, token)
SELECT id, 1, 'declined', $3 FROM run
)sql";

constexpr std::string_view ListDueRunsSql = R"sql(
WITH due AS (
    SELECT r.id, r.invoice_id, s.tenant_id, i.amount_cents, r.attempt_count, r.next_attempt_at
      FROM dunning_runs r
      JOIN invoices i ON i.id = r.invoice_id
      JOIN subscriptions s ON s.id = i.subscription_id
     WHERE r.status = 'active'
       AND r.next_attempt_at <= now()
       AND leader_fence($1, $2)
     ORDER BY r.next_attempt_at, r.id
     LIMIT $3
), refused AS (
    INSERT INTO fence_refusals (role, token, claim)
    SELECT $1, $2, 'dunning.ListDueRuns' WHERE NOT leader_fence($1, $2)
), logged AS (
    INSERT INTO claim_log (role, token, item) SELECT $1, $2, 'dunning_run:' || id FROM due
)
SELECT id, invoice_id, tenant_id, amount_cents, attempt_count
  FROM due
 ORDER BY next_attempt_at, id
)sql";

// The dunning CAS (ha-8): status and attempt_count are both proved, so a superseded tick's
// stale write can neither record nor rewind an attempt. The history row rides in the same
// statement, so it exists exactly when the update applied.
constexpr std::string_view UpdateRunIfActiveSql = R"sql(
WITH moved AS (
    UPDATE dunning_runs
       SET attempt_count = attempt_count + 1,
           next_attempt_at = now() + $4::int * interval '1 second',
           status = CASE WHEN $3 = 'succeeded' THEN 'recovered'
                         WHEN attempt_count + 1 >= max_attempts THEN 'exhausted'
                         ELSE 'active' END
     WHERE id = $1
       AND status = 'active'
       AND attempt_count = $2
    RETURNING id, attempt_count, status
), recorded AS (
    INSERT INTO dunning_attempts (run_id, attempt_no, outcome, token)
    SELECT id, attempt_count, $3, $5 FROM moved
)
SELECT status FROM moved
)sql";

constexpr std::string_view DunningEventSql = R"sql(
INSERT INTO webhook_events (tenant_id, kind, payload)
VALUES ($1, $2, jsonb_build_object('run_id', $3::bigint, 'invoice_id', $4::bigint,
                                   'attempt', $5::int))
)sql";

constexpr std::string_view WarningEmailSql = R"sql(
INSERT INTO email_outbox (tenant_id, kind, recipient)
VALUES ($1, $2, 'billing@tenant-' || $1::bigint || '.example')
)sql";

constexpr std::string_view SettleInvoiceSql
        = "UPDATE invoices SET status = $2 WHERE id = $1 AND status = 'open'";

RunStatus statusOf(std::string_view text)
{
    if (text == "recovered")
        return RunStatus::Recovered;
    return text == "exhausted" ? RunStatus::Exhausted : RunStatus::Active;
}

} // namespace

void openRun(Executor executor, std::int64_t invoiceId, std::int64_t token)
{
    executor.exec("dunning.openRun", OpenRunSql, {invoiceId, RetryEvery.count(), token});
}

std::vector<DueRun> listDueRuns(lease::TickContext &context, int limit)
{
    const lease::Fence fence = lease::fence(&context);
    const pg::Result rows
            = context.exec("dunning.ListDueRuns", ListDueRunsSql, {fence.role, fence.token, limit});
    std::vector<DueRun> runs;
    for (int row = 0; row < rows.rows(); ++row)
        runs.push_back({rows.toInt64(row, 0), rows.toInt64(row, 1), rows.toInt64(row, 2),
                        rows.toInt64(row, 3), static_cast<int>(rows.toInt64(row, 4))});
    return runs;
}

Transition recordAttempt(Executor executor, const DueRun &run, billing::ChargeOutcome outcome,
                         std::int64_t token)
{
    const bool succeeded = outcome == billing::ChargeOutcome::Succeeded;
    Transaction transaction(executor);
    const pg::Result moved
            = executor.exec("dunning.UpdateRunIfActive", UpdateRunIfActiveSql,
                            {run.id, run.attemptCount, succeeded ? "succeeded" : "declined",
                             RetryEvery.count(), token});
    // Not applied: nothing recorded, nothing fired; the empty transaction rolls back.
    if (moved.rows() == 0)
        return {};
    const Transition transition{true, statusOf(moved.text(0, 0))};
    const char *event = "dunning.attempt_failed";
    const char *email = "dunning_warning";
    if (transition.status == RunStatus::Recovered) {
        event = "dunning.recovered";
        email = "dunning_recovered";
        executor.exec("invoice.settle", SettleInvoiceSql, {run.invoiceId, "paid"});
    } else if (transition.status == RunStatus::Exhausted) {
        event = "dunning.exhausted";
        email = "dunning_final_notice";
        executor.exec("invoice.settle", SettleInvoiceSql, {run.invoiceId, "uncollectible"});
    }
    executor.exec("dunning.fireEvent", DunningEventSql,
                  {run.tenantId, event, run.id, run.invoiceId, run.attemptCount + 1});
    executor.exec("dunning.sendEmail", WarningEmailSql, {run.tenantId, email});
    transaction.commit();
    return transition;
}

} // namespace leader::roles::dunning
