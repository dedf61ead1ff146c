#!/usr/bin/env bash
# Proves an AppDir on a machine that has neither PostgreSQL nor Qt: copies it into a chroot made
# for the test that holds only the base libraries the AppDir leaves to the host (glibc, libstdc++,
# X11, fontconfig, ...), a busybox for AppRun's shell, and the account files; then, inside that
# chroot, runs `AppRun --version`, `AppRun leaderctl --version` and the console's embedded demo
# offscreen until each of the five roles has been led through a tick, and checks that the server
# running is the bundled one and that SIGTERM closes it all.
# Checked once that it can fail: the same AppDir without usr/lib/postgresql fails here in seconds
# ("PostgreSQL server binaries not found"), so the chroot really holds no other server.
#   packaging/appimage/test-appdir.sh APPDIR WORKDIR          (as root: chroot and mknod)
set -euo pipefail
appdir=$(realpath "$1")
work=$2
fail() {
    echo "test-appdir: $*" >&2
    exit 1
}
((EUID == 0)) || fail "needs root (chroot, mknod); CI runs it as root"
[[ -x $appdir/AppRun ]] || fail "$appdir is not an AppDir (no AppRun): build it with packaging/appimage/build-appdir.sh"
busybox=$(command -v busybox) || fail "busybox is missing: run scripts/setup-deps.sh"

mkdir -p "$work"
work=$(realpath "$work")
jail=$work/jail
# Whatever runs inside the jail, the console and its server included.
jailed() {
    local process
    for process in /proc/[0-9]*; do
        [[ $(readlink "$process/root" 2>/dev/null) == "$jail" ]] && echo "${process#/proc/}"
    done
    return 0
}
kill_jailed() {
    jailed | xargs -r kill -KILL 2>/dev/null || true
}
# What a previous run left: its processes, its /proc mount.
kill_jailed
umount -l "$jail/proc" 2>/dev/null || true
rm -rf "$jail"
mkdir -p "$jail"/{bin,dev,etc,proc,tmp,root,work,lib,usr/lib,usr/share} "$jail/opt/moved here"
chmod 755 "$work" "$jail" "$jail"/{work,lib,usr,usr/lib,usr/share}
chmod 1777 "$jail/tmp"
# A copy in a new directory, with a space in its path: nothing may depend on where it was built.
app="/opt/moved here/Leader Console.AppDir"
cp -a "$appdir" "$jail$app"

# The host libraries the AppDir's programs still resolve outside it, and the loader.
declare -A copied=()
while IFS= read -r -d '' file; do
    [[ $(head -c 4 "$file" | od -An -c | tr -d ' ') == 177ELF ]] || continue
    while read -r library; do
        [[ -n ${copied[$library]:-} ]] && continue
        copied[$library]=1
        cp --parents -L "$library" "$jail"
    done < <(ldd "$file" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// && index($3, "'"$jail"'") != 1 {print $3}
                                               $1 ~ /^\/.*ld-linux/ {print $1}')
done < <(find "$jail$app/usr/bin" "$jail$app/usr/lib" "$jail$app/usr/plugins" -type f -print0)
ldd "$jail$app/usr/bin/leader-console" | grep -q "not found" && fail "the bundle misses a library: $(ldd "$jail$app/usr/bin/leader-console" | grep 'not found' | head -n 1)"

cp "$busybox" "$jail/bin/busybox"
for applet in sh dirname basename readlink; do
    ln -s busybox "$jail/bin/$applet"
done
cp /etc/passwd /etc/group "$jail/etc/"
# /proc as every machine has it: the loader resolves $ORIGIN, and the engine finds the bundled
# server, through /proc/self/exe.
mount -t proc proc "$jail/proc"
trap 'kill_jailed; umount -l "$jail/proc"' EXIT
mknod -m 666 "$jail/dev/null" c 1 3
mknod -m 666 "$jail/dev/zero" c 1 5
mknod -m 666 "$jail/dev/urandom" c 1 9
# Offscreen Qt draws text with the host's fonts; the server wants the time zone database.
cp -a --parents /etc/fonts /usr/share/fonts /usr/share/zoneinfo "$jail" 2>/dev/null || true

for absent in /usr/lib/postgresql /usr/share/postgresql /usr/bin/pg_config /usr/bin/psql; do
    [[ ! -e $jail$absent ]] || fail "$absent leaked into the chroot"
done
if compgen -G "$jail/usr/lib/x86_64-linux-gnu/libQt6*" >/dev/null \
    || compgen -G "$jail/usr/lib/x86_64-linux-gnu/libpq.so*" >/dev/null; then
    fail "a system Qt or libpq leaked into the chroot"
fi

jail_run=(chroot "$jail" /bin/sh -c 'cd /work && exec "$@"' sh
    env -i PATH=/bin HOME=/root XDG_RUNTIME_DIR=/tmp/runtime QT_QPA_PLATFORM=offscreen)
in_jail() {
    "${jail_run[@]}" "$@"
}
version=$(in_jail "$app/AppRun" --version) || fail "AppRun --version failed in the chroot"
echo "test-appdir: in a chroot without PostgreSQL or Qt: $version"
version=$(in_jail "$app/AppRun" leaderctl --version) || fail "AppRun leaderctl --version failed"
echo "test-appdir: $version"

log=$work/console.log
mkdir -m 700 "$jail/tmp/runtime"
# chroot, sh, env and AppRun each exec the next: $! is the console's own process.
"${jail_run[@]}" "$app/AppRun" --demo-dir /work/demo-cluster >"$log" 2>&1 &
console=$!
stop_console() {
    if kill -0 "$console" 2>/dev/null; then
        kill -TERM "$console"
        for _ in $(seq 60); do
            kill -0 "$console" 2>/dev/null || break
            sleep 0.5
        done
    fi
    kill -0 "$console" 2>/dev/null && leftover="the console itself" || leftover=$(jailed)
    kill_jailed
    wait "$console" 2>/dev/null || true
    umount -l "$jail/proc"
}
trap stop_console EXIT
show_log() {
    echo "test-appdir: the console's log:" >&2
    tail -n 30 "$log" >&2
}

deadline=$((SECONDS + 120))
url=
until [[ -n $url ]]; do
    kill -0 "$console" 2>/dev/null || { show_log; fail "leader-console exited before the demo started"; }
    if grep -q "ERROR demo: cannot start" "$log"; then
        show_log
        fail "the embedded demo did not start from the AppDir: $(grep -m 1 -o 'error=.*' "$log")"
    fi
    ((SECONDS < deadline)) || { show_log; fail "the demo's cluster did not come up within 120 s"; }
    url=$(sed -n 's/.*demo: cluster ready url=\([^ ]*\).*/\1/p' "$log" | head -n 1)
    [[ -n $url ]] || sleep 0.5
done

status() {
    in_jail "$app/AppRun" leaderctl status --json --database "$url" 2>/dev/null || true
}
# "billing led "2026-...Z"" (role, state, end of its last tick or null), from leaderctl status.
ticks() {
    status | grep -o '"role":"[a-z_]*","state":"[a-z ]*"[^}]*"last_tick_ended_at":\("[^"]*"\|null\)' \
        | sed 's/"role":"\([a-z_]*\)","state":"\([a-z ]*\)".*"last_tick_ended_at":\(.*\)/\1 \2 \3/'
}
# The cluster is new, so a finished tick on record is one of this run's.
roles=
until [[ $(grep -c ' "' <<<"$roles") == 5 ]]; do
    ((SECONDS < deadline)) || { show_log; fail "not every role finished a tick within 120 s: $(tr '\n' ';' <<<"$roles")"; }
    sleep 0.5
    roles=$(ticks)
done
echo "test-appdir: the embedded demo runs from the AppDir copy on its bundled PostgreSQL; each of the five roles has ticked:"
in_jail "$app/AppRun" leaderctl status --database "$url" | sed 's/^/  /'
server=
for pid in $(jailed); do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
    [[ $exe == */postgres ]] && server=$exe
done
[[ $server == "$jail$app"/usr/lib/postgresql/*/bin/postgres ]] \
    || fail "the demo's server is not the AppDir's own: '${server:-no server found}'"
echo "test-appdir: the server is the AppDir's own: ${server#"$jail"}"
trap - EXIT
stop_console
[[ -z $leftover ]] || { show_log; fail "SIGTERM left $(wc -w <<<"$leftover") process(es) running (killed now)"; }
grep -q "replica: stopped replica=r1" "$log" || { show_log; fail "the console did not stop its replicas on SIGTERM"; }
echo "test-appdir: SIGTERM closed the console and its demo cleanly"
