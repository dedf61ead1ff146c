-- outside leader_ext: replaces function leader_pause(text, text, text) (same signature and meaning)
-- outside leader_ext: replaces function leader_unpause(text) (same signature and meaning)
-- outside leader_ext: adds trigger leader_leases_guard on leader_leases
-- outside leader_ext: revokes UPDATE on leader_leases from hardcount_app
-- outside leader_ext: grants UPDATE (holder_token, holder_id, acquired_at, expires_at, holder_session, holder_session_incarnation, took_over, last_tick_ended_at, last_tick_holder, not_before, paused_at, paused_by, pause_reason, paused_until) on leader_leases to hardcount_app

-- Definer functions no caller can hijack, and a pause history only the functions write (issue 31,
-- findings 1 and 6; docs/security.md).
--
-- 1. Every SECURITY DEFINER function (both forms of leader_pause and of leader_unpause, the pause
--    log's trigger, leader_replica_seen, leader_replica_gone) is recreated with search_path =
--    pg_catalog, pg_temp and every object named with its schema. Their search_path was the lease
--    schema: a login that may CREATE there (every login on public before PostgreSQL 15) could
--    plant an operator that a function then ran as the owner, e.g. public.||(text, timestamptz)
--    in leader_pause's "already paused" notice. Now an unqualified function or operator can only
--    be pg_catalog's (neither is ever looked up in pg_temp; tables are named with their schema),
--    and string literals are typed, so each operator is pg_catalog's exact match. The migrator
--    refuses a schema where PUBLIC or an app or monitor role can create objects.
-- 2. The app's UPDATE on leader_leases is limited to the columns ACQUIRE, RENEW and RELEASE write
--    (not role, not early_take), and a BEFORE UPDATE trigger lets a login other than the owner
--    change a pause only as ACQUIRE does (clearing one whose paused_until has passed, logged as its
--    expiry) and never move last_tick_ended_at past now(). Who unpaused and why come from
--    leader_unpause's arguments (the settings leader.unpause_by and leader.unpause_reason are no
--    longer read, so a caller cannot forge them), and every logged instant is the database's now(),
--    or a pause's own paused_until for its expiry, never a value the UPDATE carried.
--
-- The bodies name the lease schema, so they are written with @lease@ and run by EXECUTE once it
-- is replaced with the schema's quoted name; the extensions' own objects are named leader_ext.name.
-- Signatures, owners and grants stay those of 0177 and 0178 (CREATE OR REPLACE keeps them), so
-- every caller of 0180 works unchanged. The guard's function lives in leader_ext, its trigger on
-- leader_leases.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

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
CREATE OR REPLACE FUNCTION @lease@.leader_pause(p_role text, p_by text, p_reason text)
    RETURNS timestamptz
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT leader_ext.leader_pause(p_role, p_by, p_reason, NULL::timestamptz)
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
CREATE OR REPLACE FUNCTION @lease@.leader_unpause(p_role text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT leader_ext.leader_unpause(p_role, NULL::text, NULL::text)
$fn$
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_log_pause_change() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_pause_id bigint;
BEGIN
    IF TG_OP = 'UPDATE'::text AND OLD.paused_at IS NOT NULL THEN
        SELECT max(g.id) INTO v_pause_id
          FROM leader_ext.leader_pause_log AS g
         WHERE g.role = OLD.role AND g.action = 'pause'::text;
        IF OLD.paused_until IS NOT NULL AND OLD.paused_until <= now() THEN
            INSERT INTO leader_ext.leader_pause_log (role, action, at, login, pause_id)
            VALUES (OLD.role, 'expire', OLD.paused_until, session_user, v_pause_id);
        ELSIF NEW.paused_at IS NULL OR NEW.paused_at IS DISTINCT FROM OLD.paused_at THEN
            -- leader_unpause adds its by and reason to this row.
            INSERT INTO leader_ext.leader_pause_log (role, action, at, login, pause_id)
            VALUES (OLD.role, 'unpause', now(), session_user, v_pause_id);
        END IF;
    END IF;
    IF NEW.paused_at IS NOT NULL
       AND (TG_OP = 'INSERT'::text OR OLD.paused_at IS DISTINCT FROM NEW.paused_at) THEN
        INSERT INTO leader_ext.leader_pause_log (role, action, at, login, by, reason, paused_until)
        VALUES (NEW.role, 'pause', now(), session_user, NEW.paused_by, NEW.pause_reason,
                NEW.paused_until);
    END IF;
    RETURN NULL;
END
$fn$
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_replica_seen(p_holder_id text, p_host text,
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
$fn$
$ddl$,
$ddl$
CREATE OR REPLACE FUNCTION leader_ext.leader_replica_gone(p_holder_id text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (DELETE FROM leader_ext.leader_replicas AS r WHERE r.holder_id = p_holder_id
                  RETURNING 1)
    SELECT EXISTS (SELECT FROM gone);
$fn$
$ddl$,
    -- Runs as whoever updates the row (no SECURITY DEFINER): current_user is then the app's
    -- login for its own statements and the owner inside the definer functions. It also runs as
    -- the owner, so it is pinned like them.
$ddl$
CREATE FUNCTION leader_ext.leader_leases_guard() RETURNS trigger
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
CREATE TRIGGER leader_leases_guard BEFORE UPDATE ON @lease@.leader_leases
    FOR EACH ROW
    WHEN ((OLD.paused_at, OLD.paused_by, OLD.pause_reason, OLD.paused_until)
              IS DISTINCT FROM (NEW.paused_at, NEW.paused_by, NEW.pause_reason, NEW.paused_until)
          OR NEW.last_tick_ended_at > now())
    EXECUTE FUNCTION leader_ext.leader_leases_guard()
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@lease@', v_schema);
    END LOOP;
END
$migration$;

REVOKE ALL ON FUNCTION leader_ext.leader_leases_guard() FROM PUBLIC;

-- What ACQUIRE (its DO UPDATE), RENEW and RELEASE write (engine/lease/statements.cpp); the pause
-- columns because ACQUIRE clears an expired pause, which the guard allows and nothing else.
-- role and early_take (the owner's switch, docs/runbook.md) are no longer the app's to change.
REVOKE UPDATE ON leader_leases FROM hardcount_app;
GRANT UPDATE (holder_token, holder_id, acquired_at, expires_at, holder_session,
              holder_session_incarnation, took_over, last_tick_ended_at, last_tick_holder,
              not_before, paused_at, paused_by, pause_reason, paused_until)
    ON leader_leases TO hardcount_app;
