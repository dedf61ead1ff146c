-- Back to 0174's view: CREATE OR REPLACE cannot drop columns, so drop and recreate it.
DROP VIEW leader_status;
ALTER TABLE leader_leases DROP COLUMN not_before;

CREATE VIEW leader_status AS
SELECT l.role,
       CASE
           WHEN l.paused_at IS NOT NULL THEN 'paused'
           WHEN l.holder_id IS NOT NULL AND l.expires_at > now() THEN 'led'
           WHEN l.last_tick_ended_at IS NULL THEN 'never ran'
           ELSE 'free'
       END AS state,
       CASE WHEN l.expires_at > now() THEN l.holder_id END AS holder_id,
       l.holder_token,
       CASE WHEN l.expires_at > now() THEN l.acquired_at END AS acquired_at,
       CASE WHEN l.expires_at > now()
            THEN round(extract(epoch FROM l.expires_at - now()), 3) END AS expires_in_seconds,
       l.last_tick_ended_at,
       l.last_tick_holder,
       CASE WHEN l.last_tick_ended_at IS NOT NULL
            THEN round(greatest(0, extract(epoch FROM now() - l.last_tick_ended_at)), 3)
       END AS last_tick_age_seconds,
       l.paused_at,
       l.paused_by,
       l.pause_reason,
       now() AS observed_at
  FROM leader_leases l;

COMMENT ON VIEW leader_status IS 'ADR-114: who leads what, on the database clock';
REVOKE ALL ON leader_status FROM PUBLIC;
GRANT SELECT ON leader_status TO hardcount_app, hardcount_monitor;
