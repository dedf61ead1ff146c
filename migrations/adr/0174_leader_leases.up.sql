-- ADR-114: leadership is one row per singleton role, claimed per tick on the database clock and
-- fenced by holder_token. See docs/privileges.md for the grants.

-- Roles are cluster-wide: create them once, or leave them to a DBA who pre-creates them.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hardcount_app') THEN
        CREATE ROLE hardcount_app NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hardcount_monitor') THEN
        CREATE ROLE hardcount_monitor NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'migration 0174 needs the roles hardcount_app and hardcount_monitor'
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'create them once as a superuser (CREATE ROLE hardcount_app NOLOGIN; '
                     'CREATE ROLE hardcount_monitor NOLOGIN) or migrate as a role with CREATEROLE';
END
$$;

CREATE TABLE leader_leases (
    role               text PRIMARY KEY,
    holder_token       bigint NOT NULL,
    holder_id          text,
    acquired_at        timestamptz,
    expires_at         timestamptz,
    last_tick_ended_at timestamptz,
    last_tick_holder   text,
    paused_at          timestamptz,
    paused_by          text,
    pause_reason       text,
    CONSTRAINT leader_leases_role_known
        CHECK (role IN ('billing', 'dunning', 'webhook_outbox', 'email_outbox', 'webhook_delivery')),
    -- A held row has a holder, an acquisition time and an expiry; an unheld row has none of them.
    CONSTRAINT leader_leases_held_has_holder_and_expiry
        CHECK ((holder_id IS NULL) = (expires_at IS NULL)
               AND (holder_id IS NULL) = (acquired_at IS NULL)),
    CONSTRAINT leader_leases_paused_is_unheld CHECK (paused_at IS NULL OR holder_id IS NULL),
    CONSTRAINT leader_leases_pause_is_attributed
        CHECK ((paused_at IS NULL) = (paused_by IS NULL)
               AND (paused_at IS NULL) = (pause_reason IS NULL))
);

COMMENT ON TABLE leader_leases IS
    'ADR-114: one row per singleton role; leadership is claimed per tick and fenced by holder_token';

-- Epoch milliseconds: a rollback and re-apply reseeds above every token issued before, since a
-- token grows by one per tick and ticks are far more than a millisecond apart.
INSERT INTO leader_leases (role, holder_token)
SELECT role, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
  FROM unnest(ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox', 'webhook_delivery']) AS role;

-- The fence of the five claim funnels: true only for the current, unpaused, unexpired holder.
-- SECURITY INVOKER and no SET clause, so the planner can inline it into each claim's WHERE.
CREATE FUNCTION leader_fence(p_role text, p_token bigint) RETURNS boolean
    LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (
        SELECT 1
          FROM leader_leases l
         WHERE l.role = p_role
           AND l.holder_token = p_token
           AND l.holder_id IS NOT NULL
           AND l.paused_at IS NULL
           AND l.expires_at > now())
$$;

CREATE VIEW leader_status AS
SELECT l.role,
       CASE
           WHEN l.paused_at IS NOT NULL THEN 'paused'
           WHEN l.holder_id IS NOT NULL AND l.expires_at > now() THEN 'led'
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
       -- Never negative: a database clock stepped backwards reads as a tick that just ended.
       CASE WHEN l.last_tick_ended_at IS NOT NULL
            THEN round(greatest(0, extract(epoch FROM now() - l.last_tick_ended_at)), 3)
       END AS last_tick_age_seconds,
       l.paused_at,
       l.paused_by,
       l.pause_reason,
       now() AS observed_at
  FROM leader_leases l;

COMMENT ON VIEW leader_status IS 'ADR-114: who leads what, on the database clock';

-- Pause and unpause run as the table's owner so that EXECUTE alone is the pause privilege; the
-- search_path is pinned to this schema with pg_temp last, as a definer function must.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

CREATE FUNCTION leader_pause(p_role text, p_by text, p_reason text) RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    v_paused_at timestamptz;
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

    -- Nulls the holder in the same statement, so the fence is false from this commit on.
    UPDATE leader_leases
       SET paused_at = now(), paused_by = p_by, pause_reason = p_reason,
           holder_id = NULL, acquired_at = NULL, expires_at = NULL
     WHERE role = p_role AND paused_at IS NULL
    RETURNING paused_at INTO v_paused_at;
    IF FOUND THEN
        RETURN v_paused_at;
    END IF;

    SELECT paused_at INTO v_paused_at FROM leader_leases WHERE role = p_role;
    IF FOUND THEN
        RAISE NOTICE 'role % was already paused at %', p_role, v_paused_at;
        RETURN v_paused_at;
    END IF;

    -- The row went missing; recreate it paused, with a token above any issued before.
    INSERT INTO leader_leases (role, holder_token, paused_at, paused_by, pause_reason)
    VALUES (p_role, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, now(), p_by, p_reason)
    ON CONFLICT (role) DO NOTHING;
    SELECT paused_at INTO v_paused_at FROM leader_leases WHERE role = p_role;
    RETURN v_paused_at;
END
$$;

CREATE FUNCTION leader_unpause(p_role text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
AS $$
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('billing', 'dunning', 'webhook_outbox', 'email_outbox',
                                        'webhook_delivery') THEN
        RAISE EXCEPTION 'unknown role %', coalesce(quote_literal(p_role), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'roles are billing, dunning, webhook_outbox, email_outbox, webhook_delivery';
    END IF;
    -- Leaves last_tick_ended_at alone, so the role is due at the next poll if its interval passed.
    UPDATE leader_leases
       SET paused_at = NULL, paused_by = NULL, pause_reason = NULL
     WHERE role = p_role AND paused_at IS NOT NULL;
    RETURN FOUND;
END
$$;

REVOKE ALL ON leader_leases FROM PUBLIC;
REVOKE ALL ON leader_status FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_fence(text, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_pause(text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_unpause(text) FROM PUBLIC;

GRANT SELECT, UPDATE ON leader_leases TO hardcount_app;
-- ACQUIRE is an upsert, which Postgres checks for INSERT even when the row exists. Only the
-- columns ACQUIRE writes are granted, so the app can recreate a missing row as its own lease but
-- can never insert a paused row or a forged completion; the CHECK keeps the role list closed.
GRANT INSERT (role, holder_token, holder_id, acquired_at, expires_at) ON leader_leases
    TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_fence(text, bigint) TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_pause(text, text, text) TO hardcount_app;
GRANT EXECUTE ON FUNCTION leader_unpause(text) TO hardcount_app;
GRANT SELECT ON leader_status TO hardcount_app, hardcount_monitor;
