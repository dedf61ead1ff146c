#!/usr/bin/env bash
# Builds the AppDir from a build tree (build-appimage.sh packs it into the .AppImage):
#   packaging/appimage/build-appdir.sh [BUILD_DIR] [OUT_DIR]
# (defaults: build/release and BUILD_DIR/appimage). The AppDir carries the three tools, the Qt
# libraries and plugins they load, libpq, and the PostgreSQL server the embedded demo runs, so it
# needs neither Qt nor PostgreSQL on the machine it lands on; only the base libraries every desktop
# has (glibc, libstdc++, X11/xcb, OpenGL, fontconfig, freetype, GLib) stay the host's, as the
# AppImage project's exclude list advises.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath "${1:-$root/build/release}")
out=${2:-$build/appimage}
appdir=$out/LeaderConsole.AppDir
qtplugins=$(qtpaths6 --query QT_INSTALL_PLUGINS 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/qt6/plugins)

fail() {
    echo "build-appdir: $*" >&2
    exit 1
}
[[ -x $build/app/leader-console ]] || fail "no leader-console in $build: build it first (cmake --preset release && cmake --build --preset release)"
command -v patchelf >/dev/null || fail "patchelf is missing: run scripts/setup-deps.sh"

# The server the demo needs, from LEADER_PG_BINDIR or the newest /usr/lib/postgresql/*/bin.
pgbin=${LEADER_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[[ -x $pgbin/initdb && -x $pgbin/pg_config ]] || fail "no PostgreSQL server binaries (initdb, pg_config) in '${pgbin}': install postgresql or set LEADER_PG_BINDIR"
pgbin=$(realpath "$pgbin")
pgshare=$("$pgbin/pg_config" --sharedir)
pgpkglib=$("$pgbin/pg_config" --pkglibdir)
# Postgres finds its share and library directories relative to its own binary, so the AppDir keeps
# their layout below usr/ as built (Debian: usr/lib/postgresql/15/bin, usr/share/postgresql/15).
for dir in "$pgbin" "$pgshare" "$pgpkglib"; do
    [[ $dir == /usr/* ]] || fail "PostgreSQL's $dir is not below /usr: cannot keep its relative layout in the AppDir"
done

rm -rf "$appdir"
mkdir -p "$appdir/usr/lib" "$appdir/usr/plugins"
cmake --install "$build" --prefix "$appdir/usr" --strip >/dev/null
# The production replica, whatever the build (tools/leader-replica/CMakeLists.txt): fault injection
# (--control, --gate advisory) is the benchmarks' and the tests', never a package's.
if [[ $("$appdir/usr/bin/leader-replica" --help) == *--control* ]]; then
    fail "the installed leader-replica offers --control: a fault build, not the production one"
fi

# Base libraries the host provides (https://github.com/AppImageCommunity/pkg2appimage excludelist).
is_host_library() {
    case $1 in
    ld-linux*.so* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
        libresolv.so.* | libutil.so.* | libanl.so.* | libmvec.so.* | libnss_*.so.* | \
        libBrokenLocale.so.* | libthread_db.so.* | libstdc++.so.* | libgcc_s.so.* | \
        libGL.so.* | libGLX.so.* | libGLdispatch.so.* | libOpenGL.so.* | libEGL.so.* | \
        libGLESv2.so.* | libdrm.so.* | libgbm.so.* | libglapi.so.* | \
        libxcb.so.1 | libX11.so.* | libX11-xcb.so.* | libXau.so.* | libXdmcp.so.* | \
        libfontconfig.so.* | libfreetype.so.* | libharfbuzz.so.* | libexpat.so.* | libz.so.* | \
        libcom_err.so.* | libasound.so.* | libgpg-error.so.* | libICE.so.* | libSM.so.* | \
        libuuid.so.* | libthai.so.* | libusb-1.0.so.* | libglib-2.0.so.* | libgobject-2.0.so.* | \
        libgio-2.0.so.* | libgmodule-2.0.so.* | libgthread-2.0.so.*)
        return 0
        ;;
    esac
    return 1
}

declare -A bundled=()
queue=()
# Copies file's shared-library dependencies into usr/lib, and theirs.
collect() {
    queue=("$@")
    while ((${#queue[@]})); do
        local file=${queue[0]}
        queue=("${queue[@]:1}")
        local name arrow path rest
        while read -r name arrow path rest; do
            [[ $arrow == "=>" ]] || continue
            [[ $path == not ]] && fail "$file needs $name, which is not installed here"
            is_host_library "$name" && continue
            [[ -n ${bundled[$name]:-} ]] && continue
            bundled[$name]=1
            cp -L "$path" "$appdir/usr/lib/$name"
            queue+=("$appdir/usr/lib/$name")
        done < <(ldd "$file")
    done
}

# Qt plugins: the platforms (xcb for desktops, offscreen and minimal for headless runs), GLX and
# EGL for xcb, image formats, input methods, the GTK platform theme; the SQLite driver the status
# history on disk is kept with.
plugins=(
    platforms/libqxcb.so platforms/libqoffscreen.so platforms/libqminimal.so
    xcbglintegrations/libqxcb-glx-integration.so xcbglintegrations/libqxcb-egl-integration.so
    platforminputcontexts/libcomposeplatforminputcontextplugin.so
    platforminputcontexts/libibusplatforminputcontextplugin.so
    sqldrivers/libqsqlite.so
)
for format in "$qtplugins"/imageformats/*.so; do
    plugins+=("imageformats/$(basename "$format")")
done
for plugin in "${plugins[@]}"; do
    [[ -f $qtplugins/$plugin ]] || fail "the Qt plugin $plugin is missing from $qtplugins: run scripts/setup-deps.sh"
    mkdir -p "$appdir/usr/plugins/$(dirname "$plugin")"
    cp -L "$qtplugins/$plugin" "$appdir/usr/plugins/$plugin"
done
# The GTK theme follows the desktop's GTK, so GTK and its libraries stay the host's: where there is
# no GTK the plugin does not load and Qt draws its own style.
if [[ -f $qtplugins/platformthemes/libqgtk3.so ]]; then
    mkdir -p "$appdir/usr/plugins/platformthemes"
    cp -L "$qtplugins/platformthemes/libqgtk3.so" "$appdir/usr/plugins/platformthemes/"
fi

# PostgreSQL: the server, initdb and pg_ctl the demo runs, psql to look inside it, the extension
# modules initdb loads (LLVM JIT left out: 100 MB for a feature the demo never needs).
pgroot=$appdir$pgbin
mkdir -p "$pgroot" "$appdir$pgpkglib" "$(dirname "$appdir$pgshare")"
for tool in postgres initdb pg_ctl psql; do
    cp -L "$pgbin/$tool" "$pgroot/$tool"
done
for module in "$pgpkglib"/*.so; do
    [[ $(basename "$module") == llvmjit* ]] && continue
    cp -L "$module" "$appdir$pgpkglib/"
done
cp -a "$pgshare" "$appdir$pgshare"

plugin_files=()
for plugin in "${plugins[@]}"; do
    plugin_files+=("$appdir/usr/plugins/$plugin")
done
collect "$appdir"/usr/bin/leader-console "$appdir"/usr/bin/leader-replica "$appdir"/usr/bin/leaderctl \
    "${plugin_files[@]}" "$pgroot"/* "$appdir$pgpkglib"/*.so

# Relative search paths: the AppDir works wherever it is copied or mounted.
pgdepth=$(realpath --relative-to="$pgbin" /usr/lib)
set_rpath() {
    patchelf --force-rpath --set-rpath "$1" "$2"
}
for file in "$appdir"/usr/bin/leader-console "$appdir"/usr/bin/leader-replica "$appdir"/usr/bin/leaderctl; do
    set_rpath '$ORIGIN/../lib' "$file"
done
for file in "$appdir"/usr/lib/*.so*; do
    set_rpath '$ORIGIN' "$file"
done
for file in "$appdir"/usr/plugins/*/*.so; do
    set_rpath '$ORIGIN/../../lib' "$file"
done
for file in "$pgroot"/* "$appdir$pgpkglib"/*.so; do
    set_rpath "\$ORIGIN/$pgdepth" "$file"
done

cat >"$appdir/usr/bin/qt.conf" <<'CONF'
[Paths]
Prefix = ..
Libraries = lib
Plugins = plugins
CONF
install -m 755 "$root/packaging/appimage/AppRun" "$appdir/AppRun"
cp "$root/resources/com.hardcount.LeaderConsole.desktop" "$appdir/"
cp "$root/resources/icons/hicolor/256x256/apps/leader-console.png" "$appdir/leader-console.png"
ln -sf leader-console.png "$appdir/.DirIcon"

if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$appdir/com.hardcount.LeaderConsole.desktop"
else
    echo "build-appdir: desktop-file-validate not installed: desktop entry not validated"
fi
if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net --pedantic \
        "$appdir/usr/share/metainfo/com.hardcount.LeaderConsole.metainfo.xml" >/dev/null \
        || fail "appstreamcli rejects the metainfo: run appstreamcli validate on resources/com.hardcount.LeaderConsole.metainfo.xml"
else
    echo "build-appdir: appstreamcli not installed: metainfo not validated"
fi

version=$("$appdir/usr/bin/leader-console" --version | awk '{print $NF}')
echo "build-appdir: $appdir ($(du -sh "$appdir" | cut -f1), ${#bundled[@]} libraries, PostgreSQL $("$pgbin/pg_config" --version | awk '{print $2}'), leader-console $version)"
# glibc and libstdc++ stay the host's: say which the AppDir needs at least.
newest() {
    find "$appdir/usr" -type f \( -name '*.so*' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null \
        | grep -o "$1[0-9.]*" | sort -uV | tail -n 1
}
echo "build-appdir: runs where the host has $(newest GLIBC_) and $(newest GLIBCXX_) (glibc and libstdc++ are not bundled)"
echo "build-appdir: the AppDir is ready; packaging/appimage/build-appimage.sh packs it into the AppImage"
