-- outside leader_ext: nothing

-- The registry says which replica a row is and whether it still lives (issue 33). A replica
-- records its name (leader-replica --id, the console's r1, r2, …) and the key of its marker
-- session, the advisory lock its listener holds for as long as the process lives (0179). A row
-- whose marker lock no session holds any more reads "gone" in leader_replicas_status at once, for
-- every reader: the database ended that session, so the process died (a live replica whose session
-- was ended takes a new one within about a second). A reader that starts after the death, which
-- never saw the lock held, knows it from the row. A replica without a marker (behind a transaction
-- pooler without a listen session, the early take off) records none and is judged by its beats,
-- as before: gone 35 s after the last one.
--
-- The marker is matched by its high half (the holder id's hash), on an exclusive lock whose low
-- half is the holding backend's own pid: a new session of the same replica (a new pid) keeps the
-- row alive before its next beat records the new key, and a death watch's shared wait never
-- counts. Replicas of an earlier build call leader_replica_seen with five arguments, which record
-- neither, and read as before.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_ext.leader_replicas
    ADD COLUMN name text,
    ADD COLUMN marker_session bigint,
    ADD CONSTRAINT leader_replicas_name_given CHECK (name <> ''),
    ADD CONSTRAINT leader_replicas_marker_keyed CHECK (marker_session > 4294967295);

COMMENT ON COLUMN leader_ext.leader_replicas.name IS
    'the replica''s name as its operator gave it (leader-replica --id); NULL: none given';
COMMENT ON COLUMN leader_ext.leader_replicas.marker_session IS
    'the advisory lock key its marker session held at its latest beat (holder id''s hash << 32 | '
    'backend pid); NULL: it has no marker';

-- The same beat with the two facts; both default to NULL, so a five-argument call of an earlier
-- replica still resolves here, and records neither.
DROP FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[]);
CREATE FUNCTION leader_ext.leader_replica_seen(p_holder_id text, p_host text, p_pid integer,
                                               p_version text, p_roles text[],
                                               p_name text DEFAULT NULL,
                                               p_marker_session bigint DEFAULT NULL)
    RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    DELETE FROM leader_ext.leader_replicas AS r WHERE r.last_seen < now() - '24 hours'::interval;
    INSERT INTO leader_ext.leader_replicas AS r
           (holder_id, host, pid, version, roles, started_at, last_seen, name, marker_session)
    VALUES (p_holder_id, p_host, p_pid, p_version, p_roles, now(), now(), nullif(p_name, ''::text),
            p_marker_session)
    ON CONFLICT (holder_id) DO UPDATE
        SET host = EXCLUDED.host, pid = EXCLUDED.pid, version = EXCLUDED.version,
            roles = EXCLUDED.roles, last_seen = now(), name = EXCLUDED.name,
            marker_session = EXCLUDED.marker_session;
$fn$;

REVOKE ALL ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[], text,
                                                      bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[], text,
                                                         bigint) TO hardcount_app;

-- 0178's view with the name and the marker appended, and "gone" also for a marker no session
-- holds. pg_locks is readable by every login; the view reads it as its owner anyway.
CREATE OR REPLACE VIEW leader_ext.leader_replicas_status AS
SELECT r.holder_id,
       r.host,
       r.pid,
       r.version,
       r.roles,
       r.started_at,
       r.last_seen,
       -- Never negative: a database clock stepped backwards reads as just seen.
       round(greatest(0, extract(epoch FROM now() - r.last_seen)), 3) AS last_seen_age_seconds,
       CASE WHEN r.marker_session IS NOT NULL AND NOT m.held THEN 'gone'
            WHEN r.last_seen > now() - interval '35 seconds' THEN 'alive'
            ELSE 'gone' END AS state,
       now() AS observed_at,
       r.name,
       r.marker_session,
       -- NULL without a marker: its absence proves nothing.
       CASE WHEN r.marker_session IS NOT NULL THEN m.held END AS marker_held
  FROM leader_ext.leader_replicas r
  CROSS JOIN LATERAL (
      SELECT EXISTS (
          SELECT FROM pg_catalog.pg_locks l
           WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ExclusiveLock'
             AND l.granted AND l.objid::bigint = l.pid
             AND l.classid::bigint = r.marker_session >> 32
             AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                                WHERE d.datname = pg_catalog.current_database())) AS held
  ) m;

COMMENT ON VIEW leader_ext.leader_replicas_status IS
    'the replicas that could take over a role: alive if seen within 35 s (database clock) and, '
    'for one with a marker session, while its marker lock is held';
