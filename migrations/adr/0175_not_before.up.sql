-- ADR-114 amendment (sweep S5): a cooldown after a lost or failed tick, so last_tick_* means
-- completed ticks only. ACQUIRE refuses the role until not_before has passed.
ALTER TABLE leader_leases ADD COLUMN not_before timestamptz;

COMMENT ON COLUMN leader_leases.not_before IS
    'no ACQUIRE before this instant: set by RELEASE after a lost (min(interval, 60 s)) or failed '
    '(interval) tick; leader_unpause leaves it alone';

CREATE OR REPLACE VIEW leader_status AS
SELECT l.role,
       CASE
           WHEN l.paused_at IS NOT NULL THEN 'paused'
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
       l.paused_at,
       l.paused_by,
       l.pause_reason,
       now() AS observed_at,
       l.not_before,
       CASE WHEN l.not_before > now()
            THEN round(extract(epoch FROM l.not_before - now()), 3) END AS not_before_in_seconds
  FROM leader_leases l;
