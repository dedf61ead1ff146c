-- outside leader_ext: replaces function leader_pause(text, text, text) (same signature and meaning)
-- outside leader_ext: replaces function leader_unpause(text) (same signature and meaning)

-- Pauses wake holders themselves: leader_pause and leader_unpause send the wake NOTIFY
-- (channel leader_leases, payload the role, as WakeListener listens) inside the function, in the
-- caller's transaction, so a pause from psql or the console wakes a holder as fast as one from
-- the engine, and a rolled-back pause sends nothing. Signatures, privileges, SECURITY DEFINER and
-- return values are 0174's: CREATE OR REPLACE keeps the owner and the grants.
--
-- Only a call that changed the row notifies. A pause that found the role paused already has no
-- holder to wake (a paused row is unheld, by CHECK), and an unpause of an unpaused role makes
-- nothing newly due; a notification then would only send every replica's runner and heartbeat
-- to the database for nothing.

-- The same pinned search_path as 0174's definitions: this schema, pg_temp last.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

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
