#include "platform/sockets.h"

#include "platform/common/lookup.h"
#include "win32.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

// After winsock2.h, which it assumes.
#include <ws2tcpip.h>

namespace leader::platform {

namespace {

static_assert(sizeof(sockaddr_storage) <= 128);

// The seam holds sockets as int, as libpq's PQsocket hands them out on Windows too: a SOCKET is
// a kernel handle, and Windows keeps handles within 32 bits so that 32- and 64-bit processes can
// share them. INVALID_SOCKET and -1 convert into each other.
SOCKET native(int handle)
{
    return static_cast<SOCKET>(static_cast<std::intptr_t>(handle));
}

int handleOf(SOCKET socket)
{
    return socket == INVALID_SOCKET ? -1 : static_cast<int>(socket);
}

[[noreturn]] void throwSocketError(const std::string &what)
{
    win32::throwError(static_cast<DWORD>(::WSAGetLastError()), what);
}

bool wouldBlock(int error)
{
    return error == WSAEWOULDBLOCK || error == WSAEINTR || error == WSAEINPROGRESS;
}

// Not inherited by child processes (the servers the cluster starts), as SOCK_CLOEXEC on Linux.
Socket newSocket(int family)
{
    win32::startWinsock();
    return Socket(handleOf(::WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, nullptr, 0,
                                        WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT)));
}

bool makeNonBlocking(SOCKET socket)
{
    u_long on = 1;
    return ::ioctlsocket(socket, FIONBIO, &on) == 0;
}

// Small request and reply messages must not wait for Nagle's coalescing: on loopback it costs up
// to a delayed-ACK interval per exchange, which the slow mode's latency figures would inherit.
void disableNagle(SOCKET socket)
{
    const BOOL on = TRUE;
    ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char *>(&on), sizeof on);
}

} // namespace

void Socket::close()
{
    if (m_handle >= 0)
        ::closesocket(native(std::exchange(m_handle, -1)));
}

void lookUpAddresses(
        const std::string &host, int port,
        const std::function<void(const void *sockaddr, std::size_t length, int family)> &each)
{
    win32::startWinsock();
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int failed = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (failed != 0)
        throw std::runtime_error("cannot resolve " + host + ": "
                                 + win32::errorText(static_cast<DWORD>(failed)));
    for (const addrinfo *entry = found; entry; entry = entry->ai_next)
        each(entry->ai_addr, entry->ai_addrlen, entry->ai_family);
    ::freeaddrinfo(found);
}

Socket startConnect(const TcpAddress &address)
{
    Socket socket = newSocket(address.m_family);
    if (!socket.isOpen() || !makeNonBlocking(native(socket.handle())))
        return {};
    disableNagle(native(socket.handle()));
    if (::connect(native(socket.handle()),
                  reinterpret_cast<const sockaddr *>(address.m_storage.data()),
                  static_cast<int>(address.m_length))
                != 0
        && !wouldBlock(::WSAGetLastError()))
        return {};
    return socket;
}

bool connectSucceeded(const Socket &socket)
{
    int error = 0;
    int length = sizeof error;
    return ::getsockopt(native(socket.handle()), SOL_SOCKET, SO_ERROR,
                        reinterpret_cast<char *>(&error), &length)
                   == 0
           && error == 0;
}

Socket listenLoopback(int port)
{
    Socket socket = newSocket(AF_INET);
    if (!socket.isOpen())
        throwSocketError("socket");
    const SOCKET handle = native(socket.handle());
    // Windows binds a port whose old connections sit in TIME_WAIT without being asked; what
    // SO_REUSEADDR does there instead is let another socket take a port already bound. Exclusive
    // use forbids that.
    const BOOL on = TRUE;
    ::setsockopt(handle, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char *>(&on),
                 sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::bind(handle, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
        throwSocketError("bind 127.0.0.1:" + std::to_string(port));
    if (::listen(handle, SOMAXCONN) != 0)
        throwSocketError("listen");
    if (!makeNonBlocking(handle))
        throwSocketError("ioctlsocket");
    return socket;
}

int localPort(const Socket &socket)
{
    sockaddr_in address{};
    int length = sizeof address;
    if (::getsockname(native(socket.handle()), reinterpret_cast<sockaddr *>(&address), &length)
        != 0)
        throwSocketError("getsockname");
    return ntohs(address.sin_port);
}

Socket acceptConnection(const Socket &listener)
{
    Socket socket(handleOf(::accept(native(listener.handle()), nullptr, nullptr)));
    if (!socket.isOpen())
        return socket;
    const SOCKET handle = native(socket.handle());
    // An accepted socket takes the listener's properties; said again here rather than relied on.
    ::SetHandleInformation(reinterpret_cast<HANDLE>(handle), HANDLE_FLAG_INHERIT, 0);
    if (!makeNonBlocking(handle))
        return {};
    disableNagle(handle);
    return socket;
}

TransferResult receiveSome(const Socket &socket, std::span<char> buffer)
{
    const int size = static_cast<int>(std::min<std::size_t>(buffer.size(), INT_MAX));
    const int received = ::recv(native(socket.handle()), buffer.data(), size, 0);
    if (received > 0)
        return {Transfer::Moved, static_cast<std::size_t>(received)};
    if (received == 0)
        return {Transfer::Closed};
    return {wouldBlock(::WSAGetLastError()) ? Transfer::WouldBlock : Transfer::Failed};
}

TransferResult sendSome(const Socket &socket, std::span<const char> bytes)
{
    const int size = static_cast<int>(std::min<std::size_t>(bytes.size(), INT_MAX));
    const int sent = ::send(native(socket.handle()), bytes.data(), size, 0);
    if (sent >= 0)
        return {Transfer::Moved, static_cast<std::size_t>(sent)};
    return {wouldBlock(::WSAGetLastError()) ? Transfer::WouldBlock : Transfer::Failed};
}

void shutdownWrite(const Socket &socket)
{
    ::shutdown(native(socket.handle()), SD_SEND);
}

Waker::Waker()
{
    // Windows has no pipe WSAPoll can watch: a connected pair of loopback TCP sockets does the
    // same. Another local process could connect to the listener first, so the accepted end must
    // be the peer of this process's own connecting socket.
    const Socket listener = listenLoopback(0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(localPort(listener)));
    Socket writer = newSocket(AF_INET);
    if (!writer.isOpen()
        || ::connect(native(writer.handle()), reinterpret_cast<const sockaddr *>(&address),
                     sizeof address)
                   != 0
        || !makeNonBlocking(native(writer.handle())))
        throwSocketError("waker connect");
    disableNagle(native(writer.handle()));
    sockaddr_in own{};
    int ownLength = sizeof own;
    if (::getsockname(native(writer.handle()), reinterpret_cast<sockaddr *>(&own), &ownLength) != 0)
        throwSocketError("getsockname");
    for (int attempt = 0; attempt < 16; ++attempt) {
        PollItem item{.handle = listener.handle(), .wantRead = true};
        pollSockets(std::span(&item, 1), std::chrono::seconds(5));
        Socket reader = acceptConnection(listener);
        if (!reader.isOpen())
            continue;
        sockaddr_in peer{};
        int peerLength = sizeof peer;
        if (::getpeername(native(reader.handle()), reinterpret_cast<sockaddr *>(&peer), &peerLength)
                    == 0
            && peer.sin_port == own.sin_port && peer.sin_addr.s_addr == own.sin_addr.s_addr) {
            m_read = std::move(reader);
            m_write = std::move(writer);
            return;
        }
    }
    throw std::runtime_error("waker: its own loopback connection never arrived");
}

void Waker::wake()
{
    // A full buffer already holds a wake-up, so a failed send loses nothing.
    const char byte = 0;
    ::send(native(m_write.handle()), &byte, 1, 0);
}

void Waker::drain()
{
    char bytes[64];
    while (::recv(native(m_read.handle()), bytes, sizeof bytes, 0) > 0) {
    }
}

void pollSockets(std::span<PollItem> items, std::optional<std::chrono::milliseconds> timeout)
{
    // WSAPoll takes no closed entries (poll() skips a negative descriptor) and wants at least
    // one event per entry: those items are left out, and reported as nothing ready.
    std::vector<WSAPOLLFD> entries;
    std::vector<std::size_t> polled;
    for (std::size_t i = 0; i < items.size(); ++i) {
        PollItem &item = items[i];
        item.readable = item.writable = item.hungUp = false;
        if (item.handle < 0 || (!item.wantRead && !item.wantWrite))
            continue;
        const auto events = (item.wantRead ? POLLRDNORM : 0) | (item.wantWrite ? POLLWRNORM : 0);
        entries.push_back({native(item.handle), static_cast<SHORT>(events), 0});
        polled.push_back(i);
    }
    const INT millis = timeout ? static_cast<INT>(std::clamp<std::chrono::milliseconds::rep>(
                               timeout->count(), 0, INT_MAX))
                               : -1;
    if (entries.empty()) {
        ::Sleep(millis < 0 ? INFINITE : static_cast<DWORD>(millis));
        return;
    }
    if (::WSAPoll(entries.data(), static_cast<ULONG>(entries.size()), millis) == SOCKET_ERROR)
        throwSocketError("WSAPoll");
    for (std::size_t j = 0; j < entries.size(); ++j) {
        PollItem &item = items[polled[j]];
        item.readable = entries[j].revents & POLLRDNORM;
        item.writable = entries[j].revents & POLLWRNORM;
        item.hungUp = entries[j].revents & (POLLERR | POLLHUP | POLLNVAL);
    }
}

} // namespace leader::platform
