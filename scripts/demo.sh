#!/usr/bin/env bash
# The demo command: installs what is missing, builds, and opens leader-console on its embedded demo
# (a private PostgreSQL cluster, three replicas and a workload). Arguments go to leader-console.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/setup-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"

if [[ -z ${DISPLAY:-} && -z ${WAYLAND_DISPLAY:-} && -z ${QT_QPA_PLATFORM:-} ]]; then
    echo "demo: no display to open the window on; run this from a desktop session, over ssh -X," \
         "or as: xvfb-run -a bash scripts/demo.sh --screenshot demo.png --screenshot-after 60" >&2
    exit 1
fi
exec build/release/app/leader-console "$@"
