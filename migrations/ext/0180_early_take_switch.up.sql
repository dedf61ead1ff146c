-- outside leader_ext: adds column leader_leases.early_take
-- outside leader_ext: replaces view leader_status (columns appended)

-- The early take's off switch, per role (docs/lease-runtime.md, amendment 2026-12-05). The takeover
-- at process death (0179) takes a held, unexpired row once its holder's marker session has ended;
-- an operator who distrusts that in a given environment (reapers, proxies, failovers the early take
-- has not been measured under) turns it off here, without a deploy:
--
--   UPDATE leader_leases SET early_take = false;                    -- every role
--   UPDATE leader_leases SET early_take = false WHERE role = 'billing';
--
-- or `leaderctl early-take off [ROLE...]`. With it off, ACQUIRE never takes the row before its
-- expiry, and neither ACQUIRE nor RENEW records a marker, so no contender waits for one: the role
-- follows the TTL path exactly. The holder learns from every ACQUIRE and RENEW whether its row names
-- its marker, and protects itself only while it does, so the switch may be flipped at any moment.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_leases
    ADD COLUMN early_take boolean NOT NULL DEFAULT true;

COMMENT ON COLUMN leader_leases.early_take IS
    'true: a held row whose holder''s marker session has ended may be taken before its expiry '
    '(after the contender''s grace); false: the role is taken at its expiry only';

-- leader_status as 0179 left it, with the switch at the end.
CREATE OR REPLACE VIEW leader_status AS
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
