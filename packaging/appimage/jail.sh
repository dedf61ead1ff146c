# shellcheck shell=bash
# The chroot test-appdir.sh and test-appimage.sh run the console in (sourced, as root): a directory
# holding only what a desktop without PostgreSQL or Qt has — the base libraries the AppDir leaves to
# the host (glibc, libstdc++, X11, fontconfig, ...), a busybox for AppRun's shell, the account files,
# fonts, time zones, /dev/null, /dev/zero, /dev/urandom and /proc — and the steps both tests take
# with the embedded demo in it.
# The caller sets fail() and test_name, then calls jail_create WORK, puts the package below
# $jail, calls jail_add_host_libraries with the ELF files it needs, then jail_close.

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
# The FUSE mounts the runtime made inside the jail, from /proc/mounts.
jail_mounts() {
    awk -v prefix="$jail/" 'index($2, prefix) == 1 && $3 ~ /^fuse/ {print $2}' /proc/mounts
}

jail_create() {
    mkdir -p "$1"
    work=$(realpath "$1")
    jail=$work/jail
    busybox=$(command -v busybox) || fail "busybox is missing: run scripts/setup-deps.sh"
    # What a previous run left: its processes, its mounts.
    kill_jailed
    jail_mounts | xargs -r -n 1 umount -l 2>/dev/null || true
    umount -l "$jail/proc" 2>/dev/null || true
    rm -rf "$jail"
    mkdir -p "$jail"/{bin,dev,etc,proc,tmp,root,work,lib,usr/lib,usr/share} "$jail/opt/moved here"
    chmod 755 "$work" "$jail" "$jail"/{work,lib,usr,usr/lib,usr/share}
    chmod 1777 "$jail/tmp"
}

# The host libraries the ELF files below the given directories still resolve outside them, and
# the loader, copied to the same paths in the jail.
declare -A jail_copied=()
jail_add_host_libraries() {
    local file magic library
    local -a elfs=()
    while IFS= read -r -d '' file; do
        LC_ALL=C read -r -N 4 magic <"$file" || true
        [[ $magic == $'\x7fELF' ]] && elfs+=("$file")
    done < <(find "$@" -type f -print0)
    # One ldd for all: it prints each file's name, then the libraries it resolves.
    while read -r library; do
        [[ -n ${jail_copied[$library]:-} ]] && continue
        jail_copied[$library]=1
        cp --parents -L "$library" "$jail"
    done < <(ldd "${elfs[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// && index($3, "'"$jail"'") != 1 {print $3}
                                                 $1 ~ /^\/.*ld-linux/ {print $1}' | sort -u)
}

jail_close() {
    cp "$busybox" "$jail/bin/busybox"
    local applet absent
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
    mkdir -m 700 "$jail/tmp/runtime"
    jail_run=(chroot "$jail" /bin/sh -c 'cd /work && exec "$@"' sh
        env -i PATH=/bin HOME=/root XDG_RUNTIME_DIR=/tmp/runtime QT_QPA_PLATFORM=offscreen)
}
in_jail() {
    "${jail_run[@]}" "$@"
}

# demo_start LOG COMMAND...: starts the console's embedded demo in the jail (COMMAND runs the
# console with --demo-dir appended); $console is the process started. chroot, sh and env exec the
# next, so it is COMMAND's own process.
demo_start() {
    demo_log=$1
    shift
    rm -rf "$jail/work/demo-cluster"
    demo_launched=$EPOCHREALTIME
    "${jail_run[@]}" "$@" --demo-dir /work/demo-cluster >"$demo_log" 2>&1 &
    console=$!
    trap demo_stop EXIT
}
show_log() {
    echo "$test_name: the console's log:" >&2
    tail -n 30 "$demo_log" >&2
}
# Seconds since demo_start, to the millisecond.
demo_elapsed() {
    awk -v now="$EPOCHREALTIME" -v then="$demo_launched" 'BEGIN {printf "%.1f", now - then}'
}
# Waits for the demo's cluster and sets $url; $demo_ready is the seconds since demo_start.
demo_wait_ready() {
    demo_deadline=$((SECONDS + 120))
    url=
    until [[ -n $url ]]; do
        kill -0 "$console" 2>/dev/null || { show_log; fail "leader-console exited before the demo started"; }
        if grep -q "ERROR demo: cannot start" "$demo_log"; then
            show_log
            fail "the embedded demo did not start: $(grep -m 1 -o 'error=.*' "$demo_log")"
        fi
        ((SECONDS < demo_deadline)) || { show_log; fail "the demo's cluster did not come up within 120 s"; }
        url=$(sed -n 's/.*demo: cluster ready url=\([^ ]*\).*/\1/p' "$demo_log" | head -n 1)
        [[ -n $url ]] || sleep 0.1
    done
    demo_ready=$(demo_elapsed)
}
# demo_wait_ticks APPDIR [first]: waits until each of the five roles has been led through a tick
# (with "first": until one role is led, the demo's first takeover), polled with APPDIR's (a path in
# the jail) leaderctl status --json; $demo_first_led is the seconds from demo_start to the first
# poll that showed a role led.
demo_wait_ticks() {
    local appdir=$1 until=${2:-all} roles='' polls=0
    demo_first_led=
    # "billing led "2026-...Z"" (role, state, end of its last tick or null), from leaderctl status.
    # The cluster is new, so a finished tick on record is one of this run's.
    until [[ $(grep -c ' "' <<<"$roles") == 5 ]]; do
        ((polls++ == 0)) || sleep 0.3
        ((SECONDS < demo_deadline)) || { show_log; fail "not every role finished a tick within 120 s: $(tr '\n' ';' <<<"$roles")"; }
        roles=$(in_jail "$appdir/usr/bin/leaderctl" status --json --database "$url" 2>/dev/null \
            | grep -o '"role":"[a-z_]*","state":"[a-z ]*"[^}]*"last_tick_ended_at":\("[^"]*"\|null\)' \
            | sed 's/"role":"\([a-z_]*\)","state":"\([a-z ]*\)".*"last_tick_ended_at":\(.*\)/\1 \2 \3/')
        [[ -z $demo_first_led && $roles == *" led "* ]] && demo_first_led=$(demo_elapsed)
        [[ $until == first && -n $demo_first_led ]] && break
    done
    in_jail "$appdir/usr/bin/leaderctl" status --database "$url" | sed 's/^/  /'
}
# The running demo server's executable, as the host sees it.
demo_server() {
    local pid exe server=
    for pid in $(jailed); do
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        [[ $exe == */postgres ]] && server=$exe
    done
    echo "$server"
}
# SIGTERM to the console (or the runtime standing before it), up to 30 s for it to end and 10 s
# more for what it started; what is left running then is in $leftover, and killed.
demo_stop() {
    trap - EXIT
    if kill -0 "$console" 2>/dev/null; then
        kill -TERM "$console"
        for _ in $(seq 150); do
            kill -0 "$console" 2>/dev/null || break
            sleep 0.2
        done
    fi
    # The runtime's FUSE daemon unmounts after the console: a moment more for it.
    for _ in $(seq 50); do
        kill -0 "$console" 2>/dev/null || [[ -n $(jailed) ]] || break
        sleep 0.2
    done
    kill -0 "$console" 2>/dev/null && leftover="the console itself" || leftover=$(jailed)
    kill_jailed
    wait "$console" 2>/dev/null || true
    trap 'kill_jailed; umount -l "$jail/proc"' EXIT
}
demo_check_stopped() {
    [[ -z $leftover ]] || { show_log; fail "SIGTERM left $(wc -w <<<"$leftover") process(es) running (killed now)"; }
    grep -q "replica: stopped replica=r1" "$demo_log" || { show_log; fail "the console did not stop its replicas on SIGTERM"; }
}
