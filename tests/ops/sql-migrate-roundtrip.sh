#!/usr/bin/env bash
# The extensions through the application's own migration tool (issue 32), with Debian's
# sql-migrate (a Go tool, as Hardcount is) on the test servers (LEADER_TEST_* from
# scripts/test-servers.sh):
#   a. sql-migrate applies the application's migrations (tests/fixtures/hardcount-migrations, with
#      ADR-114's 0174 and 0175 wrapped from migrations/adr) to a fresh database, as the owner;
#   b. on that ADR-only schema leaderctl status (monitor), pause and unpause (app) work, and what
#      needs an extension says so in one line;
#   c. leaderctl migrate --print-sql --format sql-migrate writes the extensions; on a database
#      without the ADR's migrations their check refuses and leaves nothing behind; sql-migrate up
#      applies them from a directory and a table of their own (leader_ext_gorp_migrations), and
#      history, replicas and an expiring pause work;
#   d. its schema dump equals that of a second database where leaderctl migrate applied the
#      extensions over the same application migrations, and so do leader_ext.migrations' rows;
#   e. sql-migrate down -limit 0 removes them: the ADR-only dump of step a again, and the ADR-only
#      behaviour of step b; up once more gives step d's dump again;
#   f. throughout, the application's gorp_migrations rows stay as they were and no
#      schema_migrations table appears.
# Usage: tests/ops/sql-migrate-roundtrip.sh LEADERCTL (CTest runs it, tests/ops/CMakeLists.txt).
# Checked to fail with the leaderctl of before issue 32 (status refused on the ADR-only schema),
# with a printed file that loses a GRANT (the dumps of step d differ) and with a printed 0176 that
# keeps leader_ext at its down (step e).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fixture=$root/tests/fixtures/hardcount-migrations

leaderctl=${1:-}
[[ -x $leaderctl ]] || { echo "sql-migrate-roundtrip: usage: $0 LEADERCTL (no binary at '$leaderctl')" >&2; exit 2; }
for tool in sql-migrate psql pg_dump; do
    command -v "$tool" >/dev/null ||
        { echo "sql-migrate-roundtrip: no $tool (Debian package; run scripts/setup-deps.sh)" >&2; exit 1; }
done
[[ -n ${LEADER_TEST_ADMIN_URL:-} ]] ||
    { echo "sql-migrate-roundtrip: needs the test servers (scripts/test.sh, or source DIR/env after scripts/test-servers.sh start DIR)" >&2; exit 1; }

work=$(mktemp -d /tmp/leader-sql-migrate.XXXXXX)
databases=()
cleanup() {
    for database in "${databases[@]}"; do
        psql -X -q "$LEADER_TEST_ADMIN_URL" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "sql-migrate-roundtrip: FAIL: $*" >&2
    exit 1
}
step() { echo "sql-migrate-roundtrip: $*"; }

# The password in the environment, never in a URL or a config file: lib/pq (sql-migrate), libpq
# (leaderctl, psql) read PGPASSWORD.
export PGPASSWORD=$LEADER_TEST_PASSWORD
suffix=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
db_a=sqlmigrate_a_$suffix # through sql-migrate, both the application's and the extensions'
db_b=sqlmigrate_b_$suffix # the application's through sql-migrate, the extensions by leaderctl
db_c=sqlmigrate_c_$suffix # none of the application's: the extensions' check refuses
for database in "$db_a" "$db_b" "$db_c"; do
    psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" -c "CREATE DATABASE $database OWNER lt_owner"
    databases+=("$database")
done

url() { echo "postgresql://$1@$LEADER_TEST_HOST:$LEADER_TEST_PG_PORT/$2"; }
# As the owner; prints the rows unaligned, one a line.
query() { psql -X -q -At -v ON_ERROR_STOP=1 "$(url lt_owner "$1")" -c "$2"; }
# The superuser's view of the schema: every object, the tools' own bookkeeping tables left out.
# pg_dump since 15.14 (and 13.22, 14.19, 16.10, 17.6) writes a random \restrict key unless given one.
restrict_key=()
[[ $(pg_dump --help) != *--restrict-key* ]] || restrict_key=(--restrict-key=roundtrip)
dump() {
    pg_dump --schema-only "${restrict_key[@]}" \
        --exclude-table=public.gorp_migrations --exclude-table=public.leader_ext_gorp_migrations \
        -d "${LEADER_TEST_ADMIN_URL/\/postgres\?//$1?}"
}
same_dump() {
    diff -u "$1" "$2" >"$work/dump.diff" || { cat "$work/dump.diff" >&2; fail "$3"; }
}

# sql-migrate's config: lib/pq asks for TLS unless told not to, and the test servers have none.
config() {
    local file=$1 database=$2 dir=$3 table=${4:-}
    {
        echo "development:"
        echo "  dialect: postgres"
        echo "  datasource: postgres://lt_owner@$LEADER_TEST_HOST:$LEADER_TEST_PG_PORT/$database?sslmode=disable"
        echo "  dir: $dir"
        [[ -z $table ]] || echo "  table: $table"
    } >"$file"
}
# sql-migrate ARGS...: runs it, its output in $work/out; fails the test when it fails.
sm() {
    sql-migrate "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; fail "sql-migrate $* failed"; }
}
# ctl LOGIN DATABASE ARGS...: leaderctl as that login, its output in $work/out, its exit in $rc.
ctl() {
    local login=$1 database=$2
    shift 2
    rc=0
    "$leaderctl" "$@" --database "$(url "$login" "$database")" >"$work/out" 2>&1 || rc=$?
}
ctl_ok() {
    ctl "$@"
    ((rc == 0)) || { cat "$work/out" >&2; fail "leaderctl ${*:3} as $1 exited $rc"; }
}
# What needs an extension says so in one line, naming leader_ext, and changes nothing.
ctl_needs_extension() {
    ctl "$@"
    ((rc != 0)) || { cat "$work/out" >&2; fail "leaderctl ${*:3} worked without the extensions"; }
    (($(grep -c . "$work/out") == 1)) && grep -q 'leader_ext' "$work/out" ||
        { cat "$work/out" >&2; fail "leaderctl ${*:3} without the extensions: not one line naming leader_ext"; }
}
paused_count() { query "$1" "SELECT count(*) FROM leader_leases WHERE paused_at IS NOT NULL"; }
gorp_rows() { query "$1" "SELECT id, applied_at FROM gorp_migrations ORDER BY id"; }
no_schema_migrations() {
    [[ -z $(query "$1" "SELECT oid::regclass FROM pg_class WHERE relname = 'schema_migrations'") ]] ||
        fail "$2: a schema_migrations table appeared in $1"
}

# The application's migration directory: its own migrations and the ADR's two, each ADR file's
# SQL whole in one statement block (its DO block and function bodies hold semicolons; sql-migrate
# drops only lines that begin with "-- ", none of which is inside a body).
app=$work/app
mkdir -p "$app"
cp "$fixture"/*.sql "$app/"
for up in "$root"/migrations/adr/*.up.sql; do
    name=$(basename "$up" .up.sql)
    {
        printf -- '-- +migrate Up\n-- +migrate StatementBegin\n'
        sed -e '$a\' "$up"
        printf -- '-- +migrate StatementEnd\n\n-- +migrate Down\n-- +migrate StatementBegin\n'
        sed -e '$a\' "${up%.up.sql}.down.sql"
        printf -- '-- +migrate StatementEnd\n'
    } >"$app/$name.sql"
done
app_ids=$(cd "$app" && ls -- *.sql | sort)
[[ $(echo "$app_ids" | tr '\n' ' ') == "0174_leader_leases.sql 0175_not_before.sql 0176_invoices.sql 0177_invoices_touched.sql " ]] ||
    fail "the application's directory holds $(echo "$app_ids" | tr '\n' ' ')"
config "$work/app-a.yml" "$db_a" "$app"
config "$work/app-b.yml" "$db_b" "$app"

step "a. sql-migrate up: the application's migrations, the ADR's 0174 and 0175 among them"
sm up -config "$work/app-a.yml"
grep -qx 'Applied 4 migrations' "$work/out" || { cat "$work/out" >&2; fail "a: not the four migrations applied"; }
[[ $(query "$db_a" "SELECT id FROM gorp_migrations ORDER BY id") == "$app_ids" ]] ||
    fail "a: gorp_migrations does not hold the application's four migrations"
[[ $(query "$db_a" "SELECT count(*) FROM leader_leases") == 5 ]] || fail "a: leader_leases lacks its five rows"
[[ -z $(query "$db_a" "SELECT to_regnamespace('leader_ext')") ]] || fail "a: leader_ext exists before any extension"
gorp_rows "$db_a" >"$work/gorp-a"
dump "$db_a" >"$work/dump-adr"

step "b. leaderctl on the ADR's schema alone: status, pause and unpause; history needs the extensions"
ctl_ok lt_monitor "$db_a" status
for role in billing dunning webhook_outbox email_outbox webhook_delivery; do
    grep -qw "$role" "$work/out" || { cat "$work/out" >&2; fail "b: status does not show $role"; }
done
ctl_ok lt_app "$db_a" pause billing dunning --by ops@roundtrip --reason "sql-migrate round trip"
[[ $(paused_count "$db_a") == 2 ]] || fail "b: pause billing dunning did not pause both"
ctl_ok lt_app "$db_a" unpause billing dunning
[[ $(paused_count "$db_a") == 0 ]] || fail "b: unpause billing dunning did not unpause both"
ctl_needs_extension lt_monitor "$db_a" history
ctl_needs_extension lt_monitor "$db_a" replicas
ctl_needs_extension lt_app "$db_a" pause billing --for 10m --by ops@roundtrip --reason "expiring"
[[ $(paused_count "$db_a") == 0 ]] || fail "b: a refused expiring pause paused a role"

step "c. leaderctl migrate --print-sql --format sql-migrate, applied by sql-migrate up"
ext=$work/ext
"$leaderctl" migrate --print-sql --format sql-migrate --out "$ext" >"$work/out" 2>&1 ||
    { cat "$work/out" >&2; fail "c: leaderctl migrate --print-sql --format sql-migrate failed"; }
ext_ids=$(cd "$ext" && ls -- *.sql | sort)
[[ $(echo "$ext_ids" | grep -cE '^01(7[6-9]|8[0-9]|90)_[a-z0-9_]+\.sql$') == 15 &&
    $(echo "$ext_ids" | wc -l) == 15 ]] ||
    fail "c: the printed files are not fifteen named NNNN_name.sql for 0176-0190: $(echo "$ext_ids" | tr '\n' ' ')"
for file in "$ext"/*.sql; do
    grep -qx -- '-- +migrate Up' "$file" && grep -qx -- '-- +migrate Down' "$file" ||
        fail "c: $(basename "$file") lacks an Up or a Down section"
done
# Each file checks first what it needs, inside sql-migrate's transaction: on a database without
# the ADR's migrations the first one fails with the reason and leaves nothing behind.
config "$work/ext-c.yml" "$db_c" "$ext" leader_ext_gorp_migrations
if sql-migrate up -config "$work/ext-c.yml" >"$work/out" 2>&1; then
    fail "c: the extensions applied to a database without the ADR's 0174 and 0175"
fi
grep -q '0174 and 0175' "$work/out" || { cat "$work/out" >&2; fail "c: the refusal does not name 0174 and 0175"; }
[[ -z $(query "$db_c" "SELECT to_regnamespace('leader_ext')") &&
    $(query "$db_c" "SELECT count(*) FROM leader_ext_gorp_migrations") == 0 ]] ||
    fail "c: the refused extension left leader_ext or a leader_ext_gorp_migrations row behind"
# A directory and a table of their own: the application's directory and gorp_migrations are its.
config "$work/ext-a.yml" "$db_a" "$ext" leader_ext_gorp_migrations
sm up -config "$work/ext-a.yml"
grep -qx 'Applied 15 migrations' "$work/out" || { cat "$work/out" >&2; fail "c: not the fifteen extensions applied"; }
sm status -config "$work/ext-a.yml"
! grep -q '| no ' "$work/out" || { cat "$work/out" >&2; fail "c: sql-migrate status shows an extension not applied"; }
[[ $(query "$db_a" "SELECT string_agg(version::text, ' ' ORDER BY version) FROM leader_ext.migrations") == \
    "176 177 178 179 180 181 182 183 184 185 186 187 188 189 190" ]] || fail "c: leader_ext.migrations does not record 0176-0190"
ctl_ok lt_monitor "$db_a" replicas
ctl_ok lt_app "$db_a" pause billing --for 10m --by ops@roundtrip --reason "expiring pause"
[[ $(query "$db_a" "SELECT paused_until - now() BETWEEN interval '9 minutes' AND interval '10 minutes'
                      FROM leader_ext.leader_status WHERE role = 'billing'") == t ]] ||
    fail "c: pause --for 10m did not set paused_until ten minutes ahead"
ctl_ok lt_app "$db_a" unpause billing --by ops@roundtrip --reason "round trip done"
ctl_ok lt_monitor "$db_a" history billing
grep -q 'expiring pause' "$work/out" && grep -q 'round trip done' "$work/out" ||
    { cat "$work/out" >&2; fail "c: history billing lacks the pause and the unpause"; }
# 0186 through the printed file: the owner registers a backlog source, the monitor reads it.
query "$db_a" "CREATE FUNCTION public.roundtrip_backlog() RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
                 LANGUAGE sql STABLE AS \$\$ SELECT 3::bigint, now() - interval '2 minutes' \$\$;
               SELECT leader_ext.leader_backlog_register('billing', 'public.roundtrip_backlog()', 'due things')" >/dev/null
ctl_ok lt_monitor "$db_a" status
grep -q '3 due things, oldest 2m00s' "$work/out" ||
    { cat "$work/out" >&2; fail "c: status does not show billing's backlog (0186)"; }
query "$db_a" "SELECT leader_ext.leader_backlog_unregister('billing'); DROP FUNCTION public.roundtrip_backlog()" >/dev/null
[[ $(gorp_rows "$db_a") == "$(cat "$work/gorp-a")" ]] || fail "c: gorp_migrations changed"
no_schema_migrations "$db_a" c
dump "$db_a" >"$work/dump-ext-a"

step "d. the same schema as leaderctl migrate gives over the same application migrations"
sm up -config "$work/app-b.yml"
gorp_rows "$db_b" >"$work/gorp-b"
ctl_ok lt_owner "$db_b" migrate
dump "$db_b" >"$work/dump-ext-b"
same_dump "$work/dump-ext-a" "$work/dump-ext-b" \
    "d: the schema sql-migrate gave differs from leaderctl migrate's (diff above: - sql-migrate, + leaderctl)"
migrations_rows="SELECT version, name FROM leader_ext.migrations ORDER BY version"
[[ $(query "$db_a" "$migrations_rows") == "$(query "$db_b" "$migrations_rows")" ]] ||
    fail "d: leader_ext.migrations differs: $(query "$db_a" "$migrations_rows" | tr '\n' ' ') against $(query "$db_b" "$migrations_rows" | tr '\n' ' ')"
[[ $(gorp_rows "$db_b") == "$(cat "$work/gorp-b")" ]] || fail "d: leaderctl migrate changed gorp_migrations"
no_schema_migrations "$db_b" d

step "e. sql-migrate down -limit 0: the extensions gone, the ADR's behaviour back"
sm down -limit 0 -config "$work/ext-a.yml"
grep -qx 'Applied 15 migrations' "$work/out" || { cat "$work/out" >&2; fail "e: not the fifteen extensions removed"; }
[[ -z $(query "$db_a" "SELECT to_regnamespace('leader_ext')") ]] || fail "e: leader_ext is still there"
[[ $(query "$db_a" "SELECT count(*) FROM leader_ext_gorp_migrations") == 0 ]] ||
    fail "e: leader_ext_gorp_migrations still records an extension"
dump "$db_a" >"$work/dump-down"
same_dump "$work/dump-adr" "$work/dump-down" \
    "e: the schema after sql-migrate down differs from the ADR-only one of step a (diff above: - a, + after down)"
ctl_ok lt_monitor "$db_a" status
ctl_ok lt_app "$db_a" pause billing dunning --by ops@roundtrip --reason "after down"
[[ $(paused_count "$db_a") == 2 ]] || fail "e: pause billing dunning did not pause both"
ctl_ok lt_app "$db_a" unpause billing dunning
[[ $(paused_count "$db_a") == 0 ]] || fail "e: unpause billing dunning did not unpause both"
ctl_needs_extension lt_monitor "$db_a" history
ctl_needs_extension lt_monitor "$db_a" replicas
# Down and up again: the printed files apply once more and give the same schema.
sm up -config "$work/ext-a.yml"
dump "$db_a" >"$work/dump-again"
same_dump "$work/dump-ext-b" "$work/dump-again" \
    "e: the schema after down and up again differs from leaderctl migrate's (diff above)"

step "f. the application's bookkeeping untouched"
[[ $(gorp_rows "$db_a") == "$(cat "$work/gorp-a")" ]] || fail "f: gorp_migrations changed"
no_schema_migrations "$db_a" f
step "passed"
