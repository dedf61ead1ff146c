#!/usr/bin/env bash
# Measures the replica registry's write rate: runs one real leader-replica for SECONDS against a
# database with the lease and demo migrations, and counts its leader_ext.leader_replica_seen
# statements with a statement-level trigger (an upsert fires AFTER INSERT once per statement,
# whatever it changed), then its clean stop's delete. Prints the count, the gaps between beats and
# the rate per 15 s.
#   bench/registry/measure-beats.sh LEADER_REPLICA OWNER_URL APP_URL [SECONDS]
# The trigger and its table are dropped again at the end; the owner URL must be the migrating
# login (it owns leader_ext.leader_replicas).
set -euo pipefail

replica_bin=${1:?leader-replica binary}
owner_url=${2:?owner URL}
app_url=${3:?app URL}
seconds=${4:-300}

psql_owner=(psql -X -q -v ON_ERROR_STOP=1 -At "$owner_url")
"${psql_owner[@]}" <<'SQL'
CREATE TABLE bench_beats (at timestamptz NOT NULL DEFAULT clock_timestamp(), op text NOT NULL);
-- Its path pinned: it fires inside leader_ext.leader_replica_seen, whose search_path is
-- pg_catalog, pg_temp.
CREATE FUNCTION bench_count_beat() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    $$ BEGIN INSERT INTO bench_beats (op) VALUES (TG_OP); RETURN NULL; END $$;
CREATE TRIGGER bench_count_seen AFTER INSERT ON leader_ext.leader_replicas
    FOR EACH STATEMENT EXECUTE FUNCTION bench_count_beat();
SQL
cleanup() {
    "${psql_owner[@]}" -c 'DROP TRIGGER IF EXISTS bench_count_seen ON leader_ext.leader_replicas' \
        -c 'DROP FUNCTION IF EXISTS bench_count_beat()' -c 'DROP TABLE IF EXISTS bench_beats' \
        >/dev/null
}
trap cleanup EXIT

config=$(mktemp)
printf 'billing.interval = 1h\n' >"$config"
"$replica_bin" --database "$app_url" --roles billing --config "$config" --id bench \
    --drain-on-sigterm off >/dev/null 2>"$config.log" &
pid=$!
sleep "$seconds"
kill -TERM "$pid"
wait "$pid"
left=$("${psql_owner[@]}" -c "SELECT count(*) FROM leader_ext.leader_replicas WHERE holder_id LIKE '%:$pid:%'")
rm -f "$config" "$config.log"

"${psql_owner[@]}" -F ' ' <<SQL
SELECT 'beats ' || count(*) || ' in ' || $seconds || ' s; gaps (s): min '
       || round(min(gap)::numeric, 3) || ', mean ' || round(avg(gap)::numeric, 3) || ', max '
       || round(max(gap)::numeric, 3) || '; statements per replica per 15 s: '
       || round(15 * count(*)::numeric / $seconds, 3)
  FROM (SELECT extract(epoch FROM at - lag(at) OVER (ORDER BY at)) AS gap FROM bench_beats) g;
SQL
echo "rows left after the clean stop: $left"
