#include "replicaprocess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace bench {

namespace {

using namespace std::chrono_literals;

[[noreturn]] void throwErrno(const std::string &what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

// Closes on every path out, including the exceptions thrown while a child is being set up.
class Descriptor final
{
public:
    explicit Descriptor(int fd = -1)
        : m_fd(fd)
    {}
    ~Descriptor() { reset(); }
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;

    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd;
};

ExitStatus decode(int status)
{
    ExitStatus exit;
    exit.observedAt = std::chrono::steady_clock::now();
    if (WIFEXITED(status)) {
        exit.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        exit.signal = WTERMSIG(status);
    }
    return exit;
}

int remainingMs(std::chrono::steady_clock::time_point deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
    return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

} // namespace

std::string ExitStatus::describe() const
{
    if (signal != 0) {
        const char *name = strsignal(signal);
        return "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
    }
    return "exit code " + std::to_string(code);
}

std::string lastNonEmptyLine(const std::filesystem::path &file)
{
    std::ifstream log(file);
    std::string line, last;
    while (std::getline(log, line)) {
        if (!line.empty())
            last = line;
    }
    return last;
}

void prepareChild(int parent)
{
    // Its own group keeps the terminal's Ctrl-C away from it: the benchmark decides its end.
    ::setpgid(0, 0);
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
        ::_exit(127);
#endif
    struct sigaction defaults = {};
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    for (const int signal : {SIGPIPE, SIGINT, SIGTERM})
        ::sigaction(signal, &defaults, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

std::vector<char *> execArguments(std::vector<std::string> &words)
{
    std::vector<char *> args;
    for (std::string &word : words)
        args.push_back(word.data());
    args.push_back(nullptr);
    return args;
}

ReplicaProcess::ReplicaProcess(const std::vector<std::string> &argv,
                               const std::filesystem::path &stderrLog,
                               const std::filesystem::path &stdoutCopy, LineHandler onLine)
{
    if (argv.empty())
        throw std::invalid_argument("no program to run");
    int outPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0)
        throwErrno("pipe");
    Descriptor outRead(outPipe[0]), outWrite(outPipe[1]);
    // exec reports its failure through this pipe; a successful exec closes it empty.
    int statusPipe[2];
    if (pipe2(statusPipe, O_CLOEXEC) != 0)
        throwErrno("pipe");
    Descriptor statusRead(statusPipe[0]), statusWrite(statusPipe[1]);
    Descriptor devNull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (devNull.get() < 0)
        throwErrno("/dev/null");
    Descriptor errorLog(::open(stderrLog.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    if (errorLog.get() < 0)
        throwErrno(stderrLog.string());

    std::vector<std::string> words = argv;
    const std::vector<char *> args = execArguments(words);
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0)
        throwErrno("fork");
    if (pid == 0) {
        prepareChild(parent);
        if (::dup2(devNull.get(), STDIN_FILENO) < 0 || ::dup2(outWrite.get(), STDOUT_FILENO) < 0
            || ::dup2(errorLog.get(), STDERR_FILENO) < 0)
            ::_exit(127);
        ::execv(args[0], args.data());
        const int error = errno;
        [[maybe_unused]] const ssize_t written = ::write(statusWrite.get(), &error, sizeof error);
        ::_exit(127);
    }
    outWrite.reset();
    statusWrite.reset();
    int execError = 0;
    ssize_t n;
    do {
        n = ::read(statusRead.get(), &execError, sizeof execError);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof execError)) {
        int status;
        ::waitpid(pid, &status, 0);
        throw std::system_error(execError, std::generic_category(), "cannot run " + argv.front());
    }
    m_pid = pid;
    m_stdout = outRead.release();
    m_reader = std::thread(&ReplicaProcess::readLines, this, std::move(onLine), stdoutCopy);
}

ReplicaProcess::~ReplicaProcess()
{
    if (!exitStatus()) {
        // A frozen child is thawed first so that nothing of it lingers stopped.
        ::kill(m_pid, SIGCONT);
        ::kill(m_pid, SIGKILL);
        int status;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    m_stopReading.store(true);
    if (m_reader.joinable())
        m_reader.join();
    if (m_stdout >= 0)
        ::close(m_stdout);
}

void ReplicaProcess::send(int signal)
{
    if (!m_exit)
        ::kill(m_pid, signal);
}

void ReplicaProcess::kill()
{
    send(SIGKILL);
}

void ReplicaProcess::terminate()
{
    send(SIGTERM);
}

void ReplicaProcess::freeze()
{
    send(SIGSTOP);
}

void ReplicaProcess::resume()
{
    send(SIGCONT);
}

std::optional<ExitStatus> ReplicaProcess::exitStatus()
{
    if (m_exit)
        return m_exit;
    int status = 0;
    const pid_t reaped = ::waitpid(m_pid, &status, WNOHANG);
    if (reaped == m_pid) {
        m_exit = decode(status);
    } else if (reaped < 0 && errno == ECHILD) {
        // Reaped elsewhere: gone, with no status to report.
        m_exit = ExitStatus{.observedAt = std::chrono::steady_clock::now()};
    }
    return m_exit;
}

std::optional<ExitStatus> ReplicaProcess::waitForExit(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (std::optional<ExitStatus> exit = exitStatus())
            return exit;
        if (std::chrono::steady_clock::now() >= deadline)
            return std::nullopt;
        ::usleep(5000);
    }
}

void ReplicaProcess::readLines(LineHandler onLine, std::filesystem::path stdoutCopy)
{
    std::ofstream copy(stdoutCopy, std::ios::app);
    std::string pending;
    char buffer[4096];
    // Polls with a timeout so the destructor can stop it even if a grandchild kept the pipe open.
    while (!m_stopReading.load()) {
        pollfd fd = {m_stdout, POLLIN, 0};
        const int ready = ::poll(&fd, 1, 100);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(m_stdout, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        pending.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t newline; (newline = pending.find('\n')) != std::string::npos;) {
            const std::string line = pending.substr(0, newline);
            pending.erase(0, newline + 1);
            copy << line << '\n' << std::flush;
            onLine(m_pid, line);
        }
    }
    if (!pending.empty()) {
        copy << pending << '\n';
        onLine(m_pid, pending);
    }
}

std::string sendControl(const std::filesystem::path &socketPath, const std::string &command,
                        std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    const std::string path = socketPath.string();
    if (path.size() >= sizeof address.sun_path)
        throw std::runtime_error("control socket path too long: " + path);
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);

    Descriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0)
        throwErrno("socket");
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
        throwErrno("cannot reach the control socket " + path);
    const std::string line = command + "\n";
    for (std::size_t sent = 0; sent < line.size();) {
        const ssize_t n = ::send(fd.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throwErrno("cannot write to the control socket " + path);
        sent += static_cast<std::size_t>(n);
    }
    std::string reply;
    char buffer[512];
    while (reply.find('\n') == std::string::npos) {
        pollfd ready = {fd.get(), POLLIN, 0};
        const int polled = ::poll(&ready, 1, remainingMs(deadline));
        if (polled < 0 && errno == EINTR)
            continue;
        if (polled < 0)
            throwErrno("control socket " + path);
        if (polled == 0)
            throw std::runtime_error("no reply to '" + command + "' from " + path + " within "
                                     + std::to_string(timeout.count()) + " ms");
        const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throwErrno("control socket " + path);
        if (n == 0)
            break;
        reply.append(buffer, static_cast<std::size_t>(n));
    }
    reply = reply.substr(0, reply.find('\n'));
    if (!reply.empty() && reply.back() == '\r')
        reply.pop_back();
    if (reply.empty())
        throw std::runtime_error("empty reply to '" + command + "' from " + path);
    return reply;
}

} // namespace bench
