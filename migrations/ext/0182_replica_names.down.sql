-- outside leader_ext: nothing

-- Back to 0181: no name and no marker in the registry. leader_replica_seen is 0181's, the view
-- 0178's (its columns cannot be dropped in place), each with its grants; the rows keep the rest.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP VIEW leader_ext.leader_replicas_status;
DROP FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[], text, bigint);
ALTER TABLE leader_ext.leader_replicas
    DROP CONSTRAINT leader_replicas_marker_keyed,
    DROP CONSTRAINT leader_replicas_name_given,
    DROP COLUMN marker_session,
    DROP COLUMN name;

-- 0181's body.
CREATE FUNCTION leader_ext.leader_replica_seen(p_holder_id text, p_host text,
                                                          p_pid integer, p_version text,
                                                          p_roles text[])
    RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    DELETE FROM leader_ext.leader_replicas AS r WHERE r.last_seen < now() - '24 hours'::interval;
    INSERT INTO leader_ext.leader_replicas AS r
           (holder_id, host, pid, version, roles, started_at, last_seen)
    VALUES (p_holder_id, p_host, p_pid, p_version, p_roles, now(), now())
    ON CONFLICT (holder_id) DO UPDATE
        SET host = EXCLUDED.host, pid = EXCLUDED.pid, version = EXCLUDED.version,
            roles = EXCLUDED.roles, last_seen = now();
$fn$;

-- 0178's view.
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

REVOKE ALL ON leader_ext.leader_replicas_status FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[])
    FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_replicas_status TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[])
    TO hardcount_app;
