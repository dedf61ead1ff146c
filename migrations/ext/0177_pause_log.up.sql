-- outside leader_ext: adds column leader_leases.paused_until
-- outside leader_ext: adds constraint leader_leases_pause_end_needs_pause on leader_leases
-- outside leader_ext: adds trigger leader_leases_log_pause_insert on leader_leases
-- outside leader_ext: adds trigger leader_leases_log_pause_update on leader_leases
-- outside leader_ext: replaces view leader_status (columns appended)
-- outside leader_ext: replaces function leader_pause(text, text, text) (same signature and meaning)
-- outside leader_ext: replaces function leader_unpause(text) (same signature and meaning)

-- Pauses an operator can trust: every pause, unpause and expiry is a row of
-- leader_ext.leader_pause_log, and a pause may end by itself at leader_leases.paused_until on the
-- database clock.
--
-- One trigger writes the log, for every change of paused_at, whoever made it: the functions, a
-- replica's ACQUIRE clearing an expired pause, or an UPDATE typed by hand. It runs as the table's
-- owner, so no app or monitor role needs (or has) INSERT on the log. leader_unpause hands its
-- typed "by" and reason to the trigger through two transaction-local settings, which it resets
-- before it returns.
--
-- An expired pause needs no cron: ACQUIRE treats a row whose paused_until has passed as unpaused
-- and clears the pause in the statement that claims it, which logs the expiry at paused_until.
-- Until then leader_status shows the role as not paused, and a pause or unpause that meets the
-- expired row logs the expiry first.
--
-- The log, its trigger function and the new forms leader_pause(role, by, reason, until) and
-- leader_unpause(role, by, reason) live in leader_ext; the column, the two triggers, the view and
-- the ADR's two forms (now wrappers of the new ones) stay beside leader_leases.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_leases ADD COLUMN paused_until timestamptz;
ALTER TABLE leader_leases ADD CONSTRAINT leader_leases_pause_end_needs_pause
    CHECK (paused_until IS NULL OR paused_at IS NOT NULL);

COMMENT ON COLUMN leader_leases.paused_until IS
    'the pause ends by itself at this instant (database clock); NULL: until leader_unpause';

CREATE TABLE leader_ext.leader_pause_log (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role         text NOT NULL,
    action       text NOT NULL CONSTRAINT leader_pause_log_action_known
                          CHECK (action IN ('pause', 'unpause', 'expire')),
    -- Database clock. An expiry is stamped with the pause's end, not with when a statement
    -- noticed it had passed.
    at           timestamptz NOT NULL,
    -- The database login (session_user: a SECURITY DEFINER function still sees the caller's).
    login        text NOT NULL,
    by           text,        -- as typed; an expiry, or a bare leader_unpause(role), has none
    reason       text,
    paused_until timestamptz, -- a pause's planned end
    -- The pause an unpause or expiry ended; NULL only when that pause predates the log.
    pause_id     bigint REFERENCES leader_ext.leader_pause_log (id)
);

CREATE INDEX leader_pause_log_role_at ON leader_ext.leader_pause_log (role, at);

COMMENT ON TABLE leader_ext.leader_pause_log IS
    'every pause, unpause and expiry of a leader role; written only by leader_log_pause_change()';

CREATE FUNCTION leader_ext.leader_log_pause_change() RETURNS trigger
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

CREATE TRIGGER leader_leases_log_pause_insert AFTER INSERT ON leader_leases
    FOR EACH ROW WHEN (NEW.paused_at IS NOT NULL)
    EXECUTE FUNCTION leader_ext.leader_log_pause_change();
CREATE TRIGGER leader_leases_log_pause_update AFTER UPDATE ON leader_leases
    FOR EACH ROW WHEN (OLD.paused_at IS DISTINCT FROM NEW.paused_at)
    EXECUTE FUNCTION leader_ext.leader_log_pause_change();

-- The view shows a pause only while it is in force; columns are appended, as CREATE OR REPLACE
-- requires.
CREATE OR REPLACE VIEW leader_status AS
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
       END AS pause_remaining_seconds
  FROM leader_leases l
 CROSS JOIN LATERAL (SELECT l.paused_at IS NOT NULL
                            AND (l.paused_until IS NULL OR l.paused_until > now()) AS in_force) p;

CREATE FUNCTION leader_ext.leader_pause(p_role text, p_by text, p_reason text,
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

CREATE FUNCTION leader_ext.leader_unpause(p_role text, p_by text, p_reason text)
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

REVOKE ALL ON leader_ext.leader_pause_log FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_log_pause_change() FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_pause(text, text, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_unpause(text, text, text) FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_pause_log TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_pause(text, text, text, timestamptz)
    TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_ext.leader_unpause(text, text, text) TO hardcount_app;
