-- outside leader_ext: nothing

-- The read-first poll's read of a replica's roles (LeaseBoard) as a function, so that its plan is
-- made once per server session and kept (issue 37). Sent as one statement, the read was planned
-- anew on every call: through PgBouncer in transaction mode every statement is unnamed, and at
-- 1,000 replicas planning was 0.26 ms of the read's 0.71 ms on the server, the read itself 80 %
-- of the server's time (docs/benchmarks/scale.md). PL/pgSQL keeps the plans of its statements
-- for the session; plan_cache_mode makes that the generic plan from the first call, which is the
-- same plan for every argument: five rows joined by primary key, and the count of live replicas
-- a subplan run only when asked for.
--
-- The rows are LeaseBoard's inline statement's with 0185's handover wait (leaseboard.cpp), one
-- per role asked for, in any order:
--   role, paused (with no end), wait_ms (until the row allows an ACQUIRE, on the database clock;
--   NULL for a role without a row), held_by_session and held_by_incarnation (the other holder's
--   marker, for the takeover at its death), peers (the live replicas that run the role, when
--   p_count_peers).
-- SECURITY INVOKER: it reads only what its caller may read already (leader_leases and
-- leader_replicas_status, granted to hardcount_app). Its search_path is pinned as 0181's are.

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
BEGIN
    EXECUTE pg_catalog.replace($ddl$
CREATE FUNCTION leader_ext.leader_board(p_roles text[], p_intervals_ms bigint[], p_holder text,
                                        p_count_peers boolean, p_prefer_ms bigint)
    RETURNS TABLE (role text, paused boolean, wait_ms double precision, held_by_session bigint,
                   held_by_incarnation bigint, peers bigint)
    LANGUAGE plpgsql STABLE SECURITY INVOKER
    SET search_path = pg_catalog, pg_temp
    SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
    RETURN QUERY
    SELECT s.role,
           l.paused_at IS NOT NULL AND l.paused_until IS NULL,
           extract(epoch FROM greatest(
                   CASE WHEN l.expires_at > now() THEN l.expires_at END,
                   CASE WHEN l.paused_at IS NOT NULL THEN l.paused_until END,
                   l.not_before,
                   l.last_tick_ended_at + s.interval_ms * interval '1 millisecond',
                   CASE WHEN l.handover_token = l.holder_token
                             AND CASE WHEN l.handover_to IS NOT NULL
                                      THEN l.handover_to <> p_holder
                                      ELSE l.handover_from = p_holder END
                        THEN greatest(l.handover_at,
                                      l.last_tick_ended_at + s.interval_ms * interval '1 millisecond',
                                      l.not_before)
                             + p_prefer_ms * interval '1 millisecond' END)
                   - now())::double precision * 1000,
           CASE WHEN l.expires_at > now() AND l.holder_id <> p_holder
                     AND l.holder_session_incarnation = leader_ext.leader_server_incarnation()
                THEN l.holder_session END,
           l.holder_session_incarnation,
           CASE WHEN p_count_peers
                THEN (SELECT count(*) FROM leader_ext.leader_replicas_status r
                       WHERE r.state = 'alive' AND s.role = ANY (r.roles)) END
      FROM unnest(p_roles, p_intervals_ms) AS s(role, interval_ms)
      LEFT JOIN @lease@.leader_leases l ON l.role = s.role;
END
$fn$
$ddl$, '@lease@', v_schema);
END
$migration$;

REVOKE ALL ON FUNCTION leader_ext.leader_board(text[], bigint[], text, boolean, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION leader_ext.leader_board(text[], bigint[], text, boolean, bigint)
    TO hardcount_app;
