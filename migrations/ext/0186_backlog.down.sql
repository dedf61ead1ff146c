-- outside leader_ext: nothing

-- Back to 0185: no backlog. The registry goes with the migration; the sources themselves are the
-- deployment's and stay, with the EXECUTE that register granted on them (migrations/demo's 1003
-- drops the demo's own before this runs).
SELECT set_config('search_path', format('%I, pg_temp', current_schema()), true);

DROP FUNCTION leader_ext.leader_backlog();
DROP FUNCTION leader_ext.leader_backlog_unregister(text);
DROP FUNCTION leader_ext.leader_backlog_register(text, regprocedure, text);
DROP TABLE leader_ext.leader_backlog_sources;
