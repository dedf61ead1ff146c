-- outside leader_ext: nothing

-- How much work is waiting (issue 36, point 4; docs/backlog.md). A deployment registers, per
-- role, one small source function of its own that counts the role's pending work:
--   SELECT leader_ext.leader_backlog_register('billing',
--              'public.demo_billing_backlog()'::regprocedure, 'due subscriptions');
-- The source takes no argument, is STABLE and returns one row (pending bigint,
-- oldest_pending_at timestamptz). Registering is a migration's act: register and unregister are
-- granted to nobody, so only the owner (or a superuser) calls them. Register grants EXECUTE on
-- the source to hardcount_monitor and hardcount_app, so a reader needs no grant on the domain's
-- tables: a source that reads them is SECURITY DEFINER with its search_path pinned, as below.
--
-- leader_ext.leader_backlog() reads every registered source once, as its caller, and returns a
-- row per role (ordered by role): what the source counts, pending, the oldest pending item's age
-- on the database clock, and error. A source that raises (or that the caller may not run, or that
-- no longer exists) gives its row pending NULL and error = its SQLSTATE and the first line of its
-- message, masked and bounded; the others still report. A cancel (the reader's statement timeout)
-- is not caught: it ends the whole call.
--
-- The functions follow 0181: search_path = pg_catalog, pg_temp and every object named with its
-- schema, so neither an owner registering a source nor a reader can be made to run an object a
-- caller planted.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

CREATE TABLE leader_ext.leader_backlog_sources (
    role          text PRIMARY KEY CONSTRAINT leader_backlog_sources_named CHECK (role <> ''),
    source        regprocedure NOT NULL,
    what          text NOT NULL
                  CONSTRAINT leader_backlog_sources_what CHECK (what <> '' AND length(what) <= 60),
    registered_at timestamptz NOT NULL DEFAULT now(), -- database clock
    registered_by text NOT NULL DEFAULT current_user
);

COMMENT ON TABLE leader_ext.leader_backlog_sources IS
    'per role, the function that counts its pending work (docs/backlog.md); written only by '
    'leader_backlog_register() and leader_backlog_unregister()';

CREATE FUNCTION leader_ext.leader_backlog_register(p_role text, p_source regprocedure,
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

CREATE FUNCTION leader_ext.leader_backlog_unregister(p_role text)
    RETURNS boolean
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    DELETE FROM leader_ext.leader_backlog_sources AS s WHERE s.role = p_role;
    RETURN FOUND;
END
$fn$;

CREATE FUNCTION leader_ext.leader_backlog()
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

REVOKE ALL ON leader_ext.leader_backlog_sources FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_backlog_register(text, regprocedure, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_backlog_unregister(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION leader_ext.leader_backlog() FROM PUBLIC;
-- leader_backlog runs as its caller: it reads the registry with the caller's SELECT.
GRANT SELECT ON leader_ext.leader_backlog_sources TO hardcount_app, hardcount_monitor;
GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() TO hardcount_app, hardcount_monitor;
