-- Every fenced claim statement that ran under a token its fence refused: a stale leader (frozen,
-- cut off, paused mid-tick) that reached the database anyway. The claim returned no row; this
-- row is the evidence that the fence, not luck, stopped it. The failover benchmark counts these.
CREATE TABLE fence_refusals (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role       text NOT NULL,
    token      bigint NOT NULL,
    claim      text NOT NULL,
    refused_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX fence_refusals_role ON fence_refusals (role, token);

GRANT SELECT, INSERT ON fence_refusals TO hardcount_app;

-- The claim's now(): the instant its fence was judged at, in the claim's own snapshot. A claim is
-- stale-and-accepted only if this is later than the instant its token stopped being current
-- (its expiry, or a pause's commit); clock_timestamp() in claimed_at runs later and cannot tell.
ALTER TABLE claim_log ADD COLUMN fenced_at timestamptz NOT NULL DEFAULT now();
