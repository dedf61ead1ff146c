#!/usr/bin/env bash
# The scale benchmark's own servers, on loopback only: scripts/test-servers.sh's PostgreSQL and
# PgBouncer (transaction mode, default_pool_size 20), as its unprivileged account (leaderci when
# root), with PgBouncer restarted to take a thousand replicas' client connections: each replica
# keeps up to one lease and one heartbeat connection per role open, so 1,000 replicas hold
# several thousand. Postgres itself sees only the pool's 20 sessions and the benchmark's own.
#   servers.sh start DIR | stop DIR
set -euo pipefail

command=${1:-}
dir=${2:-}
[[ -n $command && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

as_account=()
((EUID == 0)) && as_account=(runuser -u leaderci --)

# Client connections PgBouncer accepts, and the descriptors it needs for them (one each, plus
# its server sessions and a margin): within the hard limit this shell may raise to.
max_clients=15000
files=$(ulimit -Hn)
[[ $files == unlimited ]] && files=65536
((files > max_clients + 200)) || max_clients=$((files - 200))

case $command in
start)
    "$root/scripts/test-servers.sh" start "$dir"
    trap '"$root/scripts/test-servers.sh" stop "$dir"' ERR
    # shellcheck source=/dev/null
    source "$dir/env"
    # pg_stat_statements (with planning time), so that the benchmark can say which statements take
    # the server's time, window by window. It loads only at the server's start: ALTER SYSTEM, then
    # a restart with the options the server was started with (postmaster.opts).
    psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" \
        -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
    postgres=$(sed -n '1s/^"\{0,1\}\([^" ]*\).*/\1/p' "$dir/data/postmaster.opts")
    "${as_account[@]}" "$(dirname "$postgres")/pg_ctl" -D "$dir/data" -w -m fast \
        -l "$dir/postgres.log" restart >/dev/null
    # Its own settings exist only once it is loaded.
    psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" \
        -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" -c "SELECT pg_reload_conf()" \
        >/dev/null
    pid=$(cat "$dir/pgbouncer.pid")
    kill "$pid"
    for _ in $(seq 1 50); do
        [[ -e /proc/$pid ]] || break
        sleep 0.1
    done
    rm -f "$dir/pgbouncer.pid"
    # A thousand replicas connect within seconds of each other: a backlog of 128 (PgBouncer's
    # default) drops SYNs, and a dropped SYN is retried after a second, past the engine's 2 s
    # statement deadline that bounds a connect.
    sed -i -e "s/^max_client_conn = .*/max_client_conn = $max_clients/" \
        -e '/^\[pgbouncer\]$/a listen_backlog = 4096' "$dir/pgbouncer.ini"
    # Clients log in with md5, not SCRAM: a SCRAM login costs the client 4,096 rounds of PBKDF2
    # (about 2.5 ms of CPU), and a thousand replicas starting together on two cores open several
    # thousand connections, each bounded by the engine's 2 s statement deadline; past it the
    # connects time out and are retried, and the start never settles. A start-up cost only: the
    # pool keeps its connections, so the steady state measured here logs in nobody.
    sed -i 's/^auth_type = .*/auth_type = md5/' "$dir/pgbouncer.ini"
    # Raised by the account's own shell: runuser's PAM session sets the soft limit back to 1024.
    "${as_account[@]}" bash -c 'ulimit -n "$1" && exec "$3" -d -q "$2"' pgbouncer "$files" \
        "$dir/pgbouncer.ini" "$("$root/scripts/pgbouncer.sh")" ||
        { tail -n 20 "$dir/pgbouncer.log" >&2; exit 1; }
    for _ in $(seq 1 100); do
        PGPASSWORD=$LEADER_TEST_PASSWORD psql -X -q -h 127.0.0.1 -p "$LEADER_TEST_BOUNCER_PORT" \
            -U lt_owner -d postgres -c 'SELECT 1' >/dev/null 2>&1 && break
        sleep 0.1
    done
    limit=$(awk '/Max open files/ {print $4}' "/proc/$(cat "$dir/pgbouncer.pid")/limits")
    echo "servers: PgBouncer takes $max_clients clients (open files $limit), pool 20 per database"
    ;;
stop)
    "$root/scripts/test-servers.sh" stop "$dir"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
