# shellcheck shell=bash
# fuse_probe DIR: whether this machine lets FUSE mount a file system here, asked of Debian's
# squashfuse rather than of the project's runtime, so that a runtime that cannot mount never
# passes for a machine without FUSE. Sets fuse_probe_reason to squashfuse's first line when not.
# Sourced by packaging/appimage/test-appimage.sh and tests/packaging/test-runtime.sh.
fuse_probe() {
    local dir=$1 works=1
    fuse_probe_reason=
    rm -rf "$dir"
    mkdir -p "$dir/content" "$dir/mnt"
    echo probe >"$dir/content/file"
    mksquashfs "$dir/content" "$dir/probe.squashfs" -quiet -no-progress -noappend >/dev/null
    if ! squashfuse "$dir/probe.squashfs" "$dir/mnt" 2>"$dir/error"; then
        fuse_probe_reason=$(head -n 1 "$dir/error")
        fuse_probe_reason=${fuse_probe_reason:-squashfuse failed}
        return 1
    fi
    [[ $(cat "$dir/mnt/file" 2>/dev/null) == probe ]] && works=0
    fusermount3 -u "$dir/mnt" 2>/dev/null || umount "$dir/mnt"
    ((works == 0)) || fuse_probe_reason="squashfuse mounted but the file reads wrong"
    return "$works"
}
