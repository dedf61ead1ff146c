-- outside leader_ext: drops trigger leader_leases_writes on leader_leases
-- outside leader_ext: drops column leader_leases.holder_session_token (and the app's grants on it)
-- outside leader_ext: turns each pause with an end back into 0177's form (paused_at and paused_until)
-- outside leader_ext: replaces view leader_status (back to 0184's columns)

-- Back to 0188. Pauses with an end still ahead go back to 0177's form (paused_at, paused_until;
-- not_before as it was before the pause), so they hold as they did; the ADR's ACQUIRE refuses
-- them for as long as they are not unpaused, as before this migration. The record of holders
-- outside the registry goes with the migration, and so do the replicas' early take notes.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP TRIGGER leader_leases_writes ON leader_leases;
DROP FUNCTION leader_ext.leader_leases_writes();

-- The log keeps each pause's own row: the move back is not a new pause.
ALTER TABLE leader_leases DISABLE TRIGGER leader_leases_log_pause_update;
UPDATE leader_leases AS l
   SET paused_at = e.paused_at, paused_by = e.paused_by, pause_reason = e.pause_reason,
       paused_until = e.until,
       not_before = CASE WHEN e.not_before_before > now() THEN e.not_before_before END
  FROM leader_ext.leader_pause_ends AS e
 WHERE e.role = l.role AND e.until > now() AND e.not_before IS NOT DISTINCT FROM l.not_before;
ALTER TABLE leader_leases ENABLE TRIGGER leader_leases_log_pause_update;
DELETE FROM leader_ext.leader_pause_ends AS e
 USING leader_leases AS l
 WHERE l.role = e.role AND l.paused_at = e.paused_at AND l.paused_until = e.until;
-- The rest had ended: their expiry is logged at their end.
SELECT leader_ext.leader_pause_settle(NULL);
DROP FUNCTION leader_ext.leader_pause_settle(text);
DROP FUNCTION leader_ext.leader_replica_early_take_off(text, bigint, text);

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_leases_guard() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    -- The owner, by hand or through the definer functions, writes what it means to.
    IF pg_has_role(current_user,
                   (SELECT c.relowner FROM pg_class AS c WHERE c.oid = TG_RELID), 'USAGE'::text) THEN
        RETURN NEW;
    END IF;
    IF (NEW.paused_at, NEW.paused_by, NEW.pause_reason, NEW.paused_until)
           IS DISTINCT FROM (OLD.paused_at, OLD.paused_by, OLD.pause_reason, OLD.paused_until)
       AND NOT (OLD.paused_until <= now() AND NEW.paused_at IS NULL AND NEW.paused_by IS NULL
                AND NEW.pause_reason IS NULL AND NEW.paused_until IS NULL) THEN
        RAISE EXCEPTION 'only leader_pause and leader_unpause change the pause of role %', OLD.role
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'SELECT leader_pause(role, by, reason) or '
                         'leader_ext.leader_unpause(role, by, reason)';
    END IF;
    -- A tick cannot have ended after now: that would keep the role from being due and its stall
    -- gauge healthy.
    IF NEW.last_tick_ended_at > now() THEN
        NEW.last_tick_ended_at := now();
    END IF;
    RETURN NEW;
END
$fn$
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_pause(p_role text, p_by text, p_reason text,
                                                   p_until timestamptz)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_paused_at timestamptz;
    v_by        text;
    v_reason    text;
    v_until     timestamptz;
BEGIN
    IF p_role IS NULL
       OR p_role <> ALL (ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                               'webhook_delivery']::text[]) THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    IF coalesce(btrim(p_by), ''::text) = ''::text OR coalesce(btrim(p_reason), ''::text) = ''::text
    THEN
        RAISE EXCEPTION 'leader_pause needs who pauses and why'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT leader_pause(''email_outbox'', ''alice@ops'', ''SMTP key rotation'')';
    END IF;
    IF p_until IS NOT NULL AND p_until <= now() THEN
        RAISE EXCEPTION 'a pause cannot end at %, which is not after now (%)', p_until, now()
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT leader_ext.leader_pause(''billing'', ''alice@ops'', ''why'', '
                         'now() + interval ''1 hour'')';
    END IF;

    -- Nulls the holder in the same statement, so the fence is false from this commit on. A pause
    -- whose end has passed counts as none: replacing it logs its expiry first.
    UPDATE @lease@.leader_leases AS l
       SET paused_at = now(), paused_by = p_by, pause_reason = p_reason, paused_until = p_until,
           holder_id = NULL, acquired_at = NULL, expires_at = NULL
     WHERE l.role = p_role AND (l.paused_at IS NULL OR l.paused_until <= now())
    RETURNING l.paused_at INTO v_paused_at;
    IF FOUND THEN
        -- Delivered at commit: the holder's heartbeat renews at once and finds the row paused.
        PERFORM pg_notify('leader_leases'::text, p_role);
        RETURN v_paused_at;
    END IF;

    SELECT l.paused_at, l.paused_by, l.pause_reason, l.paused_until
      INTO v_paused_at, v_by, v_reason, v_until
      FROM @lease@.leader_leases AS l
     WHERE l.role = p_role;
    IF FOUND THEN
        -- Says whose pause is in force: the caller's by and reason changed nothing. The operator
        -- a user planted for (text, timestamptz) was picked here before 0181.
        RAISE NOTICE 'role % was already paused at % by %: %', p_role, v_paused_at, v_by,
                     v_reason OPERATOR(pg_catalog.||)
                     coalesce(' (until '::text OPERATOR(pg_catalog.||) v_until::text
                              OPERATOR(pg_catalog.||) ')'::text, ''::text);
        RETURN v_paused_at;
    END IF;

    -- The row went missing; recreate it paused, with a token above any issued before.
    INSERT INTO @lease@.leader_leases AS l
           (role, holder_token, paused_at, paused_by, pause_reason, paused_until)
    VALUES (p_role, (extract(epoch FROM clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint,
            now(), p_by, p_reason, p_until)
    ON CONFLICT (role) DO NOTHING;
    IF FOUND THEN
        PERFORM pg_notify('leader_leases'::text, p_role);
    END IF;
    SELECT l.paused_at INTO v_paused_at FROM @lease@.leader_leases AS l WHERE l.role = p_role;
    RETURN v_paused_at;
END
$fn$
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_unpause(p_role text, p_by text, p_reason text)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_paused_at timestamptz;
    v_until     timestamptz;
BEGIN
    IF p_role IS NULL
       OR p_role <> ALL (ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                               'webhook_delivery']::text[]) THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    SELECT l.paused_at, l.paused_until INTO v_paused_at, v_until
      FROM @lease@.leader_leases AS l
     WHERE l.role = p_role
       FOR UPDATE;
    IF v_paused_at IS NULL THEN
        RETURN false;
    END IF;
    -- Leaves last_tick_ended_at alone, so the role is due at the next poll if its interval passed.
    UPDATE @lease@.leader_leases AS l
       SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
     WHERE l.role = p_role;
    -- Delivered at commit: idle runners poll now instead of at their next MaxPoll.
    PERFORM pg_notify('leader_leases'::text, p_role);
    -- A pause that had already ended unpauses nothing: the trigger logged its expiry instead.
    IF v_until IS NOT NULL AND v_until <= now() THEN
        RETURN false;
    END IF;
    -- The trigger logged this unpause with the login; who and why are this call's arguments. The
    -- row lock taken above keeps any other unpause of this role out until commit, so the newest
    -- unpause of the role is the one this statement made.
    UPDATE leader_ext.leader_pause_log AS g
       SET by = nullif(p_by, ''::text), reason = nullif(p_reason, ''::text)
     WHERE g.id = (SELECT max(m.id) FROM leader_ext.leader_pause_log AS m
                    WHERE m.role = p_role AND m.action = 'unpause'::text);
    RETURN true;
END
$fn$
$ddl$,
$ddl$
-- The drain predicate: the roles, not paused, that a live replica named p_name runs and no other
-- live undrained replica does. Runs as its caller: the two views are all it reads.
CREATE OR REPLACE FUNCTION leader_ext.leader_drain_orphans(p_name text) RETURNS text[]
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
CREATE OR REPLACE FUNCTION leader_ext.leader_handover(p_role text, p_by text, p_reason text,
                                           p_to text DEFAULT NULL)
    RETURNS TABLE (token bigint, handover_at timestamptz, from_holder text, to_holder text)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    v_row       record;
    v_held      boolean;
    v_target    record;
    v_to_holder text;
BEGIN
    IF coalesce(btrim(p_by), ''::text) = ''::text
       OR coalesce(btrim(p_reason), ''::text) = ''::text THEN
        RAISE EXCEPTION 'leader_handover needs who hands over and why'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT * FROM leader_ext.leader_handover(''billing'', ''alice@ops'', '
                         '''deploy'', ''r2'')';
    END IF;
    SELECT l.holder_token, l.holder_id, l.expires_at, l.paused_at, l.paused_until INTO v_row
      FROM @lease@.leader_leases AS l WHERE l.role = p_role FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    IF v_row.paused_at IS NOT NULL AND (v_row.paused_until IS NULL OR v_row.paused_until > now())
    THEN
        RAISE EXCEPTION 'role % is paused: nothing runs it to hand over', p_role
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'unpause it first: leaderctl unpause '::text || p_role;
    END IF;
    v_held := v_row.holder_id IS NOT NULL AND v_row.expires_at > now();
    IF p_to IS NULL AND NOT v_held THEN
        RAISE EXCEPTION 'role % is not held: nothing to hand over', p_role
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'name a replica with --to to prefer it for the next tick';
    END IF;
    IF p_to IS NOT NULL THEN
        SELECT r.holder_id, r.state, r.roles, r.drained_at, r.last_seen INTO v_target
          FROM leader_ext.leader_replicas_status AS r
         WHERE r.name = p_to
         ORDER BY r.state = 'alive'::text DESC, r.last_seen DESC
         LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'unknown replica %', quote_literal(p_to)
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'a replica is named by its leader-replica --id; leaderctl replicas '
                             'lists them';
        END IF;
        IF v_target.state <> 'alive'::text THEN
            RAISE EXCEPTION 'replica % is not live (last seen %)', p_to, v_target.last_seen
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'start it, or name a live replica (leaderctl replicas)';
        END IF;
        IF v_target.drained_at IS NOT NULL THEN
            RAISE EXCEPTION 'replica % is drained: it starts no tick', p_to
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'undrain it first (leaderctl undrain '::text || p_to
                             || '), or name another replica'::text;
        END IF;
        IF NOT (p_role = ANY (v_target.roles)) THEN
            RAISE EXCEPTION 'replica % does not run role %', p_to, p_role
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'name a replica that runs it (leaderctl replicas)';
        END IF;
        IF v_held AND v_target.holder_id = v_row.holder_id THEN
            RAISE EXCEPTION 'replica % already holds role %', p_to, p_role
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'name another replica, or leave out --to';
        END IF;
        v_to_holder := v_target.holder_id;
    END IF;
    UPDATE @lease@.leader_leases AS l
       SET handover_token = l.holder_token,
           handover_at = now(),
           handover_by = p_by,
           handover_reason = p_reason,
           handover_from = CASE WHEN v_held THEN l.holder_id END,
           handover_to = v_to_holder
     WHERE l.role = p_role;
    INSERT INTO leader_ext.leader_handover_log (role, at, login, by, reason, token, from_holder,
                                                to_replica, to_holder)
    VALUES (p_role, now(), session_user, p_by, p_reason, v_row.holder_token,
            CASE WHEN v_held THEN v_row.holder_id END, p_to, v_to_holder);
    -- Delivered at commit: the holder's listener renews now and learns it; idle runners wake.
    PERFORM pg_catalog.pg_notify('leader_leases'::text, p_role);
    RETURN QUERY SELECT v_row.holder_token, now(), CASE WHEN v_held THEN v_row.holder_id END,
                        v_to_holder;
END
$fn$
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@lease@', v_schema);
    END LOOP;
END
$migration$;

DROP VIEW leader_ext.leader_status;
DROP TABLE leader_ext.leader_pause_ends;
DROP TABLE leader_ext.leader_outside_holders;

-- 0184's leader_status, recreated whole (a view gains columns in place, but never loses any).
DROP VIEW leader_status;
CREATE VIEW leader_status AS
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
       l.early_take,
       t.outcome AS last_outcome,
       t.loss_reason AS last_loss_reason,
       t.duration_seconds AS last_duration_seconds,
       t.ended_at AS last_ended_at,
       t.holder_id AS last_holder,
       t.failed_step AS last_failed_step,
       t.error AS last_error,
       coalesce(h.completed, 0) AS completed_last_hour,
       coalesce(h.lost, 0) AS lost_last_hour,
       coalesce(h.failed, 0) AS failed_last_hour,
       coalesce(h.interrupted, 0) AS interrupted_last_hour
  FROM leader_leases l
 CROSS JOIN LATERAL (SELECT l.paused_at IS NOT NULL
                            AND (l.paused_until IS NULL OR l.paused_until > now()) AS in_force) p
  LEFT JOIN leader_ext.leader_tick_last t ON t.role = l.role
  LEFT JOIN LATERAL (
      SELECT sum(c.completed)::integer AS completed, sum(c.lost)::integer AS lost,
             sum(c.failed)::integer AS failed, sum(c.interrupted)::integer AS interrupted
        FROM leader_ext.leader_tick_counts c
       WHERE c.role = l.role AND c.minute > date_trunc('minute', now()) - interval '60 minutes'
  ) h ON true;
COMMENT ON VIEW leader_status IS 'ADR-114: who leads what, on the database clock';
REVOKE ALL ON leader_status FROM PUBLIC;
GRANT SELECT ON leader_status TO hardcount_app, hardcount_monitor;

-- 0187's registry view: the early take's columns go (recreated, with 0178's grants).
DROP VIEW leader_ext.leader_replicas_status;
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
REVOKE ALL ON leader_ext.leader_replicas_status FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_replicas_status TO hardcount_app, hardcount_monitor;
COMMENT ON VIEW leader_ext.leader_replicas_status IS
    'the replicas that could take over a role: alive if seen within 35 s (database clock) and, '
    'for one with a marker session, while its marker lock is held';
ALTER TABLE leader_ext.leader_replicas
    DROP COLUMN early_take_off_reason,
    DROP COLUMN early_take_off_until;

ALTER TABLE leader_leases DROP COLUMN holder_session_token;
