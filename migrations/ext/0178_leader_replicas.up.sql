-- outside leader_ext: nothing

-- Who could take over: every running replica keeps one row here, upserted every 15 s
-- (lease::ReplicaSeenEvery) and deleted on a clean stop, so an operator sees which replicas are
-- alive to lead a role when the one leading it goes away.
--
-- Both instants are the database clock's: the two functions stamp them with now(), and no login
-- but the owner may write the table, so no replica can claim to have been seen in the future (and
-- stay "alive" after its death). A replica killed without a clean stop leaves its row; the row
-- ages and reads "gone" in leader_replicas_status after 35 s, and the next beat of any replica
-- deletes it once it is 24 h old, so the table needs no cron and never grows without bound.
-- All of it lives in leader_ext.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

CREATE TABLE leader_ext.leader_replicas (
    holder_id  text PRIMARY KEY, -- hostname:pid:8hex, as in leader_leases.holder_id
    host       text NOT NULL,
    pid        integer NOT NULL,
    version    text NOT NULL,
    -- The roles the replica runs: the ones it could take over.
    roles      text[] NOT NULL,
    started_at timestamptz NOT NULL, -- its first beat, database clock
    last_seen  timestamptz NOT NULL, -- its latest beat, database clock
    -- A NULL element is refused too: it equals no role.
    CONSTRAINT leader_replicas_roles_known
        CHECK (roles <@ ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                              'webhook_delivery']::text[]),
    CONSTRAINT leader_replicas_named
        CHECK (holder_id <> '' AND host <> '' AND version <> '' AND pid > 0)
);

COMMENT ON TABLE leader_ext.leader_replicas IS
    'one row per running replica, written only by leader_replica_seen() and leader_replica_gone()';

-- A replica's beat, one statement: refreshes its row (created at its first beat) and deletes the
-- rows nobody has refreshed for 24 h, replicas killed without a clean stop. Runs as the owner so
-- that EXECUTE is the whole write privilege and the clock is always now().
CREATE FUNCTION leader_ext.leader_replica_seen(p_holder_id text, p_host text, p_pid integer,
                                               p_version text, p_roles text[])
    RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    DELETE FROM leader_ext.leader_replicas WHERE last_seen < now() - interval '24 hours';
    INSERT INTO leader_ext.leader_replicas AS r
           (holder_id, host, pid, version, roles, started_at, last_seen)
    VALUES (p_holder_id, p_host, p_pid, p_version, p_roles, now(), now())
    ON CONFLICT (holder_id) DO UPDATE
        SET host = EXCLUDED.host, pid = EXCLUDED.pid, version = EXCLUDED.version,
            roles = EXCLUDED.roles, last_seen = now();
$$;

-- A clean stop. True when the row was there.
CREATE FUNCTION leader_ext.leader_replica_gone(p_holder_id text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    WITH gone AS (DELETE FROM leader_ext.leader_replicas WHERE holder_id = p_holder_id
                  RETURNING 1)
    SELECT EXISTS (SELECT FROM gone);
$$;

-- "alive" is defined here once, so every reader (leaderctl, the console, a dashboard) agrees: seen
-- within two beats and a margin (2 x 15 s + 5 s), so one missed beat, or one that waited out its
-- 2 s statement timeout, does not make a live replica look gone.
CREATE VIEW leader_ext.leader_replicas_status AS
SELECT r.holder_id,
       r.host,
       r.pid,
       r.version,
       r.roles,
       r.started_at,
       r.last_seen,
       -- Never negative: a database clock stepped backwards reads as just seen.
       round(greatest(0, extract(epoch FROM now() - r.last_seen)), 3) AS last_seen_age_seconds,
       CASE WHEN r.last_seen > now() - interval '35 seconds' THEN 'alive' ELSE 'gone' END AS state,
       now() AS observed_at
  FROM leader_ext.leader_replicas r;

COMMENT ON VIEW leader_ext.leader_replicas_status IS
    'the replicas that could take over a role: alive if seen within 35 s (database clock)';

REVOKE ALL ON leader_ext.leader_replicas FROM PUBLIC;
REVOKE ALL ON leader_ext.leader_replicas_status FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[])
    FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_replica_gone(text) FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_replicas_status TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[])
    TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_gone(text) TO hardcount_app;
