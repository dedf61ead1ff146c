/*
 * Leader Console's AppImage type 2 runtime: the ELF at the head of the AppImage. It finds the
 * squashfs image appended after its own ELF image, mounts it read-only with FUSE in a private
 * temporary directory and runs AppRun from it, or extracts it where FUSE is not available.
 *
 * The mount is served by a daemon process forked off before AppRun runs; AppRun replaces this
 * process (same pid, so signals and the exit code are the app's own). The app inherits the read end
 * of a "keepalive" pipe whose write end only the daemon holds: when the app and whatever inherited
 * that descriptor are gone, however they ended (SIGKILL included), the pipe reports an error to the
 * daemon's poll, and the daemon unmounts, removes the mount point and exits.
 *
 * Built by build-runtime.sh, statically linked against Debian's libsquashfuse_ll, libfuse3 and the
 * compression libraries; the type 2 magic is written at offset 8 after linking.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <squashfuse/ll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RUNTIME_VERSION
#define RUNTIME_VERSION "1"
#endif

/* Exit codes of the runtime itself (the app's own exit code is returned as it is). */
enum {
    EXIT_USAGE = 64,            /* an unknown --appimage-* option */
    EXIT_NO_SQUASHFS = 65,      /* nothing, or no squashfs, after the ELF image */
    EXIT_TRUNCATED = 66,        /* the file ends before the squashfs image (or the ELF) does */
    EXIT_FUSE_UNAVAILABLE = 69, /* cannot mount with FUSE: extract-and-run still works */
    EXIT_SYSTEM = 71,           /* an operating-system call failed (reading, extracting, forking) */
};

/* The update information (AppImage specification: "zsync|<url>" and others), written by
 * build-appimage.sh, and room for a signature; both read by tools as named sections. */
__attribute__((section(".upd_info"), used, aligned(1))) static char update_information[1024];
__attribute__((section(".sha256_sig"), used, aligned(1))) static char sha256_signature[1024];

static const char *self_name = "AppImage";

static void say(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", self_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static bool read_at(int fd, void *buffer, size_t size, uint64_t offset)
{
    return pread(fd, buffer, size, (off_t)offset) == (ssize_t)size;
}

/* Where the ELF image ends: the end of the section header table or of the furthest section or
 * segment stored in the file, whichever is larger. 0 when the file is not a 64-bit ELF or is cut
 * short inside its headers. */
static uint64_t elf_end(int fd)
{
    Elf64_Ehdr header;
    if (!read_at(fd, &header, sizeof header, 0) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0
        || header.e_ident[EI_CLASS] != ELFCLASS64)
        return 0;
    uint64_t end = max_u64(sizeof header,
                           header.e_shoff + (uint64_t)header.e_shnum * header.e_shentsize);
    end = max_u64(end, header.e_phoff + (uint64_t)header.e_phnum * header.e_phentsize);
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr section;
        if (!read_at(fd, &section, sizeof section,
                     header.e_shoff + (uint64_t)i * header.e_shentsize))
            return 0;
        if (section.sh_type != SHT_NOBITS)
            end = max_u64(end, section.sh_offset + section.sh_size);
    }
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr segment;
        if (!read_at(fd, &segment, sizeof segment,
                     header.e_phoff + (uint64_t)i * header.e_phentsize))
            return 0;
        end = max_u64(end, segment.p_offset + segment.p_filesz);
    }
    return end;
}

/* The squashfs superblock's magic and the field giving the image's size (squashfs_fs.h). */
static const uint32_t squashfs_magic = 0x73717368;
enum { SUPERBLOCK_SIZE = 96, BYTES_USED_AT = 40, PADDING_WINDOW = 65536 };

typedef struct
{
    uint64_t offset; /* of the squashfs image in the file */
    int error;       /* 0, EXIT_NO_SQUASHFS or EXIT_TRUNCATED */
    char message[PATH_MAX + 512];
} image_location;

/* Finds the squashfs image: right at the end of the ELF image, or after zero padding there (some
 * tools align the image), never after anything else. */
static image_location locate_image(const char *path)
{
    image_location where = {0, 0, ""};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        where.error = EXIT_SYSTEM;
        snprintf(where.message, sizeof where.message, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return where;
    }
    const uint64_t size = (uint64_t)st.st_size;
    const uint64_t end = elf_end(fd);
    if (end == 0 || end > size) {
        where.error = EXIT_TRUNCATED;
        snprintf(where.message, sizeof where.message,
                 "%s is truncated: it ends inside its ELF header (%llu of %llu bytes): download it "
                 "again",
                 path, (unsigned long long)size, (unsigned long long)end);
        close(fd);
        return where;
    }
    /* Zero padding may stand between the ELF image and the squashfs, nothing else: the first byte
     * that is not zero must start the image ("hsqs" starts with a byte that is not zero). */
    uint64_t at = end;
    unsigned char probe[4096];
    bool found_data = false;
    while (!found_data && at < size && at - end < PADDING_WINDOW) {
        const size_t chunk = (size_t)(size - at < sizeof probe ? size - at : sizeof probe);
        if (!read_at(fd, probe, chunk, at))
            break;
        size_t first = 0;
        while (first < chunk && probe[first] == 0)
            ++first;
        at += first;
        found_data = first < chunk;
    }
    uint32_t magic = 0;
    if (!found_data || !read_at(fd, &magic, sizeof magic, at) || magic != squashfs_magic) {
        where.error = found_data && at + sizeof magic > size ? EXIT_TRUNCATED : EXIT_NO_SQUASHFS;
        snprintf(where.message, sizeof where.message,
                 "%s holds no squashfs image after its runtime (offset %llu): it is not an "
                 "AppImage, or it was cut short",
                 path, (unsigned long long)end);
        close(fd);
        return where;
    }
    uint64_t bytes_used = 0;
    if (at + SUPERBLOCK_SIZE > size
        || !read_at(fd, &bytes_used, sizeof bytes_used, at + BYTES_USED_AT)
        || at + bytes_used > size) {
        where.error = EXIT_TRUNCATED;
        snprintf(where.message, sizeof where.message,
                 "%s is truncated: %llu bytes of its squashfs image are missing: download it again",
                 path,
                 (unsigned long long)(at + SUPERBLOCK_SIZE > size ? SUPERBLOCK_SIZE - (size - at)
                                                                  : at + bytes_used - size));
        close(fd);
        return where;
    }
    close(fd);
    where.offset = at;
    return where;
}

/* ---- Extraction ---------------------------------------------------------------------------- */

/* Every path is made relative to the extraction root's descriptor, one component at a time with
 * O_NOFOLLOW: a symbolic link in the tree (planted, or extracted from the image) is never followed
 * while writing, so nothing is written outside the root. */

enum { DIRECTORY_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC };

static bool plain_name(const char *name)
{
    return *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The directory holding path's last component, opened below root (missing directories are made on
 * the way, as a PATTERN's matches need); *leaf points at that component in path. The caller closes
 * it unless it is root. -1 with errno set when a component is a symbolic link (ELOOP), not a
 * directory, "." or "..", or cannot be made. */
static int open_parent(int root, const char *path, const char **leaf)
{
    int dir = root;
    const char *name = path;
    for (size_t length = strcspn(name, "/"); name[length] == '/';
         name += length + 1, length = strcspn(name, "/")) {
        char component[NAME_MAX + 1];
        int next = -1;
        errno = EINVAL;
        if (length <= NAME_MAX) {
            memcpy(component, name, length);
            component[length] = '\0';
        }
        if (length <= NAME_MAX && plain_name(component)) {
            next = openat(dir, component, DIRECTORY_FLAGS);
            if (next < 0 && errno == ENOENT
                && (mkdirat(dir, component, 0755) == 0 || errno == EEXIST))
                next = openat(dir, component, DIRECTORY_FLAGS);
        }
        const int saved = errno;
        if (dir != root)
            close(dir);
        if (next < 0) {
            errno = saved;
            return -1;
        }
        dir = next;
    }
    if (!plain_name(name)) {
        if (dir != root)
            close(dir);
        errno = EINVAL;
        return -1;
    }
    *leaf = name;
    return dir;
}

/* ./squashfs-root for --appimage-extract, opened: made 0700 when absent. One that exists must be a
 * directory, not a symbolic link, owned by the caller and writable by nobody else: otherwise
 * another user (in a sticky /tmp, say) would choose where the image goes, or edit what was
 * extracted. -1 after saying why. */
static int open_extract_root(const char *name)
{
    if (mkdir(name, 0700) != 0 && errno != EEXIST) {
        say("cannot create ./%s: %s", name, strerror(errno));
        return -1;
    }
    const int fd = open(name, DIRECTORY_FLAGS);
    struct stat st;
    const char *problem = NULL;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(name, &st) == 0)
        problem = S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a directory";
    else if (fd < 0 || fstat(fd, &st) != 0) {
        say("cannot open ./%s: %s", name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    } else if (st.st_uid != geteuid())
        problem = "belongs to another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        problem = "is writable by others";
    if (problem) {
        say("refusing to extract into ./%s: it %s; remove it or extract in another directory", name,
            problem);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

typedef struct
{
    sqfs_inode_num number;
    char *path; /* below the extraction root */
} hard_link;

static bool extract_file(sqfs *fs, sqfs_inode *inode, int dir, const char *name)
{
    unlinkat(dir, name, 0);
    int out = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     inode->base.mode & 07777);
    if (out < 0)
        return false;
    static char buffer[1 << 17];
    const sqfs_off_t size = (sqfs_off_t)inode->xtra.reg.file_size;
    for (sqfs_off_t done = 0; done < size;) {
        sqfs_off_t length
                = size - done < (sqfs_off_t)sizeof buffer ? size - done : (sqfs_off_t)sizeof buffer;
        if (sqfs_read_range(fs, inode, done, &length, buffer) != SQFS_OK || length <= 0) {
            close(out);
            errno = EIO;
            return false;
        }
        for (sqfs_off_t written = 0; written < length;) {
            const ssize_t n = write(out, buffer + written, (size_t)(length - written));
            if (n < 0) {
                close(out);
                return false;
            }
            written += n;
        }
        done += length;
    }
    fchmod(out, inode->base.mode & 07777);
    return close(out) == 0;
}

/* Makes one entry of the image at name in dir, a regular file as a hard link to first (below root)
 * when that is not NULL; false with errno set. */
static bool extract_entry(sqfs *fs, sqfs_inode *inode, int root, int dir, const char *name,
                          const char *first)
{
    if (S_ISDIR(inode->base.mode)) {
        if (mkdirat(dir, name, (inode->base.mode & 07777) | S_IRWXU) == 0)
            return true;
        /* An existing entry is accepted only as a directory, not as a link to one. */
        const int existing = errno == EEXIST ? openat(dir, name, DIRECTORY_FLAGS) : -1;
        return existing >= 0 && close(existing) == 0;
    }
    if (S_ISLNK(inode->base.mode)) {
        char link_target[PATH_MAX + 1];
        size_t size = sizeof link_target;
        unlinkat(dir, name, 0);
        if (sqfs_readlink(fs, inode, link_target, &size) != SQFS_OK) {
            errno = EIO;
            return false;
        }
        return symlinkat(link_target, dir, name) == 0;
    }
    if (!S_ISREG(inode->base.mode))
        return true;
    if (!first)
        return extract_file(fs, inode, dir, name);
    const char *first_name = NULL;
    const int first_dir = open_parent(root, first, &first_name);
    if (first_dir < 0)
        return false;
    unlinkat(dir, name, 0);
    const bool linked = linkat(first_dir, first_name, dir, name, 0) == 0;
    const int saved = errno;
    if (first_dir != root)
        close(first_dir);
    errno = saved;
    return linked;
}

/* Extracts the image's paths matching pattern (all when NULL) below the directory root, shown as
 * shown in messages and in the verbose listing. */
static bool extract(const char *image, uint64_t offset, int root, const char *shown,
                    const char *pattern, bool verbose)
{
    sqfs fs;
    if (sqfs_open_image(&fs, image, (size_t)offset) != SQFS_OK)
        return false;
    sqfs_traverse traversal;
    if (sqfs_traverse_open(&traversal, &fs, sqfs_inode_root(&fs)) != SQFS_OK) {
        sqfs_destroy(&fs);
        return false;
    }
    hard_link *links = NULL;
    size_t link_count = 0;
    bool ok = true;
    sqfs_err error = SQFS_OK;
    while (ok && sqfs_traverse_next(&traversal, &error)) {
        if (traversal.dir_end)
            continue;
        if (pattern && fnmatch(pattern, traversal.path, 0) != 0)
            continue;
        sqfs_inode inode;
        if (sqfs_inode_get(&fs, &inode, sqfs_dentry_inode(&traversal.entry)) != SQFS_OK) {
            ok = false;
            break;
        }
        if (verbose)
            printf("%s/%s\n", shown, traversal.path);
        const char *first = NULL;
        for (size_t i = 0; S_ISREG(inode.base.mode) && inode.nlink > 1 && i < link_count; ++i)
            if (links[i].number == inode.base.inode_number)
                first = links[i].path;
        const char *name = NULL;
        const int dir = open_parent(root, traversal.path, &name);
        ok = dir >= 0 && extract_entry(&fs, &inode, root, dir, name, first);
        if (!ok && (errno == ENOTDIR || errno == ELOOP))
            say("cannot extract %s/%s: a file or a symbolic link stands where a directory belongs "
                "(links are not followed): remove %s and extract again",
                shown, traversal.path, shown);
        else if (!ok)
            say("cannot extract %s/%s: %s", shown, traversal.path, strerror(errno));
        if (dir >= 0 && dir != root)
            close(dir);
        if (ok && !first && S_ISREG(inode.base.mode) && inode.nlink > 1) {
            hard_link *grown = realloc(links, (link_count + 1) * sizeof *links);
            if (grown)
                links = grown;
            char *path = grown ? strdup(traversal.path) : NULL;
            ok = path != NULL;
            if (ok)
                links[link_count++] = (hard_link){inode.base.inode_number, path};
        }
    }
    if (error != SQFS_OK) {
        say("cannot read the squashfs image in %s (error %d)", image, (int)error);
        ok = false;
    }
    for (size_t i = 0; i < link_count; ++i)
        free(links[i].path);
    free(links);
    sqfs_traverse_close(&traversal);
    sqfs_destroy(&fs);
    return ok;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- Running AppRun -------------------------------------------------------------------------- */

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* The environment the AppImage specification gives AppRun. */
static void set_environment(const char *image, const char *appdir, const char *argv0)
{
    char cwd[PATH_MAX];
    setenv("APPIMAGE", image, 1);
    setenv("APPDIR", appdir, 1);
    setenv("ARGV0", argv0, 1);
    if (getcwd(cwd, sizeof cwd))
        setenv("OWD", cwd, 1);
}

/* AppRun's argv: its own path, then the user's arguments from first on, untouched. */
static char **apprun_argv(const char *apprun, int argc, char **argv, int first)
{
    char **args = calloc((size_t)(argc - first + 2), sizeof *args);
    if (!args)
        exit(EXIT_SYSTEM);
    args[0] = (char *)apprun;
    for (int i = first; i < argc; ++i)
        args[i - first + 1] = argv[i];
    return args;
}

static volatile sig_atomic_t forward_to;

static void forward_signal(int signal_number)
{
    if (forward_to > 0)
        kill((pid_t)forward_to, signal_number);
}

static int extract_and_run(const char *image, uint64_t offset, int argc, char **argv, int first)
{
    char *dir = NULL;
    if (asprintf(&dir, "%s/appimage_extracted_XXXXXX", temp_dir()) < 0 || !mkdtemp(dir)) {
        say("cannot create a directory in %s to extract to: %s", temp_dir(), strerror(errno));
        return EXIT_SYSTEM;
    }
    /* Readable by all as a FUSE mount would be: what the app runs as another account (the demo's
     * server, when started by root) must reach it. */
    chmod(dir, 0755);
    const int root = open(dir, DIRECTORY_FLAGS);
    const bool extracted = root >= 0 && extract(image, offset, root, dir, NULL, false);
    if (root < 0)
        say("cannot open %s: %s", dir, strerror(errno));
    else
        close(root);
    if (!extracted) {
        remove_tree(dir);
        return EXIT_SYSTEM;
    }
    char *apprun = NULL;
    if (asprintf(&apprun, "%s/AppRun", dir) < 0)
        return EXIT_SYSTEM;
    set_environment(image, dir, argv[0]);
    /* This process stays to delete the directory after the app: signals meant for the app that
     * reach it are passed on. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward_signal;
    const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; ++i)
        sigaction(forwarded[i], &action, NULL);
    const pid_t child = fork();
    if (child < 0) {
        say("cannot fork: %s", strerror(errno));
        remove_tree(dir);
        return EXIT_SYSTEM;
    }
    if (child == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(apprun, apprun_argv(apprun, argc, argv, first));
        say("cannot run %s: %s", apprun, strerror(errno));
        _exit(127);
    }
    forward_to = child;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    remove_tree(dir);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* ---- FUSE ---------------------------------------------------------------------------------- */

static struct fuse_session *served;

static void stop_serving(int signal_number)
{
    (void)signal_number;
    if (served)
        fuse_session_exit(served);
}

static char fuse_messages[512];

static void keep_fuse_message(enum fuse_log_level level, const char *format, va_list args)
{
    (void)level;
    if (fuse_messages[0] == '\0') {
        vsnprintf(fuse_messages, sizeof fuse_messages, format, args);
        fuse_messages[strcspn(fuse_messages, "\n")] = '\0';
    }
}

/* Reads what fusermount3 or libfuse wrote to the pipe standing in for stderr. */
static void read_messages(int fd, char *into, size_t size)
{
    if (into[0] != '\0')
        return;
    const ssize_t n = read(fd, into, size - 1);
    into[n > 0 ? n : 0] = '\0';
    into[strcspn(into, "\n")] = '\0';
}

/* The daemon: mounts, tells the parent through ready (a byte 'R', or the reason it failed), serves
 * until the keepalive pipe's readers are all gone or SIGTERM, then unmounts and removes mountpoint.
 */
static void serve(const char *image, uint64_t offset, const char *mountpoint, int ready,
                  int keepalive)
{
    setsid();
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* The image's fd first: squashfuse prints its own reason to stderr. */
    sqfs_ll *ll = sqfs_ll_open(image, (size_t)offset);
    if (!ll) {
        dprintf(ready, "E%s", "squashfuse cannot read the image");
        _exit(1);
    }
    struct fuse_lowlevel_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.getattr = sqfs_ll_op_getattr;
    ops.opendir = sqfs_ll_op_opendir;
    ops.releasedir = sqfs_ll_op_releasedir;
    ops.readdir = sqfs_ll_op_readdir;
    ops.lookup = sqfs_ll_op_lookup;
    ops.open = sqfs_ll_op_open;
    ops.create = sqfs_ll_op_create;
    ops.release = sqfs_ll_op_release;
    ops.read = sqfs_ll_op_read;
    ops.readlink = sqfs_ll_op_readlink;
    ops.listxattr = sqfs_ll_op_listxattr;
    ops.getxattr = sqfs_ll_op_getxattr;
    ops.forget = sqfs_ll_op_forget;
    ops.statfs = stfs_ll_op_statfs;

    /* The mount's name in /proc/mounts: the image's file name, without the characters that
     * separate mount options. */
    const char *base = strrchr(image, '/');
    char fsname[256];
    snprintf(fsname, sizeof fsname, "fsname=%.200s", base ? base + 1 : image);
    for (char *c = fsname; *c; ++c)
        if (*c == ',' || *c == '\\' || *c == ' ')
            *c = '_';
    char options[400];
    /* Root's apps may run parts of themselves as another account (the demo's PostgreSQL server
     * does): as root the mount is open to all, with the kernel checking the files' modes. */
    snprintf(options, sizeof options, "ro,%s,subtype=appimage%s", fsname,
             geteuid() == 0 ? ",allow_other,default_permissions" : "");
    char *arguments[] = {"appimage-runtime", "-o", options, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, arguments);

    /* libfuse and fusermount3 explain a failed mount on stderr; both are kept for the one line the
     * parent prints. */
    fuse_set_log_func(keep_fuse_message);
    int messages[2];
    const int saved_stderr = dup(STDERR_FILENO);
    if (pipe2(messages, O_CLOEXEC | O_NONBLOCK) == 0) {
        dup2(messages[1], STDERR_FILENO);
        close(messages[1]);
    } else {
        messages[0] = -1;
    }
    struct fuse_session *session = fuse_session_new(&args, &ops, sizeof ops, ll);
    const bool mounted = session && fuse_session_mount(session, mountpoint) == 0;
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    if (!mounted) {
        if (messages[0] >= 0)
            read_messages(messages[0], fuse_messages, sizeof fuse_messages);
        dprintf(ready, "E%s", fuse_messages[0] ? fuse_messages : "the mount failed");
        _exit(1);
    }
    if (messages[0] >= 0)
        close(messages[0]);

    served = session;
    sigset_t blocked, during_poll;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigprocmask(SIG_BLOCK, &blocked, &during_poll);
    sigdelset(&during_poll, SIGTERM);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stop_serving;
    sigaction(SIGTERM, &action, NULL);

    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (chdir("/") != 0) {
        /* The daemon keeps no directory busy; "/" always exists. */
    }
    /* The parent may be killed between the mount and this byte: the mount is then undone below
     * rather than left behind without a daemon. */
    const bool parent_waits = write(ready, "R", 1) == 1;
    close(ready);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }

    struct pollfd watched[2] = {{fuse_session_fd(session), POLLIN, 0}, {keepalive, 0, 0}};
    struct fuse_buf buffer;
    memset(&buffer, 0, sizeof buffer);
    while (parent_waits && !fuse_session_exited(session)) {
        if (ppoll(watched, 2, NULL, &during_poll) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (watched[1].revents & (POLLERR | POLLHUP | POLLNVAL))
            break; /* every reader of the keepalive pipe has gone: the app has ended */
        if (watched[0].revents & (POLLERR | POLLHUP | POLLNVAL))
            break; /* unmounted from outside */
        if (watched[0].revents & POLLIN) {
            const int received = fuse_session_receive_buf(session, &buffer);
            if (received == -EINTR || received == -EAGAIN)
                continue;
            if (received <= 0)
                break;
            fuse_session_process_buf(session, &buffer);
        }
    }
    free(buffer.mem);
    /* As root a lazy umount2; otherwise fusermount3 -u -z, as libfuse does it. */
    fuse_session_unmount(session);
    fuse_session_destroy(session);
    rmdir(mountpoint);
    _exit(0);
}

/* Whether libfuse finds fusermount3, which mounts for a user who is not root: where it was built
 * to look, then PATH. */
static bool has_fusermount(void)
{
    if (access("/usr/bin/fusermount3", X_OK) == 0)
        return true;
    const char *path = getenv("PATH");
    for (const char *dir = path; dir && *dir;) {
        const size_t length = strcspn(dir, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/fusermount3", (int)length, dir);
        if (length > 0 && access(candidate, X_OK) == 0)
            return true;
        dir += length + (dir[length] == ':');
    }
    return false;
}

/* Mounts the image; returns the mount point with the keepalive pipe's read end in *keepalive (not
 * close-on-exec: the app inherits it), or NULL after saying why. */
static char *mount_image(const char *image, uint64_t offset, int *keepalive)
{
    const char *base = strrchr(image, '/');
    char prefix[7] = "";
    for (size_t i = 0, n = 0; base && base[1 + i] && n < 6; ++i)
        if (base[1 + i] != '.' && base[1 + i] != '/')
            prefix[n++] = base[1 + i], prefix[n] = '\0';
    char *mountpoint = NULL;
    if (asprintf(&mountpoint, "%s/.mount_%sXXXXXX", temp_dir(), prefix) < 0
        || !mkdtemp(mountpoint)) {
        say("cannot create a mount point in %s: %s", temp_dir(), strerror(errno));
        exit(EXIT_SYSTEM);
    }
    int ready[2], alive[2];
    if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(alive, O_CLOEXEC) != 0) {
        say("cannot create a pipe: %s", strerror(errno));
        exit(EXIT_SYSTEM);
    }
    fflush(NULL);
    const pid_t middle = fork();
    if (middle < 0) {
        say("cannot fork: %s", strerror(errno));
        exit(EXIT_SYSTEM);
    }
    if (middle == 0) {
        /* Forked twice so that the daemon is nobody's child here: the app never reaps it. */
        close(ready[0]);
        close(alive[0]);
        const pid_t daemon = fork();
        if (daemon == 0)
            serve(image, offset, mountpoint, ready[1], alive[1]);
        _exit(daemon < 0 ? 1 : 0);
    }
    close(ready[1]);
    close(alive[1]);
    waitpid(middle, NULL, 0);
    char reply[600];
    ssize_t n;
    while ((n = read(ready[0], reply, sizeof reply - 1)) < 0 && errno == EINTR) {
    }
    close(ready[0]);
    if (n == 1 && reply[0] == 'R') {
        fcntl(alive[0], F_SETFD, 0);
        *keepalive = alive[0];
        return mountpoint;
    }
    reply[n > 0 ? n : 0] = '\0';
    close(alive[0]);
    rmdir(mountpoint);
    const char *reason = n > 1 && reply[0] == 'E' ? reply + 1 : "the FUSE daemon ended";
    struct stat device;
    if (stat("/dev/fuse", &device) != 0)
        reason = "there is no /dev/fuse: a container, or the fuse module is not loaded";
    else if (geteuid() != 0 && !has_fusermount())
        reason = "fusermount3 is not installed";
    say("cannot mount the AppImage with FUSE (%s): run it with --appimage-extract-and-run, or set "
        "APPIMAGE_EXTRACT_AND_RUN=1 (or install fuse3 and load the fuse module)",
        reason);
    exit(EXIT_FUSE_UNAVAILABLE);
}

static void print_help(void)
{
    printf("%s: an AppImage (type 2). Without an --appimage-* option as its first argument it "
           "runs\n"
           "the application and passes it every argument.\n\n"
           "  --appimage-extract [PATTERN]  extract the contents (the paths matching the shell\n"
           "                                PATTERN) into ./squashfs-root, made 0700; an\n"
           "                                existing one must be the caller's own directory\n"
           "                                (not a link), writable by nobody else\n"
           "  --appimage-extract-and-run [ARGS]  extract to a temporary directory, run, delete it\n"
           "                                (also when APPIMAGE_EXTRACT_AND_RUN=1): needs no FUSE\n"
           "  --appimage-mount              mount, print the mount point, stay until interrupted\n"
           "  --appimage-offset             print the offset of the squashfs image\n"
           "  --appimage-updateinformation  print the embedded update information\n"
           "  --appimage-signature          print the embedded signature (empty: not signed)\n"
           "  --appimage-version            print the runtime's version\n"
           "  --appimage-help               this text\n\n"
           "Exit codes of the runtime itself: %d a bad option, %d no squashfs image, %d a "
           "truncated\n"
           "file, %d FUSE unavailable, %d a system error; otherwise the application's own.\n",
           self_name, EXIT_USAGE, EXIT_NO_SQUASHFS, EXIT_TRUNCATED, EXIT_FUSE_UNAVAILABLE,
           EXIT_SYSTEM);
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    self_name = slash ? slash + 1 : argv[0];
    char image[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", image, sizeof image - 1);
    if (length <= 0) {
        say("cannot find its own file through /proc/self/exe (is /proc mounted?): %s",
            strerror(errno));
        return EXIT_SYSTEM;
    }
    image[length] = '\0';
    const char *option = argc > 1 ? argv[1] : "";
    const bool appimage_option = strncmp(option, "--appimage-", 11) == 0;

    if (strcmp(option, "--appimage-help") == 0) {
        print_help();
        return 0;
    }
    if (strcmp(option, "--appimage-version") == 0) {
        printf("Leader Console AppImage runtime %s (type 2; squashfuse %s, libfuse %s)\n",
               RUNTIME_VERSION, PACKAGE_VERSION, fuse_pkgversion());
        return 0;
    }
    if (strcmp(option, "--appimage-updateinformation") == 0) {
        printf("%.*s\n", (int)sizeof update_information, update_information);
        return 0;
    }
    if (strcmp(option, "--appimage-signature") == 0) {
        printf("%.*s\n", (int)sizeof sha256_signature, sha256_signature);
        return 0;
    }

    const image_location where = locate_image(image);
    if (where.error) {
        say("%s", where.message);
        return where.error;
    }
    if (strcmp(option, "--appimage-offset") == 0) {
        printf("%llu\n", (unsigned long long)where.offset);
        return 0;
    }
    if (strcmp(option, "--appimage-extract") == 0) {
        if (argc > 3) {
            say("--appimage-extract takes one pattern at most");
            return EXIT_USAGE;
        }
        const int root = open_extract_root("squashfs-root");
        const bool extracted = root >= 0
                               && extract(image, where.offset, root, "squashfs-root",
                                          argc > 2 ? argv[2] : NULL, true);
        if (root >= 0)
            close(root);
        return extracted ? 0 : EXIT_SYSTEM;
    }
    const char *env_extract = getenv("APPIMAGE_EXTRACT_AND_RUN");
    if (strcmp(option, "--appimage-extract-and-run") == 0)
        return extract_and_run(image, where.offset, argc, argv, 2);
    if (appimage_option && strcmp(option, "--appimage-mount") != 0) {
        say("unknown option %s (see --appimage-help)", option);
        return EXIT_USAGE;
    }
    if (env_extract && strcmp(env_extract, "1") == 0)
        return extract_and_run(image, where.offset, argc, argv, 1);

    int keepalive = -1;
    char *mountpoint = mount_image(image, where.offset, &keepalive);
    if (strcmp(option, "--appimage-mount") == 0) {
        printf("%s\n", mountpoint);
        fflush(stdout);
        /* The daemon unmounts when this process, the keepalive pipe's reader, ends. */
        for (;;)
            pause();
    }
    char *apprun = NULL;
    if (asprintf(&apprun, "%s/AppRun", mountpoint) < 0)
        return EXIT_SYSTEM;
    set_environment(image, mountpoint, argv[0]);
    execv(apprun, apprun_argv(apprun, argc, argv, 1));
    say("cannot run %s: %s", apprun, strerror(errno));
    return EXIT_SYSTEM;
}
