-- outside leader_ext: nothing

-- Back to 0182: no drain. The drains and their log go with the migration (a drained replica starts
-- ticks again at its next beat): export the log first (SELECT * FROM leader_ext.leader_drain_log)
-- if it must be kept. The view is 0182's, recreated with 0178's grants (its columns cannot be
-- dropped in place).
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP FUNCTION leader_ext.leader_replica_drain_beat(text, boolean, text[]);
DROP FUNCTION leader_ext.leader_undrain(text, text, text);
DROP FUNCTION leader_ext.leader_drain(text, text, text, boolean);
DROP FUNCTION leader_ext.leader_drain_orphans(text);
DROP VIEW leader_ext.leader_replicas_status;
DROP TABLE leader_ext.leader_drain_log;
DROP TABLE leader_ext.leader_replica_drains;
ALTER TABLE leader_ext.leader_replicas
    DROP COLUMN drained_since,
    DROP COLUMN running_roles;

-- 0182's view.
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

REVOKE ALL ON leader_ext.leader_replicas_status FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_replicas_status TO hardcount_app, hardcount_monitor;
