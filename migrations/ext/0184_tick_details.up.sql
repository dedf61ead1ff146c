-- outside leader_ext: replaces view leader_status (columns appended)

-- What each tick did (issue 36, point 3; docs/tick-details.md). leader_status said who leads and
-- when a tick last completed; it now also says how the last tick of each role ended, whatever its
-- outcome, how long it ran, which step failed and with what error, and how many ticks completed,
-- were lost, failed or were interrupted in the last hour.
--
-- The holder records its tick right after RELEASE through leader_tick_record, best effort: a
-- record that fails or times out changes nothing about the lease. Two tables, both bounded: the
-- last tick of each role (one row a role), and the ticks' outcomes counted per role and minute
-- (the function deletes the minutes older than an hour, so at most 61 rows a role). The hour is the
-- database's, to the minute.
--
-- A record is refused unless its token was issued for the role (at most the row's holder_token)
-- and is newer than the one recorded: a stale holder's late record never overwrites its
-- successor's, and no tick is counted twice. The error text is kept to its first line, 300
-- characters, with every URL's password and every password=, secret=, token= value masked, whatever
-- the caller sent. Only the function writes; the app may call it, the monitor reads the view.
--
-- This migration needs only what 0180 left (leader_status, leader_leases.holder_token) and the
-- hardening of 0181.

SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

CREATE TABLE leader_ext.leader_tick_last (
    role             text PRIMARY KEY,
    token            bigint NOT NULL,
    holder_id        text NOT NULL,
    ended_at         timestamptz NOT NULL,
    duration_seconds numeric(12, 3) NOT NULL CHECK (duration_seconds >= 0),
    outcome          text NOT NULL
        CHECK (outcome IN ('completed', 'interrupted', 'failed', 'lost')),
    loss_reason      text
        CHECK (loss_reason IN ('taken_over', 'released', 'paused', 'heartbeat_timeout',
                               'marker_lost')),
    failed_step      text,
    error            text,
    CONSTRAINT leader_tick_last_reason_if_lost CHECK (loss_reason IS NULL OR outcome = 'lost')
);

COMMENT ON TABLE leader_ext.leader_tick_last IS
    'the last recorded tick of each role, any outcome (leader_tick_record writes it)';

CREATE TABLE leader_ext.leader_tick_counts (
    role        text NOT NULL,
    minute      timestamptz NOT NULL,
    completed   integer NOT NULL DEFAULT 0,
    interrupted integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    lost        integer NOT NULL DEFAULT 0,
    PRIMARY KEY (role, minute)
);

COMMENT ON TABLE leader_ext.leader_tick_counts IS
    'ticks recorded per role and minute of the database clock, by outcome; the last hour only';

REVOKE ALL ON leader_ext.leader_tick_last, leader_ext.leader_tick_counts FROM PUBLIC;
GRANT SELECT ON leader_ext.leader_tick_last, leader_ext.leader_tick_counts
    TO hardcount_app, hardcount_monitor;

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
BEGIN
    EXECUTE pg_catalog.replace($ddl$
CREATE FUNCTION leader_ext.leader_tick_record(p_role text, p_token bigint, p_holder_id text,
                                              p_outcome text, p_loss_reason text,
                                              p_duration_ms bigint, p_failed_step text,
                                              p_error text)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_error text;
    v_step  text;
    v_minute timestamptz := pg_catalog.date_trunc('minute'::text, pg_catalog.now());
BEGIN
    IF p_outcome IS NULL
       OR p_outcome <> ALL (ARRAY['completed', 'interrupted', 'failed', 'lost']::text[]) THEN
        RAISE EXCEPTION 'unknown tick outcome %', coalesce(quote_literal(p_outcome), 'NULL'::text)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'outcomes are completed, interrupted, failed, lost';
    END IF;
    -- The token was issued for the role, and is newer than the one recorded (a stale holder's
    -- late record loses; tst_tickdetails deletes the second test once and sees it fail).
    IF NOT EXISTS (SELECT FROM @lease@.leader_leases AS l
                    WHERE l.role = p_role AND l.holder_token >= p_token)
       OR EXISTS (SELECT FROM leader_ext.leader_tick_last AS t
                   WHERE t.role = p_role AND t.token >= p_token) THEN
        RETURN false;
    END IF;
    -- The first line, bounded, secrets masked: a URL's password, key=value and key: value forms.
    v_error := pg_catalog.left(pg_catalog.split_part(
                   pg_catalog.replace(p_error, E'\r'::text, E'\n'::text), E'\n'::text, 1), 300);
    v_error := pg_catalog.regexp_replace(v_error, '(://[^:/@\s]*:)[^@\s]*@'::text,
                                         '\1***@'::text, 'g'::text);
    v_error := pg_catalog.regexp_replace(
                   v_error,
                   '((?:password|passwd|pwd|secret|token|api[_-]?key)\s*[=:]\s*)(''[^'']*''|"[^"]*"|[^\s,;&]+)'::text,
                   '\1***'::text, 'gi'::text);
    v_step := pg_catalog.left(pg_catalog.split_part(p_failed_step, E'\n'::text, 1), 200);
    INSERT INTO leader_ext.leader_tick_last AS t
           (role, token, holder_id, ended_at, duration_seconds, outcome, loss_reason,
            failed_step, error)
    VALUES (p_role, p_token, pg_catalog.left(coalesce(p_holder_id, ''::text), 200), pg_catalog.now(),
            pg_catalog.round(GREATEST(p_duration_ms, 0::bigint)::numeric / 1000::numeric, 3),
            p_outcome, CASE WHEN p_outcome = 'lost'::text THEN nullif(p_loss_reason, ''::text) END,
            nullif(v_step, ''::text), nullif(v_error, ''::text))
    ON CONFLICT (role) DO UPDATE
        SET token = EXCLUDED.token, holder_id = EXCLUDED.holder_id,
            ended_at = EXCLUDED.ended_at, duration_seconds = EXCLUDED.duration_seconds,
            outcome = EXCLUDED.outcome, loss_reason = EXCLUDED.loss_reason,
            failed_step = EXCLUDED.failed_step, error = EXCLUDED.error;
    INSERT INTO leader_ext.leader_tick_counts AS c
           (role, minute, completed, interrupted, failed, lost)
    VALUES (p_role, v_minute, (p_outcome = 'completed'::text)::integer,
            (p_outcome = 'interrupted'::text)::integer, (p_outcome = 'failed'::text)::integer,
            (p_outcome = 'lost'::text)::integer)
    ON CONFLICT (role, minute) DO UPDATE
        SET completed = c.completed + EXCLUDED.completed,
            interrupted = c.interrupted + EXCLUDED.interrupted,
            failed = c.failed + EXCLUDED.failed, lost = c.lost + EXCLUDED.lost;
    DELETE FROM leader_ext.leader_tick_counts AS c
     WHERE c.role = p_role AND c.minute < v_minute - '60 minutes'::interval;
    RETURN true;
END
$fn$
$ddl$, '@lease@', v_schema);
END
$migration$;

REVOKE ALL ON FUNCTION leader_ext.leader_tick_record(text, bigint, text, text, text, bigint, text,
                                                     text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION leader_ext.leader_tick_record(text, bigint, text, text, text, bigint,
                                                        text, text) TO hardcount_app;

-- leader_status as 0180 left it, with the last tick and the hour appended. The view reads the
-- tables as its owner: the monitor needs SELECT on the view only.
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
       coalesce(h.interrupted, 0) AS interrupted_last_hour
  FROM leader_leases l
 CROSS JOIN LATERAL (SELECT l.paused_at IS NOT NULL
                            AND (l.paused_until IS NULL OR l.paused_until > now()) AS in_force) p
  LEFT JOIN leader_ext.leader_tick_last t ON t.role = l.role
  LEFT JOIN LATERAL (
      SELECT sum(c.completed)::integer AS completed, sum(c.lost)::integer AS lost,
             sum(c.failed)::integer AS failed, sum(c.interrupted)::integer AS interrupted
        FROM leader_ext.leader_tick_counts c
       WHERE c.role = l.role AND c.minute > date_trunc('minute', now()) - interval '60 minutes'
  ) h ON true;
