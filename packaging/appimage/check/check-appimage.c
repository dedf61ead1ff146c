/*
 * Reads an AppImage with libappimage, the AppImage project's own reader (Debian's libappimage-dev),
 * so that the project's runtime and build-appimage.sh are judged by a tool they did not write:
 *   check-appimage IMAGE EXPECTED_OFFSET DESKTOP_OUT
 * It asserts the type is 2, the payload starts where the runtime says (EXPECTED_OFFSET, from
 * --appimage-offset), the file list holds the desktop entry, the icon and .DirIcon at the top, and
 * extracts the desktop entry to DESKTOP_OUT (test-appimage.sh then validates it).
 */
#include <appimage/appimage.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

static const char *const required[] = {
        "com.hardcount.LeaderConsole.desktop",
        "leader-console.png",
        ".DirIcon",
        "AppRun",
        "usr/bin/leader-console",
        "usr/share/icons/hicolor/256x256/apps/leader-console.png",
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: check-appimage IMAGE EXPECTED_OFFSET DESKTOP_OUT\n");
        return 2;
    }
    const char *image = argv[1];
    bool ok = true;
    const int type = appimage_get_type(image, false);
    printf("check-appimage: libappimage reads type %d\n", type);
    if (type != 2) {
        fprintf(stderr, "check-appimage: %s is not type 2 for libappimage (%d)\n", image, type);
        ok = false;
    }
    const long long offset = (long long)appimage_get_payload_offset(image);
    if (offset != atoll(argv[2])) {
        fprintf(stderr,
                "check-appimage: libappimage finds the payload at %lld, the runtime at %s\n",
                offset, argv[2]);
        ok = false;
    }
    char **files = appimage_list_files(image);
    size_t count = 0;
    for (char **file = files; file && *file; ++file)
        ++count;
    for (size_t i = 0; i < sizeof required / sizeof *required; ++i) {
        bool found = false;
        for (char **file = files; file && *file && !found; ++file)
            found = strcmp(*file, required[i]) == 0;
        if (!found) {
            fprintf(stderr, "check-appimage: %s is not in libappimage's file list\n", required[i]);
            ok = false;
        }
    }
    appimage_string_list_free(files);
    printf("check-appimage: payload at %lld, %zu files listed, the desktop entry and icons among "
           "them\n",
           offset, count);
    appimage_extract_file_following_symlinks(image, required[0], argv[3]);
    struct stat extracted;
    if (stat(argv[3], &extracted) != 0 || extracted.st_size == 0) {
        fprintf(stderr, "check-appimage: libappimage did not extract %s\n", required[0]);
        ok = false;
    }
    return ok ? 0 : 1;
}
