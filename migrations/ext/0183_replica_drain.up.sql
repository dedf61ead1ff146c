-- outside leader_ext: nothing

-- Drain a replica before a deploy (issue 36): a drained replica starts no new tick of any role,
-- lets its running ticks end as they would (completed, released, no cooldown) and then reports
-- drained. The flag is keyed by the replica's name (leader-replica --id, recorded by 0182), not
-- its holder id, so it survives the process's restart until leader_undrain. Every drain and undrain
-- is a row of leader_ext.leader_drain_log with the login (session_user), who (as typed) and why.
--
-- A replica reads its flag at each registry beat (and at once on the wake NOTIFY 'drain NAME'
-- that leader_drain and leader_undrain send on leader_leases) through leader_replica_drain_beat,
-- which also records the roles it is still running while draining and, once none is, since when
-- it is drained: leader_replicas_status shows draining or drained, so leaderctl drain --wait and
-- the console can see it.
--
-- A drain that would leave a role, not paused, with no live undrained replica running it is
-- refused unless forced; leader_drain_orphans(name) is that predicate, the one place it is
-- written, readable by the monitor role so that the console can ask before it drains. The
-- functions follow 0181: search_path = pg_catalog, pg_temp, every object named with its schema;
-- the lease schema's leader_status through @lease@, replaced when the DDL runs.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

CREATE TABLE leader_ext.leader_replica_drains (
    name       text PRIMARY KEY CONSTRAINT leader_replica_drains_named CHECK (name <> ''),
    drained_at timestamptz NOT NULL, -- database clock
    login      text NOT NULL,        -- session_user of the drain
    drained_by text NOT NULL,        -- as typed
    reason     text NOT NULL
);

COMMENT ON TABLE leader_ext.leader_replica_drains IS
    'the replicas drained by name (leader-replica --id); written only by leader_drain() and '
    'leader_undrain()';

CREATE TABLE leader_ext.leader_drain_log (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name   text NOT NULL,
    action text NOT NULL CONSTRAINT leader_drain_log_action_known
                   CHECK (action IN ('drain', 'undrain')),
    at     timestamptz NOT NULL, -- database clock
    login  text NOT NULL,        -- session_user
    by     text,
    reason text,
    -- A drain that left these roles with no eligible replica, forced.
    forced text[]
);

CREATE INDEX leader_drain_log_name_at ON leader_ext.leader_drain_log (name, at);

COMMENT ON TABLE leader_ext.leader_drain_log IS
    'every drain and undrain of a replica; written only by leader_drain() and leader_undrain()';

ALTER TABLE leader_ext.leader_replicas
    ADD COLUMN running_roles text[],
    ADD COLUMN drained_since timestamptz;

COMMENT ON COLUMN leader_ext.leader_replicas.running_roles IS
    'while the replica drains: the roles whose tick it is still running; NULL: not draining';
COMMENT ON COLUMN leader_ext.leader_replicas.drained_since IS
    'while the replica drains: since when it runs no tick (database clock); NULL: not drained';

-- 0182's view with the drain appended: drain is NULL, draining or drained.
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

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
-- The drain predicate: the roles, not paused, that a live replica named p_name runs and no other
-- live undrained replica does. Runs as its caller: the two views are all it reads.
CREATE FUNCTION leader_ext.leader_drain_orphans(p_name text) RETURNS text[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(pg_catalog.array_agg(mine.role ORDER BY pg_catalog.array_position(
                        ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                              'webhook_delivery']::text[], mine.role)), '{}'::text[])
      FROM (SELECT DISTINCT pg_catalog.unnest(r.roles) AS role
              FROM leader_ext.leader_replicas_status AS r
             WHERE r.name = p_name AND r.state = 'alive'::text) AS mine
     WHERE NOT EXISTS (SELECT FROM @lease@.leader_status AS s
                        WHERE s.role = mine.role AND s.state = 'paused'::text)
       AND NOT EXISTS (SELECT FROM leader_ext.leader_replicas_status AS o
                        WHERE o.state = 'alive'::text AND mine.role = ANY (o.roles)
                          AND o.name IS DISTINCT FROM p_name AND o.drained_at IS NULL);
$fn$
$ddl$,
$ddl$
CREATE FUNCTION leader_ext.leader_drain(p_name text, p_by text, p_reason text, p_force boolean)
    RETURNS text[]
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_orphans text[];
    v_at      timestamptz;
    v_by      text;
    v_reason  text;
BEGIN
    IF coalesce(btrim(p_by), ''::text) = ''::text
       OR coalesce(btrim(p_reason), ''::text) = ''::text THEN
        RAISE EXCEPTION 'leader_drain needs who drains and why'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT leader_ext.leader_drain(''r2'', ''alice@ops'', ''deploy'', false)';
    END IF;
    -- One drain at a time: two concurrent drains of the last two replicas of a role would each
    -- see the other one eligible.
    LOCK TABLE leader_ext.leader_replica_drains IN SHARE ROW EXCLUSIVE MODE;
    SELECT d.drained_at, d.drained_by, d.reason INTO v_at, v_by, v_reason
      FROM leader_ext.leader_replica_drains AS d WHERE d.name = p_name;
    IF FOUND THEN
        RAISE NOTICE 'replica % was already drained at % by %: %', p_name, v_at, v_by, v_reason;
        RETURN '{}'::text[];
    END IF;
    IF p_name IS NULL OR NOT EXISTS (SELECT FROM leader_ext.leader_replicas AS r
                                      WHERE r.name = p_name) THEN
        RAISE EXCEPTION 'unknown replica %', coalesce(quote_literal(p_name), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'a replica is named by its leader-replica --id; leaderctl replicas '
                         'lists them';
    END IF;
    v_orphans := leader_ext.leader_drain_orphans(p_name);
    IF pg_catalog.cardinality(v_orphans) > 0 AND NOT coalesce(p_force, false) THEN
        RAISE EXCEPTION 'draining replica % leaves % with no eligible replica', p_name,
                        pg_catalog.array_to_string(v_orphans, ', '::text)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = pg_catalog.array_to_string(v_orphans, ','::text),
                  HINT = 'start another replica running it first, or drain anyway with --force';
    END IF;
    INSERT INTO leader_ext.leader_replica_drains (name, drained_at, login, drained_by, reason)
    VALUES (p_name, now(), session_user, p_by, p_reason);
    INSERT INTO leader_ext.leader_drain_log (name, action, at, login, by, reason, forced)
    VALUES (p_name, 'drain', now(), session_user, p_by, p_reason,
            CASE WHEN pg_catalog.cardinality(v_orphans) > 0 THEN v_orphans END);
    -- Its state reads draining until the replica itself reports.
    UPDATE leader_ext.leader_replicas AS r SET running_roles = NULL, drained_since = NULL
     WHERE r.name = p_name;
    -- Delivered at commit: the replica reads its flag now, not at its next beat.
    PERFORM pg_catalog.pg_notify('leader_leases'::text, 'drain '::text || p_name);
    RETURN v_orphans;
END
$fn$
$ddl$,
$ddl$
CREATE FUNCTION leader_ext.leader_undrain(p_name text, p_by text, p_reason text)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    DELETE FROM leader_ext.leader_replica_drains AS d WHERE d.name = p_name;
    IF NOT FOUND THEN
        IF p_name IS NULL OR NOT EXISTS (SELECT FROM leader_ext.leader_replicas AS r
                                          WHERE r.name = p_name) THEN
            RAISE EXCEPTION 'unknown replica %', coalesce(quote_literal(p_name), 'NULL'::text)
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'a replica is named by its leader-replica --id; leaderctl replicas '
                             'lists them';
        END IF;
        RETURN false;
    END IF;
    INSERT INTO leader_ext.leader_drain_log (name, action, at, login, by, reason)
    VALUES (p_name, 'undrain', now(), session_user, nullif(p_by, ''::text),
            nullif(p_reason, ''::text));
    UPDATE leader_ext.leader_replicas AS r SET running_roles = NULL, drained_since = NULL
     WHERE r.name = p_name;
    PERFORM pg_catalog.pg_notify('leader_leases'::text, 'drain '::text || p_name);
    RETURN true;
END
$fn$
$ddl$,
$ddl$
-- A replica's drain beat: returns whether its name is drained, and records what it reports while
-- it drains (drained in the database, or p_local: on its own, at SIGTERM): the roles it still runs
-- (p_running) and, once it runs none, since when.
CREATE FUNCTION leader_ext.leader_replica_drain_beat(p_holder_id text, p_local boolean,
                                                     p_running text[])
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_drained boolean;
    v_running text[];
    v_since   timestamptz;
    v_next    timestamptz;
BEGIN
    SELECT d.name IS NOT NULL, r.running_roles, r.drained_since
      INTO v_drained, v_running, v_since
      FROM leader_ext.leader_replicas AS r
      LEFT JOIN leader_ext.leader_replica_drains AS d ON d.name = r.name
     WHERE r.holder_id = p_holder_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    -- p_running is NULL while the replica does not drain yet (its first beat after a drain).
    IF NOT (v_drained OR coalesce(p_local, false)) THEN
        p_running := NULL;
    END IF;
    v_next := CASE WHEN pg_catalog.cardinality(p_running) = 0 THEN coalesce(v_since, now()) END;
    -- Written only when it changes: an undrained replica's beat writes nothing more.
    IF (v_running, v_since) IS DISTINCT FROM (p_running, v_next) THEN
        UPDATE leader_ext.leader_replicas AS r
           SET running_roles = p_running, drained_since = v_next
         WHERE r.holder_id = p_holder_id;
    END IF;
    RETURN v_drained;
END
$fn$
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@lease@', v_schema);
    END LOOP;
END
$migration$;

REVOKE ALL ON leader_ext.leader_replica_drains FROM PUBLIC;
REVOKE ALL ON leader_ext.leader_drain_log FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_drain_orphans(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_drain(text, text, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_undrain(text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_replica_drain_beat(text, boolean, text[]) FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_drain_log TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_drain_orphans(text)
    TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_drain(text, text, text, boolean) TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_ext.leader_undrain(text, text, text) TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_drain_beat(text, boolean, text[])
    TO hardcount_app;
