-- How much work waits for each of the demo's five roles (issue 36, point 4; docs/backlog.md): one
-- source function per role, registered with leader_ext 0186's leader_backlog_register where the
-- database has it (the demo applied over ADR-114's schema alone registers nothing). Each counts
-- what its role's next tick would take, through the partial index that tick uses:
--   billing           due subscriptions       active, next_billing_at <= now()
--   dunning           due runs                active, next_attempt_at <= now()
--   email_outbox      pending outbox rows     status <> 'sent'
--   webhook_outbox    undispatched events     dispatched_at IS NULL
--   webhook_delivery  due deliveries          pending, next_attempt_at <= now()
-- SECURITY DEFINER, so the monitor reads the counts without SELECT on the domain's tables, and
-- hardened as 0181: search_path = pg_catalog, pg_temp and the tables named with the demo's schema,
-- captured here (@demo@: 1001 created them unqualified, in the schema the migrations run in).

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_ddl    text;
BEGIN
    FOREACH v_ddl IN ARRAY ARRAY[
$ddl$
CREATE FUNCTION @demo@.demo_billing_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT pg_catalog.count(*), pg_catalog.min(s.next_billing_at)
      FROM @demo@.subscriptions AS s
     WHERE s.status = 'active'::text AND s.next_billing_at <= pg_catalog.now();
$fn$
$ddl$,
$ddl$
CREATE FUNCTION @demo@.demo_dunning_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT pg_catalog.count(*), pg_catalog.min(r.next_attempt_at)
      FROM @demo@.dunning_runs AS r
     WHERE r.status = 'active'::text AND r.next_attempt_at <= pg_catalog.now();
$fn$
$ddl$,
$ddl$
CREATE FUNCTION @demo@.demo_email_outbox_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT pg_catalog.count(*), pg_catalog.min(e.created_at)
      FROM @demo@.email_outbox AS e
     WHERE e.status <> 'sent'::text;
$fn$
$ddl$,
$ddl$
CREATE FUNCTION @demo@.demo_webhook_outbox_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT pg_catalog.count(*), pg_catalog.min(e.created_at)
      FROM @demo@.webhook_events AS e
     WHERE e.dispatched_at IS NULL;
$fn$
$ddl$,
$ddl$
CREATE FUNCTION @demo@.demo_webhook_delivery_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT pg_catalog.count(*), pg_catalog.min(d.next_attempt_at)
      FROM @demo@.webhook_deliveries AS d
     WHERE d.status = 'pending'::text AND d.next_attempt_at <= pg_catalog.now();
$fn$
$ddl$
    ] LOOP
        EXECUTE pg_catalog.replace(v_ddl, '@demo@', v_schema);
    END LOOP;
END
$migration$;

REVOKE ALL ON FUNCTION demo_billing_backlog(), demo_dunning_backlog(), demo_email_outbox_backlog(),
    demo_webhook_outbox_backlog(), demo_webhook_delivery_backlog() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION demo_billing_backlog(), demo_dunning_backlog(),
    demo_email_outbox_backlog(), demo_webhook_outbox_backlog(), demo_webhook_delivery_backlog()
    TO hardcount_app, hardcount_monitor;

DO $migration$
DECLARE
    v_schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    v_source record;
BEGIN
    IF pg_catalog.to_regprocedure('leader_ext.leader_backlog_register(text, regprocedure, text)')
       IS NULL THEN
        RETURN;
    END IF;
    FOR v_source IN
        SELECT * FROM (VALUES ('billing', 'demo_billing_backlog', 'due subscriptions'),
                              ('dunning', 'demo_dunning_backlog', 'due runs'),
                              ('email_outbox', 'demo_email_outbox_backlog', 'pending outbox rows'),
                              ('webhook_outbox', 'demo_webhook_outbox_backlog',
                               'undispatched events'),
                              ('webhook_delivery', 'demo_webhook_delivery_backlog',
                               'due deliveries')) AS s (role, fn, what)
    LOOP
        PERFORM leader_ext.leader_backlog_register(
            v_source.role, pg_catalog.format('%s.%I()', v_schema, v_source.fn)::regprocedure,
            v_source.what);
    END LOOP;
END
$migration$;
