#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Child processes, accounts and file ownership: the one place the engine calls fork, exec, setuid,
// kill, waitpid, getpwnam and friends (on Windows CreateProcess, job objects, TerminateProcess).
// Failures of the OS calls themselves throw std::system_error. Windows switches no accounts:
// isRoot() is false there, lookupAccount() and ownerOf() find nothing, chownTree() and
// canTraverse() throw, and runProcess() refuses asAccount.
namespace leader::platform {

struct Account
{
    unsigned uid = 0;
    unsigned gid = 0;
    std::string name;
    std::filesystem::path home;
};

std::optional<Account> lookupAccount(const std::string &name);
// The account that owns path; nullopt if path does not exist or its owner has no account entry.
std::optional<Account> ownerOf(const std::filesystem::path &path);
bool isRoot();
// The file of the program called name in directory ("initdb" is initdb.exe on Windows).
std::filesystem::path programFile(const std::filesystem::path &directory, std::string_view name);
// This machine's host name; "unknown" when the OS will not say.
std::string hostName();
int processId();
// The running executable's absolute path (symbolic links resolved); empty when the OS will not
// say. Bundles (an AppImage) find their own files next to it.
std::filesystem::path executablePath();

struct ProcessOptions
{
    // Run as this account (its groups included); switching to another account needs root.
    std::optional<Account> asAccount;
    std::chrono::milliseconds timeout{30000};
    // The child's environment, besides a short allow-list: on POSIX the caller's PATH, TZ, LANG,
    // LANGUAGE and LC_*, with HOME, USER and LOGNAME those of asAccount when it is set (else the
    // caller's), and nothing else of the caller's (no PGPASSWORD, no cloud keys); these added
    // last, replacing variables of the same name. On Windows, where the child runs as the caller
    // and crosses no account, the caller's whole environment with these replacing.
    std::vector<std::pair<std::string, std::string>> environment;
    // Empty: the caller's working directory.
    std::filesystem::path workingDirectory;
};

struct ProcessResult
{
    int exitCode = -1;  // -1 when it was killed by a signal, timed out or could not be started
    std::string output; // stdout and stderr, interleaved
    bool timedOut = false;
    std::string error; // why it could not be started; empty when it ran

    bool succeeded() const { return exitCode == 0; }
};

// Runs argv[0] (looked up in PATH when it holds no '/') with stdin from /dev/null, collects its
// output and waits for it; at the timeout its whole process group is killed. The child is always
// reaped. Descendants that detach from the group (daemons) are left running. On Windows: PATH
// alone is searched ('\\' counts as '/', ".exe" is added to a name without an extension), stdin
// is NUL, the child has no window, and the group is a job object: at the timeout it ends with
// every process it started, while after a normal exit they are left running.
ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// True while pid names a process that has not exited (a zombie has exited).
bool processAlive(int pid);
// Ends pid at once, without letting it clean up (SIGKILL; on Windows TerminateProcess, which
// runProcess reports as exit code -1 too). False if there is no such process.
bool killProcess(int pid);

// A TCP port on 127.0.0.1 that was free a moment ago: whoever binds it next may still lose a race.
int freeLoopbackPort();

// Gives path, and everything below it when it is a directory, to account. Symbolic links are not
// followed.
void chownTree(const std::filesystem::path &path, const Account &account);
// Whether account may search every directory from / down to directory.
bool canTraverse(const Account &account, const std::filesystem::path &directory);
// Creates or replaces path with contents, readable and writable by its owner only from the start
// (on Windows: a protected DACL that allows the current user alone).
void writePrivateFile(const std::filesystem::path &path, std::string_view contents);
// Reads n random bytes from the operating system's generator.
std::string randomBytes(std::size_t n);

#ifndef _WIN32
// ---- Files other local users must not reach (POSIX; on Windows the demo's directory lives in
// the user's profile, closed to others by its ACL) -------------------------------------------

unsigned effectiveUserId();
// The account with this uid; nullopt when it has no entry.
std::optional<Account> accountOf(unsigned uid);

enum class FileType { Missing, Directory, Regular, SymbolicLink, Other };

struct FileInfo
{
    FileType type = FileType::Missing;
    unsigned uid = 0;
    unsigned mode = 0; // permission bits, with set-id and sticky
    unsigned links = 0;
    std::uintmax_t size = 0;
};

// A directory held open: each name is looked up in it and never through a symbolic link, so that
// a link planted on the way to it, or in it, cannot send what is done there somewhere else.
// Failures throw std::system_error: ELOOP for a symbolic link, ENOTDIR, EEXIST, ENOENT, EINVAL
// for a file that is not a regular one.
class OpenDirectory final
{
public:
    static OpenDirectory root(); // "/"
    OpenDirectory(OpenDirectory &&other) noexcept;
    OpenDirectory &operator=(OpenDirectory &&other) noexcept;
    OpenDirectory(const OpenDirectory &) = delete;
    OpenDirectory &operator=(const OpenDirectory &) = delete;
    ~OpenDirectory();

    FileInfo info() const;
    // The entry itself, a symbolic link not followed; type Missing when there is none.
    FileInfo infoOf(const std::string &name) const;
    std::string linkTarget(const std::string &name) const;
    OpenDirectory open(const std::string &name) const;
    // A new subdirectory with exactly mode (whatever the umask), given to owner when set.
    OpenDirectory create(const std::string &name, unsigned mode,
                         const std::optional<Account> &owner) const;
    // A new file (EEXIST when anything has the name) with exactly mode, given to owner when set.
    void createFile(const std::string &name, std::string_view contents, unsigned mode,
                    const std::optional<Account> &owner) const;
    // A regular file's contents from offset on.
    std::string read(const std::string &name, std::uintmax_t offset = 0) const;
    void remove(const std::string &name) const;

private:
    explicit OpenDirectory(int fd);
    int m_fd = -1;
};
#endif

} // namespace leader::platform
