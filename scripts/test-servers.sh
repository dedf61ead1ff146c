#!/usr/bin/env bash
# Starts or stops the servers the database suites need, on loopback only: a private PostgreSQL
# cluster and PgBouncer in transaction mode in front of it, both as an unprivileged account (they
# refuse to run as root). `start DIR` writes DIR/env, to be sourced by the test runner.
#   scripts/test-servers.sh start DIR     scripts/test-servers.sh stop DIR
# LEADER_PG_BINDIR names another PostgreSQL's bin/ (scripts/fetch-postgres.sh; the same for stop);
# by default the newest installed under /usr/lib/postgresql.
set -euo pipefail

command=${1:-}
dir=${2:-}
[[ -n $command && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

account=$(id -un)
as_account=()
if ((EUID == 0)); then
    account=leaderci
    id -u "$account" >/dev/null 2>&1 ||
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$account"
    as_account=(runuser -u "$account" --)
fi

# Debian 13's PgBouncer, built once: Debian 12's 1.18 exits on cancel requests (scripts/pgbouncer.sh).
pgbouncer=$("$(dirname "${BASH_SOURCE[0]}")/pgbouncer.sh")
if [[ -n ${LEADER_PG_BINDIR:-} ]]; then
    bindir=$LEADER_PG_BINDIR
    [[ -x $bindir/initdb && -x $bindir/pg_ctl && -x $bindir/postgres ]] ||
        { echo "test-servers: LEADER_PG_BINDIR=$bindir has no initdb, pg_ctl and postgres" >&2; exit 1; }
else
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [[ -x $bindir/initdb ]] || { echo "test-servers: no PostgreSQL server (run scripts/setup-deps.sh)" >&2; exit 1; }
fi

stop() {
    if [[ -f $dir/pgbouncer.pid ]]; then
        kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
        rm -f "$dir/pgbouncer.pid"
    fi
    if [[ -f $dir/data/postmaster.pid ]]; then
        "${as_account[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null || true
    fi
}

# shellcheck source=scripts/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"

case $command in
stop)
    stop
    exit 0
    ;;
start) ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac

trap 'stop' ERR
rm -rf "$dir"
mkdir -p "$dir/run"
chmod 0755 "$dir"
chmod 0700 "$dir/run"
password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" >"$dir/password"
chown -R "$account" "$dir"

"${as_account[@]}" "$bindir/initdb" -D "$dir/data" -U "$account" -E UTF8 --no-instructions \
    --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }

# A port nothing listens on may still be bound by a client socket (the ephemeral range reaches up
# to 60999): the server then fails to bind it, and the next free port is tried.
pg_port=55431
for attempt in 1 2 3 4 5; do
    pg_port=$(free_port $((pg_port + 1)))
    # fsync off: a test server holds nothing worth a crash-safe write, and the suites run faster.
    if "${as_account[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
        -o "-p $pg_port -k $dir/run -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off" \
        start >/dev/null; then
        break
    fi
    grep -q 'Address already in use' "$dir/postgres.log" && ((attempt < 5)) ||
        { tail -n 20 "$dir/postgres.log" >&2; exit 1; }
done

psql=(psql -X -q -v ON_ERROR_STOP=1 -h "$dir/run" -p "$pg_port" -U "$account" -d postgres)
# The grant roles exist before any migration, as a DBA would create them; the logins are the
# owner that migrates, an app login, a monitor login and one with no grant at all.
"${as_account[@]}" "${psql[@]}" <<SQL
CREATE ROLE hardcount_app NOLOGIN;
CREATE ROLE hardcount_monitor NOLOGIN;
CREATE ROLE lt_owner LOGIN PASSWORD '$password';
CREATE ROLE lt_app LOGIN PASSWORD '$password' IN ROLE hardcount_app;
CREATE ROLE lt_monitor LOGIN PASSWORD '$password' IN ROLE hardcount_monitor;
CREATE ROLE lt_nobody LOGIN PASSWORD '$password';
ALTER ROLE "$account" PASSWORD '$password';
SQL
# Before PostgreSQL 15 every login may create objects in public, which `leaderctl migrate` refuses
# (docs/security.md), and public is the bootstrap superuser's. A DBA does what 15 does by default:
# CREATE only for the owner (the test databases' is lt_owner), here in their template.
if (($("${as_account[@]}" "${psql[@]}" -At -c 'SHOW server_version_num') < 150000)); then
    "${as_account[@]}" "${psql[@]}" -d template1 \
        -c 'REVOKE CREATE ON SCHEMA public FROM PUBLIC' -c 'ALTER SCHEMA public OWNER TO lt_owner'
fi

{
    for login in lt_owner lt_app lt_monitor lt_nobody "$account"; do
        printf '"%s" "%s"\n' "$login" "$password"
    done
} >"$dir/userlist.txt"
chown "$account" "$dir/userlist.txt"
chmod 0600 "$dir/userlist.txt"
bouncer_port=$((pg_port + 999))
for attempt in 1 2 3 4 5; do
    bouncer_port=$(free_port $((bouncer_port + 1)))
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$pg_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
admin_users = $account
INI
    chown "$account" "$dir/pgbouncer.ini"
    rm -f "$dir/pgbouncer.log"
    # -d forks before it binds: a port in use shows only in the log.
    "${as_account[@]}" "$pgbouncer" -d -q "$dir/pgbouncer.ini" ||
        { tail -n 20 "$dir/pgbouncer.log" >&2; exit 1; }
    for _ in $(seq 1 100); do
        PGPASSWORD=$password psql -X -q -h 127.0.0.1 -p "$bouncer_port" -U lt_owner -d postgres \
            -c 'SELECT 1' >/dev/null 2>&1 && break 2
        grep -qs 'Address already in use' "$dir/pgbouncer.log" && break
        sleep 0.1
    done
    grep -qs 'Address already in use' "$dir/pgbouncer.log" && ((attempt < 5)) ||
        { tail -n 20 "$dir/pgbouncer.log" >&2; echo "test-servers: PgBouncer does not answer" >&2; exit 1; }
done

cat >"$dir/env" <<ENV
export LEADER_TEST_ADMIN_URL='postgresql://$account@/postgres?host=$dir/run&port=$pg_port'
export LEADER_TEST_HOST=127.0.0.1
export LEADER_TEST_PG_PORT=$pg_port
export LEADER_TEST_BOUNCER_PORT=$bouncer_port
export LEADER_TEST_PASSWORD=$password
ENV
echo "test-servers: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port," \
    "PgBouncer $("$pgbouncer" --version | awk 'NR==1{print $2}') (transaction mode) on 127.0.0.1:$bouncer_port," \
    "as $account"
