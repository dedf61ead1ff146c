#!/usr/bin/env bash
# Builds Leader_Console-<version>-x86_64.AppImage from a build tree, with the project's own runtime:
#   packaging/appimage/build-appimage.sh [BUILD_DIR] [OUT_DIR]
# (defaults: build/release and BUILD_DIR/appimage). It builds the AppDir (build-appdir.sh) and the
# runtime (runtime/build-runtime.sh), squashes the AppDir with zstd, reproducibly (every file owned
# by root, every time the commit's, or SOURCE_DATE_EPOCH), and writes the runtime followed by the
# squashfs image; then the .sha256 beside it and, with zsyncmake, the .zsync for delta updates.
#   LEADER_APPIMAGE_UPDATE_URL  where the .zsync will be published: embedded as "zsync|<url>" in the
#                               runtime's .upd_info section (AppImage specification), so updaters
#                               (AppImageUpdate) find it
#   LEADER_APPIMAGE_APPDIR      an AppDir already built: packed as it is
#   LEADER_APPIMAGE_ZSTD_LEVEL  zstd's level (default 15: measured in packaging/README.md)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath "${1:-$root/build/release}")
out=${2:-$build/appimage}
fail() {
    echo "build-appimage: $*" >&2
    exit 1
}
for tool in mksquashfs readelf; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup-deps.sh"
done
mkdir -p "$out"
out=$(realpath "$out")

appdir=${LEADER_APPIMAGE_APPDIR:-}
if [[ -z $appdir ]]; then
    "$root/packaging/appimage/build-appdir.sh" "$build" "$out"
    appdir=$out/LeaderConsole.AppDir
fi
[[ -x $appdir/AppRun ]] || fail "$appdir is not an AppDir (no AppRun)"
version=$("$appdir/usr/bin/leader-console" --version | awk '{print $NF}')
image=$out/Leader_Console-$version-x86_64.AppImage

runtime=$out/runtime
# glibc's warning about dlopen in a static program concerns libfuse's module loader, which the
# runtime never reaches.
"$root/packaging/appimage/runtime/build-runtime.sh" "$runtime" 2> >(grep -v "dlopen\|fuse_get_module" >&2)
if [[ -n ${LEADER_APPIMAGE_UPDATE_URL:-} ]]; then
    info="zsync|$LEADER_APPIMAGE_UPDATE_URL"
    ((${#info} < 1024)) || fail "the update information is longer than .upd_info's 1024 bytes"
    # The section's file offset, from its row: [Nr] Name Type Address Off Size ...
    section=$(readelf -S -W "$runtime" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".upd_info" {print $4}')
    [[ -n $section ]] || fail "the runtime has no .upd_info section"
    printf '%s' "$info" | dd of="$runtime" bs=1 seek=$((16#$section)) conv=notrunc status=none
fi

epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
squashfs=$out/payload.squashfs
rm -f "$squashfs"
# -all-root and the fixed times make the image the same bytes for the same AppDir; mksquashfs
# sorts each directory itself. All cores compress; level 15 keeps CI's packing step short.
mksquashfs "$appdir" "$squashfs" -quiet -no-progress -noappend -all-root -no-xattrs \
    -comp zstd -Xcompression-level "${LEADER_APPIMAGE_ZSTD_LEVEL:-15}" \
    -mkfs-time "$epoch" -all-time "$epoch" -processors "$(nproc)" >/dev/null
cat "$runtime" "$squashfs" >"$image.tmp"
chmod 755 "$image.tmp"
mv "$image.tmp" "$image"
rm -f "$squashfs" "$runtime"

name=$(basename "$image")
(cd "$out" && sha256sum "$name" >"$name.sha256")
if command -v zsyncmake >/dev/null; then
    # The .zsync names the AppImage relative to itself: both are published side by side.
    (cd "$out" && zsyncmake -u "$name" -o "$name.zsync" "$name" >/dev/null 2>&1) \
        || fail "zsyncmake failed on $image"
else
    echo "build-appimage: zsyncmake is not installed (Debian: zsync): no .zsync written"
fi
echo "build-appimage: $image ($(du -h "$image" | cut -f1), squashfs at $("$image" --appimage-offset), sha256 $(cut -c1-16 "$image.sha256")...)"
