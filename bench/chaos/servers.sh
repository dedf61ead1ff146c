#!/usr/bin/env bash
# The chaos benchmark's own servers, on loopback only: the primary and PgBouncer (transaction
# mode) of scripts/test-servers.sh, plus an asynchronous streaming standby of the primary on a
# port of its own, all as the unprivileged account test-servers.sh uses (leaderci when root). The
# benchmark restarts, crashes and fails these over, so they are never the servers of the tests.
#   servers.sh start DIR | stop DIR
#   servers.sh restart|crash|bouncer-restart|bouncer-reconnect DIR
#   servers.sh cut-replication|promote|rebuild-standby DIR
# A failover is cut-replication (the standby stops receiving WAL), then promote (the primary is
# crashed, the standby promoted, PgBouncer pointed at it); rebuild-standby then makes the old
# primary's node a standby of the new one, so that a later failover is possible. The two nodes
# are a (DIR/data, test-servers.sh's cluster) and b (DIR/node-b); DIR/nodes says which is which.
set -euo pipefail

command=${1:-}
dir=${2:-}
[[ -n $command && -n $dir ]] || { echo "usage: $0 COMMAND DIR (see the header)" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

account=$(id -un)
as_account=()
if ((EUID == 0)); then
    account=leaderci
    as_account=(runuser -u "$account" --)
fi
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

log() { echo "servers: $*"; }

node_dir() { [[ $1 == a ]] && echo "$dir/data" || echo "$dir/node-$1"; }

# The options test-servers.sh starts the primary with, on the node's port; pg_ctl restart reuses
# them from postmaster.opts, a start after a crash needs them again.
pg_start() {
    local node=$1 port=$2
    local options="-p $port -k $dir/run -c listen_addresses=127.0.0.1 -c max_connections=300"
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$node")" -l "$dir/postgres-$node.log" \
        -w -t 60 -o "$options -c fsync=off" start >/dev/null ||
        { tail -n 20 "$dir/postgres-$node.log" >&2; exit 1; }
}

superuser_psql() {
    "${as_account[@]}" psql -X -q -At -v ON_ERROR_STOP=1 -h "$dir/run" -p "$1" -U "$account" \
        -d postgres "${@:2}"
}

bouncer_admin() {
    PGPASSWORD=$password psql -X -q -h 127.0.0.1 -p "$LEADER_TEST_BOUNCER_PORT" -U "$account" \
        -d pgbouncer -c "$1" >/dev/null
}

# SIGTERM is PgBouncer's immediate shutdown: every client loses its server connection at once.
bouncer_stop() {
    local pid
    pid=$(cat "$dir/pgbouncer.pid")
    kill -TERM "$pid"
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/pgbouncer.pid"
}

# pgbouncer -d forks before it binds: only an answer shows that it listens.
bouncer_start() {
    "${as_account[@]}" pgbouncer -d -q "$dir/pgbouncer.ini" ||
        { tail -n 20 "$dir/pgbouncer.log" >&2; exit 1; }
    for _ in $(seq 1 100); do
        PGPASSWORD=$LEADER_TEST_PASSWORD psql -X -q -h 127.0.0.1 -p "$1" -U lt_owner \
            -d postgres -c 'SELECT 1' >/dev/null 2>&1 && return
        sleep 0.1
    done
    echo "servers: PgBouncer does not answer on port $1" >&2
    tail -n 20 "$dir/pgbouncer.log" >&2
    exit 1
}

load_state() {
    # shellcheck source=/dev/null
    source "$dir/env"
    # shellcheck source=/dev/null
    source "$dir/nodes"
    password=$LEADER_TEST_PASSWORD
}

save_state() {
    cat >"$dir/nodes" <<STATE
primary=$primary
primary_port=$primary_port
standby=$standby
standby_port=$standby_port
STATE
}

# A fresh standby of the primary on node $standby: a base backup with the WAL streamed, -R writing
# primary_conninfo, started as a hot standby; returns once it streams.
make_standby() {
    rm -rf "$(node_dir "$standby")"
    "${as_account[@]}" "$bindir/pg_basebackup" -D "$(node_dir "$standby")" -R -X stream -c fast \
        -h "$dir/run" -p "$primary_port" -U "$account" >>"$dir/basebackup.log" 2>&1 ||
        { tail -n 20 "$dir/basebackup.log" >&2; exit 1; }
    pg_start "$standby" "$standby_port"
    for _ in $(seq 1 100); do
        [[ $(superuser_psql "$primary_port" -c \
            "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") -ge 1 ]] && return
        sleep 0.1
    done
    echo "servers: the standby on port $standby_port does not stream" >&2
    exit 1
}

stop_all() {
    [[ -f $dir/env ]] || return 0
    for node in a b; do
        if [[ -f $(node_dir "$node")/postmaster.pid ]]; then
            "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$node")" -m immediate -w -t 30 \
                stop >/dev/null 2>&1 || true
        fi
    done
    "$root/scripts/test-servers.sh" stop "$dir"
}

# A free loopback port from $1 up, below the kernel's ephemeral range. A node is down for seconds
# in a failover while clients keep dialling it: a port the kernel hands out on its own (to a
# client socket, which may even connect to itself, or to a listener on port 0) could take the
# node's port meanwhile, and the node could not start again.
low_port() {
    local port ephemeral
    ephemeral=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
    for ((port = $1; port < ephemeral; port++)); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null &&
            ! grep -qi ":$(printf '%04X' "$port") " /proc/net/tcp; then
            echo "$port"
            return
        fi
    done
    echo "servers: no free port from $1 below the ephemeral range ($ephemeral)" >&2
    exit 1
}

case $command in
start)
    "$root/scripts/test-servers.sh" start "$dir"
    trap 'stop_all' ERR
    # shellcheck source=/dev/null
    source "$dir/env"
    # initdb's defaults already allow it (wal_level replica, ten WAL senders, local replication
    # trusted); said here so that a change of defaults fails loudly rather than silently.
    [[ $(superuser_psql "$LEADER_TEST_PG_PORT" -c "SHOW wal_level") != minimal ]] ||
        { echo "servers: wal_level is minimal; streaming replication needs replica" >&2; exit 1; }
    # test-servers.sh picks ports inside the ephemeral range: the primary and PgBouncer move out.
    old_pg=$LEADER_TEST_PG_PORT
    old_bouncer=$LEADER_TEST_BOUNCER_PORT
    primary=a
    primary_port=$(low_port 25432)
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir a)" -m fast -w -t 60 stop >/dev/null
    pg_start a "$primary_port"
    bouncer_port=$(low_port $((primary_port + 1000)))
    bouncer_stop
    sed -i -e "s/^\* = host=127.0.0.1 port=[0-9]*$/* = host=127.0.0.1 port=$primary_port/" \
        -e "s/^listen_port = [0-9]*$/listen_port = $bouncer_port/" "$dir/pgbouncer.ini"
    bouncer_start "$bouncer_port"
    sed -i -e "s/port=$old_pg'/port=$primary_port'/" \
        -e "s/^\(export LEADER_TEST_PG_PORT=\)$old_pg$/\1$primary_port/" \
        -e "s/^\(export LEADER_TEST_BOUNCER_PORT=\)$old_bouncer$/\1$bouncer_port/" "$dir/env"
    standby=b
    standby_port=$(low_port $((primary_port + 1)))
    save_state
    make_standby
    log "primary on 127.0.0.1:$primary_port, asynchronous standby on 127.0.0.1:$standby_port," \
        "PgBouncer on 127.0.0.1:$bouncer_port"
    ;;
stop)
    stop_all
    ;;
restart)
    load_state
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$primary")" \
        -l "$dir/postgres-$primary.log" -m fast -w -t 60 restart >/dev/null
    log "primary restarted (fast)"
    ;;
crash)
    load_state
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$primary")" -m immediate -w -t 30 stop \
        >/dev/null
    pg_start "$primary" "$primary_port"
    log "primary stopped (immediate) and started: crash recovery done"
    ;;
bouncer-restart)
    load_state
    bouncer_stop
    bouncer_start "$LEADER_TEST_BOUNCER_PORT"
    log "PgBouncer stopped and started on port $LEADER_TEST_BOUNCER_PORT"
    ;;
bouncer-reconnect)
    load_state
    bouncer_admin RECONNECT
    log "PgBouncer RECONNECT"
    ;;
cut-replication)
    load_state
    # A dead port: the WAL receiver restarts on the new conninfo and cannot connect, so every
    # commit on the primary from now on is missing on the standby, as in a lossy promotion.
    superuser_psql "$standby_port" \
        -c "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1 user=$account'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        receivers=$(superuser_psql "$standby_port" -c "SELECT count(*) FROM pg_stat_wal_receiver")
        ((receivers == 0)) && break
        sleep 0.1
    done
    log "replication cut at standby LSN $(superuser_psql "$standby_port" -c \
        "SELECT pg_last_wal_receive_lsn()")"
    ;;
promote)
    load_state
    primary_lsn=$(superuser_psql "$primary_port" -c "SELECT pg_current_wal_lsn()")
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$primary")" -m immediate -w -t 30 stop \
        >/dev/null
    "${as_account[@]}" "$bindir/pg_ctl" -D "$(node_dir "$standby")" -w -t 60 promote >/dev/null
    lost=$(superuser_psql "$standby_port" -c \
        "SELECT pg_wal_lsn_diff('$primary_lsn', pg_last_wal_replay_lsn())")
    sed -i "s/^\* = host=127.0.0.1 port=[0-9]*$/* = host=127.0.0.1 port=$standby_port/" \
        "$dir/pgbouncer.ini"
    bouncer_admin RELOAD
    log "primary on port $primary_port crashed; standby on port $standby_port promoted," \
        "$lost bytes of WAL lost; PgBouncer points at it"
    old=$primary
    old_port=$primary_port
    primary=$standby
    primary_port=$standby_port
    standby=$old
    standby_port=$old_port
    save_state
    ;;
rebuild-standby)
    load_state
    make_standby
    log "node $standby rebuilt as a standby of port $primary_port, on port $standby_port"
    ;;
*)
    echo "usage: $0 COMMAND DIR (see the header)" >&2
    exit 2
    ;;
esac
