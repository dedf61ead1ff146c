#!/usr/bin/env bash
# The Windows tools under Wine, against a Linux PostgreSQL on loopback, then their MSI. Run by
# scripts/windows-cross.sh after the cross build linked build/windows-cross/bin/leaderctl.exe and
# leader-replica.exe against the npm package's libpq.dll; needs the Linux leader-replica of the ci
# build (build/ci) to stand beside the Windows one. Uses the servers of LEADER_TEST_ADMIN_URL
# (scripts/test.sh's; a database of its own, dropped after) or starts its own, and the Wine
# prefix of WINEPREFIX (windows-cross.sh's) or one of its own. Checks, failing on any wrong result:
#   - leaderctl.exe migrate --demo on a fresh database, status, pause, unpause; its one-line
#     errors for a wrong password and a dead server, without the password;
#   - leader-replica.exe leading all five roles and ticking them beside a Linux leader-replica,
#     stopped through its named pipe (each role released, the Linux replica takes it as released,
#     not expired), then killed while leading (the Linux replica takes over at its death:
#     took_over = session_ended, before the lease's expiry);
#   - the MSI (wixl): its tables and files (msiinfo), installed with msiexec /i /qn, leaderctl
#     --version from the installed folder, uninstalled with /x /qn and the folder gone.
# Prints how long each part took.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver
bin=build/windows-cross/bin
control=build/windows-cross/tests/platform/controlrequest.exe
linux_replica=build/ci/tools/leader-replica/leader-replica
# What the MSI ships in place of bin/'s leader-replica.exe, the fault build the checks drive through
# its pipe: the production replica (tools/leader-replica/CMakeLists.txt).
production_replica=build/windows-cross/tools/leader-replica/production/leader-replica.exe
fail() {
    echo "windows-tools: $*" >&2
    exit 1
}
for file in "$bin/leaderctl.exe" "$bin/leader-replica.exe" "$bin/libpq.dll" "$control" \
    "$production_replica"; do
    [[ -f $file ]] || fail "$file is missing: run scripts/windows-cross.sh (it builds it)"
done
[[ -x $linux_replica ]] || fail "$linux_replica is missing: cmake --build --preset ci first"
for tool in wixl msiinfo psql "$wine" "$wineserver"; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup-deps.sh"
done

start=$SECONDS
work=$(mktemp -d /tmp/leader-wintools.XXXXXX)
own_prefix=0
if [[ -z ${WINEPREFIX:-} ]]; then
    own_prefix=1
    export WINEPREFIX=$work/prefix
fi
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
own_servers=0
database=leader_wine_$$
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
    done
    if [[ -n ${LEADER_TEST_ADMIN_URL:-} ]]; then
        psql -X -q "$LEADER_TEST_ADMIN_URL" \
            -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    fi
    ((own_servers)) && scripts/test-servers.sh stop "$work/servers"
    if ((own_prefix)); then
        "$wineserver" -k 2>/dev/null || true
    fi
    [[ -n ${LEADER_KEEP_WORK:-} ]] || rm -rf "$work"
}
trap cleanup EXIT

if [[ -z ${LEADER_TEST_ADMIN_URL:-} ]]; then
    own_servers=1
    # The servers run as an unprivileged account, which must reach their folder.
    chmod 0755 "$work"
    scripts/test-servers.sh start "$work/servers" >/dev/null
    # shellcheck source=/dev/null
    source "$work/servers/env"
fi
if ((own_prefix)); then
    "$wine" wineboot --init >"$work/wineboot.log" 2>&1 ||
        { cat "$work/wineboot.log" >&2; fail "wineboot failed to set up $WINEPREFIX"; }
fi
psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" \
    -c "CREATE DATABASE $database OWNER lt_owner" >/dev/null
at=127.0.0.1:$LEADER_TEST_PG_PORT/$database
owner=postgresql://lt_owner:$LEADER_TEST_PASSWORD@$at
app=postgresql://lt_app:$LEADER_TEST_PASSWORD@$at
sql() { psql -X -qAt -v ON_ERROR_STOP=1 "$owner" -c "$1"; }
# A Linux path as the Windows programs see it: on drive Z:, Wine's view of /.
winpath() { printf 'Z:%s' "${1//\//\\}"; }
leaderctl() { "$wine" "$bin/leaderctl.exe" "$@"; }
ready=$SECONDS

# Polls CONDITION (a shell command) every 0.1 s until it holds; fails, saying WHAT, after SECONDS.
wait_for() {
    local seconds=$1 what=$2 condition=$3 deadline=$((SECONDS + $1))
    until eval "$condition"; do
        ((SECONDS < deadline)) || fail "no $what within $seconds s"
        sleep 0.1
    done
}
# 0 before the log exists: an empty count made the caller's (( )) a syntax error.
events() {
    local count
    count=$(grep -c "\"event\":\"$2\"" "$1" 2>/dev/null) || true
    echo "${count:-0}"
}

# leaderctl.exe: the demo's migrations on a fresh database, then status, pause and unpause.
leaderctl migrate --demo --database "$owner" >"$work/migrate.out" 2>&1 ||
    { cat "$work/migrate.out" >&2; fail "leaderctl.exe migrate --demo failed"; }
grep -q "^leaderctl: applied [0-9]* migrations to lt_owner@$at" "$work/migrate.out" ||
    { cat "$work/migrate.out" >&2; fail "leaderctl.exe migrate --demo said no 'applied N migrations'"; }
[[ $(sql "SELECT count(*) FROM leader_leases") == 5 ]] || fail "migrate --demo left no five lease rows"
leaderctl status --database "$app" >"$work/status.out" ||
    { cat "$work/status.out" >&2; fail "leaderctl.exe status failed"; }
for role in billing dunning webhook_outbox email_outbox webhook_delivery; do
    grep -q "^$role  *never ran" "$work/status.out" ||
        { cat "$work/status.out" >&2; fail "leaderctl.exe status shows no unheld $role"; }
done
leaderctl pause billing dunning --reason "wine check" --by windows-tools --database "$app" \
    >"$work/pause.out" 2>&1 || { cat "$work/pause.out" >&2; fail "leaderctl.exe pause failed"; }
[[ $(sql "SELECT string_agg(role || ':' || paused_by, ',' ORDER BY role) FROM leader_leases
          WHERE paused_at IS NOT NULL") == "billing:windows-tools,dunning:windows-tools" ]] ||
    fail "leaderctl.exe pause did not pause billing and dunning"
# Read whole, then searched: under pipefail a grep -q that stops reading early fails the pipe
# when the writer is still writing (SIGPIPE), whatever it found.
status=$(leaderctl status --database "$app")
grep -q "^billing  *paused" <<<"$status" || fail "leaderctl.exe status does not show billing paused"
leaderctl unpause billing dunning --database "$app" >"$work/unpause.out" 2>&1 ||
    { cat "$work/unpause.out" >&2; fail "leaderctl.exe unpause failed"; }
[[ $(sql "SELECT count(*) FROM leader_leases WHERE paused_at IS NOT NULL") == 0 ]] ||
    fail "leaderctl.exe unpause left a role paused"

# Its errors: one line, the password nowhere. Under Wine, libpq prints a second line of its own
# ("unrecognized win32 error code: 127") whenever it opens a file (here the password file, after
# the refused connection): Wine 8 lacks NtFlushBuffersFileEx, which libpq's file opening looks up
# first (docs/windows.md). That line is Wine's, and only it is set aside.
check_error() {
    local what=$1 expected=$2
    shift 2
    local status=0
    leaderctl status --database "$@" >/dev/null 2>"$work/error.raw" || status=$?
    grep -v '^unrecognized win32 error code: 127' "$work/error.raw" | tr -d '\r' >"$work/error" || true
    ((status == 4)) || { cat "$work/error.raw" >&2; fail "$what: exit $status, not 4"; }
    [[ $(wc -l <"$work/error") == 1 ]] || { cat "$work/error.raw" >&2; fail "$what: not one line"; }
    grep -q "$expected" "$work/error" || { cat "$work/error" >&2; fail "$what: no '$expected'"; }
    if grep -q "not-the-password\|$LEADER_TEST_PASSWORD" "$work/error"; then
        fail "$what: the password is in the message"
    fi
    echo "windows-tools: $what: $(cat "$work/error")"
}
check_error "a wrong password" "password authentication failed for user \"lt_app\"" \
    "postgresql://lt_app:not-the-password@$at"
dead_port=$(source scripts/free-port.sh && free_port 47000)
check_error "a dead server" "Connection refused" \
    "postgresql://lt_app:not-the-password@127.0.0.1:$dead_port/$database"
# The Windows replica has no /metrics (no HTTP server library for Windows here): refused in one
# line, exit 2.
status=0
"$wine" "$bin/leader-replica.exe" --database "$app" --metrics-port 9 >/dev/null 2>"$work/metrics.err" ||
    status=$?
((status == 2)) && [[ $(tr -d '\r' <"$work/metrics.err") == *"built without /metrics"* ]] ||
    { cat "$work/metrics.err" >&2; fail "leader-replica.exe --metrics-port: exit $status, not 2 and one line"; }
leaderctl_done=$SECONDS

# leader-replica.exe beside a Linux leader-replica. Each tick lasts 8 s (min_tick): a replica
# holds a role it took for that long, so who took it, and how, stays in its lease row while the
# checks read it.
config=$work/replica.conf
for role in billing dunning webhook_outbox email_outbox webhook_delivery; do
    printf '%s.interval = 1s\n%s.min_tick = 8s\n%s.item_latency = 10ms\n' \
        "$role" "$role" "$role" >>"$config"
done
windows_replica() { # ID: in the background, its events in $work/ID.log, its pipe named after ID
    "$wine" "$bin/leader-replica.exe" --database "$app" --id "$1" --config "$(winpath "$config")" \
        --control "C:\\leader\\$1.control" >"$work/$1.log" 2>"$work/$1.err" &
    pids+=($!)
}
linux_replica() { # ID: the same on Linux; --drain-on-sigterm off: SIGTERM interrupts and releases
    "$linux_replica" --database "$app" --id "$1" --config "$config" --drain-on-sigterm off \
        >"$work/$1.log" 2>"$work/$1.err" &
    pids+=($!)
}
holder_of() { sed -n 's/.*"event":"started","holder":"\([^"]*\)".*/\1/p' "$work/$1.log" | head -n 1; }
controlrequest() { "$wine" "$control" "C:\\leader\\$1.control" "$2" | tr -d '\r'; }
held_by() { sql "SELECT count(*) FROM leader_leases WHERE holder_id = '$1' AND expires_at > now()"; }
# How each role was taken, for a failure's message.
takeovers() { sql "SELECT string_agg(role || '=' || coalesce(holder_id, '-') || '/' ||
                   coalesce(took_over, 'released'), ', ' ORDER BY role) FROM leader_leases"; }
# Waits for process PID to end within SECONDS; its exit status in $exited.
wait_exit() {
    local pid=$1 deadline=$((SECONDS + $2))
    while kill -0 "$pid" 2>/dev/null; do
        ((SECONDS < deadline)) || fail "process $pid did not end within $2 s"
        sleep 0.1
    done
    exited=0
    wait "$pid" || exited=$?
}

windows_replica win-1
win1=${pids[-1]}
wait_for 60 "acquisition of all five roles by leader-replica.exe" \
    '(($(events "$work/win-1.log" acquired) >= 5))'
holder=$(holder_of win-1)
[[ -n $holder ]] || fail "leader-replica.exe said no started event with its holder"
[[ $(held_by "$holder") == 5 ]] || fail "leader-replica.exe does not hold its five roles: $(takeovers)"
linux_replica linux-1
linux1=${pids[-1]}
wait_for 30 "start of the Linux replica" '(($(events "$work/linux-1.log" started) == 1))'
ticking=$SECONDS

# Stopped through its named pipe, mid-tick: it drains (each running tick completes), releases
# every role and exits 0; the Linux replica takes each as released (took_over NULL), not expired.
reply=$(controlrequest win-1 stop)
[[ $reply == ok* ]] || fail "the named pipe answered '$reply' to stop"
wait_exit "$win1" 60
((exited == 0)) || { cat "$work/win-1.err" >&2; fail "leader-replica.exe stopped with exit $exited, not 0"; }
for role in billing dunning webhook_outbox email_outbox webhook_delivery; do
    grep -q "\"role\":\"$role\",\"event\":\"released\".*\"outcome\":\"completed\"" "$work/win-1.log" ||
        { cat "$work/win-1.log" >&2; fail "leader-replica.exe did not complete and release a tick of $role"; }
done
(($(events "$work/win-1.log" stopped) == 1)) ||
    { cat "$work/win-1.log" >&2; fail "leader-replica.exe said no stopped event"; }
[[ $(held_by "$holder") == 0 ]] || fail "the stopped leader-replica.exe still holds a role: $(takeovers)"
wait_for 20 "takeover of the five released roles by the Linux replica" \
    '(($(events "$work/linux-1.log" acquired) >= 5))'
linux1_holder=$(holder_of linux-1)
[[ $(sql "SELECT count(*) FROM leader_leases WHERE holder_id = '$linux1_holder' AND took_over IS NULL") == 5 ]] ||
    fail "the Linux replica took the stopped replica's roles otherwise than as released: $(takeovers)"
stopped=$SECONDS

# Killed while leading: a second leader-replica.exe takes the roles from the Linux one (SIGTERM:
# interrupted and released), a second Linux replica waits, and the Windows one dies by its pipe's
# kill (TerminateProcess: no RELEASE). The Linux replica takes each role at its death
# (took_over = session_ended), long before the lease's expiry.
windows_replica win-2
win2=${pids[-1]}
wait_for 60 "start of the second leader-replica.exe" '(($(events "$work/win-2.log" started) == 1))'
kill -TERM "$linux1"
wait_exit "$linux1" 30
((exited == 0)) || fail "the Linux replica stopped with exit $exited"
wait_for 30 "acquisition of all five roles by the second leader-replica.exe" \
    '(($(events "$work/win-2.log" acquired) >= 5))'
win2_holder=$(holder_of win-2)
linux_replica linux-2
linux2=${pids[-1]}
wait_for 30 "start of the second Linux replica" '(($(events "$work/linux-2.log" started) == 1))'
[[ $(held_by "$win2_holder") == 5 ]] || fail "the second leader-replica.exe does not hold its five roles: $(takeovers)"
killed_at=$(sql "SELECT now()")
controlrequest win-2 kill >/dev/null 2>&1 || true
wait_exit "$win2" 30
((exited != 0)) || fail "leader-replica.exe killed through its pipe exited 0"
(($(events "$work/win-2.log" released) == 0)) || fail "the killed leader-replica.exe released a role"
wait_for 9 "takeover of the killed replica's five roles before their expiry" \
    '(($(events "$work/linux-2.log" acquired) >= 5))'
linux2_holder=$(holder_of linux-2)
[[ $(sql "SELECT count(*) FROM leader_leases WHERE holder_id = '$linux2_holder' AND took_over = 'session_ended'") == 5 ]] ||
    fail "the killed replica's roles were not taken at its death: $(takeovers)"
taken=$(sql "SELECT round(extract(epoch FROM max(acquired_at) - '$killed_at'::timestamptz)::numeric, 2)
             FROM leader_leases")
kill -TERM "$linux2"
wait_exit "$linux2" 30
((exited == 0)) || fail "the second Linux replica stopped with exit $exited"
echo "windows-tools: leader-replica.exe led all five roles beside a Linux replica; stopped" \
    "through its named pipe, it completed its ticks and released them, taken as released;" \
    "killed, the Linux replica had all five ${taken} s later (took_over = session_ended)"
replicas_done=$SECONDS

# The MSI (packaging/windows/tools-msi.cmake, wixl): built for this version and the next, checked
# with msiinfo, installed, upgraded, refused as a downgrade, uninstalled, with msiexec under Wine.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/windows-cross/CMakeCache.txt)
IFS=. read -r major minor patch <<<"$version"
newer=$major.$minor.$((patch + 1))
packed_dir=$work/msi-bin
mkdir -p "$packed_dir"
cp "$bin"/*.exe "$bin"/*.dll "$packed_dir/"
cp "$production_replica" "$packed_dir/leader-replica.exe"
for v in "$version" "$newer"; do
    cmake -DBIN_DIR="$packed_dir" -DVERSION="$v" -DOUTPUT_DIR="$work/msi" \
        -P packaging/windows/tools-msi.cmake >"$work/msi.log" 2>&1 ||
        { cat "$work/msi.log" >&2; fail "the MSI of $v did not build"; }
done
msi=$work/msi/LeaderConsole-tools-$version-x64.msi
newer_msi=$work/msi/LeaderConsole-tools-$newer-x64.msi
property() { msiinfo export "$1" Property | tr -d '\r' | awk -F'\t' -v p="$2" '$1 == p { print $2 }'; }
tables=$(msiinfo tables "$msi")
for table in File Component Feature Directory Shortcut Upgrade Media Property InstallExecuteSequence; do
    grep -qx "$table" <<<"$tables" || fail "the MSI has no $table table"
done
packed=$(msiinfo export "$msi" File | tr -d '\r' | tail -n +4 | cut -f3 | sort)
expected=$(cd "$packed_dir" && ls -1 -- *.exe *.dll | sort)
[[ $packed == "$expected" ]] ||
    fail "the MSI's files ($(echo $packed)) are not those of $packed_dir ($(echo $expected))"
upgrade_code=$(sed -n 's/^set(LEADER_MSI_UPGRADE_CODE "\(.*\)")$/{\1}/p' packaging/windows/tools-msi.cmake)
[[ $(property "$msi" UpgradeCode) == "$upgrade_code" && $(property "$newer_msi" UpgradeCode) == "$upgrade_code" ]] ||
    fail "the MSIs' UpgradeCode is not the fixed $upgrade_code"
[[ $(property "$msi" ProductVersion) == "$version" ]] || fail "the MSI's ProductVersion is not $version"
product=$(property "$msi" ProductCode)
newer_product=$(property "$newer_msi" ProductCode)
[[ -n $product && $product != "$newer_product" ]] || fail "the two versions' ProductCodes are not two"
upgrades=$(msiinfo export "$msi" Upgrade)
grep -q "^$upgrade_code.*WIX_UPGRADE_DETECTED" <<<"$upgrades" ||
    fail "the MSI's Upgrade table does not look for older versions (MajorUpgrade)"
shortcut=$(msiinfo export "$msi" Shortcut | tr -d '\r' | tail -n +4)
[[ $(cut -f5 <<<"$shortcut") == '[System64Folder]cmd.exe' ]] ||
    fail "the Start-menu entry does not start cmd.exe: $shortcut"
arguments=$(cut -f6 <<<"$shortcut")
[[ $arguments == '/k "'*'[INSTALLDIR]'*'"' ]] || fail "the Start-menu entry's arguments: $arguments"
msi_built=$SECONDS

installed=$WINEPREFIX/drive_c/Program\ Files/Leader\ Console\ Tools
installed_win='C:\Program Files\Leader Console Tools'
uninstall_key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall'
msiexec() { "$wine" msiexec "$@" /qn; }
registered() { "$wine" reg query "$uninstall_key\\$1" >/dev/null 2>&1; }
msiexec /i "$(winpath "$msi")" || fail "msiexec /i $msi failed"
for file in $expected; do
    [[ -f $installed/$file ]] || fail "the MSI did not install $file in $installed_win"
done
got=$("$wine" "$installed_win\\leaderctl.exe" --version | tr -d '\r')
[[ $got == "leaderctl $version" ]] || fail "the installed leaderctl.exe --version said '$got'"
[[ $("$wine" "$installed_win\\leader-replica.exe" --help) != *--control* ]] ||
    fail "the installed leader-replica.exe offers --control: the MSI packed a fault build"
# Wine puts the shortcut in the account's Start menu or the common one: either will do.
link=$(find "$WINEPREFIX/drive_c" -name 'Leader Console tools prompt.lnk' | head -n 1)
[[ -n $link ]] || fail "the MSI made no Start-menu entry"
# The entry's command line, with /c for /k, from another folder: the tools are on its PATH.
line=${arguments#/k \"}
line=${line%\"}
got=$(cd /tmp && "$wine" cmd /c "${line//\[INSTALLDIR\]/$installed_win\\}" | tr -d '\r')
[[ $got == "leaderctl $version" ]] || fail "the Start-menu prompt's command line said '$got'"
registered "$product" || fail "the installed product $product is not registered"
msiexec /i "$(winpath "$newer_msi")" || fail "msiexec /i of the newer MSI failed"
registered "$newer_product" || fail "the newer product $newer_product is not registered"
! registered "$product" || fail "the newer MSI left the older product $product installed"
! msiexec /i "$(winpath "$msi")" 2>/dev/null || fail "the older MSI installed over the newer one"
msiexec /x "$(winpath "$newer_msi")" || fail "msiexec /x failed"
[[ ! -e $installed ]] || fail "$installed_win is still there after the uninstall"
[[ ! -e $link ]] || fail "the Start-menu entry is still there after the uninstall"
! registered "$newer_product" || fail "the uninstalled product is still registered"
echo "windows-tools: LeaderConsole-tools-$version-x64.msi: $(wc -w <<<"$expected") files," \
    "UpgradeCode $upgrade_code; installed, leaderctl --version from its folder and its Start-menu" \
    "prompt, upgraded by $newer, the downgrade refused, uninstalled and its folder gone"
msi_done=$SECONDS

echo "windows-tools: servers and database $((ready - start)) s, leaderctl.exe" \
    "$((leaderctl_done - ready)) s, replicas $((replicas_done - leaderctl_done)) s" \
    "(all five led $((ticking - leaderctl_done)) s, pipe stop and takeover $((stopped - ticking)) s," \
    "kill and takeover $((replicas_done - stopped)) s), MSI built and checked $((msi_built - replicas_done)) s," \
    "installed, upgraded and uninstalled $((msi_done - msi_built)) s"
