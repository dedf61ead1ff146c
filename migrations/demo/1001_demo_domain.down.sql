DROP TABLE claim_log, external_effects, email_outbox, webhook_deliveries, webhook_events,
    dunning_attempts, dunning_runs, provider_charges, invoices, watermark_history, subscriptions,
    tenants;
