#!/usr/bin/env bash
# The failover benchmark in one command: installs what is missing, builds, starts PostgreSQL and
# PgBouncer (transaction mode) on loopback, runs bench/failover with real leader-replica processes
# straight to Postgres (every fault, fast wake on) and through PgBouncer (SIGTERM and pause, where
# the wake path differs), prints the tables and leaves the JSON in the results directory.
#   bash scripts/bench-failover.sh [--quick] [--trials N] [--replicas K] [--results DIR]
#                                  [--design lease|advisory|both]
# --design both (or advisory) also measures the session advisory lock ADR-114 replaced, straight
# to Postgres in the same run, and shows it through PgBouncer with one SIGKILL trial: the lock
# strands on a pooled server connection or two replicas both hold it (failover-bench --help).
# Inside scripts/test.sh (servers already up, LEADER_TEST_* set) it reuses the ci build and servers.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

results=$root/build/bench-results
design=lease
args=()
while (($#)); do
    case $1 in
    --results) results=$2; shift 2 ;;
    --design) design=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
done
mkdir -p "$results"

if [[ -n ${LEADER_TEST_ADMIN_URL:-} ]]; then
    build=$root/build/ci
else
    scripts/setup-deps.sh
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$(nproc)"
    build=$root/build/release
    servers=$(mktemp -d /tmp/leader-bench-servers.XXXXXX)
    trap 'scripts/test-servers.sh stop "$servers"; rm -rf "$servers"' EXIT
    scripts/test-servers.sh start "$servers"
    # shellcheck source=/dev/null
    source "$servers/env"
fi
bench=$build/bench/failover/failover-bench
replica=$build/tools/leader-replica/leader-replica

database=bench_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" -c "CREATE DATABASE $database OWNER lt_owner"
drop_database() {
    psql -X -q "$LEADER_TEST_ADMIN_URL" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" || true
}
trap 'drop_database; ${servers:+scripts/test-servers.sh stop "$servers"; rm -rf "$servers"}' EXIT

# The password reaches the benchmark and its replicas through the environment: a URL holding it
# would show in ps (/proc/PID/cmdline) to every local user.
export PGPASSWORD=$LEADER_TEST_PASSWORD
login() { echo "postgresql://$1@$LEADER_TEST_HOST:$2/$database"; }
owner=$(login lt_owner "$LEADER_TEST_PG_PORT")

"$bench" --database "$owner" --replica-binary "$replica" \
    --replica-database "$(login lt_app "$LEADER_TEST_PG_PORT")" \
    --label direct --design "$design" --json "$results/failover-direct.json" "${args[@]}"
if [[ $design != advisory ]]; then
    "$bench" --database "$owner" --replica-binary "$replica" \
        --replica-database "$(login lt_app "$LEADER_TEST_BOUNCER_PORT")" \
        --faults sigterm,pause --label pgbouncer --json "$results/failover-pgbouncer.json" \
        "${args[@]}"
fi
if [[ $design != lease ]]; then
    # Not a measurement: what the old gate does behind a transaction pooler, in one trial.
    "$bench" --database "$owner" --replica-binary "$replica" \
        --replica-database "$(login lt_app "$LEADER_TEST_BOUNCER_PORT")" \
        --design advisory --faults sigkill --trials 1 --label pgbouncer-advisory \
        --json "$results/failover-pgbouncer-advisory.json"
fi
echo "bench-failover: results in $results"
