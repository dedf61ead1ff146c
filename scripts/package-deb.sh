#!/usr/bin/env bash
# Builds the .deb from a build tree with CPack and proves it: dpkg -i, each tool answers --version
# from /usr/bin, dpkg -r.   scripts/package-deb.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
out=${2:-$build/packages}
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
deb=$(ls -t "$out"/leader-console_*.deb | head -n 1)
echo "package-deb: built $deb"
if [[ ${LEADER_DEB_INSTALL_CHECK:-0} == 1 ]]; then
    dpkg -i "$deb" >/dev/null
    trap 'dpkg -r leader-console >/dev/null' EXIT
    for tool in leaderctl leader-replica leader-console; do
        version=$("/usr/bin/$tool" --version)
        echo "package-deb: installed /usr/bin/$tool: $version"
    done
    # The production replica: fault injection is the benchmarks' and the tests', never a package's.
    if [[ $(/usr/bin/leader-replica --help) == *--control* ]]; then
        echo "package-deb: /usr/bin/leader-replica offers --control: a fault build was packaged" >&2
        exit 1
    fi
    for file in /usr/share/applications/com.hardcount.LeaderConsole.desktop \
        /usr/share/metainfo/com.hardcount.LeaderConsole.metainfo.xml \
        /usr/share/icons/hicolor/48x48/apps/leader-console.png \
        /usr/share/man/man1/leader-console.1.gz /usr/share/man/man1/leader-replica.1.gz \
        /usr/share/man/man1/leaderctl.1.gz; do
        [[ -f $file ]] || { echo "package-deb: $file is missing from the package" >&2; exit 1; }
    done
fi
