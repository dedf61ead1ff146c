-- outside leader_ext: drops trigger leader_leases_log_pause_insert on leader_leases
-- outside leader_ext: drops trigger leader_leases_log_pause_update on leader_leases
-- outside leader_ext: clears the pauses of leader_leases whose paused_until has passed
-- outside leader_ext: drops constraint leader_leases_pause_end_needs_pause on leader_leases
-- outside leader_ext: drops column leader_leases.paused_until
-- outside leader_ext: replaces view leader_status (back to 0175's columns)
-- outside leader_ext: replaces function leader_pause(text, text, text) (back to 0176's body)
-- outside leader_ext: replaces function leader_unpause(text) (back to 0176's body)

-- Back to 0176: pauses without an end and without a log. A pause in force keeps going, now until
-- leader_unpause; one whose end had passed is cleared here, so rolling back never revives it. The
-- log goes with the migration: export it first (leaderctl history --json) if it must be kept.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP TRIGGER leader_leases_log_pause_insert ON leader_leases;
DROP TRIGGER leader_leases_log_pause_update ON leader_leases;
DROP FUNCTION leader_ext.leader_log_pause_change();
DROP TABLE leader_ext.leader_pause_log;
DROP FUNCTION leader_ext.leader_pause(text, text, text, timestamptz);
DROP FUNCTION leader_ext.leader_unpause(text, text, text);

-- paused_until goes too: the CHECK leader_leases_pause_end_needs_pause holds until the column does.
UPDATE leader_leases
   SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
 WHERE paused_until <= now();

-- CREATE OR REPLACE cannot drop the view's new columns: drop and recreate it, with 0174's grant.
DROP VIEW leader_status;
ALTER TABLE leader_leases
    DROP CONSTRAINT leader_leases_pause_end_needs_pause,
    DROP COLUMN paused_until;

CREATE VIEW leader_status AS
SELECT l.role,
       CASE
           WHEN l.paused_at IS NOT NULL THEN 'paused'
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
       l.paused_at,
       l.paused_by,
       l.pause_reason,
       now() AS observed_at,
       l.not_before,
       CASE WHEN l.not_before > now()
            THEN round(extract(epoch FROM l.not_before - now()), 3) END AS not_before_in_seconds
  FROM leader_leases l;

COMMENT ON VIEW leader_status IS 'ADR-114: who leads what, on the database clock';
REVOKE ALL ON leader_status FROM PUBLIC;
GRANT SELECT ON leader_status TO hardcount_app, hardcount_monitor;

-- 0176's bodies (0177 made the ADR's forms wrappers of the new ones).
CREATE OR REPLACE FUNCTION leader_pause(p_role text, p_by text, p_reason text) RETURNS timestamptz
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
        -- Delivered at commit: the holder's heartbeat renews at once and finds the row paused.
        PERFORM pg_notify('leader_leases', p_role);
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
    IF FOUND THEN
        PERFORM pg_notify('leader_leases', p_role);
    END IF;
    SELECT paused_at INTO v_paused_at FROM leader_leases WHERE role = p_role;
    RETURN v_paused_at;
END
$$;

CREATE OR REPLACE FUNCTION leader_unpause(p_role text) RETURNS boolean
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
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    -- Delivered at commit: idle runners poll now instead of at their next MaxPoll.
    PERFORM pg_notify('leader_leases', p_role);
    RETURN true;
END
$$;
