#include "platform/sockets.h"

#include "platform/common/lookup.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <netdb.h>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace leader::platform {

namespace {

static_assert(sizeof(sockaddr_storage) <= 128);

[[noreturn]] void throwErrno(const std::string &what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

// Small request and reply messages must not wait for Nagle's coalescing: on loopback it costs up
// to a delayed-ACK interval per exchange, which the slow mode's latency figures would inherit.
void disableNagle(int handle)
{
    const int on = 1;
    ::setsockopt(handle, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

} // namespace

void Socket::close()
{
    if (m_handle >= 0)
        ::close(std::exchange(m_handle, -1));
}

void lookUpAddresses(
        const std::string &host, int port,
        const std::function<void(const void *sockaddr, std::size_t length, int family)> &each)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int failed = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (failed != 0)
        throw std::runtime_error("cannot resolve " + host + ": " + ::gai_strerror(failed));
    for (const addrinfo *entry = found; entry; entry = entry->ai_next)
        each(entry->ai_addr, entry->ai_addrlen, entry->ai_family);
    ::freeaddrinfo(found);
}

Socket startConnect(const TcpAddress &address)
{
    Socket socket(::socket(address.m_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!socket.isOpen())
        return {};
    disableNagle(socket.handle());
    if (::connect(socket.handle(), reinterpret_cast<const sockaddr *>(address.m_storage.data()),
                  address.m_length)
                != 0
        && errno != EINPROGRESS)
        return {};
    return socket;
}

bool connectSucceeded(const Socket &socket)
{
    int error = 0;
    socklen_t length = sizeof error;
    return ::getsockopt(socket.handle(), SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
}

Socket listenLoopback(int port)
{
    Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!socket.isOpen())
        throwErrno("socket");
    // A given port must be reusable at once after a stop, while its old connections sit in
    // TIME_WAIT.
    const int on = 1;
    ::setsockopt(socket.handle(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::bind(socket.handle(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
        throwErrno("bind 127.0.0.1:" + std::to_string(port));
    if (::listen(socket.handle(), SOMAXCONN) != 0)
        throwErrno("listen");
    return socket;
}

int localPort(const Socket &socket)
{
    sockaddr_in address{};
    socklen_t length = sizeof address;
    if (::getsockname(socket.handle(), reinterpret_cast<sockaddr *>(&address), &length) != 0)
        throwErrno("getsockname");
    return ntohs(address.sin_port);
}

Socket acceptConnection(const Socket &listener)
{
    Socket socket(::accept4(listener.handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (socket.isOpen())
        disableNagle(socket.handle());
    return socket;
}

TransferResult receiveSome(const Socket &socket, std::span<char> buffer)
{
    const ssize_t received = ::recv(socket.handle(), buffer.data(), buffer.size(), 0);
    if (received > 0)
        return {Transfer::Moved, static_cast<std::size_t>(received)};
    if (received == 0)
        return {Transfer::Closed};
    return {errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? Transfer::WouldBlock
                                                                      : Transfer::Failed};
}

TransferResult sendSome(const Socket &socket, std::span<const char> bytes)
{
    const ssize_t sent = ::send(socket.handle(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent >= 0)
        return {Transfer::Moved, static_cast<std::size_t>(sent)};
    return {errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? Transfer::WouldBlock
                                                                      : Transfer::Failed};
}

void shutdownWrite(const Socket &socket)
{
    ::shutdown(socket.handle(), SHUT_WR);
}

Waker::Waker()
{
    int ends[2];
    if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0)
        throwErrno("pipe");
    m_read = Socket(ends[0]);
    m_write = Socket(ends[1]);
}

void Waker::wake()
{
    // A full pipe already holds a wake-up, so a failed write loses nothing.
    const char byte = 0;
    [[maybe_unused]] const ssize_t written = ::write(m_write.handle(), &byte, 1);
}

void Waker::drain()
{
    char bytes[64];
    while (::read(m_read.handle(), bytes, sizeof bytes) > 0) {
    }
}

void pollSockets(std::span<PollItem> items, std::optional<std::chrono::milliseconds> timeout)
{
    std::vector<pollfd> entries;
    entries.reserve(items.size());
    for (const PollItem &item : items) {
        const auto events = (item.wantRead ? POLLIN : 0) | (item.wantWrite ? POLLOUT : 0);
        entries.push_back({item.handle, static_cast<short>(events), 0});
    }
    const int millis = timeout ? static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(
                               timeout->count(), 0, INT_MAX))
                               : -1;
    if (::poll(entries.data(), entries.size(), millis) < 0) {
        if (errno != EINTR)
            throwErrno("poll");
        entries.assign(entries.size(), pollfd{});
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        items[i].readable = entries[i].revents & POLLIN;
        items[i].writable = entries[i].revents & POLLOUT;
        items[i].hungUp = entries[i].revents & (POLLERR | POLLHUP | POLLNVAL);
    }
}

} // namespace leader::platform
