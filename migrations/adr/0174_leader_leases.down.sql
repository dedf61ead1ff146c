-- The roles stay: they are cluster-wide and may be granted to logins elsewhere.
DROP FUNCTION leader_unpause(text);
DROP FUNCTION leader_pause(text, text, text);
DROP VIEW leader_status;
DROP FUNCTION leader_fence(text, bigint);
DROP TABLE leader_leases;
