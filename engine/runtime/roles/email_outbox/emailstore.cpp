#include "emailstore.h"

#include "lease/tick.h"

namespace leader::roles::email {

namespace {

constexpr std::string_view ClaimBatchSql = R"sql(
WITH claimed AS (
    UPDATE email_outbox e
       SET status = 'claimed', claim_token = $2, claimed_at = now()
     WHERE e.id IN (SELECT q.id
                      FROM email_outbox q
                     WHERE (q.status = 'queued'
                            OR (q.status = 'claimed'
                                AND q.claimed_at < now() - $4::int * interval '1 second'))
                       AND leader_fence($1, $2)
                     ORDER BY q.id
                     LIMIT $3
                       FOR UPDATE SKIP LOCKED)
    RETURNING e.id, e.kind, e.recipient
), refused AS (
    INSERT INTO fence_refusals (role, token, claim)
    SELECT $1, $2, 'email.claimBatch' WHERE NOT leader_fence($1, $2)
), logged AS (
    INSERT INTO claim_log (role, token, item) SELECT $1, $2, 'email:' || id FROM claimed
)
SELECT id, kind, recipient FROM claimed ORDER BY id
)sql";

} // namespace

std::vector<QueuedEmail> claimBatch(lease::TickContext &context, int limit)
{
    const lease::Fence fence = lease::fence(&context);
    const pg::Result rows = context.exec("email.claimBatch", ClaimBatchSql,
                                         {fence.role, fence.token, limit, ReclaimAfter.count()});
    std::vector<QueuedEmail> emails;
    for (int row = 0; row < rows.rows(); ++row)
        emails.push_back({rows.toInt64(row, 0), std::string(rows.text(row, 1)),
                          std::string(rows.text(row, 2))});
    return emails;
}

void send(Executor executor, const QueuedEmail &email, std::int64_t token)
{
    executor.exec("email.send",
                  "INSERT INTO external_effects (kind, idempotency_key, role, token) "
                  "VALUES ('email', 'email:' || $1::bigint, 'email_outbox', $2)",
                  {email.id, token});
}

bool markSent(Executor executor, std::int64_t id, std::int64_t token)
{
    return executor.exec("email.markCAS",
                         "UPDATE email_outbox SET status = 'sent', sent_at = now() "
                         "WHERE id = $1 AND status = 'claimed' AND claim_token = $2",
                         {id, token})
                   .affected()
           == 1;
}

} // namespace leader::roles::email
