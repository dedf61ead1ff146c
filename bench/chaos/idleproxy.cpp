#include "idleproxy.h"

#include <cerrno>
#include <memory>
#include <string>
#include <system_error>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace bench::chaos {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int PollEveryMs = 50; // also how soon the destructor is heard
constexpr std::size_t ReadSize = 64 * 1024;

sockaddr_in loopback(int port)
{
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    return address;
}

class Fd final
{
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// One proxied connection: the bytes read from one side and not yet written to the other. A side
// is read only while the other has nothing pending, so a slow reader slows its sender instead of
// filling the proxy's memory.
struct Link
{
    std::unique_ptr<Fd> client;
    std::unique_ptr<Fd> server;
    std::string toServer;
    std::string toClient;
    Clock::time_point clientSpoke = Clock::now();
    bool closed = false;
};

// Moves what from can give into pending, then what to takes from it; false at an end of file or
// an error on either side.
bool pump(int from, std::string &pending, int to, short fromEvents)
{
    if (pending.empty() && (fromEvents & (POLLIN | POLLHUP | POLLERR))) {
        char buffer[ReadSize];
        const ssize_t n = ::read(from, buffer, sizeof buffer);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return false;
        if (n > 0)
            pending.assign(buffer, static_cast<std::size_t>(n));
    }
    if (!pending.empty()) {
        const ssize_t n = ::send(to, pending.data(), pending.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        if (n > 0)
            pending.erase(0, static_cast<std::size_t>(n));
    }
    return true;
}

} // namespace

IdleCutProxy::IdleCutProxy(const std::vector<std::pair<int, int>> &ports,
                           std::chrono::milliseconds idle)
    : m_idle(idle)
{
    for (const auto &[listen, upstream] : ports) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        const int yes = 1;
        const sockaddr_in address = loopback(listen);
        if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0
            || ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0
            || ::listen(fd, 64) != 0) {
            const int error = errno;
            if (fd >= 0)
                ::close(fd);
            for (const Listener &listener : m_listeners)
                ::close(listener.fd);
            throw std::system_error(error, std::generic_category(),
                                    "idle-cutting proxy: listen on 127.0.0.1:"
                                            + std::to_string(listen));
        }
        m_listeners.push_back({fd, upstream});
    }
    m_thread = std::thread(&IdleCutProxy::run, this);
}

IdleCutProxy::~IdleCutProxy()
{
    m_stopping = true;
    m_thread.join();
    for (const Listener &listener : m_listeners)
        ::close(listener.fd);
}

void IdleCutProxy::run()
{
    std::vector<Link> links;
    std::vector<pollfd> polled;
    while (!m_stopping) {
        polled.clear();
        for (const Listener &listener : m_listeners)
            polled.push_back({listener.fd, POLLIN, 0});
        for (const Link &link : links) {
            polled.push_back({link.client->get(),
                              static_cast<short>((link.toServer.empty() ? POLLIN : 0)
                                                 | (link.toClient.empty() ? 0 : POLLOUT)),
                              0});
            polled.push_back({link.server->get(),
                              static_cast<short>((link.toClient.empty() ? POLLIN : 0)
                                                 | (link.toServer.empty() ? 0 : POLLOUT)),
                              0});
        }
        if (::poll(polled.data(), polled.size(), PollEveryMs) < 0 && errno != EINTR)
            return;
        const Clock::time_point now = Clock::now();
        for (std::size_t i = 0; i < links.size(); ++i) {
            Link &link = links[i];
            const pollfd &client = polled[m_listeners.size() + 2 * i];
            const pollfd &server = polled[m_listeners.size() + 2 * i + 1];
            const bool clientSent = link.toServer.empty() && (client.revents & POLLIN);
            if (!pump(link.client->get(), link.toServer, link.server->get(), client.revents)
                || !pump(link.server->get(), link.toClient, link.client->get(), server.revents)) {
                link.closed = true;
                continue;
            }
            if (clientSent)
                link.clientSpoke = now;
            else if (now - link.clientSpoke >= m_idle) {
                link.closed = true;
                ++m_cut;
            }
        }
        std::erase_if(links, [](const Link &link) { return link.closed; });
        for (std::size_t i = 0; i < m_listeners.size(); ++i) {
            if (!(polled[i].revents & POLLIN))
                continue;
            const int accepted
                    = ::accept4(m_listeners[i].fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (accepted < 0)
                continue;
            auto client = std::make_unique<Fd>(accepted);
            // A loopback dial is answered at once: connected, or refused by a node that is down.
            auto server = std::make_unique<Fd>(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
            const sockaddr_in address = loopback(m_listeners[i].upstreamPort);
            if (server->get() < 0
                || ::connect(server->get(), reinterpret_cast<const sockaddr *>(&address),
                             sizeof address)
                           != 0
                || ::fcntl(server->get(), F_SETFL, O_NONBLOCK) != 0)
                continue;
            ++m_accepted;
            links.push_back({.client = std::move(client), .server = std::move(server)});
        }
    }
}

} // namespace bench::chaos
