#!/usr/bin/env bash
# The Windows cross build: the windows-cross preset compiles engine/ and tools/ for 64-bit Windows
# with MinGW-w64 (-Werror) and links the tools against PostgreSQL's own Windows libpq.dll (the npm
# package @embedded-postgres/windows-x64, pinned in scripts/postgres-pins.txt and fetched by
# scripts/fetch-postgres.sh; cmake/windows-libpq.cmake makes its import library). It runs the
# platform seam's test, tests/platform/tst_platform.exe, under Wine in a Wine prefix of its own,
# made for the run and removed after it, with no display; then scripts/windows-tools.sh runs
# leaderctl.exe and leader-replica.exe in that prefix against a Linux PostgreSQL and builds,
# installs and uninstalls their MSI. Fails on a compile error or warning, a failed case or check.
# Prints how long each part took. Exit 3: not run, the npm registry being unreachable.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Debian runs Wine as /usr/lib/wine/wine64: it puts no wine64 on PATH.
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver
for tool in x86_64-w64-mingw32-g++-posix gendef "$wine" "$wineserver"; do
    if ! command -v "$tool" >/dev/null; then
        echo "windows-cross: $tool is missing: run scripts/setup-deps.sh" >&2
        exit 1
    fi
done

# MinGW-w64's GCC 12 runs a thread_local's destructor after freeing its storage (emulated TLS):
# code that runs on Windows keeps pointers and flags in thread_locals, never objects
# (engine/core/scheduler/stepguard.cpp).
if grep -rnE --include='*.cpp' --include='*.h' \
    '^\s*(static\s+)?thread_local\s+(const\s+)?[A-Za-z_:<>, ]+\s+[a-zA-Z_]+\s*[;{=(]' \
    engine tools | grep -vE 'thread_local\s+(const\s+)?(bool|int|unsigned|std::u?int[0-9]+_t|std::size_t|double)\s'; then
    echo "windows-cross: a thread_local object above (MinGW would destroy it after its storage):" \
        "keep a pointer or a flag there instead" >&2
    exit 1
fi

start=$SECONDS
fetch_status=0
pg=$(scripts/fetch-postgres.sh @embedded-postgres/windows-x64 \
    "$(awk '$1 == "@embedded-postgres/windows-x64" { print $2 }' scripts/postgres-pins.txt | tail -n 1)") ||
    fetch_status=$?
if ((fetch_status == 3)); then
    # Without the registry there is no Windows libpq to link against: nothing here was tried.
    echo "windows-cross: not run: PostgreSQL's Windows libpq.dll could not be fetched" >&2
    exit 3
fi
((fetch_status == 0)) || exit "$fetch_status"
fetched=$SECONDS
cmake --preset windows-cross -DLEADER_WINDOWS_PG_BINDIR="$pg/bin" >/dev/null
cmake --build --preset windows-cross -j "$(nproc)"
built=$SECONDS

work=$(mktemp -d /tmp/leader-wine.XXXXXX)
export WINEPREFIX=$work/prefix
# No debug channels; no Mono or Gecko (their installers would ask, in a window); no display, so
# nothing tries to open one.
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
cleanup() {
    # The prefix's wineserver lingers a few seconds after its last program: end it first.
    "$wineserver" -k 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The prefix's first-run setup, on its own so that its time is not the test's.
if ! "$wine" wineboot --init >"$work/wineboot.log" 2>&1; then
    cat "$work/wineboot.log" >&2
    echo "windows-cross: wineboot failed to set up $WINEPREFIX" >&2
    exit 1
fi
booted=$SECONDS

status=0
timeout 600 "$wine" build/windows-cross/tests/platform/tst_platform.exe || status=$?
tested=$SECONDS
echo "windows-cross: PostgreSQL's Windows binaries $((fetched - start)) s, build" \
    "$((built - fetched)) s, Wine prefix $((booted - built)) s, platform test $((tested - booted)) s"
if ((status != 0)); then
    echo "windows-cross: the platform test failed under Wine (exit $status)" >&2
    exit "$status"
fi
timeout 600 scripts/windows-tools.sh
echo "windows-cross: the tools under Wine and the MSI $((SECONDS - tested)) s; the whole Windows" \
    "step $((SECONDS - start)) s"
