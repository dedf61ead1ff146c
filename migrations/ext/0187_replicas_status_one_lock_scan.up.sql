-- outside leader_ext: nothing

-- leader_replicas_status with the lock table read once per query, not once per replica (issue
-- 37). 0182 and 0183 looked each row's marker up in pg_locks through a lateral subquery, so every
-- read of the view called pg_lock_status() once per registered replica, marker or not, and each
-- call takes every lock-manager partition: a replica's count of live peers (LeaseBoard, five
-- roles) cost 5 x 1,000 calls at 1,000 replicas and melted the server down (docs/benchmarks/
-- scale.md). The rows and columns are the same; only the plan changes.

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
       CASE WHEN r.marker_session IS NOT NULL AND m.high IS NULL THEN 'gone'
            WHEN r.last_seen > now() - interval '35 seconds' THEN 'alive'
            ELSE 'gone' END AS state,
       now() AS observed_at,
       r.name,
       r.marker_session,
       -- NULL without a marker: its absence proves nothing.
       CASE WHEN r.marker_session IS NOT NULL THEN m.high IS NOT NULL END AS marker_held,
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
  -- The high halves of the marker keys held now in this database, read once: a marker is the
  -- exclusive session lock on hash << 32 | its own backend pid (WakeListener), so a death
  -- watch's shared wait or another key with the same high half does not count.
  LEFT JOIN (SELECT DISTINCT l.classid::bigint AS high
               FROM pg_catalog.pg_locks l
              WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ExclusiveLock'
                AND l.granted AND l.objid::bigint = l.pid
                AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                                   WHERE d.datname = pg_catalog.current_database())) m
         ON m.high = r.marker_session >> 32;
