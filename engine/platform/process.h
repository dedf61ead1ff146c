#pragma once

#include <chrono>
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
    // Added to the caller's environment, replacing variables of the same name.
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

} // namespace leader::platform
