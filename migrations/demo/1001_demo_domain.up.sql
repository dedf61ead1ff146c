-- The five roles' domain for the embedded demo and the benchmarks: small, but with the
-- idempotency indexes, row CAS columns and effect records of ADR-114's effect table, so that a
-- takeover's correctness can be audited. Never applied to an operator's real database.

CREATE TABLE tenants (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- next_billing_at is the billing watermark: the end of the period being billed.
CREATE TABLE subscriptions (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id       bigint NOT NULL REFERENCES tenants,
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'canceled')),
    amount_cents    bigint NOT NULL CHECK (amount_cents > 0),
    period_seconds  integer NOT NULL CHECK (period_seconds > 0),
    period_start    timestamptz NOT NULL,
    next_billing_at timestamptz NOT NULL CHECK (next_billing_at > period_start)
);
CREATE INDEX subscriptions_due ON subscriptions (next_billing_at) WHERE status = 'active';

-- Every watermark write, so the auditor can show none moved backward but by a truncation.
CREATE TABLE watermark_history (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id bigint NOT NULL REFERENCES subscriptions,
    old_watermark   timestamptz NOT NULL,
    new_watermark   timestamptz NOT NULL,
    reason          text NOT NULL CHECK (reason IN ('advance', 'truncation')),
    token           bigint,
    written_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE invoices (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id bigint NOT NULL REFERENCES subscriptions,
    period_start    timestamptz NOT NULL,
    period_end      timestamptz NOT NULL,
    amount_cents    bigint NOT NULL,
    status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'uncollectible')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    created_token   bigint
);
-- One invoice per subscription and period: a second creator finds the first and announces nothing.
CREATE UNIQUE INDEX idx_invoices_billing_period_dedup ON invoices (subscription_id, period_start);

-- The simulated payment provider: like Stripe, it keeps the first answer for an idempotency key
-- and returns it again for the same key.
CREATE TABLE provider_charges (
    idempotency_key text PRIMARY KEY,
    invoice_id      bigint NOT NULL REFERENCES invoices,
    amount_cents    bigint NOT NULL,
    outcome         text NOT NULL CHECK (outcome IN ('succeeded', 'declined')),
    charged_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE dunning_runs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id      bigint NOT NULL UNIQUE REFERENCES invoices,
    status          text NOT NULL DEFAULT 'active'
                    CHECK (status IN ('active', 'recovered', 'exhausted')),
    attempt_count   integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    max_attempts    integer NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    CHECK (attempt_count <= max_attempts)
);
CREATE INDEX dunning_runs_due ON dunning_runs (next_attempt_at) WHERE status = 'active';

-- The history a run's attempt_count must agree with.
CREATE TABLE dunning_attempts (
    run_id      bigint NOT NULL REFERENCES dunning_runs,
    attempt_no  integer NOT NULL CHECK (attempt_no > 0),
    outcome     text NOT NULL CHECK (outcome IN ('declined', 'succeeded')),
    token       bigint,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, attempt_no)
);

CREATE TABLE webhook_events (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id     bigint NOT NULL REFERENCES tenants,
    kind          text NOT NULL,
    payload       jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    dispatched_at timestamptz,
    -- The token whose ProcessBatch dispatched the event: audit evidence, never a fence.
    dispatch_token bigint
);
CREATE INDEX webhook_events_pending ON webhook_events (id) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_deliveries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        bigint NOT NULL UNIQUE REFERENCES webhook_events,
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    -- The ListPendingDeliveries claim a mark must prove (ErrStaleDeliveryMark); claimed_at NULL
    -- means unclaimed, and a claim older than the reclaim delay is taken again.
    claim_token     bigint,
    claimed_at      timestamptz
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending';

CREATE TABLE email_outbox (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  bigint NOT NULL REFERENCES tenants,
    kind       text NOT NULL,
    recipient  text NOT NULL,
    status     text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'claimed', 'sent')),
    claim_token bigint,
    claimed_at timestamptz,
    sent_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_outbox_queued ON email_outbox (id) WHERE status <> 'sent';

-- Every call to the outside world, as the outside world saw it: duplicates are counted here, not
-- hidden (outbound events are at-least-once across a takeover).
CREATE TABLE external_effects (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('webhook_post', 'email', 'charge')),
    idempotency_key text NOT NULL,
    role            text NOT NULL,
    token           bigint,
    happened_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX external_effects_key ON external_effects (kind, idempotency_key);

-- Every row a fenced claim took, with the token that took it: the auditor shows that no claim
-- ever ran under a token older than one already used for that role.
CREATE TABLE claim_log (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role       text NOT NULL,
    token      bigint NOT NULL,
    item       text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX claim_log_role ON claim_log (role, id);

GRANT SELECT, INSERT, UPDATE ON tenants, subscriptions, watermark_history, invoices,
    provider_charges, dunning_runs, dunning_attempts, webhook_events, webhook_deliveries,
    email_outbox, external_effects, claim_log TO hardcount_app;
