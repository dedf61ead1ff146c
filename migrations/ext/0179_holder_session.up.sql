-- outside leader_ext: adds column leader_leases.holder_session
-- outside leader_ext: adds column leader_leases.holder_session_incarnation
-- outside leader_ext: adds column leader_leases.took_over
-- outside leader_ext: adds constraint leader_leases_took_over_known on leader_leases
-- outside leader_ext: grants INSERT (holder_session, holder_session_incarnation) on leader_leases to hardcount_app
-- outside leader_ext: replaces view leader_status (columns appended)

-- Takeover at process death (docs/lease-runtime.md, amendment 2026-12-04). A holder on a direct
-- connection names a database session that lives exactly as long as its process: its fast-wake
-- listener's, which holds a session advisory lock on holder_session for its whole life. ACQUIRE
-- may take a held, unexpired row early only when nobody holds that lock any more, on the same
-- server incarnation that saw it held: the holder's process died, so the kernel closed its
-- sockets and Postgres ended its backend. A severed, stopped or frozen holder keeps its backend
-- and so its lock, and is taken only at its expiry, as before. Through a transaction pooler there
-- is no such session: holder_session stays NULL and the TTL alone decides.
--
-- leader_server_incarnation() lives in leader_ext; the columns, their grant and the view stay
-- beside leader_leases.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_leases
    ADD COLUMN holder_session bigint,
    ADD COLUMN holder_session_incarnation bigint,
    ADD COLUMN took_over text,
    ADD CONSTRAINT leader_leases_took_over_known
        CHECK (took_over IN ('expired', 'session_ended'));

COMMENT ON COLUMN leader_leases.holder_session IS
    'the advisory lock key the holder''s marker session holds (its holder id''s hash << 32 | '
    'its backend pid), written by ACQUIRE and RENEW only when they find the lock held; NULL: '
    'no marker (a pooled holder), the lease ends at expires_at only';
COMMENT ON COLUMN leader_leases.holder_session_incarnation IS
    'leader_ext.leader_server_incarnation() of the server on which holder_session was last seen '
    'held';
COMMENT ON COLUMN leader_leases.took_over IS
    'how ACQUIRE found the row it took: NULL unheld (released, or never held), ''expired'' held '
    'past its expiry (the TTL takeover), ''session_ended'' held, unexpired, its holder''s session '
    'gone (the holder''s process died)';

-- Which life of which server this is: the postmaster's start (a restart, a promoted standby)
-- combined with the shared statistics' reset instant, which a crash restart moves while the
-- postmaster lives on. Advisory locks live exactly one incarnation: a lock absent in another one
-- says nothing about the holder. A manual pg_stat_reset_shared('bgwriter') also changes it; that
-- only sends leases back to the TTL until their next RENEW.
CREATE FUNCTION leader_ext.leader_server_incarnation() RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000000)::bigint
       # coalesce((extract(epoch FROM pg_stat_get_bgwriter_stat_reset_time()) * 1000000)::bigint,
                  0)
$$;

GRANT EXECUTE ON FUNCTION leader_ext.leader_server_incarnation()
    TO hardcount_app, hardcount_monitor;
-- ACQUIRE recreates a missing row with its marker, as it does with its holder (0174's grant).
GRANT INSERT (holder_session, holder_session_incarnation) ON leader_leases TO hardcount_app;

-- leader_status as 0177 left it, with took_over at the end while the role is led: a console can
-- tell a takeover at a holder's death from a hand-over, both of which come before the old expiry.
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
       CASE WHEN l.expires_at > now() THEN l.took_over END AS took_over
  FROM leader_leases l
 CROSS JOIN LATERAL (SELECT l.paused_at IS NOT NULL
                            AND (l.paused_until IS NULL OR l.paused_until > now()) AS in_force) p;
