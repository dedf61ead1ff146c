#!/usr/bin/env bash
# The Windows cross build: the windows-cross preset compiles engine/ and tools/ for 64-bit Windows
# with MinGW-w64 (-Werror) against libpq's headers (Debian has no Windows libpq to link them
# with), links the platform seam's test, tests/platform/tst_platform.exe, and this runs it under
# Wine in a Wine prefix of its own, made for the run and removed after it, with no display.
# Fails on a compile error or warning, or on a failed case. Prints how long each part took.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Debian runs Wine as /usr/lib/wine/wine64: it puts no wine64 on PATH.
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver
for tool in x86_64-w64-mingw32-g++-posix "$wine" "$wineserver"; do
    if ! command -v "$tool" >/dev/null; then
        echo "windows-cross: $tool is missing: run scripts/setup-deps.sh" >&2
        exit 1
    fi
done

start=$SECONDS
cmake --preset windows-cross >/dev/null
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
echo "windows-cross: build $((built - start)) s, Wine prefix $((booted - built)) s," \
    "platform test $((SECONDS - booted)) s"
if ((status != 0)); then
    echo "windows-cross: the platform test failed under Wine (exit $status)" >&2
    exit "$status"
fi
