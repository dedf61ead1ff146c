#!/usr/bin/env bash
# The chaos benchmark's own servers, on loopback only: the primary and PgBouncer (transaction
# mode) of scripts/test-servers.sh, plus an asynchronous streaming standby of the primary on a
# port of its own, all as the unprivileged account test-servers.sh uses (leaderci when root). The
# benchmark restarts, crashes and fails these over, so they are never the servers of the tests.
#   servers.sh start DIR | stop DIR
#   servers.sh restart|crash|bouncer-restart|bouncer-reconnect DIR
#   servers.sh cut-replication|promote|rebuild-standby DIR
#   servers.sh idle-timeout DIR VALUE|off | reap DIR SECONDS | partition-cut|partition-heal DIR
# A failover is cut-replication (the standby stops receiving WAL), then promote (the primary is
# crashed, the standby promoted, PgBouncer pointed at it); rebuild-standby then makes the old
# primary's node a standby of the new one, so that a later failover is possible. The two nodes
# are a (DIR/data, test-servers.sh's cluster) and b (DIR/node-b); DIR/nodes says which is which.
# For the session events: DIR/proxy names two free ports for the benchmark's idle-cutting proxy.
# As root, a network namespace with a veth pair to this host holds one replica; both nodes listen
# on the host end too, and partition-cut blackholes the link both ways with tc (DIR/netns names
# it, or says why there is none). From the start the servers end a connection whose peer went
# silent within seconds: TCP keepalives of 1 s idle, 1 s interval, 2 probes for an idle one,
# tcp_user_timeout 3 s for one with data unacknowledged (a listener is sent every RELEASE's
# notification). Only a silent peer notices, and a reload would reach an idle session only at
# its next statement.
# The standby is pg_basebackup's where one of the primary's major version or newer exists (Debian's
# serves its own and older ones; the npm packages of scripts/fetch-postgres.sh ship none), else a
# copy made inside PostgreSQL's low-level backup API (pg_backup_start/pg_backup_stop, 14's
# pg_start_backup/pg_stop_backup). LEADER_CHAOS_LOWLEVEL_BACKUP=1 takes the copy even where
# pg_basebackup would do, to test it.
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
# LEADER_PG_BINDIR: another PostgreSQL's bin/, as for scripts/test-servers.sh.
bindir=${LEADER_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

log() { echo "servers: $*"; }

node_dir() { [[ $1 == a ]] && echo "$dir/data" || echo "$dir/node-$1"; }

# The options test-servers.sh starts the primary with, on the node's port, plus the keepalives and
# the network namespace's host end; pg_ctl restart reuses them from postmaster.opts, a start
# after a crash needs them again.
pg_start() {
    local node=$1 port=$2
    local options="-p $port -k $dir/run -c listen_addresses=127.0.0.1${netns_host:+,$netns_host}"
    options+=" -c max_connections=300"
    options+=" -c tcp_keepalives_idle=1 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=2"
    options+=" -c tcp_user_timeout=3000"
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

# SIGTERM is PgBouncer 1.23's "super safe shutdown": it stops listening and waits for every client
# to leave, which pooled replicas never do; after 5 s of refused connects SIGKILL ends it, and every
# client loses its server connection at once. (An operator's systemctl restart sends SIGINT, which
# waits only for the transactions in flight: measured 1.2-1.9 s under two replicas.)
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
    "${as_account[@]}" "$("$root/scripts/pgbouncer.sh")" -d -q "$dir/pgbouncer.ini" ||
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
    # shellcheck source=/dev/null
    [[ ! -f $dir/netns ]] || source "$dir/netns"
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

# A pg_basebackup of major version $1 or newer (an older one refuses the server), or nothing.
basebackup_for() {
    local candidate
    ((${LEADER_CHAOS_LOWLEVEL_BACKUP:-0})) && return
    for candidate in "$bindir/pg_basebackup" \
        $(ls -d /usr/lib/postgresql/*/bin/pg_basebackup 2>/dev/null | sort -V -r); do
        if [[ -x $candidate ]] &&
            (($("$candidate" --version | awk '{print int($3)}') >= $1)); then
            echo "$candidate"
            return
        fi
    done
}

# What pg_basebackup does, by hand: one session holds the backup open (a non-exclusive backup ends
# with its session) while psql's \! copies the data directory as the servers' account, without
# what belongs to the running primary (its pid and options, its slots) and without pg_wal; after
# the stop pg_wal is copied, with the backup's end. The session's temporary slot keeps every WAL
# file from before the start until then. psql's \! reports no exit status (before 17): the copy
# leaves a mark when it succeeded. Tar's status 1 is a file changed or gone while read, as the
# running primary's are; the WAL replay repairs those, as it does pg_basebackup's.
# shellcheck disable=SC2016 # the copy's script is expanded by the bash that \! starts
lowlevel_backup() {
    local major=$1 from to start stop copy log marks answer label map
    from=$(node_dir "$primary")
    to=$(node_dir "$standby")
    if ((major >= 15)); then
        start="pg_backup_start('leader chaos standby', true)"
        stop="pg_backup_stop(false)"
    else
        start="pg_start_backup('leader chaos standby', true, false)"
        stop="pg_stop_backup(false, false)"
    fi
    # One line for \!, which sh runs: bash for pipefail, the paths as arguments, what to copy after.
    local script='set -o pipefail; from=$1 to=$2; shift 2; { tar -C "$from" -cf - --anchored'
    script+=' --warning=no-file-changed --warning=no-file-removed "$@" || (($? == 1)); }'
    script+=' | tar -C "$to" -xpf -'
    copy=$(printf 'bash -c %q copy %q %q' "$script" "$from" "$to")
    log=$(printf '%q' "$dir/basebackup.log")
    marks=$(printf '%q' "$dir/backup-copied")
    local data="--exclude=./postmaster.pid --exclude=./postmaster.opts --exclude='./pg_wal/*'"
    data+=" --exclude='./pg_replslot/*' ."
    rm -f "$dir"/backup-copied.*
    # The copy, as the servers' account, logs there too.
    touch "$dir/basebackup.log"
    ((EUID != 0)) || chown "$account" "$dir/basebackup.log"
    "${as_account[@]}" mkdir -m 0700 "$to"
    answer=$(superuser_psql "$primary_port" 2>>"$dir/basebackup.log" <<SQL
\o /dev/null
SELECT pg_create_physical_replication_slot('leader_chaos_standby', true, true);
SELECT $start;
\o
\! $copy $data >>$log 2>&1 && touch $marks.data
SELECT translate(encode(convert_to(labelfile, 'UTF8'), 'base64'), E'\n', '') || ' ' ||
       translate(encode(convert_to(coalesce(spcmapfile, ''), 'UTF8'), 'base64'), E'\n', '')
  FROM $stop;
\! $copy ./pg_wal >>$log 2>&1 && touch $marks.wal
SQL
    ) || { tail -n 20 "$dir/basebackup.log" >&2; exit 1; }
    [[ -f $dir/backup-copied.data && -f $dir/backup-copied.wal ]] || {
        tail -n 20 "$dir/basebackup.log" >&2
        echo "servers: copying $from to $to failed (above; $dir/basebackup.log)" >&2
        exit 1
    }
    rm -f "$dir"/backup-copied.*
    label=${answer%% *}
    map=${answer#* }
    base64 -d <<<"$label" | "${as_account[@]}" tee "$to/backup_label" >/dev/null
    [[ -z $map ]] || base64 -d <<<"$map" | "${as_account[@]}" tee "$to/tablespace_map" >/dev/null
    # What -R writes: standby.signal and a primary_conninfo (the primary's socket) appended to
    # postgresql.auto.conf, where it outdoes one copied from the primary (a failed-over node's
    # dead port of cut-replication).
    "${as_account[@]}" touch "$to/standby.signal"
    echo "primary_conninfo = 'user=$account host=$dir/run port=$primary_port'" |
        "${as_account[@]}" tee -a "$to/postgresql.auto.conf" >/dev/null
}

# A fresh standby of the primary on node $standby: a base backup with the WAL streamed, -R writing
# primary_conninfo (or lowlevel_backup where no pg_basebackup serves the primary), started as a hot
# standby; returns once it streams.
make_standby() {
    local major basebackup
    major=$(($(superuser_psql "$primary_port" -c "SHOW server_version_num") / 10000))
    basebackup=$(basebackup_for "$major")
    rm -rf "$(node_dir "$standby")"
    if [[ -n $basebackup ]]; then
        "${as_account[@]}" "$basebackup" -D "$(node_dir "$standby")" -R -X stream -c fast \
            -h "$dir/run" -p "$primary_port" -U "$account" >>"$dir/basebackup.log" 2>&1 ||
            { tail -n 20 "$dir/basebackup.log" >&2; exit 1; }
    else
        lowlevel_backup "$major"
    fi
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
    # shellcheck source=/dev/null
    [[ ! -f $dir/netns ]] || source "$dir/netns"
    if [[ -n ${netns:-} ]]; then
        ip link del "$netns_link" 2>/dev/null || true
        ip netns del "$netns" 2>/dev/null || true
        if ((${netns_mount_ours:-0})) && [[ -z $(ls -A /run/netns 2>/dev/null) ]]; then
            umount /run/netns 2>/dev/null || true
        fi
    fi
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

# A network namespace for one replica, named after the primary's port (unique on this host while
# the servers run), a veth pair to it, and a /30 of the benchmarking range 198.18.0.0/15 derived
# from the same port. Written to DIR/netns; without root, ip or tc's blackhole qdisc, DIR/netns
# says why instead and the benchmark skips the partition.
make_netns() {
    local port=$1 reason=
    if ((EUID != 0)); then
        reason="not root"
    elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
        reason="no ip or tc (iproute2)"
    fi
    local base=$(((port & 16383) << 2))
    netns=lc-chaos-$port
    netns_link=lcc${port}h
    netns_peer_link=lcc${port}n
    netns_host=198.$((18 + (port >> 14 & 1))).$((base >> 8)).$(((base & 255) + 1))
    netns_peer=198.$((18 + (port >> 14 & 1))).$((base >> 8)).$(((base & 255) + 2))
    # A run killed before its stop left these behind; the port is ours now, so they are too. The
    # blackhole qdisc is tried once here, so that a kernel without it skips the event instead of
    # failing it.
    # ip netns makes /run/netns a mount point of its own on first use; where it was not one, the
    # stop unmounts it again, or a chroot (fresh-ci) could not be removed after the run.
    netns_mount_ours=0
    if [[ -z $reason ]]; then
        ip link del "$netns_link" 2>/dev/null || true
        ip netns del "$netns" 2>/dev/null || true
        mountpoint -q /run/netns 2>/dev/null || netns_mount_ours=1
        if ! { ip netns add "$netns" &&
            ip link add "$netns_link" type veth peer name "$netns_peer_link" netns "$netns" &&
            ip addr add "$netns_host/30" dev "$netns_link" && ip link set "$netns_link" up &&
            ip -n "$netns" addr add "$netns_peer/30" dev "$netns_peer_link" &&
            ip -n "$netns" link set "$netns_peer_link" up &&
            tc qdisc add dev "$netns_link" root blackhole &&
            tc qdisc del dev "$netns_link" root; } 2>>"$dir/netns.log"; then
            ip link del "$netns_link" 2>/dev/null || true
            ip netns del "$netns" 2>/dev/null || true
            # In a chroot ip netns mounts /run/netns before its "mount --make-rslave /" fails.
            if ((netns_mount_ours)) && mountpoint -q /run/netns 2>/dev/null; then
                umount /run/netns 2>/dev/null || true
            fi
            reason="ip netns or tc's blackhole qdisc failed: $(tail -n 1 "$dir/netns.log")"
        fi
    fi
    if [[ -n $reason ]]; then
        netns=
        netns_host=
        printf 'netns_unavailable=%q\n' "$reason" >"$dir/netns"
        log "no network namespace ($reason): the partition will be skipped"
        return
    fi
    cat >"$dir/netns" <<STATE
netns=$netns
netns_link=$netns_link
netns_peer_link=$netns_peer_link
netns_host=$netns_host
netns_peer=$netns_peer
netns_mount_ours=$netns_mount_ours
STATE
    # The replica inside logs in from its end of the link.
    echo "host all all $netns_peer/32 scram-sha-256" >>"$(node_dir a)/pg_hba.conf"
}

# Two ports for the benchmark's idle-cutting proxy (bench/chaos/idleproxy.h), one per node (a
# node keeps its port across failovers), below the ephemeral range like the servers' own. The
# benchmark listens on them only while the event runs. Written to DIR/proxy.
pick_proxy_ports() {
    local port_a=$1 port_b=$2 proxy_a proxy_b
    proxy_a=$(low_port $((port_a + 2000)))
    proxy_b=$(low_port $((proxy_a + 1)))
    printf 'proxy_port_a=%s\nproxy_port_b=%s\nnode_port_a=%s\nnode_port_b=%s\n' \
        "$proxy_a" "$proxy_b" "$port_a" "$port_b" >"$dir/proxy"
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
    make_netns "$primary_port"
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
    [[ -z ${netns:-} ]] || log "network namespace $netns: this host $netns_host, inside $netns_peer"
    pick_proxy_ports "$primary_port" "$standby_port"
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
idle-timeout)
    load_state
    value=${3:?servers.sh idle-timeout DIR VALUE|off}
    # ALTER SYSTEM and a reload, not ALTER DATABASE: a database's settings reach only sessions
    # that start later, a reload also every session at its next statement (the timer is armed
    # when a session next goes idle; one that sends nothing keeps the value it had).
    if [[ $value == off ]]; then
        statement="ALTER SYSTEM RESET idle_session_timeout"
    else
        statement="ALTER SYSTEM SET idle_session_timeout = '$value'"
    fi
    superuser_psql "$primary_port" -c "$statement" -c "SELECT pg_reload_conf()" >/dev/null
    log "idle_session_timeout $value on the primary (ALTER SYSTEM, pg_reload_conf())"
    ;;
reap)
    load_state
    seconds=${3:?servers.sh reap DIR SECONDS}
    # A DBA's cron job: every session of the app login idle for longer than that, whatever its
    # application_name. The idle ones are chosen first: the planner may order quals as it likes.
    reaped=$(superuser_psql "$primary_port" -c "
WITH idle AS MATERIALIZED (
    SELECT pid, application_name FROM pg_stat_activity
     WHERE usename = 'lt_app' AND state = 'idle'
       AND state_change < now() - make_interval(secs => $seconds)),
reaped AS (SELECT application_name FROM idle WHERE pg_terminate_backend(pid))
SELECT (SELECT count(*) FROM reaped) || ' ' || coalesce(
       (SELECT string_agg(format('%s x%s', application_name, n), ', ' ORDER BY application_name)
          FROM (SELECT application_name, count(*) AS n FROM reaped GROUP BY 1) named), '')")
    log "reaper: terminated ${reaped%% *} sessions idle over $seconds s: ${reaped#* }"
    ;;
partition-cut | partition-heal)
    load_state
    [[ -n ${netns:-} ]] || { echo "servers: no network namespace: ${netns_unavailable:-}" >&2; exit 1; }
    # No FIN, no RST: every packet either way is dropped, as when a host vanishes.
    if [[ $command == partition-cut ]]; then
        tc qdisc add dev "$netns_link" root blackhole
        ip netns exec "$netns" tc qdisc add dev "$netns_peer_link" root blackhole
        log "link $netns_link blackholed both ways"
    else
        tc qdisc del dev "$netns_link" root 2>/dev/null || true
        ip netns exec "$netns" tc qdisc del dev "$netns_peer_link" root 2>/dev/null || true
        log "link $netns_link healed"
    fi
    ;;
*)
    echo "usage: $0 COMMAND DIR (see the header)" >&2
    exit 2
    ;;
esac
