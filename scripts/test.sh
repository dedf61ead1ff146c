#!/usr/bin/env bash
# The test command: installs what is missing, builds with the ci preset (-Werror), checks the
# formatting, starts PostgreSQL and PgBouncer on loopback, runs every suite (the database suites
# twice: direct and through PgBouncer), cross-builds for Windows and runs the platform test under
# Wine, runs the failover and chaos benchmarks' quick modes, opens the console under Xvfb, builds
# the .deb and the AppDir and proves each, and stops the servers, also on failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/setup-deps.sh
# setup-deps generated de_DE.UTF-8, so a locale test that finds it missing fails instead of
# skipping.
export LEADER_TEST_LOCALES=required
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
cmake --build --preset ci --target format-check

servers=$(mktemp -d /tmp/leader-test-servers.XXXXXX)
export LEADER_TEST_REPORT=$servers/measurements.txt
report() {
    if [[ -s $LEADER_TEST_REPORT ]]; then
        echo "Figures measured by the tests (correctness bounds, not benchmarks):"
        sort "$LEADER_TEST_REPORT" | sed 's/^/  /'
    fi
}
windows=
trap 'report; [[ -z $windows ]] || kill "$windows" 2>/dev/null; scripts/test-servers.sh stop "$servers"; rm -rf "$servers"' EXIT
scripts/test-servers.sh start "$servers"
# shellcheck source=/dev/null
source "$servers/env"

ctest --preset ci -j "$(nproc)" --timeout 900 "$@"
# The failover benchmark's quick mode: real leader-replica processes, every fault, a few trials.
# Its figures are printed, not judged; it fails only on correctness (the auditor, a stale claim
# accepted, a takeover that never came).
if (($# == 0)); then
    scripts/bench-failover.sh --quick --results "$servers/bench"
    # The Windows cross build (MinGW-w64): engine/ and tools/ compiled for Windows, and the
    # platform seam's test run under Wine in a Wine prefix of its own. It shares nothing with the
    # chaos soak, which mostly waits on its faults, so it runs beside it: about a minute saved.
    scripts/windows-cross.sh >"$servers/windows-cross.log" 2>&1 &
    windows=$!
    # The chaos soak's quick mode (about five minutes): its own servers, restarted, crashed and
    # failed over under real replicas and the workload; fails only on correctness.
    scripts/bench-chaos.sh --quick --results "$servers/bench"
    windows_status=0
    wait "$windows" || windows_status=$?
    windows=
    cat "$servers/windows-cross.log"
    ((windows_status == 0)) || { echo "test: the Windows cross build failed" >&2; exit 1; }
    # The console as a person sees it: a real X window (xcb under Xvfb, not offscreen) on the
    # embedded demo, with a replica killed, saved by the app's own screenshot option.
    scripts/console-smoke.sh build/ci/app/leader-console "$servers/console"
    # The .deb from this build; installed and run (then removed) where the tests run as root, as
    # in CI, never on a developer's own machine.
    LEADER_DEB_INSTALL_CHECK=$((EUID == 0 ? 1 : 0)) scripts/package-deb.sh build/ci "$servers/deb"
    # The AppDir from this build, run from a copy inside a chroot that has no PostgreSQL and no Qt
    # (root only: chroot and mknod), up to the five roles ticking on its bundled server.
    packaging/appimage/build-appdir.sh build/ci "$servers/appimage"
    if ((EUID == 0)); then
        packaging/appimage/test-appdir.sh "$servers/appimage/LeaderConsole.AppDir" "$servers/appdir-test"
    else
        echo "test: AppDir chroot run skipped: it needs root (CI runs as root)"
    fi
fi
