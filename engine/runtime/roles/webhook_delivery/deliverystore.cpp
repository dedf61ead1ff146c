#include "deliverystore.h"

#include "lease/tick.h"

#include <string>

namespace leader::roles::webhook {

namespace {

constexpr std::string_view ListPendingDeliveriesSql = R"sql(
WITH claimed AS (
    UPDATE webhook_deliveries d
       SET claim_token = $2, claimed_at = now()
      FROM webhook_events e
     WHERE e.id = d.event_id
       AND d.id IN (SELECT q.id
                      FROM webhook_deliveries q
                     WHERE q.status = 'pending'
                       AND q.next_attempt_at <= now()
                       AND (q.claimed_at IS NULL
                            OR q.claimed_at < now() - $4::int * interval '1 second')
                       AND leader_fence($1, $2)
                     ORDER BY q.next_attempt_at, q.id
                     LIMIT $3
                       FOR UPDATE SKIP LOCKED)
    RETURNING d.id, d.event_id, d.attempts,
              coalesce((e.payload ->> 'simulate_failures')::int, 0) AS refusals
), refused AS (
    INSERT INTO fence_refusals (role, token, claim)
    SELECT $1, $2, 'webhook.ListPendingDeliveries' WHERE NOT leader_fence($1, $2)
), logged AS (
    INSERT INTO claim_log (role, token, item) SELECT $1, $2, 'delivery:' || id FROM claimed
)
SELECT id, event_id, attempts, refusals FROM claimed ORDER BY id
)sql";

// Both marks prove the claim and the attempts count the listing returned, so a superseded
// tick's mark, and the second of two racing marks, change nothing.
constexpr std::string_view MarkDeliveredSql = R"sql(
UPDATE webhook_deliveries
   SET status = 'delivered', delivered_at = now(), attempts = attempts + 1
 WHERE id = $1 AND status = 'pending' AND claim_token = $2 AND attempts = $3
)sql";

constexpr std::string_view MarkFailedSql = R"sql(
UPDATE webhook_deliveries
   SET attempts = attempts + 1,
       status = CASE WHEN attempts + 1 >= $4 THEN 'dead' ELSE 'pending' END,
       next_attempt_at = now() + $5::int * interval '1 millisecond' * power(2, attempts),
       claimed_at = NULL
 WHERE id = $1 AND status = 'pending' AND claim_token = $2 AND attempts = $3
)sql";

void requireOneRow(const pg::Result &result, const PendingDelivery &delivery)
{
    if (result.affected() != 1)
        throw StaleDeliveryMark("stale mark of delivery " + std::to_string(delivery.id)
                                + " (listed at attempt " + std::to_string(delivery.attempts) + ")");
}

} // namespace

std::vector<PendingDelivery> listPendingDeliveries(lease::TickContext &context, int limit)
{
    const lease::Fence fence = lease::fence(&context);
    const pg::Result rows = context.exec("webhook.ListPendingDeliveries", ListPendingDeliveriesSql,
                                         {fence.role, fence.token, limit, ReclaimAfter.count()});
    std::vector<PendingDelivery> deliveries;
    for (int row = 0; row < rows.rows(); ++row)
        deliveries.push_back({rows.toInt64(row, 0), rows.toInt64(row, 1),
                              static_cast<int>(rows.toInt64(row, 2)),
                              static_cast<int>(rows.toInt64(row, 3))});
    return deliveries;
}

bool post(lease::TickContext &context, const PendingDelivery &delivery, std::int64_t token)
{
    if (delivery.attempts < delivery.refusals)
        return false;
    context.exec("webhook.post",
                 "INSERT INTO external_effects (kind, idempotency_key, role, token) "
                 "VALUES ('webhook_post', 'evt_' || $1::bigint, 'webhook_delivery', $2)",
                 {delivery.eventId, token});
    return true;
}

void markDelivered(lease::TickContext &context, const PendingDelivery &delivery, std::int64_t token)
{
    requireOneRow(context.exec("webhook.markDelivered", MarkDeliveredSql,
                               {delivery.id, token, delivery.attempts}),
                  delivery);
}

void markFailed(lease::TickContext &context, const PendingDelivery &delivery, std::int64_t token)
{
    requireOneRow(
            context.exec("webhook.markFailed", MarkFailedSql,
                         {delivery.id, token, delivery.attempts, MaxAttempts, RetryBase.count()}),
            delivery);
}

} // namespace leader::roles::webhook
