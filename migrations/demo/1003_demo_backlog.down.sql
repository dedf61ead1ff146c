-- The demo's backlog sources unregistered (where leader_ext 0186 is there) and dropped.
DO $migration$
BEGIN
    IF pg_catalog.to_regprocedure('leader_ext.leader_backlog_unregister(text)') IS NULL THEN
        RETURN;
    END IF;
    PERFORM leader_ext.leader_backlog_unregister(s.role)
       FROM leader_ext.leader_backlog_sources AS s
       JOIN pg_catalog.pg_proc AS p ON p.oid = s.source::oid
      WHERE p.pronamespace = (SELECT n.oid FROM pg_catalog.pg_namespace AS n
                               WHERE n.nspname = pg_catalog.current_schema())
        AND p.proname IN ('demo_billing_backlog', 'demo_dunning_backlog',
                          'demo_email_outbox_backlog', 'demo_webhook_outbox_backlog',
                          'demo_webhook_delivery_backlog');
END
$migration$;

DROP FUNCTION demo_billing_backlog(), demo_dunning_backlog(), demo_email_outbox_backlog(),
    demo_webhook_outbox_backlog(), demo_webhook_delivery_backlog();
