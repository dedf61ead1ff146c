-- outside leader_ext: replaces view leader_status (back to 0180's columns)

-- Back to 0182: leader_status says who leads, not what the ticks did. Replicas of this build
-- find no leader_tick_record and record nothing.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

-- A view loses no column by CREATE OR REPLACE: 0180's is recreated whole.
DROP VIEW leader_status;
CREATE VIEW leader_status AS
SELECT l.role,
       CASE
           WHEN p.in_force THEN 'paused'
           WHEN l.holder_id IS NOT NULL AND l.expires_at > now() THEN 'led'
           WHEN l.not_before > now() THEN 'cooling'
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
       CASE WHEN p.in_force THEN l.paused_at END AS paused_at,
       CASE WHEN p.in_force THEN l.paused_by END AS paused_by,
       CASE WHEN p.in_force THEN l.pause_reason END AS pause_reason,
       now() AS observed_at,
       l.not_before,
       CASE WHEN l.not_before > now()
            THEN round(extract(epoch FROM l.not_before - now()), 3) END AS not_before_in_seconds,
       CASE WHEN p.in_force THEN l.paused_until END AS paused_until,
       CASE WHEN p.in_force AND l.paused_until IS NOT NULL
            THEN round(extract(epoch FROM l.paused_until - now()), 3)
       END AS pause_remaining_seconds,
       CASE WHEN l.expires_at > now() THEN l.took_over END AS took_over,
       l.early_take
  FROM leader_leases l
 CROSS JOIN LATERAL (SELECT l.paused_at IS NOT NULL
                            AND (l.paused_until IS NULL OR l.paused_until > now()) AS in_force) p;
COMMENT ON VIEW leader_status IS 'ADR-114: who leads what, on the database clock';
REVOKE ALL ON leader_status FROM PUBLIC;
GRANT SELECT ON leader_status TO hardcount_app, hardcount_monitor;

DROP FUNCTION leader_ext.leader_tick_record(text, bigint, text, text, text, bigint, text, text);
DROP TABLE leader_ext.leader_tick_counts;
DROP TABLE leader_ext.leader_tick_last;
