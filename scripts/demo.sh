#!/usr/bin/env bash
# The demo command: installs what is missing, builds, and starts the embedded demo.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/setup-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/tools/leaderctl/leaderctl demo "$@"
