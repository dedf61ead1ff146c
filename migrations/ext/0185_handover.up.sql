-- outside leader_ext: adds columns leader_leases.handover_token, handover_at, handover_by, handover_reason, handover_from, handover_to
-- outside leader_ext: grants UPDATE (handover_token, handover_at, handover_by, handover_reason, handover_from, handover_to) on leader_leases to hardcount_app

-- Hand a role over now (issue 36, point 2; docs/handover.md). leader_handover asks the holder of a
-- role to end its tick at its next safe point (between steps) and prefers a named replica for the
-- role's next ACQUIRE, or, with none named, any replica but the holder's.
--
-- The request is the row's handover_* columns, scoped to the tick it was made in: handover_token
-- is the holder_token then. The holder's RENEW reports it while handover_token = holder_token
-- (at once on the wake NOTIFY, else at its next beat, 3 s); the tick runs no further step and is
-- released as interrupted (no cooldown: the role is due at once), or completed if its work ended
-- anyway. The preference binds the next ACQUIRE only: while handover_token = holder_token and
-- for PreferFor (10 s, engine/core/lease/constants.h) after the later of the handover and the
-- moment the role became due, a contender other than handover_to (or, without one, the holder
-- that was asked) is refused; after that anyone may take it, so a preferred replica that never
-- comes delays the role by PreferFor at most. Any ACQUIRE moves holder_token and so ends the
-- request and the preference, whether or not it clears the columns (a replica of an older build
-- ignores them and is never misled by them); this build's ACQUIRE clears them.
--
-- Every handover is a row of leader_ext.leader_handover_log with the login (session_user), who
-- (as typed) and why. The monitor reads leader_ext.leader_handover_status and the log, and cannot
-- call the function. The function follows 0181: search_path = pg_catalog, pg_temp, every object
-- named with its schema, the lease schema's through @lease@.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

ALTER TABLE leader_leases
    ADD COLUMN handover_token  bigint,
    ADD COLUMN handover_at     timestamptz,
    ADD COLUMN handover_by     text,
    ADD COLUMN handover_reason text,
    ADD COLUMN handover_from   text,
    ADD COLUMN handover_to     text;

COMMENT ON COLUMN leader_leases.handover_token IS
    'the holder_token when leader_handover asked for the role: the request and its preference '
    'hold only while holder_token still equals it';
COMMENT ON COLUMN leader_leases.handover_to IS
    'the holder id preferred for the next ACQUIRE; NULL: any but handover_from';

CREATE TABLE leader_ext.leader_handover_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role        text NOT NULL,
    at          timestamptz NOT NULL, -- database clock
    login       text NOT NULL,        -- session_user
    by          text NOT NULL,
    reason      text NOT NULL,
    token       bigint,               -- the holder_token then
    from_holder text,                 -- the holder asked to stop; NULL: the role was not held
    to_replica  text,                 -- as named (leader-replica --id); NULL: any other
    to_holder   text
);

CREATE INDEX leader_handover_log_role_at ON leader_ext.leader_handover_log (role, at);

COMMENT ON TABLE leader_ext.leader_handover_log IS
    'every handover of a role; written only by leader_handover()';

-- The request as it stands: pending while no ACQUIRE has followed it.
CREATE VIEW leader_ext.leader_handover_status AS
SELECT l.role,
       l.handover_token IS NOT NULL AND l.handover_token = l.holder_token AS pending,
       l.handover_at,
       l.handover_by,
       l.handover_reason,
       l.handover_from,
       l.handover_to,
       l.handover_token
  FROM leader_leases l
 WHERE l.handover_at IS NOT NULL;

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
CREATE FUNCTION leader_ext.leader_handover(p_role text, p_by text, p_reason text,
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

REVOKE ALL ON leader_ext.leader_handover_log FROM PUBLIC;
REVOKE ALL ON leader_ext.leader_handover_status FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_handover(text, text, text, text) FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_handover_log, leader_ext.leader_handover_status
    TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_handover(text, text, text, text) TO hardcount_app;
-- This build's ACQUIRE clears the request with the rest of the row.
GRANT UPDATE (handover_token, handover_at, handover_by, handover_reason, handover_from,
              handover_to)
    ON leader_leases TO hardcount_app;
