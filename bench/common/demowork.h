#pragma once

// Work the demo workload and billing leave for the other roles: webhook events not dispatched or
// without deliveries, deliveries pending, emails unsent. A benchmark drains it before the audit.
namespace bench {

inline constexpr const char *PendingWorkSql = R"sql(
SELECT (SELECT count(*) FROM webhook_events WHERE dispatched_at IS NULL)
     + (SELECT count(*) FROM webhook_events e
         WHERE dispatched_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id))
     + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
     + (SELECT count(*) FROM email_outbox WHERE status <> 'sent')
)sql";

} // namespace bench
