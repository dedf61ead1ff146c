#include "auditor.h"

#include "lease/roles.h"
#include "pg/connection.h"

#include <algorithm>
#include <optional>

namespace leader::demo {

namespace {

using namespace std::chrono_literals;

// offending: the rows (ord, sample) that break the invariant; it may read audit.grace.
// info: one row of bigint columns, each named by what it counts.
struct Check
{
    std::optional<lease::Role> role; // none: all roles
    const char *name;
    std::string_view offending;
    std::string_view info;
    bool fencing = false; // see InvariantResult::fencing
};

constexpr Check Checks[] = {
        {lease::Role::Billing, "at most one invoice per subscription and period", R"sql(
SELECT min(id) AS ord,
       format('subscription %s, period from %s: %s invoices (%s)', subscription_id, period_start,
              count(*), string_agg(id::text, ', ' ORDER BY id)) AS sample
  FROM invoices
 GROUP BY subscription_id, period_start
HAVING count(*) > 1
)sql",
         "SELECT count(*) AS invoices FROM invoices"},
        // The unique index makes the check above unbreakable, so these two look for what a stale
        // writer could still do: bill a period no watermark CAS closed, or bill across another.
        {lease::Role::Billing, "every invoice's period closed by a watermark advance", R"sql(
SELECT i.id AS ord,
       format('invoice %s: subscription %s, period %s to %s, no watermark advance from %s',
              i.id, i.subscription_id, i.period_start, i.period_end, i.period_end) AS sample
  FROM invoices i
 WHERE NOT EXISTS (SELECT 1
                     FROM watermark_history w
                    WHERE w.subscription_id = i.subscription_id
                      AND w.reason = 'advance'
                      AND w.old_watermark = i.period_end)
)sql",
         "SELECT count(*) FILTER (WHERE reason = 'advance') AS advances FROM watermark_history"},
        {lease::Role::Billing, "no two invoices' periods overlap for one subscription", R"sql(
SELECT b.id AS ord,
       format('invoices %s and %s of subscription %s overlap: %s to %s and %s to %s', a.id, b.id,
              a.subscription_id, a.period_start, a.period_end, b.period_start,
              b.period_end) AS sample
  FROM invoices a
  JOIN invoices b ON b.subscription_id = a.subscription_id AND a.id < b.id
                 AND a.period_start < b.period_end AND b.period_start < a.period_end
)sql",
         "SELECT count(DISTINCT subscription_id) AS subscriptions_billed FROM invoices"},
        {lease::Role::Billing, "no watermark moved backward but by a truncation", R"sql(
SELECT id AS ord,
       format('watermark_history %s: subscription %s moved back from %s to %s (reason %s, '
              'token %s)', id, subscription_id, old_watermark, new_watermark, reason,
              coalesce(token::text, 'none')) AS sample
  FROM watermark_history
 WHERE new_watermark < old_watermark AND reason <> 'truncation'
)sql",
         "SELECT count(*) AS watermark_writes, count(*) FILTER (WHERE reason = 'truncation') AS "
         "truncations FROM watermark_history"},
        {lease::Role::Billing, "no invoice charged successfully twice", R"sql(
SELECT invoice_id AS ord,
       format('invoice %s: %s succeeded charges (%s)', invoice_id, count(*),
              string_agg(idempotency_key, ', ' ORDER BY charged_at, idempotency_key)) AS sample
  FROM provider_charges
 WHERE outcome = 'succeeded'
 GROUP BY invoice_id
HAVING count(*) > 1
)sql",
         "SELECT count(*) AS charges, count(*) FILTER (WHERE outcome = 'succeeded') AS succeeded, "
         "count(*) FILTER (WHERE outcome = 'declined') AS declined FROM provider_charges"},
        {lease::Role::Billing, "every charge call reached the provider", R"sql(
SELECT e.id AS ord,
       format('external_effects %s: charge %s (token %s) has no provider charge', e.id,
              e.idempotency_key, coalesce(e.token::text, 'none')) AS sample
  FROM external_effects e
 WHERE e.kind = 'charge'
   AND NOT EXISTS (SELECT 1 FROM provider_charges p WHERE p.idempotency_key = e.idempotency_key)
)sql",
         // A repeated call with the same key is the provider's to deduplicate: information.
         "SELECT count(*) AS charge_calls, count(*) - count(DISTINCT idempotency_key) AS "
         "repeated_charge_calls FROM external_effects WHERE kind = 'charge'"},
        {lease::Role::Dunning, "attempt_count equals its attempts, numbered 1..n", R"sql(
SELECT r.id AS ord,
       format('dunning_run %s (invoice %s): attempt_count %s, %s attempts recorded (numbers %s)',
              r.id, r.invoice_id, r.attempt_count, count(a.attempt_no),
              coalesce(string_agg(a.attempt_no::text, ',' ORDER BY a.attempt_no), 'none')) AS sample
  FROM dunning_runs r
  LEFT JOIN dunning_attempts a ON a.run_id = r.id
 GROUP BY r.id
HAVING r.attempt_count <> count(a.attempt_no)
    OR coalesce(max(a.attempt_no), 0) <> count(a.attempt_no)
)sql",
         "SELECT (SELECT count(*) FROM dunning_runs) AS runs, (SELECT count(*) FROM "
         "dunning_attempts) AS attempts"},
        {lease::Role::Dunning, "exhausted exactly when max_attempts attempts all declined", R"sql(
SELECT r.id AS ord,
       format('dunning_run %s (invoice %s): status %s, attempt_count %s of %s, %s declined',
              r.id, r.invoice_id, r.status, r.attempt_count, r.max_attempts,
              count(*) FILTER (WHERE a.outcome = 'declined')) AS sample
  FROM dunning_runs r
  LEFT JOIN dunning_attempts a ON a.run_id = r.id
 GROUP BY r.id
HAVING (r.status = 'exhausted')
       <> (r.attempt_count = r.max_attempts AND count(a.attempt_no) > 0
           AND bool_and(a.outcome = 'declined'))
)sql",
         "SELECT count(*) FILTER (WHERE status = 'exhausted') AS exhausted FROM dunning_runs"},
        {lease::Role::Dunning, "recovered exactly when the last attempt succeeded", R"sql(
SELECT r.id AS ord,
       format('dunning_run %s (invoice %s): status %s, last attempt %s', r.id, r.invoice_id,
              r.status, coalesce(l.attempt_no || ' ' || l.outcome, 'none')) AS sample
  FROM dunning_runs r
  LEFT JOIN LATERAL (SELECT attempt_no, outcome
                       FROM dunning_attempts
                      WHERE run_id = r.id
                      ORDER BY attempt_no DESC
                      LIMIT 1) l ON true
 WHERE (r.status = 'recovered') <> coalesce(l.outcome = 'succeeded', false)
)sql",
         "SELECT count(*) FILTER (WHERE status = 'recovered') AS recovered, count(*) FILTER "
         "(WHERE status = 'active') AS active FROM dunning_runs"},
        {lease::Role::WebhookOutbox, "every event past the grace dispatched", R"sql(
SELECT id AS ord,
       format('webhook_event %s (%s, tenant %s) created %s, not dispatched', id, kind, tenant_id,
              created_at) AS sample
  FROM webhook_events
 WHERE dispatched_at IS NULL AND created_at < now() - (SELECT grace FROM audit)
)sql",
         "SELECT count(*) AS events, count(dispatched_at) AS dispatched FROM webhook_events"},
        {lease::Role::WebhookDelivery,
         "every event dispatched past the grace delivered, unless dead", R"sql(
SELECT e.id AS ord,
       format('webhook_event %s dispatched %s: %s', e.id, e.dispatched_at,
              CASE WHEN d.id IS NULL THEN 'no delivery'
                   WHEN d.status = 'pending'
                   THEN format('delivery %s still pending after %s attempts', d.id, d.attempts)
                   ELSE format('delivery %s marked delivered, but no webhook_post evt_%s', d.id,
                               e.id)
              END) AS sample
  FROM webhook_events e
  LEFT JOIN webhook_deliveries d ON d.event_id = e.id
 WHERE (e.dispatched_at < now() - (SELECT grace FROM audit)
        AND (d.id IS NULL OR d.status = 'pending'))
    -- The post precedes the mark, so a delivered mark without one is owed no grace.
    OR (d.status = 'delivered'
        AND NOT EXISTS (SELECT 1
                          FROM external_effects x
                         WHERE x.kind = 'webhook_post' AND x.idempotency_key = 'evt_' || e.id))
)sql",
         // At-least-once is the contract across a takeover: a second post is counted, not failed.
         R"sql(
SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered') AS delivered,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'dead') AS dead,
       coalesce(sum(n), 0)::bigint AS webhook_posts,
       count(*) FILTER (WHERE n > 1) AS events_posted_twice_or_more,
       coalesce(sum(n - 1), 0)::bigint AS duplicate_posts
  FROM (SELECT count(*) AS n
          FROM external_effects
         WHERE kind = 'webhook_post'
         GROUP BY idempotency_key) k
)sql"},
        {lease::Role::EmailOutbox, "every email past the grace sent", R"sql(
SELECT id AS ord,
       format('email %s (%s to %s) created %s, %s', id, kind, recipient, created_at,
              CASE WHEN status = 'sent' THEN 'marked sent, but no email effect email:' || id
                   ELSE 'still ' || status END) AS sample
  FROM email_outbox m
 WHERE (status <> 'sent' AND created_at < now() - (SELECT grace FROM audit))
    -- The send precedes the mark, so a sent mark without one is owed no grace.
    OR (status = 'sent'
        AND NOT EXISTS (SELECT 1
                          FROM external_effects x
                         WHERE x.kind = 'email' AND x.idempotency_key = 'email:' || m.id))
)sql",
         R"sql(
SELECT (SELECT count(*) FROM email_outbox) AS emails,
       (SELECT count(*) FROM email_outbox WHERE status = 'sent') AS sent,
       coalesce(sum(n), 0)::bigint AS email_sends,
       count(*) FILTER (WHERE n > 1) AS emails_sent_twice_or_more,
       coalesce(sum(n - 1), 0)::bigint AS duplicate_sends
  FROM (SELECT count(*) AS n FROM external_effects WHERE kind = 'email' GROUP BY idempotency_key) k
)sql"},
        {std::nullopt, "no row claimed under a stale token", R"sql(
SELECT id AS ord,
       format('claim_log %s: %s claimed %s under token %s after token %s had claimed', id, role,
              item, token, earlier) AS sample
  FROM (SELECT c.*, max(c.token) OVER (PARTITION BY c.role ORDER BY c.id
                                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier
          FROM claim_log c) c
 WHERE token < earlier
)sql",
         "SELECT count(*) AS claims, count(DISTINCT (role, token)) AS claiming_ticks FROM "
         "claim_log",
         true},
};

} // namespace

bool AuditReport::allHold() const
{
    return std::all_of(invariants.begin(), invariants.end(),
                       [](const InvariantResult &invariant) { return invariant.holds; });
}

AuditReport audit(pg::Connection &connection, const AuditOptions &options)
{
    AuditReport report;
    for (const Check &check : Checks) {
        InvariantResult result{.role
                               = check.role ? std::string(lease::nameOf(*check.role)) : "all roles",
                               .name = check.name,
                               .fencing = check.fencing};
        // The window count is taken before LIMIT: the total, not the number of samples.
        const pg::Result offending = connection.exec(
                "audit",
                "WITH audit AS (SELECT $1::int * interval '1 second' AS grace) "
                "SELECT o.sample, count(*) OVER () FROM ("
                        + std::string(check.offending) + ") o ORDER BY o.ord LIMIT $2::int",
                {options.grace.count(), options.sampleLimit}, 30s);
        result.offending = offending.rows() ? offending.toInt64(0, 1) : 0;
        result.holds = result.offending == 0;
        for (int row = 0; row < offending.rows(); ++row)
            result.samples.emplace_back(offending.text(row, 0));
        const pg::Result info = connection.exec("audit info", check.info, {}, 30s);
        for (int column = 0; column < info.columns(); ++column)
            result.info.emplace_back(std::string(info.columnName(column)), info.toInt64(0, column));
        report.invariants.push_back(std::move(result));
    }
    return report;
}

} // namespace leader::demo
