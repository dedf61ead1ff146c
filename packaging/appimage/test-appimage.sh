#!/usr/bin/env bash
# Proves the AppImage with tools the project did not write, then runs it where there is neither
# PostgreSQL nor Qt:
# 1. libappimage (Debian's libappimage-dev, the AppImage project's reader; check/check-appimage.c)
#    finds type 2, the payload where the runtime says, the desktop entry and the icons, and
#    extracts the desktop entry, which desktop-file-validate accepts; unsquashfs -o OFFSET -l lists
#    the image.
# 2. In the chroot of jail.sh (the AppImage under a path with a space in it): without /dev/fuse the
#    runtime says in one line that FUSE is missing and how to run instead, and exits 69.
# 3. --appimage-extract-and-run: --version, leaderctl --version, psql --version, and the console's
#    embedded demo offscreen until its first takeover, on the server extracted with it; SIGTERM
#    closes it all and the extracted directory is deleted.
# 4. Where FUSE works (as root; Debian's squashfuse is asked first, so that a runtime that cannot
#    mount fails here instead of passing for a machine without FUSE): the same through the mount, which must be gone once the
#    console has closed; then the demo again, the console killed with SIGKILL: the mount must be
#    gone and the runtime's FUSE daemon ended.
# Prints the seconds from launch to the demo's cluster and to its first takeover seen by a poll.
#   packaging/appimage/test-appimage.sh APPIMAGE WORKDIR          (as root: chroot, mknod, mount)
set -euo pipefail
image=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
test_name=test-appimage
fail() {
    echo "$test_name: $*" >&2
    exit 1
}
((EUID == 0)) || fail "needs root (chroot, mknod, mount); CI runs it as root"
[[ -x $image ]] || fail "$image is not an executable file: build it with packaging/appimage/build-appimage.sh"
# shellcheck source=packaging/appimage/jail.sh
source "$here/jail.sh"
# shellcheck source=packaging/appimage/fuseprobe.sh
source "$here/fuseprobe.sh"
mkdir -p "$2"
tools=$(realpath "$2")/tools
rm -rf "$tools"
mkdir -p "$tools"

offset=$("$image" --appimage-offset) || fail "--appimage-offset failed"
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror "$here/check/check-appimage.c" -o "$tools/check-appimage" -lappimage \
    || fail "cannot build check-appimage: libappimage-dev missing? run scripts/setup-deps.sh"
"$tools/check-appimage" "$image" "$offset" "$tools/entry.desktop" | grep -v '^Extracting' \
    || fail "libappimage rejects $image"
desktop-file-validate "$tools/entry.desktop" || fail "the desktop entry libappimage extracted is not valid"
echo "$test_name: desktop-file-validate accepts the desktop entry libappimage extracted"
unsquashfs -o "$offset" -l "$image" >"$tools/listing" || fail "unsquashfs -o $offset cannot read $image"
for path in AppRun com.hardcount.LeaderConsole.desktop .DirIcon usr/bin/leader-console usr/bin/leaderctl; do
    grep -qx "squashfs-root/$path" "$tools/listing" || fail "unsquashfs does not list $path"
done
echo "$test_name: unsquashfs -o $offset lists $(wc -l <"$tools/listing") paths, AppRun and the tools among them"

jail_create "$2"
app="/opt/moved here/Leader Console.AppImage"
cp "$image" "$jail$app"
# The host libraries the bundle resolves outside itself, found in a copy unsquashfs extracts.
unsquashfs -q -o "$offset" -d "$tools/extracted" "$image" >/dev/null
jail_add_host_libraries "$tools/extracted/usr/bin" "$tools/extracted/usr/lib" "$tools/extracted/usr/plugins"
rm -rf "$tools/extracted"
jail_close

# No /dev/fuse in the jail yet: the plain run must say so and exit 69, extracting nothing.
status=0
message=$(in_jail "$app" --version 2>&1) || status=$?
((status == 69)) || fail "without /dev/fuse the AppImage exited $status, not 69: $message"
[[ $(wc -l <<<"$message") == 1 && $message == *FUSE*--appimage-extract-and-run* ]] \
    || fail "without /dev/fuse the AppImage does not say in one line how to run instead: $message"
echo "$test_name: without /dev/fuse: $message"

figures=()
# run_demo MODE COMMAND...: the demo through the runtime, until each role ticked; then SIGTERM.
run_demo() {
    local mode=$1 appdir
    shift
    demo_start "$work/console-$mode.log" "$@"
    demo_wait_ready
    if [[ $mode == extract ]]; then
        appdir=$(cd "$jail" && ls -d tmp/appimage_extracted_*)
    else
        appdir=$(jail_mounts)
        appdir=${appdir#"$jail/"}
    fi
    [[ -n $appdir && $appdir != *$'\n'* ]] || fail "$mode: no single AppDir for the running console: '$appdir'"
    appdir=/$appdir
    demo_wait_ticks "$appdir" first
    server=$(demo_server)
    [[ $server == "$jail$appdir"/usr/lib/postgresql/*/bin/postgres ]] \
        || fail "$mode: the demo's server is not the AppImage's own: '${server:-no server found}'"
    echo "$test_name: $mode: the demo's first takeover, on the AppImage's own server ${server#"$jail"}"
    figures+=("$mode: cluster ready after ${demo_ready} s, first takeover polled after ${demo_first_led} s")
    demo_stop
    demo_check_stopped
    [[ -z $(jail_mounts) ]] || fail "$mode: the FUSE mount is still there after the console closed: $(jail_mounts)"
    [[ ! -e $jail$appdir ]] || fail "$mode: $appdir is left behind after the console closed"
    echo "$test_name: $mode: SIGTERM closed the console and its demo; $appdir is gone"
}

for tool in --version "leaderctl --version" "psql --version"; do
    # shellcheck disable=SC2086
    version=$(in_jail "$app" --appimage-extract-and-run $tool) || fail "--appimage-extract-and-run $tool failed"
    echo "$test_name: extract-and-run: $tool: $version"
done
run_demo extract "$app" --appimage-extract-and-run
[[ -z $(cd "$jail/tmp" && ls -d appimage_extracted_* 2>/dev/null) ]] || fail "an extracted copy is left in the jail's /tmp"

if fuse_probe "$tools/fuse-probe"; then
    mknod -m 666 "$jail/dev/fuse" c 10 229
    for tool in --version "leaderctl --version" "psql --version"; do
        # shellcheck disable=SC2086
        version=$(in_jail "$app" $tool) || fail "through FUSE: $tool failed"
        echo "$test_name: fuse: $tool: $version"
    done
    run_demo fuse "$app"

    # SIGKILL: the console (the runtime exec'd AppRun, which exec'd it) ends without a word; the
    # daemon sees the keepalive pipe's last reader go and unmounts.
    demo_start "$work/console-kill.log" "$app"
    demo_wait_ready
    [[ -n $(jail_mounts) ]] || fail "fuse: no mount while the console runs"
    kill -KILL "$console"
    wait "$console" 2>/dev/null || true
    for _ in $(seq 50); do
        [[ -n $(jail_mounts) ]] || break
        sleep 0.2
    done
    [[ -z $(jail_mounts) ]] || fail "fuse: the mount is still there 10 s after SIGKILL of the console: $(jail_mounts)"
    # What the console started outlives it (replicas, the server); the daemon must not.
    daemon=
    for pid in $(jailed); do
        [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$jail$app" ]] && daemon=$pid
    done
    [[ -z $daemon ]] || fail "fuse: the runtime's FUSE daemon ($daemon) still runs after the unmount"
    kill_jailed
    trap 'kill_jailed; umount -l "$jail/proc"' EXIT
    echo "$test_name: fuse: after SIGKILL of the console the mount is gone and the daemon ended"
else
    echo "$test_name: FUSE path not shown: squashfuse cannot mount here either ($fuse_probe_reason)"
fi
echo "$test_name: start of the demo from the AppImage ($(du -h "$image" | cut -f1)):"
printf '  %s\n' "${figures[@]}"
