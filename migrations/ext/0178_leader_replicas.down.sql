-- outside leader_ext: nothing

-- Back to 0177: no replica registry. The rows go with it; they describe running processes, which
-- write them again within 15 s of a re-apply.
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP VIEW leader_ext.leader_replicas_status;
DROP FUNCTION leader_ext.leader_replica_gone(text);
DROP FUNCTION leader_ext.leader_replica_seen(text, text, integer, text, text[]);
DROP TABLE leader_ext.leader_replicas;
