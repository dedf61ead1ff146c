#include "platform/process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/close_range.h>

#include <sys/syscall.h>
#endif

extern char **environ;

namespace leader::platform {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

[[noreturn]] void throwErrno(const std::string &what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

class Fd final
{
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {}
    ~Fd() { reset(); }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;

    int get() const { return m_fd; }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd;
};

// A caller started without stdin, stdout or stderr hands out descriptors 0-2 to new pipes; the
// child's dup2 onto 0-2 would then be a no-op that keeps close-on-exec set.
int aboveStandardStreams(int fd)
{
    if (fd > STDERR_FILENO)
        return fd;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    ::close(fd);
    if (moved < 0)
        throwErrno("fcntl");
    return moved;
}

void makePipe(Fd &readEnd, Fd &writeEnd)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throwErrno("pipe2");
    readEnd.reset(aboveStandardStreams(fds[0]));
    writeEnd.reset(aboveStandardStreams(fds[1]));
}

std::optional<Account> accountFrom(const passwd *entry)
{
    if (!entry)
        return std::nullopt;
    return Account{entry->pw_uid, entry->pw_gid, entry->pw_name, entry->pw_dir};
}

template<typename Lookup>
std::optional<Account> lookup(Lookup call)
{
    std::vector<char> buffer(16384);
    for (;;) {
        passwd entry{};
        passwd *found = nullptr;
        const int error = call(&entry, buffer.data(), buffer.size(), &found);
        if (error == ERANGE) {
            buffer.resize(buffer.size() * 2);
            continue;
        }
        return error == 0 ? accountFrom(found) : std::nullopt;
    }
}

std::vector<gid_t> groupsOf(const Account &account)
{
    std::vector<gid_t> groups(16);
    for (;;) {
        int count = static_cast<int>(groups.size());
        if (::getgrouplist(account.name.c_str(), account.gid, groups.data(), &count) >= 0) {
            groups.resize(static_cast<std::size_t>(count));
            return groups;
        }
        groups.resize(std::max(static_cast<std::size_t>(count), groups.size() * 2));
    }
}

// What a forked child needs to become another account, computed before the fork: after fork()
// in a threaded process the child may only make async-signal-safe calls, and initgroups() is not
// one (it reads /etc/group), so the groups are looked up here and applied with setgroups().
struct Identity
{
    bool switchAccount = false;
    std::vector<gid_t> groups;
    gid_t gid = 0;
    uid_t uid = 0;
};

Identity identityFor(const std::optional<Account> &account)
{
    Identity identity;
    if (account && account->uid != ::geteuid()) {
        identity.switchAccount = true;
        identity.groups = groupsOf(*account);
        identity.gid = account->gid;
        identity.uid = account->uid;
    }
    return identity;
}

bool become(const Identity &identity)
{
    if (!identity.switchAccount)
        return true;
    return ::setgroups(identity.groups.size(), identity.groups.data()) == 0
           && ::setgid(identity.gid) == 0 && ::setuid(identity.uid) == 0;
}

std::string findExecutable(const std::string &program)
{
    if (program.find('/') != std::string::npos)
        return program;
    const char *path = std::getenv("PATH");
    std::string_view rest = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        const std::string_view directory = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        const std::string candidate
                = std::string(directory.empty() ? "." : directory) + "/" + program;
        struct stat info = {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)
            && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

// Of the caller's variables, those a server and its tools need and nothing else: the children
// may run as another account (which reads its environment in /proc/PID/environ), and a secret of
// the caller's (PGPASSWORD, AWS_SECRET_ACCESS_KEY, ...) has no business there.
bool passedOn(std::string_view name)
{
    return name == "PATH" || name == "TZ" || name == "LANG" || name == "LANGUAGE"
           || name.starts_with("LC_");
}

std::vector<std::string> environmentFor(const ProcessOptions &options)
{
    std::vector<std::pair<std::string, std::string>> variables;
    for (char **entry = environ; entry && *entry; ++entry) {
        const std::string_view variable = *entry;
        const auto equals = variable.find('=');
        if (equals == std::string_view::npos)
            continue;
        const std::string_view name = variable.substr(0, equals);
        const bool identity = name == "HOME" || name == "USER" || name == "LOGNAME";
        if (passedOn(name) || (identity && !options.asAccount))
            variables.emplace_back(name, variable.substr(equals + 1));
    }
    if (options.asAccount) {
        variables.insert(variables.end(), {{"HOME", options.asAccount->home.string()},
                                           {"USER", options.asAccount->name},
                                           {"LOGNAME", options.asAccount->name}});
    }
    for (const auto &change : options.environment) {
        std::erase_if(variables,
                      [&change](const auto &variable) { return variable.first == change.first; });
        variables.push_back(change);
    }
    std::vector<std::string> environment;
    for (const auto &[name, value] : variables)
        environment.push_back(name + "=" + value);
    return environment;
}

std::vector<char *> pointersTo(std::vector<std::string> &strings)
{
    std::vector<char *> pointers;
    for (std::string &text : strings)
        pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

enum class Stage : int { Account, Directory, Exec };

struct ChildFailure
{
    Stage stage;
    int error;
};

struct ChildSetup
{
    const char *program;
    char *const *argv;
    char *const *envp;
    const char *workingDirectory; // nullptr: stay
    Identity identity;
    int input;
    int output;
    int status;
    int maxFd;
};

[[noreturn]] void failChild(int status, Stage stage)
{
    const ChildFailure failure{stage, errno};
    [[maybe_unused]] const ssize_t written = ::write(status, &failure, sizeof failure);
    ::_exit(127);
}

// Runs between fork() and exec(): async-signal-safe calls only.
[[noreturn]] void execChild(const ChildSetup &setup)
{
    // Its own process group, so a timeout can take the child's helpers down with it.
    ::setpgid(0, 0);
    // Blocked and ignored signals survive exec; the child should start as a fresh process would.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction defaults = {};
    defaults.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; ++signal) {
        if (signal != SIGKILL && signal != SIGSTOP)
            ::sigaction(signal, &defaults, nullptr);
    }
    ::dup2(setup.input, STDIN_FILENO);
    ::dup2(setup.output, STDOUT_FILENO);
    ::dup2(setup.output, STDERR_FILENO);
    // Nothing else the caller has open (sockets, other pipes) may leak into a long-lived server.
    bool marked = false;
#ifdef __linux__
    marked = ::close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC) == 0;
#endif
    for (int fd = STDERR_FILENO + 1; !marked && fd < setup.maxFd; ++fd)
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (!become(setup.identity))
        failChild(setup.status, Stage::Account);
    if (setup.workingDirectory && ::chdir(setup.workingDirectory) != 0)
        failChild(setup.status, Stage::Directory);
    ::execve(setup.program, setup.argv, setup.envp);
    failChild(setup.status, Stage::Exec);
}

int descriptorLimit()
{
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 65536;
    return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536));
}

std::string startFailure(const ChildFailure &failure, const std::string &program,
                         const ProcessOptions &options)
{
    const std::string reason = std::strerror(failure.error);
    switch (failure.stage) {
    case Stage::Account:
        return "cannot switch to account '" + options.asAccount->name + "' to run " + program + ": "
               + reason;
    case Stage::Directory:
        return "cannot enter " + options.workingDirectory.string() + " to run " + program + ": "
               + reason;
    case Stage::Exec:
        break;
    }
    return "cannot run " + program + ": " + reason;
}

// A pidfd turns "the child exited" into something poll() can wait for alongside its output.
Fd openPidFd([[maybe_unused]] pid_t pid)
{
#ifdef SYS_pidfd_open
    return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
    return Fd();
#endif
}

constexpr std::size_t MaxOutput = 1 << 20;

enum class ReadState { Data, Nothing, Closed };

ReadState readInto(int fd, std::string &output)
{
    char buffer[4096];
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count > 0) {
        if (output.size() < MaxOutput)
            output.append(buffer, static_cast<std::size_t>(count));
        return ReadState::Data;
    }
    return count < 0 && (errno == EINTR || errno == EAGAIN) ? ReadState::Nothing
                                                            : ReadState::Closed;
}

int exitCodeOf(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void reap(pid_t pid, int &status)
{
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

} // namespace

std::optional<Account> lookupAccount(const std::string &name)
{
    return lookup([&name](passwd *entry, char *buffer, std::size_t size, passwd **found) {
        return ::getpwnam_r(name.c_str(), entry, buffer, size, found);
    });
}

std::optional<Account> ownerOf(const std::filesystem::path &path)
{
    struct stat info = {};
    if (::stat(path.c_str(), &info) != 0)
        return std::nullopt;
    return lookup(
            [uid = info.st_uid](passwd *entry, char *buffer, std::size_t size, passwd **found) {
                return ::getpwuid_r(uid, entry, buffer, size, found);
            });
}

bool isRoot()
{
    return ::geteuid() == 0;
}

std::filesystem::path programFile(const std::filesystem::path &directory, std::string_view name)
{
    return directory / name;
}

std::string hostName()
{
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || !*host)
        return "unknown";
    return host;
}

int processId()
{
    return static_cast<int>(::getpid());
}

std::filesystem::path executablePath()
{
    std::error_code error;
    const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : path;
}

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options)
{
    ProcessResult result;
    if (argv.empty()) {
        result.error = "no program to run";
        return result;
    }
    const std::string program = findExecutable(argv[0]);
    if (program.empty()) {
        result.error = "cannot run " + argv[0] + ": not found in PATH";
        return result;
    }

    std::vector<std::string> arguments = argv;
    std::vector<std::string> environment = environmentFor(options);
    const std::vector<char *> argumentPointers = pointersTo(arguments);
    const std::vector<char *> environmentPointers = pointersTo(environment);
    const std::string workingDirectory = options.workingDirectory.string();

    Fd input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (input.get() < 0)
        throwErrno("open /dev/null");
    Fd outputRead, outputWrite, statusRead, statusWrite;
    makePipe(outputRead, outputWrite);
    makePipe(statusRead, statusWrite);
    const ChildSetup setup{program.c_str(),
                           argumentPointers.data(),
                           environmentPointers.data(),
                           workingDirectory.empty() ? nullptr : workingDirectory.c_str(),
                           identityFor(options.asAccount),
                           input.get(),
                           outputWrite.get(),
                           statusWrite.get(),
                           descriptorLimit()};

    const pid_t pid = ::fork();
    if (pid < 0)
        throwErrno("fork");
    if (pid == 0)
        execChild(setup);
    // Also from this side, so the group exists before any timeout signals it.
    ::setpgid(pid, pid);
    outputWrite.reset();
    statusWrite.reset();
    input.reset();

    int status = 0;
    // The status pipe closes on a successful exec, or carries why the child could not get there.
    ChildFailure failure{};
    ssize_t count;
    while ((count = ::read(statusRead.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    if (count == static_cast<ssize_t>(sizeof failure)) {
        reap(pid, status);
        result.error = startFailure(failure, argv[0], options);
        return result;
    }

    const Fd exitWatch = openPidFd(pid);
    const auto deadline = Clock::now() + options.timeout;
    bool outputOpen = true;
    bool exited = false;
    for (;;) {
        exited = exited || ::waitpid(pid, &status, WNOHANG) == pid;
        if (exited) {
            // A daemon the child started may hold the pipe open forever: take what is there.
            ::fcntl(outputRead.get(), F_SETFL, O_NONBLOCK);
            while (outputOpen && readInto(outputRead.get(), result.output) == ReadState::Data) {
            }
            break;
        }
        const auto remaining
                = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
        if (remaining <= 0ms) {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            reap(pid, status);
            result.timedOut = true;
            return result;
        }
        pollfd watched[2];
        nfds_t count = 0;
        if (outputOpen)
            watched[count++] = {outputRead.get(), POLLIN, 0};
        if (exitWatch.get() >= 0)
            watched[count++] = {exitWatch.get(), POLLIN, 0};
        // Without a pidfd (Linux before 5.3, other systems), notice the exit in short slices.
        const auto wait = exitWatch.get() >= 0 ? remaining : std::min(remaining, 10ms);
        if (::poll(watched, count, static_cast<int>(wait.count())) > 0 && outputOpen
            && (watched[0].revents & (POLLIN | POLLHUP | POLLERR)))
            outputOpen = readInto(outputRead.get(), result.output) != ReadState::Closed;
    }
    result.exitCode = exitCodeOf(status);
    return result;
}

bool processAlive(int pid)
{
    if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM))
        return false;
    // kill() succeeds on a zombie, and a server whose parent does not reap stays one.
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const auto end = line.rfind(')');
    return end == std::string::npos || end + 2 >= line.size() || line[end + 2] != 'Z';
}

bool killProcess(int pid)
{
    return pid > 0 && ::kill(pid, SIGKILL) == 0;
}

int freeLoopbackPort()
{
    const Fd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (socket.get() < 0)
        throwErrno("socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(socket.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
        throwErrno("bind 127.0.0.1:0");
    socklen_t length = sizeof address;
    if (::getsockname(socket.get(), reinterpret_cast<sockaddr *>(&address), &length) != 0)
        throwErrno("getsockname");
    return ntohs(address.sin_port);
}

void chownTree(const std::filesystem::path &path, const Account &account)
{
    const auto give = [&account](const std::filesystem::path &entry) {
        if (::lchown(entry.c_str(), account.uid, account.gid) != 0) {
            throw std::filesystem::filesystem_error(
                    "cannot give it to " + account.name, entry,
                    std::error_code(errno, std::generic_category()));
        }
    };
    give(path);
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(path)))
        return;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(path))
        give(entry.path());
}

bool canTraverse(const Account &account, const std::filesystem::path &directory)
{
    const Identity identity = identityFor(account);
    if (!identity.switchAccount)
        return ::access(directory.c_str(), X_OK) == 0;
    // access() answers for the real user, so ask from a child that has become the account.
    const pid_t pid = ::fork();
    if (pid < 0)
        throwErrno("fork");
    if (pid == 0) {
        if (!become(identity))
            ::_exit(2);
        ::_exit(::access(directory.c_str(), X_OK) == 0 ? 0 : 1);
    }
    int status = 0;
    reap(pid, status);
    if (exitCodeOf(status) == 2) {
        throw std::system_error(EPERM, std::generic_category(),
                                "cannot switch to account '" + account.name + "'");
    }
    return exitCodeOf(status) == 0;
}

void writePrivateFile(const std::filesystem::path &path, std::string_view contents)
{
    const Fd file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                         S_IRUSR | S_IWUSR));
    if (file.get() < 0 || ::fchmod(file.get(), S_IRUSR | S_IWUSR) != 0)
        throwErrno("cannot write " + path.string());
    while (!contents.empty()) {
        const ssize_t written = ::write(file.get(), contents.data(), contents.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            throwErrno("cannot write " + path.string());
        contents.remove_prefix(static_cast<std::size_t>(written));
    }
}

std::string randomBytes(std::size_t n)
{
    const Fd source(::open("/dev/urandom", O_RDONLY | O_CLOEXEC));
    if (source.get() < 0)
        throwErrno("open /dev/urandom");
    std::string bytes(n, '\0');
    std::size_t filled = 0;
    while (filled < n) {
        const ssize_t count = ::read(source.get(), bytes.data() + filled, n - filled);
        if (count < 0 && errno == EINTR)
            continue;
        if (count <= 0)
            throwErrno("read /dev/urandom");
        filled += static_cast<std::size_t>(count);
    }
    return bytes;
}

unsigned effectiveUserId()
{
    return ::geteuid();
}

std::optional<Account> accountOf(unsigned uid)
{
    return lookup([uid](passwd *entry, char *buffer, std::size_t size, passwd **found) {
        return ::getpwuid_r(uid, entry, buffer, size, found);
    });
}

namespace {

FileInfo infoFrom(const struct stat &status)
{
    FileInfo info;
    info.type = S_ISDIR(status.st_mode)   ? FileType::Directory
                : S_ISREG(status.st_mode) ? FileType::Regular
                : S_ISLNK(status.st_mode) ? FileType::SymbolicLink
                                          : FileType::Other;
    info.uid = status.st_uid;
    info.mode = status.st_mode & 07777;
    info.links = static_cast<unsigned>(status.st_nlink);
    info.size = static_cast<std::uintmax_t>(status.st_size);
    return info;
}

// Modes the umask must not narrow, and owners, set on the descriptor itself, not on a path
// someone could swap meanwhile.
void settle(int fd, unsigned mode, const std::optional<Account> &owner, const std::string &name)
{
    if (::fchmod(fd, mode) != 0)
        throwErrno("cannot set the mode of " + name);
    if (owner && ::fchown(fd, owner->uid, owner->gid) != 0)
        throwErrno("cannot give " + name + " to " + owner->name);
}

} // namespace

OpenDirectory::OpenDirectory(int fd)
    : m_fd(fd)
{}

OpenDirectory OpenDirectory::root()
{
    const int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throwErrno("cannot open /");
    return OpenDirectory(fd);
}

OpenDirectory::OpenDirectory(OpenDirectory &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
{}

OpenDirectory &OpenDirectory::operator=(OpenDirectory &&other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

OpenDirectory::~OpenDirectory()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

FileInfo OpenDirectory::info() const
{
    struct stat status = {};
    if (::fstat(m_fd, &status) != 0)
        throwErrno("fstat");
    return infoFrom(status);
}

FileInfo OpenDirectory::infoOf(const std::string &name) const
{
    struct stat status = {};
    if (::fstatat(m_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0)
        return infoFrom(status);
    if (errno == ENOENT)
        return {};
    throwErrno("cannot examine " + name);
}

std::string OpenDirectory::linkTarget(const std::string &name) const
{
    std::string target(4096, '\0');
    const ssize_t length = ::readlinkat(m_fd, name.c_str(), target.data(), target.size());
    if (length < 0)
        throwErrno("cannot read the link " + name);
    target.resize(static_cast<std::size_t>(length));
    return target;
}

OpenDirectory OpenDirectory::open(const std::string &name) const
{
    const int fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        throwErrno("cannot open " + name);
    return OpenDirectory(fd);
}

OpenDirectory OpenDirectory::create(const std::string &name, unsigned mode,
                                    const std::optional<Account> &owner) const
{
    if (::mkdirat(m_fd, name.c_str(), S_IRWXU) != 0)
        throwErrno("cannot create " + name);
    OpenDirectory created = open(name);
    settle(created.m_fd, mode, owner, name);
    return created;
}

void OpenDirectory::createFile(const std::string &name, std::string_view contents, unsigned mode,
                               const std::optional<Account> &owner) const
{
    const Fd file(::openat(m_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           S_IRUSR | S_IWUSR));
    if (file.get() < 0)
        throwErrno("cannot create " + name);
    settle(file.get(), mode, owner, name);
    while (!contents.empty()) {
        const ssize_t written = ::write(file.get(), contents.data(), contents.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            throwErrno("cannot write " + name);
        contents.remove_prefix(static_cast<std::size_t>(written));
    }
}

std::string OpenDirectory::read(const std::string &name, std::uintmax_t offset) const
{
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    const Fd file(::openat(m_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.get() < 0)
        throwErrno("cannot open " + name);
    struct stat status = {};
    if (::fstat(file.get(), &status) != 0)
        throwErrno("fstat " + name);
    if (!S_ISREG(status.st_mode)) {
        errno = EINVAL;
        throwErrno(name + " is not a regular file");
    }
    std::string contents;
    char buffer[8192];
    auto position = static_cast<off_t>(offset);
    for (;;) {
        const ssize_t count = ::pread(file.get(), buffer, sizeof buffer, position);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0)
            throwErrno("cannot read " + name);
        if (count == 0)
            return contents;
        contents.append(buffer, static_cast<std::size_t>(count));
        position += count;
    }
}

void OpenDirectory::remove(const std::string &name) const
{
    if (::unlinkat(m_fd, name.c_str(), 0) != 0)
        throwErrno("cannot remove " + name);
}

} // namespace leader::platform
