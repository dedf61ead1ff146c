#!/usr/bin/env bash
# Installs what building, testing and running Leader Console needs on Debian 12 or Ubuntu, and
# only what is missing. Uses sudo when not run as root.
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config git ca-certificates clang-format
    libpq-dev postgresql postgresql-client pgbouncer
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqt6sql6-psql qtkeychain-qt6-dev libgl-dev
    libcpp-httplib-dev
    qt6-gtk-platformtheme qt6-wayland
    xvfb xauth fonts-dejavu-core
    patchelf desktop-file-utils appstream busybox-static help2man
    faketime
    spin gcc
)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
    exit 0
fi

sudo=()
if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "setup-deps: run as root or install sudo" >&2; exit 1; }
    sudo=(sudo)
fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
# policy-rc.d keeps the packages' own postgresql and pgbouncer services from starting: the tests
# and the demo start private servers of their own.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${sudo[@]}" chmod +x /usr/sbin/policy-rc.d
    trap '"${sudo[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-deps: done"
