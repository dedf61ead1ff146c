-- outside leader_ext: grants UPDATE (handover_token, handover_at, handover_by, handover_reason, handover_from, handover_to) on leader_leases to hardcount_app again
-- outside leader_ext: drops trigger leader_leases_handover_clear on leader_leases
-- outside leader_ext: drops constraint leader_leases_handover_at_finite on leader_leases

-- Back to 0189: our ACQUIRE of an older build clears a request itself again, so the app login may
-- write the request columns; the backlog's readers run any registered source again (0186).
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP TRIGGER leader_leases_handover_clear ON leader_leases;
DROP FUNCTION leader_ext.leader_leases_handover_clear();
ALTER TABLE leader_leases DROP CONSTRAINT leader_leases_handover_at_finite;
GRANT UPDATE (handover_token, handover_at, handover_by, handover_reason, handover_from,
              handover_to)
    ON leader_leases TO hardcount_app;

CREATE OR REPLACE FUNCTION leader_ext.leader_backlog_register(p_role text, p_source regprocedure,
                                                   p_what text)
    RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_proc record;
BEGIN
    IF coalesce(btrim(p_role), ''::text) = ''::text THEN
        RAISE EXCEPTION 'leader_backlog_register needs the role whose backlog the source counts'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT leader_ext.leader_backlog_register(''billing'', '
                         '''public.billing_backlog()''::regprocedure, ''due subscriptions'')';
    END IF;
    IF coalesce(btrim(p_what), ''::text) = ''::text OR pg_catalog.length(p_what) > 60 THEN
        RAISE EXCEPTION 'what the backlog source of % counts must be 1 to 60 characters', p_role
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'name what it counts, plural: ''due subscriptions''';
    END IF;
    SELECT p.prokind, p.pronargs, p.provolatile, p.proallargtypes, p.proargnames,
           p.pronamespace, n.nspname
      INTO v_proc
      FROM pg_catalog.pg_proc AS p
      JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
     WHERE p.oid = p_source::oid;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'leader_backlog_register needs an existing source function for %', p_role
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_proc.prokind <> 'f'::"char" OR v_proc.pronargs <> 0 THEN
        RAISE EXCEPTION 'the backlog source % must be a function without arguments', p_source
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_proc.proallargtypes IS DISTINCT FROM
           ARRAY['pg_catalog.int8'::regtype, 'pg_catalog.timestamptz'::regtype]::oid[]
       OR v_proc.proargnames IS DISTINCT FROM ARRAY['pending', 'oldest_pending_at']::text[] THEN
        RAISE EXCEPTION 'the backlog source % must return (pending bigint, oldest_pending_at timestamptz), not %',
                        p_source, pg_catalog.pg_get_function_result(p_source::oid)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'declare it RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)';
    END IF;
    -- Read once per console poll and leaderctl status: it must not write. A volatile function
    -- may; a STABLE one's own statements cannot.
    IF v_proc.provolatile = 'v'::"char" THEN
        RAISE EXCEPTION 'the backlog source % must be STABLE: it is read, never written through', p_source
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF NOT pg_catalog.has_schema_privilege('hardcount_monitor'::name, v_proc.pronamespace,
                                           'USAGE'::text) THEN
        RAISE EXCEPTION 'hardcount_monitor may not use the schema % of the backlog source %',
                        pg_catalog.quote_ident(v_proc.nspname), p_source
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'GRANT USAGE ON SCHEMA '::text || pg_catalog.quote_ident(v_proc.nspname)
                         || ' TO hardcount_monitor, hardcount_app'::text;
    END IF;
    INSERT INTO leader_ext.leader_backlog_sources AS s (role, source, what)
    VALUES (p_role, p_source, p_what)
    ON CONFLICT (role) DO UPDATE
        SET source = EXCLUDED.source, what = EXCLUDED.what, registered_at = pg_catalog.now(),
            registered_by = current_user;
    -- The readers run the source as themselves: a SECURITY DEFINER source then reads as its
    -- owner what they may not.
    EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO hardcount_monitor, hardcount_app',
                              p_source);
END
$fn$;

CREATE OR REPLACE FUNCTION leader_ext.leader_backlog()
    RETURNS TABLE (role text, what text, pending bigint, oldest_pending_age_seconds double precision,
                   error text)
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_source  record;
    v_pending bigint;
    v_oldest  timestamptz;
    v_state   text;
    v_message text;
BEGIN
    FOR v_source IN
        SELECT s.role, s.what, s.source::oid AS source, p.proname, n.nspname
          FROM leader_ext.leader_backlog_sources AS s
          LEFT JOIN pg_catalog.pg_proc AS p ON p.oid = s.source::oid
          LEFT JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
         ORDER BY s.role
    LOOP
        role := v_source.role;
        what := v_source.what;
        pending := NULL;
        oldest_pending_age_seconds := NULL;
        error := NULL;
        BEGIN
            IF v_source.proname IS NULL THEN
                RAISE EXCEPTION 'the backlog source (function %) no longer exists',
                                v_source.source
                    USING ERRCODE = 'undefined_function';
            END IF;
            -- Exactly one row: none or more is the source's error, not a count.
            EXECUTE pg_catalog.format('SELECT s.pending, s.oldest_pending_at FROM %I.%I() AS s',
                                      v_source.nspname, v_source.proname)
               INTO STRICT v_pending, v_oldest;
            pending := v_pending;
            -- Never negative: an item stamped ahead of the clock counts as just pending.
            IF v_oldest IS NOT NULL THEN
                oldest_pending_age_seconds := pg_catalog.date_part(
                    'epoch'::text, GREATEST(pg_catalog.now() - v_oldest, '0'::interval));
            END IF;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_message = MESSAGE_TEXT;
            pending := NULL;
            oldest_pending_age_seconds := NULL;
            -- The first line, bounded, secrets masked, as 0184 records a tick's error.
            v_message := pg_catalog.split_part(
                             pg_catalog.replace(v_message, E'\r'::text, E'\n'::text),
                             E'\n'::text, 1);
            v_message := pg_catalog.regexp_replace(v_message, '(://[^:/@\s]*:)[^@\s]*@'::text,
                                                   '\1***@'::text, 'g'::text);
            v_message := pg_catalog.regexp_replace(
                             v_message,
                             '((?:password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*)(''[^'']*''|"[^"]*"|[^\s,;&]+)'::text,
                             '\1***'::text, 'gi'::text);
            error := pg_catalog.left(v_state || ': '::text || v_message, 300);
        END;
        RETURN NEXT;
    END LOOP;
END
$fn$;

DROP FUNCTION leader_ext.leader_backlog_refusal(oid);

ALTER TABLE leader_ext.leader_replicas DROP CONSTRAINT leader_replicas_name_bounded;
DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_pause(p_role text, p_by text, p_reason text,
                                                   p_until timestamptz)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_row       record;
    v_end       record;
    v_pause_id  bigint;
    v_not_before timestamptz;
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
    IF p_until IS NOT NULL AND NOT (p_until > now() AND p_until < 'infinity'::timestamptz) THEN
        RAISE EXCEPTION 'a pause cannot end at %: give an instant after now (%)', p_until, now()
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'SELECT leader_ext.leader_pause(''billing'', ''alice@ops'', ''why'', '
                         'now() + interval ''1 hour''); without an end it holds until '
                         'leader_unpause';
    END IF;

    PERFORM leader_ext.leader_pause_settle(p_role);
    SELECT l.paused_at, l.paused_by, l.pause_reason, l.paused_until, l.not_before INTO v_row
      FROM @lease@.leader_leases AS l
     WHERE l.role = p_role
       FOR UPDATE;
    IF FOUND THEN
        SELECT e.paused_at, e.paused_by, e.pause_reason, e.until INTO v_end
          FROM leader_ext.leader_pause_ends AS e WHERE e.role = p_role;
        IF NOT FOUND
           AND v_row.paused_at IS NOT NULL
           AND (v_row.paused_until IS NULL OR v_row.paused_until > now()) THEN
            SELECT v_row.paused_at, v_row.paused_by, v_row.pause_reason,
                   v_row.paused_until AS until INTO v_end;
        END IF;
        IF v_end.paused_at IS NOT NULL THEN
            -- Says whose pause is in force: the caller's by and reason changed nothing.
            RAISE NOTICE 'role % was already paused at % by %: %', p_role, v_end.paused_at,
                         v_end.paused_by,
                         v_end.pause_reason OPERATOR(pg_catalog.||)
                         coalesce(' (until '::text OPERATOR(pg_catalog.||) v_end.until::text
                                  OPERATOR(pg_catalog.||) ')'::text, ''::text);
            RETURN v_end.paused_at;
        END IF;
    END IF;

    IF p_until IS NULL THEN
        -- The ADR's pause: paused_at. Nulls the holder in the same statement, so the fence is
        -- false from this commit on; a pause of the old form whose end has passed is replaced
        -- (its expiry logged first).
        UPDATE @lease@.leader_leases AS l
           SET paused_at = now(), paused_by = p_by, pause_reason = p_reason, paused_until = NULL,
               holder_id = NULL, acquired_at = NULL, expires_at = NULL
         WHERE l.role = p_role;
        IF NOT FOUND THEN
            INSERT INTO @lease@.leader_leases AS l
                   (role, holder_token, paused_at, paused_by, pause_reason)
            VALUES (p_role,
                    (extract(epoch FROM clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint,
                    now(), p_by, p_reason);
        END IF;
        PERFORM pg_notify('leader_leases'::text, p_role);
        RETURN now();
    END IF;

    -- A pause with an end: the holder cleared (the fence is false from this commit on) and the
    -- end held in not_before, which every ACQUIRE, the ADR's own included, honours. A cooldown
    -- running past the end is kept.
    v_not_before := greatest(v_row.not_before, p_until);
    INSERT INTO leader_ext.leader_pause_log (role, action, at, login, by, reason, paused_until)
    VALUES (p_role, 'pause', now(), session_user, p_by, p_reason, p_until)
    RETURNING id INTO v_pause_id;
    IF v_row.paused_at IS NOT NULL THEN
        -- An old-form pause whose end had passed: ended (the log trigger records its expiry).
        UPDATE @lease@.leader_leases AS l
           SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
         WHERE l.role = p_role;
    END IF;
    UPDATE @lease@.leader_leases AS l
       SET holder_id = NULL, acquired_at = NULL, expires_at = NULL, not_before = v_not_before
     WHERE l.role = p_role;
    IF NOT FOUND THEN
        INSERT INTO @lease@.leader_leases AS l (role, holder_token, not_before)
        VALUES (p_role,
                (extract(epoch FROM clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint,
                v_not_before);
    END IF;
    INSERT INTO leader_ext.leader_pause_ends
           (role, pause_id, paused_at, paused_by, pause_reason, until, not_before,
            not_before_before)
    VALUES (p_role, v_pause_id, now(), p_by, p_reason, p_until, v_not_before, v_row.not_before);
    -- Delivered at commit: the holder's heartbeat renews at once and finds no row.
    PERFORM pg_notify('leader_leases'::text, p_role);
    RETURN now();
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
    v_end       record;
BEGIN
    IF p_role IS NULL
       OR p_role <> ALL (ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                               'webhook_delivery']::text[]) THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    PERFORM leader_ext.leader_pause_settle(p_role);
    SELECT l.paused_at, l.paused_until INTO v_paused_at, v_until
      FROM @lease@.leader_leases AS l
     WHERE l.role = p_role
       FOR UPDATE;

    -- A pause with an end: its row goes first, so the trigger takes the write of not_before for
    -- this unpause's own; a cooldown that was running before the pause, and still is, stays.
    DELETE FROM leader_ext.leader_pause_ends AS e WHERE e.role = p_role
    RETURNING e.pause_id, e.not_before_before INTO v_end;
    IF FOUND THEN
        UPDATE @lease@.leader_leases AS l
           SET not_before = CASE WHEN v_end.not_before_before > now()
                                 THEN v_end.not_before_before END
         WHERE l.role = p_role;
        INSERT INTO leader_ext.leader_pause_log (role, action, at, login, by, reason, pause_id)
        VALUES (p_role, 'unpause', now(), session_user, nullif(p_by, ''::text),
                nullif(p_reason, ''::text), v_end.pause_id);
        PERFORM pg_notify('leader_leases'::text, p_role);
        RETURN true;
    END IF;

    IF v_paused_at IS NULL THEN
        RETURN false;
    END IF;
    -- Leaves last_tick_ended_at alone, so the role is due at the next poll if its interval passed.
    UPDATE @lease@.leader_leases AS l
       SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
     WHERE l.role = p_role;
    -- Delivered at commit: idle runners poll now instead of at their next MaxPoll.
    PERFORM pg_notify('leader_leases'::text, p_role);
    -- An old-form pause whose end had passed unpauses nothing: the trigger logged its expiry.
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
    IF EXISTS (SELECT FROM leader_ext.leader_status AS s
                WHERE s.role = p_role AND s.state = 'paused'::text) THEN
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
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_drain(p_name text, p_by text, p_reason text, p_force boolean)
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
CREATE OR REPLACE FUNCTION leader_ext.leader_undrain(p_name text, p_by text, p_reason text)
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
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@lease@', v_schema);
    END LOOP;
END
$migration$;

DROP FUNCTION leader_ext.leader_bounded_text(text, text, integer);
