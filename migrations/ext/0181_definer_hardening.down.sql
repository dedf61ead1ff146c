-- outside leader_ext: drops trigger leader_leases_guard on leader_leases
-- outside leader_ext: revokes UPDATE (holder_token, holder_id, acquired_at, expires_at, holder_session, holder_session_incarnation, took_over, last_tick_ended_at, last_tick_holder, not_before, paused_at, paused_by, pause_reason, paused_until) on leader_leases from hardcount_app
-- outside leader_ext: grants UPDATE on leader_leases to hardcount_app
-- outside leader_ext: replaces function leader_pause(text, text, text) (back to 0177's body)
-- outside leader_ext: replaces function leader_unpause(text) (back to 0177's body)

-- Back to 0180: the definer functions of 0177 and 0178 as they were (search_path the lease schema,
-- pg_temp last; leader_unpause hands by and reason to the trigger in two settings, the log stamps
-- a pause with paused_at), the app's UPDATE on every column of leader_leases, and no guard trigger.
-- The pause log keeps its rows.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP TRIGGER leader_leases_guard ON leader_leases;
DROP FUNCTION leader_ext.leader_leases_guard();

REVOKE UPDATE ON leader_leases FROM hardcount_app;
GRANT UPDATE ON leader_leases TO hardcount_app;

-- 0177's bodies.
CREATE OR REPLACE FUNCTION leader_ext.leader_log_pause_change() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    v_pause_id bigint;
    v_expired  boolean;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.paused_at IS NOT NULL THEN
        SELECT max(id) INTO v_pause_id
          FROM leader_ext.leader_pause_log WHERE role = OLD.role AND action = 'pause';
        v_expired := OLD.paused_until IS NOT NULL AND OLD.paused_until <= now();
        IF v_expired THEN
            INSERT INTO leader_ext.leader_pause_log (role, action, at, login, pause_id)
            VALUES (OLD.role, 'expire', OLD.paused_until, session_user, v_pause_id);
        ELSIF NEW.paused_at IS NULL OR NEW.paused_at IS DISTINCT FROM OLD.paused_at THEN
            INSERT INTO leader_ext.leader_pause_log
                   (role, action, at, login, by, reason, pause_id)
            VALUES (OLD.role, 'unpause', now(), session_user,
                    nullif(current_setting('leader.unpause_by', true), ''),
                    nullif(current_setting('leader.unpause_reason', true), ''), v_pause_id);
        END IF;
    END IF;
    IF NEW.paused_at IS NOT NULL
       AND (TG_OP = 'INSERT' OR OLD.paused_at IS DISTINCT FROM NEW.paused_at) THEN
        INSERT INTO leader_ext.leader_pause_log
               (role, action, at, login, by, reason, paused_until)
        VALUES (NEW.role, 'pause', NEW.paused_at, session_user, NEW.paused_by, NEW.pause_reason,
                NEW.paused_until);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION leader_ext.leader_pause(p_role text, p_by text, p_reason text,
                                                   p_until timestamptz)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    v_paused_at timestamptz;
    v_by        text;
    v_reason    text;
    v_until     timestamptz;
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('billing', 'dunning', 'webhook_outbox', 'email_outbox',
                                        'webhook_delivery') THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    IF coalesce(btrim(p_by), '') = '' OR coalesce(btrim(p_reason), '') = '' THEN
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
    UPDATE leader_leases
       SET paused_at = now(), paused_by = p_by, pause_reason = p_reason, paused_until = p_until,
           holder_id = NULL, acquired_at = NULL, expires_at = NULL
     WHERE role = p_role AND (paused_at IS NULL OR paused_until <= now())
    RETURNING paused_at INTO v_paused_at;
    IF FOUND THEN
        -- Delivered at commit: the holder's heartbeat renews at once and finds the row paused.
        PERFORM pg_notify('leader_leases', p_role);
        RETURN v_paused_at;
    END IF;

    SELECT paused_at, paused_by, pause_reason, paused_until
      INTO v_paused_at, v_by, v_reason, v_until
      FROM leader_leases WHERE role = p_role;
    IF FOUND THEN
        -- Says whose pause is in force: the caller's by and reason changed nothing.
        RAISE NOTICE 'role % was already paused at % by %: %', p_role, v_paused_at, v_by,
                     v_reason || coalesce(' (until ' || v_until || ')', '');
        RETURN v_paused_at;
    END IF;

    -- The row went missing; recreate it paused, with a token above any issued before.
    INSERT INTO leader_leases (role, holder_token, paused_at, paused_by, pause_reason, paused_until)
    VALUES (p_role, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, now(), p_by, p_reason,
            p_until)
    ON CONFLICT (role) DO NOTHING;
    IF FOUND THEN
        PERFORM pg_notify('leader_leases', p_role);
    END IF;
    SELECT paused_at INTO v_paused_at FROM leader_leases WHERE role = p_role;
    RETURN v_paused_at;
END
$$;

-- The ADR's three-argument form: a pause until leader_unpause.
CREATE OR REPLACE FUNCTION leader_pause(p_role text, p_by text, p_reason text) RETURNS timestamptz
    LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    SELECT leader_ext.leader_pause(p_role, p_by, p_reason, NULL::timestamptz)
$$;

CREATE OR REPLACE FUNCTION leader_ext.leader_unpause(p_role text, p_by text, p_reason text)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    v_paused_at timestamptz;
    v_until     timestamptz;
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('billing', 'dunning', 'webhook_outbox', 'email_outbox',
                                        'webhook_delivery') THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    SELECT paused_at, paused_until INTO v_paused_at, v_until
      FROM leader_leases WHERE role = p_role FOR UPDATE;
    IF v_paused_at IS NULL THEN
        RETURN false;
    END IF;
    PERFORM set_config('leader.unpause_by', coalesce(p_by, ''), true);
    PERFORM set_config('leader.unpause_reason', coalesce(p_reason, ''), true);
    -- Leaves last_tick_ended_at alone, so the role is due at the next poll if its interval passed.
    UPDATE leader_leases
       SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
     WHERE role = p_role;
    PERFORM set_config('leader.unpause_by', '', true);
    PERFORM set_config('leader.unpause_reason', '', true);
    -- Delivered at commit: idle runners poll now instead of at their next MaxPoll.
    PERFORM pg_notify('leader_leases', p_role);
    -- A pause that had already ended unpauses nothing: the trigger logged its expiry instead.
    RETURN v_until IS NULL OR v_until > now();
END
$$;

-- The ADR's one-argument form: the log records the login, with no typed name or reason.
CREATE OR REPLACE FUNCTION leader_unpause(p_role text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    SELECT leader_ext.leader_unpause(p_role, NULL, NULL)
$$;

-- 0178's bodies.
CREATE OR REPLACE FUNCTION leader_ext.leader_replica_seen(p_holder_id text, p_host text,
                                                          p_pid integer, p_version text,
                                                          p_roles text[])
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
CREATE OR REPLACE FUNCTION leader_ext.leader_replica_gone(p_holder_id text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    WITH gone AS (DELETE FROM leader_ext.leader_replicas WHERE holder_id = p_holder_id
                  RETURNING 1)
    SELECT EXISTS (SELECT FROM gone);
$$;
