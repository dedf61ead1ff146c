#!/usr/bin/env bash
# The chaos soak in one command: installs what is missing, builds, starts its OWN servers on
# loopback (a primary, an asynchronous streaming standby and PgBouncer in transaction mode, all
# as an unprivileged account: the soak restarts, crashes and fails them over, so it never uses the
# servers of the tests; as root also a network namespace for one replica), runs bench/chaos with
# real leader-replica processes and the demo workload, prints the figures and the checks, leaves
# the JSON in the results directory and stops every server, also on failure or Ctrl-C. Exits
# non-zero only when a correctness check failed (or the run could not be made).
#   bash scripts/bench-chaos.sh [--quick | --duration S] [--replicas K] [--seed N] [--results DIR]
# --quick is about 6½ minutes and injects every fault at least once; the full run is 30 min.
# Inside scripts/test.sh (LEADER_TEST_ADMIN_URL set) it reuses the ci build, never its servers.
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

if [[ -n ${LEADER_TEST_ADMIN_URL:-} ]]; then
    build=$root/build/ci
else
    scripts/setup-deps.sh
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$(nproc)"
    build=$root/build/release
fi

servers=$(mktemp -d /tmp/leader-chaos-servers.XXXXXX)
cleanup() {
    bench/chaos/servers.sh stop "$servers" >/dev/null 2>&1 || true
    rm -rf "$servers"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench/chaos/servers.sh start "$servers"
# Its own servers' settings, not those of a caller such as scripts/test.sh.
# shellcheck source=/dev/null
source "$servers/env"
# shellcheck source=/dev/null
source "$servers/nodes"
# What the session events need: the idle-cutting proxy's ports and the network namespace (only
# when servers.sh could make one; it says why not).
# shellcheck source=/dev/null
source "$servers/proxy"
# shellcheck source=/dev/null
source "$servers/netns"

database=chaos
psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" -c "CREATE DATABASE $database OWNER lt_owner"
# Both nodes in every direct URL, writable one wanted: libpq follows a promotion by itself.
nodes="$LEADER_TEST_HOST:$primary_port,$LEADER_TEST_HOST:$standby_port"
# The password reaches the benchmark and its replicas through the environment: a URL holding it
# would show in ps (/proc/PID/cmdline) to every local user.
export PGPASSWORD=$LEADER_TEST_PASSWORD
login() { echo "postgresql://$1@$2/$database"; }
direct() { echo "$(login "$1" "$nodes")?target_session_attrs=read-write"; }
proxied="$LEADER_TEST_HOST:$proxy_port_a,$LEADER_TEST_HOST:$proxy_port_b"
events=(--proxy-ports "$proxy_port_a:$node_port_a,$proxy_port_b:$node_port_b"
    --proxy-database "$(login lt_app "$proxied")?target_session_attrs=read-write")
if [[ -n ${netns:-} ]]; then
    isolated="$netns_host:$primary_port,$netns_host:$standby_port"
    events+=(--netns "$netns" --netns-address "$netns_peer"
        --netns-database "$(login lt_app "$isolated")?target_session_attrs=read-write")
fi

"$build/bench/chaos/chaos-bench" \
    --database "$(direct lt_owner)" \
    --replica-database "$(direct lt_app)" \
    --bouncer-database "$(login lt_app "$LEADER_TEST_HOST:$LEADER_TEST_BOUNCER_PORT")" \
    --servers "$servers" --servers-script "$root/bench/chaos/servers.sh" \
    --replica-binary "$build/tools/leader-replica/leader-replica" \
    --leaderctl "$build/tools/leaderctl/leaderctl" \
    "${events[@]}" \
    --json "$results/chaos.json" --launcher "bash scripts/bench-chaos.sh" "${args[@]}"
echo "bench-chaos: results in $results/chaos.json"
