-- outside leader_ext: nothing

-- Back to 0186: 0183's view, which reads pg_locks once per replica row. Same columns, so the
-- view is replaced in place and keeps its grants.

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
       CASE WHEN r.marker_session IS NOT NULL THEN m.held END AS marker_held,
       CASE WHEN r.drained_since IS NOT NULL THEN 'drained'
            WHEN d.name IS NOT NULL OR r.running_roles IS NOT NULL THEN 'draining' END AS drain,
       d.drained_at,
       d.drained_by,
       d.reason AS drain_reason,
       d.login AS drain_login,
       r.running_roles,
       r.drained_since
  FROM leader_ext.leader_replicas r
  LEFT JOIN leader_ext.leader_replica_drains d ON d.name = r.name
  CROSS JOIN LATERAL (
      SELECT EXISTS (
          SELECT FROM pg_catalog.pg_locks l
           WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ExclusiveLock'
             AND l.granted AND l.objid::bigint = l.pid
             AND l.classid::bigint = r.marker_session >> 32
             AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                                WHERE d.datname = pg_catalog.current_database())) AS held
  ) m;
