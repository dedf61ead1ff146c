#include "outboxstore.h"

#include "lease/tick.h"

namespace leader::roles::webhook {

namespace {

// There is no step after the claim for a superseded leader to finish: the delivery and the
// dispatch mark commit with the claim or not at all. Rows another claim holds are skipped and
// dispatched ones are no longer selected, so two leaders never take the same event; the
// ON CONFLICT still keeps it to one delivery per event whatever a later writer does.
constexpr std::string_view ProcessBatchSql = R"sql(
WITH claimed AS (
    UPDATE webhook_events e
       SET dispatched_at = now(), dispatch_token = $2
     WHERE e.id IN (SELECT q.id
                      FROM webhook_events q
                     WHERE q.dispatched_at IS NULL
                       AND leader_fence($1, $2)
                     ORDER BY q.id
                     LIMIT $3
                       FOR UPDATE SKIP LOCKED)
    RETURNING e.id
), delivery AS (
    INSERT INTO webhook_deliveries (event_id) SELECT id FROM claimed
    ON CONFLICT (event_id) DO NOTHING
), refused AS (
    INSERT INTO fence_refusals (role, token, claim)
    SELECT $1, $2, 'webhook.ProcessBatch' WHERE NOT leader_fence($1, $2)
), logged AS (
    INSERT INTO claim_log (role, token, item) SELECT $1, $2, 'webhook_event:' || id FROM claimed
)
SELECT id FROM claimed ORDER BY id
)sql";

} // namespace

std::vector<std::int64_t> processBatch(lease::TickContext &context, int limit)
{
    const lease::Fence fence = lease::fence(&context);
    const pg::Result rows = context.exec("webhook.ProcessBatch", ProcessBatchSql,
                                         {fence.role, fence.token, limit});
    std::vector<std::int64_t> events;
    for (int row = 0; row < rows.rows(); ++row)
        events.push_back(rows.toInt64(row, 0));
    return events;
}

} // namespace leader::roles::webhook
