ALTER TABLE claim_log DROP COLUMN fenced_at;
DROP TABLE fence_refusals;
