-- outside leader_ext: drops columns leader_leases.handover_token, handover_at, handover_by, handover_reason, handover_from, handover_to

-- Back to 0184: no handover. A pending request is dropped with its columns (the holder's tick runs
-- on, and the next ACQUIRE prefers nobody); the log goes with the migration: export it first
-- (SELECT * FROM leader_ext.leader_handover_log) if it must be kept. Dropping the columns drops
-- the app's UPDATE grant on them.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP FUNCTION leader_ext.leader_handover(text, text, text, text);
DROP VIEW leader_ext.leader_handover_status;
DROP TABLE leader_ext.leader_handover_log;
ALTER TABLE leader_leases
    DROP COLUMN handover_to,
    DROP COLUMN handover_from,
    DROP COLUMN handover_reason,
    DROP COLUMN handover_by,
    DROP COLUMN handover_at,
    DROP COLUMN handover_token;
