#!/usr/bin/env bash
# Opens leader-console on its embedded demo in a real X window under Xvfb, kills the billing leader
# through the drill, and saves a screenshot: fails if the window does not come up, the demo does
# not start, or the picture is blank.   scripts/console-smoke.sh BINARY WORKDIR
set -euo pipefail
binary=$1
work=$2
mkdir -p "$work"
# As root the demo's server runs as another account, which must reach the cluster directory.
chmod 755 "$work"
"$binary" --version
shot=$work/console-smoke.png
xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$binary" --demo-dir "$work/demo-cluster" --drill-after 10 \
    --screenshot "$shot" --screenshot-after 30 >"$work/console.log" 2>&1 || {
    echo "console-smoke: leader-console failed under Xvfb; its log:" >&2
    tail -n 40 "$work/console.log" >&2
    exit 1
}
size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
if ((size < 20000)); then
    echo "console-smoke: no screenshot, or a blank one ($size bytes): $shot" >&2
    exit 1
fi
grep -q '"started"\|replica: started' "$work/console.log" || {
    echo "console-smoke: the demo's replicas never started; its log:" >&2
    tail -n 40 "$work/console.log" >&2
    exit 1
}
echo "console-smoke: window up under Xvfb, demo running, screenshot $shot ($size bytes)"
