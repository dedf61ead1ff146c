#!/usr/bin/env bash
# The scale benchmark in one command: installs what is missing, builds, starts its OWN
# PostgreSQL and PgBouncer (transaction mode, pool 20) on loopback as an unprivileged account,
# runs bench/scale (10, 100 and 1,000 replicas × 5 roles, hosted up to 100 to a process, in both
# poll modes), prints the figures and the reproduce command, leaves the JSON in the results
# directory and stops the servers, also on failure or Ctrl-C. Exits non-zero only when a
# correctness check failed (a role led by two holders, a takeover that never came) or the run
# could not be made.
#   bash scripts/bench-scale.sh [--quick] [--results DIR] [scale-bench options]
# --quick: 10 replicas acquire-first and 1,000 read-first, short phases, and a 15 s stall of
# PgBouncer under the 1,000: about two minutes on two cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

results=$root/build/bench-results
args=()
while (($#)); do
    case $1 in
    --results) results=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
done
mkdir -p "$results"

# Inside scripts/test.sh (LEADER_TEST_ADMIN_URL set) it reuses the ci build, never its servers.
if [[ -n ${LEADER_TEST_ADMIN_URL:-} ]]; then
    build=$root/build/ci
else
    scripts/setup-deps.sh
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$(nproc)" --target scale-bench scale-host
    build=$root/build/release
fi

# A thousand replicas hold several thousand connections, and each host process a thread per
# role and tick: the descriptors this shell may have, for every host it starts.
ulimit -n "$(ulimit -Hn)"

servers=$(mktemp -d /tmp/leader-scale-servers.XXXXXX)
cleanup() {
    bench/scale/servers.sh stop "$servers" >/dev/null 2>&1 || true
    rm -rf "$servers"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench/scale/servers.sh start "$servers"
# Its own servers' settings, not those of a caller such as scripts/test.sh.
# shellcheck source=/dev/null
source "$servers/env"

database=scale
psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" -c "CREATE DATABASE $database OWNER lt_owner"
# The server's time by statement (servers.sh preloads pg_stat_statements): the owner, which drives
# the benchmark, reads every login's statements and resets them at each window's start.
psql -X -q -v ON_ERROR_STOP=1 "${LEADER_TEST_ADMIN_URL/\/postgres\?//$database?}" \
    -c "CREATE EXTENSION pg_stat_statements" -c "GRANT pg_read_all_stats TO lt_owner" \
    -c "GRANT EXECUTE ON FUNCTION pg_stat_statements_reset(oid, oid, bigint) TO lt_owner"
# The password reaches the benchmark and its hosts through the environment: a URL holding it
# would show in ps (/proc/PID/cmdline) to every local user.
export PGPASSWORD=$LEADER_TEST_PASSWORD
login() { echo "postgresql://$1@$LEADER_TEST_HOST:$2/$3"; }
account=$(awk -F"'" '/LEADER_TEST_ADMIN_URL/ {print $2}' "$servers/env" | sed 's|postgresql://\([^@]*\)@.*|\1|')

json=$results/scale.json
[[ " ${args[*]-} " == *" --quick "* ]] && json=$results/scale-quick.json
"$build/bench/scale/scale-bench" \
    --database "$(login lt_owner "$LEADER_TEST_PG_PORT" "$database")" \
    --replica-database "$(login lt_app "$LEADER_TEST_BOUNCER_PORT" "$database")" \
    --bouncer-admin "$(login "$account" "$LEADER_TEST_BOUNCER_PORT" pgbouncer)" \
    --servers "$servers" --json "$json" --launcher "bash scripts/bench-scale.sh" "${args[@]}"
echo "bench-scale: results in $json"
