#!/usr/bin/env bash
# Proves an AppDir on a machine that has neither PostgreSQL nor Qt: copies it into a chroot made
# for the test (jail.sh) that holds only the base libraries the AppDir leaves to the host, a busybox
# for AppRun's shell, and the account files; then, inside that chroot, runs `AppRun --version`,
# `AppRun leaderctl --version` and the console's embedded demo offscreen until each of the five
# roles has been led through a tick, and checks that the server running is the bundled one and that
# SIGTERM closes it all.
# Checked once that it can fail: the same AppDir without usr/lib/postgresql fails here in seconds
# ("PostgreSQL server binaries not found"), so the chroot really holds no other server.
#   packaging/appimage/test-appdir.sh APPDIR WORKDIR          (as root: chroot and mknod)
set -euo pipefail
appdir=$(realpath "$1")
test_name=test-appdir
fail() {
    echo "$test_name: $*" >&2
    exit 1
}
((EUID == 0)) || fail "needs root (chroot, mknod); CI runs it as root"
[[ -x $appdir/AppRun ]] || fail "$appdir is not an AppDir (no AppRun): build it with packaging/appimage/build-appdir.sh"
# shellcheck source=packaging/appimage/jail.sh
source "$(dirname "${BASH_SOURCE[0]}")/jail.sh"

jail_create "$2"
# A copy in a new directory, with a space in its path: nothing may depend on where it was built.
app="/opt/moved here/Leader Console.AppDir"
cp -a "$appdir" "$jail$app"
jail_add_host_libraries "$jail$app/usr/bin" "$jail$app/usr/lib" "$jail$app/usr/plugins"
ldd "$jail$app/usr/bin/leader-console" | grep -q "not found" && fail "the bundle misses a library: $(ldd "$jail$app/usr/bin/leader-console" | grep 'not found' | head -n 1)"
jail_close

version=$(in_jail "$app/AppRun" --version) || fail "AppRun --version failed in the chroot"
echo "test-appdir: in a chroot without PostgreSQL or Qt: $version"
version=$(in_jail "$app/AppRun" leaderctl --version) || fail "AppRun leaderctl --version failed"
echo "test-appdir: $version"

demo_start "$work/console.log" "$app/AppRun"
demo_wait_ready
demo_wait_ticks "$app"
echo "test-appdir: the embedded demo runs from the AppDir copy on its bundled PostgreSQL; each of the five roles has ticked"
server=$(demo_server)
[[ $server == "$jail$app"/usr/lib/postgresql/*/bin/postgres ]] \
    || fail "the demo's server is not the AppDir's own: '${server:-no server found}'"
echo "test-appdir: the server is the AppDir's own: ${server#"$jail"}"
demo_stop
demo_check_stopped
echo "test-appdir: SIGTERM closed the console and its demo cleanly"
echo "test-appdir: start of the demo from the AppDir: cluster ready after ${demo_ready} s, first takeover polled after ${demo_first_led} s"
