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
