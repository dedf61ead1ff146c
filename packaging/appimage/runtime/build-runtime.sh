#!/usr/bin/env bash
# Builds the AppImage type 2 runtime: packaging/appimage/runtime/build-runtime.sh OUTPUT
# Statically linked (glibc included) against Debian's libsquashfuse_ll, libfuse3 and the compression
# libraries squashfuse reads (zstd, xz, lz4, lzo, zlib), so it runs on any x86-64 Linux before
# anything of the AppImage is available; then the type 2 magic ('A' 'I' 2) goes to offset 8 of the
# ELF header, in its padding.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1
fail() {
    echo "build-runtime: $*" >&2
    exit 1
}
for library in squashfuse_ll fuse3 zstd lzma lz4 lzo2 z; do
    [[ -f /usr/lib/x86_64-linux-gnu/lib$library.a ]] \
        || fail "the static lib$library.a is missing: run scripts/setup-deps.sh"
done
mkdir -p "$(dirname "$out")"
# glibc's static dlopen and getpwnam warnings concern code the runtime never calls (libfuse's
# module loader and fusermount's account lookups are not linked in from the low-level API).
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 \
    -ffunction-sections -fdata-sections -I/usr/include/fuse3 \
    "$here/runtime.c" -o "$out.tmp" \
    -static -Wl,--gc-sections -s \
    -lsquashfuse_ll -lfuse3 -lzstd -llzma -llz4 -llzo2 -lz -lpthread
printf 'AI\002' | dd of="$out.tmp" bs=1 seek=8 conv=notrunc status=none
mv "$out.tmp" "$out"
