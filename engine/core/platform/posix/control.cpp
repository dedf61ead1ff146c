#include "platform/control.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace leader::platform {

namespace {

[[noreturn]] void fail(const char *what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

sockaddr_un addressOf(const std::filesystem::path &path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string text = path.string();
    if (text.size() >= sizeof address.sun_path)
        throw std::runtime_error("control socket path too long (at most "
                                 + std::to_string(sizeof address.sun_path - 1)
                                 + " bytes): " + text);
    std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
    return address;
}

// Reads up to a newline or end of stream, at most 4 KiB, until the deadline.
bool readLine(int fd, std::string &line, std::chrono::steady_clock::time_point deadline)
{
    std::array<char, 512> buffer{};
    while (line.find('\n') == std::string::npos && line.size() < 4096) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd item{fd, POLLIN, 0};
        if (::poll(&item, 1, static_cast<int>(left.count())) <= 0)
            continue;
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got <= 0)
            break;
        line.append(buffer.data(), static_cast<std::size_t>(got));
    }
    if (const auto newline = line.find('\n'); newline != std::string::npos)
        line.resize(newline);
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return true;
}

// What kind of file st is, for a refusal.
std::string kindOf(const struct stat &st)
{
    if (S_ISREG(st.st_mode))
        return "a regular file";
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (S_ISLNK(st.st_mode))
        return "a symbolic link";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    return "not a socket";
}

// Whether a server accepts connections on the socket file at address now.
bool somebodyListens(const sockaddr_un &address)
{
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0)
        fail("control socket");
    const bool listening
            = ::connect(probe, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0
              || errno != ECONNREFUSED;
    ::close(probe);
    return listening;
}

// Clears the way for bind(): nothing at path, or a socket file of this account that nobody
// listens on any more (a killed replica's), which is removed. Anything else is refused and left
// alone: the path may name a file of value, or another replica's live socket. Only a refused
// connect (ECONNREFUSED: no listener) counts as dead; any other answer, or an error, leaves the
// socket to whoever may still serve it.
void clearStaleSocket(const std::filesystem::path &path, const sockaddr_un &address)
{
    struct stat before = {};
    if (::lstat(path.c_str(), &before) != 0) {
        if (errno == ENOENT)
            return;
        throw std::system_error(errno, std::generic_category(), "control socket " + path.string());
    }
    const std::string refused = "--control " + path.string() + " ";
    if (!S_ISSOCK(before.st_mode))
        throw std::runtime_error(refused + "exists and is " + kindOf(before)
                                 + ", not a socket; give a path that does not exist");
    if (before.st_uid != ::geteuid())
        throw std::runtime_error(refused
                                 + "is a socket of another account; give a path that "
                                   "does not exist");
    if (somebodyListens(address))
        throw std::runtime_error(refused
                                 + "is served by another process (a replica running "
                                   "with the same --control?); stop it or give another "
                                   "path");
    // Removed only if still the very socket looked at: not a file put there meanwhile.
    struct stat now = {};
    if (::lstat(path.c_str(), &now) != 0 || now.st_dev != before.st_dev
        || now.st_ino != before.st_ino || !S_ISSOCK(now.st_mode))
        throw std::runtime_error(refused + "changed while it was checked; try again");
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw std::system_error(errno, std::generic_category(),
                                "cannot remove the stale control socket " + path.string());
}

void writeAll(int fd, const std::string &text)
{
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        sent += static_cast<std::size_t>(n);
    }
}

} // namespace

struct ControlServer::Native
{
    int listener = -1;
    int wakeRead = -1;
    int wakeWrite = -1;
    // The socket file this server bound, so that stop() removes that one and nothing else.
    std::optional<std::pair<dev_t, ino_t>> bound;
};

ControlServer::ControlServer(std::filesystem::path path, Handler handler)
    : m_path(std::move(path))
    , m_handler(std::move(handler))
    , m_native(std::make_unique<Native>())
{}

ControlServer::~ControlServer()
{
    stop();
}

void ControlServer::start()
{
    const sockaddr_un address = addressOf(m_path);
    Native &native = *m_native;
    clearStaleSocket(m_path, address);
    native.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (native.listener < 0)
        fail("control socket");
    // bind() never replaces a file: one created since the check fails it with EADDRINUSE.
    const mode_t previous = ::umask(0077);
    const int bound
            = ::bind(native.listener, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    ::umask(previous);
    if (bound != 0 || ::listen(native.listener, 8) != 0) {
        const int error = errno;
        ::close(native.listener);
        native.listener = -1;
        throw std::system_error(error, std::generic_category(),
                                "control socket " + m_path.string());
    }
    if (struct stat st{}; ::lstat(m_path.c_str(), &st) == 0)
        native.bound = std::make_pair(st.st_dev, st.st_ino);
    int pipeEnds[2];
    if (::pipe2(pipeEnds, O_CLOEXEC) != 0)
        fail("control socket wake pipe");
    native.wakeRead = pipeEnds[0];
    native.wakeWrite = pipeEnds[1];
    m_thread = std::thread([this] { serve(); });
}

void ControlServer::stop()
{
    if (m_thread.joinable()) {
        const char byte = 1;
        [[maybe_unused]] const ssize_t ignored = ::write(m_native->wakeWrite, &byte, 1);
        m_thread.join();
    }
    for (int *fd : {&m_native->listener, &m_native->wakeRead, &m_native->wakeWrite}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
    // Only the socket file this server bound: a failed start must not remove what it refused.
    if (struct stat st{}; m_native->bound && ::lstat(m_path.c_str(), &st) == 0
                          && S_ISSOCK(st.st_mode) && st.st_dev == m_native->bound->first
                          && st.st_ino == m_native->bound->second)
        ::unlink(m_path.c_str());
    m_native->bound.reset();
}

void ControlServer::serve()
{
    for (;;) {
        std::array<pollfd, 2> items{pollfd{m_native->listener, POLLIN, 0},
                                    pollfd{m_native->wakeRead, POLLIN, 0}};
        if (::poll(items.data(), items.size(), -1) < 0)
            continue;
        if (items[1].revents)
            return;
        if (!(items[0].revents & POLLIN))
            continue;
        const int client = ::accept4(m_native->listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        std::string line;
        // One client at a time, each with a short deadline, so a silent client cannot hold it.
        if (readLine(client, line, std::chrono::steady_clock::now() + std::chrono::seconds(2)))
            writeAll(client, m_handler(line) + "\n");
        ::close(client);
    }
}

std::filesystem::path controlEndpoint(const std::filesystem::path &path)
{
    return path;
}

std::string controlRequest(const std::filesystem::path &path, const std::string &command,
                           std::chrono::milliseconds timeout)
{
    const sockaddr_un address = addressOf(path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("control socket");
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        throw std::runtime_error("cannot reach the control socket " + path.string() + ": "
                                 + reason);
    }
    writeAll(fd, command + "\n");
    std::string reply;
    const bool answered = readLine(fd, reply, std::chrono::steady_clock::now() + timeout);
    ::close(fd);
    if (!answered || reply.empty())
        throw std::runtime_error("the control socket " + path.string() + " did not answer");
    return reply;
}

void blockTerminationSignals()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::string waitForTermination()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    return signal == SIGINT ? "SIGINT" : "SIGTERM";
}

void requestTermination()
{
    ::kill(::getpid(), SIGTERM);
}

void killThisProcess()
{
    ::kill(::getpid(), SIGKILL);
    ::_exit(137);
}

} // namespace leader::platform
