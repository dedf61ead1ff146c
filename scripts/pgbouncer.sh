#!/usr/bin/env bash
# Prints the path of the PgBouncer that the tests and benchmarks run, and builds it first when it
# is not built yet (about 30 s on two cores).
#
# Why not Debian 12's package: PgBouncer 1.18 mishandles cancel requests, and the suites send many
# (a severed replica's statement deadline cancels, then the link heals). It exits with
# "FATAL ... disconnect_client(): bad client state: 0" or "server_proto: server in bad state: 11",
# or hands a new client's login a freed client's server ("bouncer config error"): upstream issues
# 801, 822, 847 and 904, fixed across 1.19 to 1.20.1. Debian 12 and its backports have only 1.18,
# so this builds Debian 13's source package (upstream's release tarball and Debian's patches).
# docs/runbook.md tells operators on 1.18 the same.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

version=1.24.1
revision=1+deb13u2
orig_sha256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
debian_sha256=2325bcaa2e71919d399b9e5aef5b94ff988fc1f1d296908c3937b682b7be5cbb
mirror=${LEADER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
deps=$root/build/deps
binary=$deps/pgbouncer/bin/pgbouncer

if [[ -x $binary ]]; then
    echo "$binary"
    exit 0
fi
mkdir -p "$deps"
exec 9>"$deps/pgbouncer.lock"
flock 9
if [[ -x $binary ]]; then
    echo "$binary"
    exit 0
fi

work=$(mktemp -d "$deps/pgbouncer-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
fetch() { curl -fsS --retry 3 -o "$work/$2" "$mirror/pool/main/p/pgbouncer/$2"; }
verify() { echo "$1  $work/$2" | sha256sum --check --status; }

orig=pgbouncer_$version.orig.tar.gz
debian=pgbouncer_$version-$revision.debian.tar.xz
# A point release replaces the pinned revision in the pool; then the current one is taken from
# trixie's source index (its checksums, since the pins cannot hold).
if ! fetch "$orig" "$orig" 2>/dev/null || ! fetch "$debian" "$debian" 2>/dev/null; then
    echo "pgbouncer.sh: $version-$revision is gone from $mirror; reading trixie's source index" >&2
    curl -fsS --retry 3 "$mirror/dists/trixie/main/source/Sources.xz" | xz -dc >"$work/Sources"
    stanza=$(awk '/^Package: pgbouncer$/ {p = 1} p && /^$/ {exit} p' "$work/Sources")
    full=$(awk '/^Version: / {print $2}' <<<"$stanza")
    version=${full%%-*}
    revision=${full#*-}
    orig=pgbouncer_$version.orig.tar.gz
    debian=pgbouncer_$version-$revision.debian.tar.xz
    sums=$(awk '/^Checksums-Sha256:/ {p = 1; next} p && /^ / {print $1, $3} p && !/^ / {p = 0}' \
        <<<"$stanza")
    orig_sha256=$(awk -v f="$orig" '$2 == f {print $1}' <<<"$sums")
    debian_sha256=$(awk -v f="$debian" '$2 == f {print $1}' <<<"$sums")
    fetch "$orig" "$orig"
    fetch "$debian" "$debian"
fi
verify "$orig_sha256" "$orig" && verify "$debian_sha256" "$debian" ||
    { echo "pgbouncer.sh: $orig or $debian does not match its SHA-256" >&2; exit 1; }

tar -xzf "$work/$orig" -C "$work"
tar -xJf "$work/$debian" -C "$work"
source_dir=$work/pgbouncer-$version
# Debian's own patches, but for debian-config (its packaged paths).
grep -v -e '^#' -e '^debian-config$' "$work/debian/patches/series" | while read -r patch; do
    [[ -n $patch ]] && patch -d "$source_dir" -p1 -s <"$work/debian/patches/$patch"
done
(
    cd "$source_dir"
    ./configure --prefix="$deps/pgbouncer" --without-cares --without-pam --without-systemd \
        >"$work/configure.log" 2>&1 || { tail -n 20 "$work/configure.log" >&2; exit 1; }
    make -j "$(nproc)" pgbouncer >"$work/make.log" 2>&1 || { tail -n 20 "$work/make.log" >&2; exit 1; }
)
mkdir -p "$deps/pgbouncer/bin"
install -m 0755 "$source_dir/pgbouncer" "$binary.new"
mv "$binary.new" "$binary"
echo "pgbouncer.sh: built PgBouncer $version-$revision in $deps/pgbouncer" >&2
echo "$binary"
