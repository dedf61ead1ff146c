-- outside leader_ext: adds column leader_leases.holder_session_token
-- outside leader_ext: grants INSERT (holder_session_token) and UPDATE (holder_session_token) on leader_leases to hardcount_app
-- outside leader_ext: adds trigger leader_leases_writes on leader_leases
-- outside leader_ext: clears leader_leases.holder_session and holder_session_incarnation (a holder names its marker again at its next RENEW)
-- outside leader_ext: turns each pause with an end (paused_at and paused_until) into its not_before form (below)
-- outside leader_ext: replaces view leader_status (the ADR's own again: its 15 columns, in its order; ours move to leader_ext.leader_status)

-- Beside the product's own replicas (issue 50; docs/protocol.md, "Replicas that speak only the
-- ADR"). Those replicas run the ADR's ACQUIRE, RENEW and RELEASE verbatim and know nothing of
-- leader_ext, so the state this project keeps on the row must be dropped, or hold, whatever they
-- write, and what we show must be true beside them.
--
-- 1. A marker names one lease. 0179's ACQUIRE recorded the holder's marker in holder_session, and
--    a contender took the row early once that marker's session had ended. The ADR's ACQUIRE and
--    RELEASE never touch holder_session, so after one of them the row could still name a marker
--    that is not its holder's: a replica of ours killed long before, or idle. Our next ACQUIRE then
--    took a live lease of theirs (two holders for up to 2.7 s). Now each of our statements that
--    writes the marker also writes holder_session_token, the token it was written for, and a
--    BEFORE UPDATE trigger drops any marker whose token is not the row's: every writer that moves
--    the token, or names a marker, without it (an ADR-literal replica, an older build of ours, a
--    DBA) leaves a row that names no marker. Our ACQUIRE also compares the two before it takes.
--    The same trigger gives took_over its meaning for their ACQUIREs, and records who holds a
--    role from outside the registry (leader_ext.leader_outside_holders), and for how long.
-- 2. A pause with an end ends for every replica. 0177 kept the end in paused_until, and only our
--    ACQUIRE knew to clear a pause whose end had passed: the ADR's (paused_at IS NULL) refused the
--    row for ever, while leader_status called it unpaused. Now a pause with an end clears the
--    holder (the fence is false from its commit, as the ADR's pause) and holds its end in
--    not_before, which every ACQUIRE honours since the ADR's 0175 and the database itself ends;
--    who paused, why and until when are leader_ext.leader_pause_ends'. The ADR's view reads
--    cooling, with the seconds left; leader_ext.leader_status reads paused until then, by whom
--    and why. A pause clears the holder, so no RELEASE (it proves holder_id) touches the row;
--    the trigger refuses any other login's write of an unheld row's not_before while a pause
--    holds it. The expiry is logged at the pause's end, by the first ACQUIRE after it (theirs
--    too, through the trigger), or by leader_pause and leader_unpause when they meet it.
-- 3. public.leader_status is the ADR's again, so that a client that scans its columns by
--    position (Go's rows.Scan) keeps working; leader_ext.leader_status has every column ours had,
--    and the console and leaderctl read that one.
-- 4. Drains and hand-overs count what runs outside the registry: a role that a holder outside
--    the registry led in the last hour is not orphaned by a drain (leader_drain_orphans), and the
--    status says whose tick it is and that the hour's counts are ours only.
-- 5. A replica that keeps losing its marker while it lives stops naming one for a while and says
--    so in the registry (leader_replica_early_take_off).
-- 6. 0181's guard is fixed: it let the app login end a pause without an end by hand.
--
-- The functions follow 0181: search_path = pg_catalog, pg_temp, every object named with its
-- schema, the lease schema's through @lease@.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_leases ADD COLUMN holder_session_token bigint;

COMMENT ON COLUMN leader_leases.holder_session_token IS
    'the holder_token holder_session was written for; a marker whose token is not the row''s is '
    'dropped (trigger leader_leases_writes), so only the lease it was recorded for can be taken '
    'early';

-- Markers recorded before this column: which lease each was written for is unknown, so none is
-- kept. A holder of this build names its marker again at its next RENEW (within 3 s); until then
-- its lease ends at its expiry only.
UPDATE leader_leases
   SET holder_session = NULL, holder_session_incarnation = NULL
 WHERE holder_session IS NOT NULL;

CREATE TABLE leader_ext.leader_pause_ends (
    role         text PRIMARY KEY,
    -- The pause's row in leader_ext.leader_pause_log, which its unpause or expiry names; NULL only
    -- for a pause that predates the log. No foreign key: the log may be truncated (exported and
    -- emptied) while a pause holds, as before.
    pause_id     bigint,
    paused_at    timestamptz NOT NULL, -- database clock
    paused_by    text NOT NULL,
    pause_reason text NOT NULL,
    until        timestamptz NOT NULL,
    -- What the pause wrote to leader_leases.not_before (the later of its end and a cooldown that
    -- ran already), and what was there before: an unpause puts back a cooldown still running.
    not_before   timestamptz NOT NULL,
    not_before_before timestamptz
);

COMMENT ON TABLE leader_ext.leader_pause_ends IS
    'the pauses with an end in force, held in leader_leases.not_before; written only by '
    'leader_pause(), leader_unpause() and the trigger leader_leases_writes';

-- Who has held a role from outside the registry (a replica that speaks only the ADR, or any
-- writer of ACQUIRE that is not this build's), seen by the trigger at each of its ACQUIREs and
-- RELEASEs. Rows unseen for 24 h are deleted by the next such write.
CREATE TABLE leader_ext.leader_outside_holders (
    holder_id             text NOT NULL,
    role                  text NOT NULL,
    first_seen            timestamptz NOT NULL,
    last_acquired_at      timestamptz NOT NULL,
    last_released_at      timestamptz,
    -- Its last tick that ended while seen: how long it held the role, and whether the RELEASE
    -- stamped last_tick_ended_at (completed).
    last_duration_seconds numeric(12, 3),
    last_completed        boolean,
    ticks                 bigint NOT NULL,
    PRIMARY KEY (role, holder_id)
);

COMMENT ON TABLE leader_ext.leader_outside_holders IS
    'holders of a role that are not in the replica registry, as the trigger leader_leases_writes '
    'saw them acquire and release; they take no hand-over request and no drain';

ALTER TABLE leader_ext.leader_replicas
    ADD COLUMN early_take_off_until timestamptz,
    ADD COLUMN early_take_off_reason text;

COMMENT ON COLUMN leader_ext.leader_replicas.early_take_off_until IS
    'the replica names no marker until then (its marker session kept being ended while it ran); '
    'its leases end at their expiry only';

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
-- Every write of the lease that this build's statements would not make (the WHEN clause of the
-- trigger below keeps our ACQUIRE, RENEW and RELEASE out of here):
--  * a token moved, or a marker named, without holder_session_token = holder_token: the row names
--    no marker; took_over says how the ACQUIRE found the row (it cannot have taken a live lease:
--    only our early take does that); a holder outside the registry is recorded, and its RELEASE;
--  * an ACQUIRE after a pause with an end: the pause's expiry is logged at its end;
--  * a write of an unheld row's not_before while a pause with an end holds it: refused to every
--    login but the owner's, whose write ends the pause (logged as an unpause).
-- Runs as the owner: it writes leader_ext's tables, which the app may only read.
CREATE FUNCTION leader_ext.leader_leases_writes() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_end record;
BEGIN
    IF NEW.holder_session_token IS DISTINCT FROM NEW.holder_token THEN
        IF NEW.holder_token IS DISTINCT FROM OLD.holder_token THEN
            NEW.took_over := CASE WHEN NEW.holder_id IS NOT NULL AND OLD.holder_id IS NOT NULL
                                       AND OLD.expires_at <= now() THEN 'expired'::text END;
            IF NEW.holder_id IS NOT NULL
               AND NOT EXISTS (SELECT FROM leader_ext.leader_replicas AS r
                                WHERE r.holder_id = NEW.holder_id) THEN
                DELETE FROM leader_ext.leader_outside_holders AS o
                 WHERE o.role = NEW.role
                   AND greatest(o.last_acquired_at, o.last_released_at)
                       < now() - '24 hours'::interval;
                INSERT INTO leader_ext.leader_outside_holders AS o
                       (holder_id, role, first_seen, last_acquired_at, ticks)
                VALUES (NEW.holder_id, NEW.role, now(), now(), 1)
                ON CONFLICT (role, holder_id) DO UPDATE
                    SET last_acquired_at = now(), ticks = o.ticks + 1;
            END IF;
        END IF;
        IF OLD.holder_id IS NOT NULL AND NEW.holder_id IS NULL
           AND NEW.holder_token IS NOT DISTINCT FROM OLD.holder_token THEN
            UPDATE leader_ext.leader_outside_holders AS o
               SET last_released_at = now(),
                   last_duration_seconds
                       = round(greatest(0, extract(epoch FROM now() - OLD.acquired_at)), 3),
                   last_completed
                       = NEW.last_tick_ended_at IS DISTINCT FROM OLD.last_tick_ended_at
             WHERE o.role = OLD.role AND o.holder_id = OLD.holder_id;
        END IF;
        NEW.holder_session := NULL;
        NEW.holder_session_incarnation := NULL;
        NEW.holder_session_token := NULL;
    END IF;

    IF OLD.not_before IS NOT NULL AND NEW.holder_token IS DISTINCT FROM OLD.holder_token THEN
        -- Whoever acquired passed not_before, so a pause held there has ended.
        DELETE FROM leader_ext.leader_pause_ends AS e
         WHERE e.role = OLD.role AND e.until <= now()
        RETURNING e.until, e.pause_id INTO v_end;
        IF FOUND THEN
            INSERT INTO leader_ext.leader_pause_log (role, action, at, login, pause_id)
            VALUES (OLD.role, 'expire', v_end.until, session_user, v_end.pause_id);
        END IF;
    END IF;

    IF OLD.holder_id IS NULL AND NEW.not_before IS DISTINCT FROM OLD.not_before THEN
        SELECT e.pause_id INTO v_end
          FROM leader_ext.leader_pause_ends AS e
         WHERE e.role = OLD.role AND e.until > now()
           AND e.not_before IS NOT DISTINCT FROM OLD.not_before;
        IF FOUND THEN
            IF NOT pg_has_role(session_user,
                               (SELECT c.relowner FROM pg_class AS c WHERE c.oid = TG_RELID),
                               'USAGE'::text) THEN
                RAISE EXCEPTION 'role % is paused until its not_before: only leader_unpause '
                                'ends that pause', OLD.role
                    USING ERRCODE = 'insufficient_privilege',
                          HINT = 'SELECT leader_ext.leader_unpause(role, by, reason)';
            END IF;
            DELETE FROM leader_ext.leader_pause_ends AS e WHERE e.role = OLD.role;
            INSERT INTO leader_ext.leader_pause_log (role, action, at, login, reason, pause_id)
            VALUES (OLD.role, 'unpause', now(), session_user,
                    'not_before written by hand', v_end.pause_id);
        END IF;
    END IF;
    RETURN NEW;
END
$fn$
$ddl$,
    -- The WHEN keeps this build's own statements out of the function: they write
    -- holder_session_token with the token, release held rows only, and an ACQUIRE meets a
    -- not_before only after a cooldown or a pause with an end.
$ddl$
CREATE TRIGGER leader_leases_writes BEFORE UPDATE ON @lease@.leader_leases
    FOR EACH ROW
    WHEN ((NEW.holder_session_token IS DISTINCT FROM NEW.holder_token
           AND (NEW.holder_token IS DISTINCT FROM OLD.holder_token
                OR NEW.holder_session IS NOT NULL
                OR (OLD.holder_id IS NOT NULL AND NEW.holder_id IS NULL)))
          OR (OLD.not_before IS NOT NULL AND NEW.holder_token IS DISTINCT FROM OLD.holder_token)
          OR (OLD.holder_id IS NULL AND NEW.not_before IS DISTINCT FROM OLD.not_before))
    EXECUTE FUNCTION leader_ext.leader_leases_writes()
$ddl$,
$ddl$
-- 0181's guard let any login end a pause without an end by hand: its exception for ACQUIRE's
-- clearing of an expired pause read NULL, not false, when paused_until is NULL, so an app's
-- UPDATE of paused_at to NULL passed. The exception now holds only for an end that has passed.
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
       AND NOT (coalesce(OLD.paused_until <= now(), false) AND NEW.paused_at IS NULL
                AND NEW.paused_by IS NULL AND NEW.pause_reason IS NULL
                AND NEW.paused_until IS NULL) THEN
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
-- Ends, in the log, the pauses with an end whose end has passed (logged as an expiry at that
-- end) or that no longer hold not_before (the row was written otherwise, or is gone): one role,
-- or all of them (NULL).
CREATE FUNCTION leader_ext.leader_pause_settle(p_role text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_end record;
BEGIN
    FOR v_end IN
        DELETE FROM leader_ext.leader_pause_ends AS e
         WHERE (p_role IS NULL OR e.role = p_role)
           AND (e.until <= now()
                OR NOT EXISTS (SELECT FROM @lease@.leader_leases AS l
                                WHERE l.role = e.role
                                  AND l.not_before IS NOT DISTINCT FROM e.not_before))
        RETURNING e.role, e.until, e.pause_id, e.until <= now() AS ended
    LOOP
        INSERT INTO leader_ext.leader_pause_log (role, action, at, login, reason, pause_id)
        VALUES (v_end.role, CASE WHEN v_end.ended THEN 'expire'::text ELSE 'unpause'::text END,
                CASE WHEN v_end.ended THEN v_end.until ELSE now() END, session_user,
                CASE WHEN NOT v_end.ended THEN 'not_before written by hand'::text END,
                v_end.pause_id);
    END LOOP;
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
-- Our columns beside the ADR's: the pause as it holds (either form), the last tick, the hour's
-- counts, and whose the lease is. The console and leaderctl read this view; public.leader_status
-- is the ADR's.
CREATE VIEW leader_ext.leader_status AS
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
       CASE WHEN p.timed THEN e.paused_at WHEN p.in_force THEN l.paused_at END AS paused_at,
       CASE WHEN p.timed THEN e.paused_by WHEN p.in_force THEN l.paused_by END AS paused_by,
       CASE WHEN p.timed THEN e.pause_reason WHEN p.in_force THEN l.pause_reason END
           AS pause_reason,
       now() AS observed_at,
       -- A pause's own end is its paused_until, not a cooldown.
       c.not_before,
       CASE WHEN c.not_before > now()
            THEN round(extract(epoch FROM c.not_before - now()), 3) END AS not_before_in_seconds,
       CASE WHEN p.timed THEN e.until WHEN p.in_force THEN l.paused_until END AS paused_until,
       CASE WHEN p.timed THEN round(extract(epoch FROM e.until - now()), 3)
            WHEN p.in_force AND l.paused_until IS NOT NULL
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
       coalesce(h.interrupted, 0) AS interrupted_last_hour,
       -- The holder is outside the registry: it takes no hand-over request; its last tick here
       -- lasted this long.
       CASE WHEN l.expires_at > now()
            THEN NOT EXISTS (SELECT FROM leader_ext.leader_replicas AS r
                              WHERE r.holder_id = l.holder_id) END AS holder_outside,
       CASE WHEN l.expires_at > now() THEN o.last_duration_seconds END
           AS holder_last_duration_seconds,
       -- Holders outside the registry led the role in the last hour: they record no tick, so
       -- the hour's counts are ours only.
       EXISTS (SELECT FROM leader_ext.leader_outside_holders AS x
                WHERE x.role = l.role
                  AND greatest(x.last_acquired_at, x.last_released_at)
                      > now() - '1 hour'::interval) AS counts_ours_only
  FROM @lease@.leader_leases AS l
  LEFT JOIN leader_ext.leader_pause_ends AS e
         ON e.role = l.role AND e.until > now() AND e.not_before IS NOT DISTINCT FROM l.not_before
 CROSS JOIN LATERAL (
      SELECT e.role IS NOT NULL AS timed,
             e.role IS NOT NULL
             OR (l.paused_at IS NOT NULL AND (l.paused_until IS NULL OR l.paused_until > now()))
                 AS in_force) AS p
 CROSS JOIN LATERAL (
      SELECT CASE WHEN p.timed AND l.not_before = e.until THEN NULL::timestamptz
                  ELSE l.not_before END AS not_before) AS c
  LEFT JOIN leader_ext.leader_tick_last AS t ON t.role = l.role
  LEFT JOIN leader_ext.leader_outside_holders AS o
         ON o.role = l.role AND o.holder_id = l.holder_id
  LEFT JOIN LATERAL (
      SELECT sum(n.completed)::integer AS completed, sum(n.lost)::integer AS lost,
             sum(n.failed)::integer AS failed, sum(n.interrupted)::integer AS interrupted
        FROM leader_ext.leader_tick_counts AS n
       WHERE n.role = l.role AND n.minute > date_trunc('minute', now()) - '60 minutes'::interval
  ) AS h ON true
$ddl$,
$ddl$
-- The drain predicate: the roles, not paused (either form), that a live replica named p_name runs
-- and no other live undrained replica does, and that no holder outside the registry led in the
-- last hour (it takes no drain, and may run the role). Runs as its caller.
CREATE OR REPLACE FUNCTION leader_ext.leader_drain_orphans(p_name text) RETURNS text[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(pg_catalog.array_agg(mine.role ORDER BY pg_catalog.array_position(
                        ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                              'webhook_delivery']::text[], mine.role)), '{}'::text[])
      FROM (SELECT DISTINCT pg_catalog.unnest(r.roles) AS role
              FROM leader_ext.leader_replicas_status AS r
             WHERE r.name = p_name AND r.state = 'alive'::text) AS mine
     WHERE NOT EXISTS (SELECT FROM leader_ext.leader_status AS s
                        WHERE s.role = mine.role AND s.state = 'paused'::text)
       AND NOT EXISTS (SELECT FROM leader_ext.leader_replicas_status AS o
                        WHERE o.state = 'alive'::text AND mine.role = ANY (o.roles)
                          AND o.name IS DISTINCT FROM p_name AND o.drained_at IS NULL)
       AND NOT EXISTS (SELECT FROM leader_ext.leader_outside_holders AS x
                        WHERE x.role = mine.role
                          AND greatest(x.last_acquired_at, x.last_released_at)
                              > now() - '1 hour'::interval);
$fn$
$ddl$,
$ddl$
-- A replica's own word that it names no marker until p_until (its marker kept being ended while
-- it ran), and why; NULL p_until: it names its marker again. Bounded: the reason is cut to its
-- first line, 200 characters.
CREATE FUNCTION leader_ext.leader_replica_early_take_off(p_holder_id text, p_until_ms bigint,
                                                         p_reason text)
    RETURNS boolean
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH changed AS (
        UPDATE leader_ext.leader_replicas AS r
           SET early_take_off_until
                   = CASE WHEN p_until_ms IS NOT NULL
                          THEN now() + least(greatest(p_until_ms, 0), 86400000)
                                       * '1 millisecond'::interval END,
               early_take_off_reason
                   = CASE WHEN p_until_ms IS NOT NULL
                          THEN pg_catalog.left(pg_catalog.split_part(p_reason, E'\n', 1), 200)
                     END
         WHERE r.holder_id = p_holder_id
        RETURNING 1)
    SELECT EXISTS (SELECT FROM changed);
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
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@lease@', v_schema);
    END LOOP;
END
$migration$;

-- Pauses of 0177's form: one whose end is still ahead is moved into not_before (the log keeps its
-- pause row, which the pause end names); one whose end has passed is ended, and the log trigger
-- records its expiry at that end. The log trigger must not take the move for an unpause.
ALTER TABLE leader_leases DISABLE TRIGGER leader_leases_log_pause_update;
INSERT INTO leader_ext.leader_pause_ends
       (role, pause_id, paused_at, paused_by, pause_reason, until, not_before, not_before_before)
SELECT l.role,
       (SELECT max(g.id) FROM leader_ext.leader_pause_log AS g
         WHERE g.role = l.role AND g.action = 'pause'),
       l.paused_at, l.paused_by, l.pause_reason, l.paused_until,
       greatest(l.not_before, l.paused_until), l.not_before
  FROM leader_leases AS l
 WHERE l.paused_at IS NOT NULL AND l.paused_until > now();
UPDATE leader_leases AS l
   SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL,
       not_before = e.not_before
  FROM leader_ext.leader_pause_ends AS e
 WHERE e.role = l.role;
ALTER TABLE leader_leases ENABLE TRIGGER leader_leases_log_pause_update;
UPDATE leader_leases
   SET paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL
 WHERE paused_at IS NOT NULL AND paused_until <= now();

-- The ADR's view, as its 0175 defines it: a view loses no column by CREATE OR REPLACE.
DROP VIEW leader_status;
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

COMMENT ON VIEW leader_ext.leader_status IS
    'leader_status with the extensions'' columns: a pause with its end, the last tick, the '
    'hour''s counts, holders outside the registry';

-- 0187's registry view with the early take's suspension appended.
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
       r.drained_since,
       CASE WHEN r.early_take_off_until > now() THEN r.early_take_off_until END
           AS early_take_off_until,
       CASE WHEN r.early_take_off_until > now() THEN r.early_take_off_reason END
           AS early_take_off_reason
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

REVOKE ALL ON leader_ext.leader_pause_ends FROM PUBLIC;
REVOKE ALL ON leader_ext.leader_outside_holders FROM PUBLIC;
REVOKE ALL ON leader_ext.leader_status FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_leases_writes() FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_pause_settle(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_replica_early_take_off(text, bigint, text) FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_pause_ends, leader_ext.leader_outside_holders,
                leader_ext.leader_status
    TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_replica_early_take_off(text, bigint, text)
    TO hardcount_app;
-- It logs only what has happened (an end that passed), so a reader of the log that may write
-- (leaderctl history as the app) settles the log before it reads it.
GRANT EXECUTE ON FUNCTION leader_ext.leader_pause_settle(text) TO hardcount_app;
-- Our ACQUIRE and RENEW write the token their marker was written for; ACQUIRE may recreate a
-- missing row with it, as with the marker itself (0179).
GRANT INSERT (holder_session_token), UPDATE (holder_session_token) ON leader_leases
    TO hardcount_app;
