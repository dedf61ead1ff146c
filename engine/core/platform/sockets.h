#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

// Non-blocking TCP, a wake-up pipe and a poll over both: the plumbing of the fault injection's link
// proxy. With socketwait.cpp the only place the engine touches the OS socket API (Winsock and
// WSAPoll on Windows). Failures of the OS calls throw std::system_error unless a
// function says otherwise.
namespace leader::platform {

// An owned descriptor, closed on destruction. Closing a TCP socket sends FIN, or RST when received
// data is still unread, as the kernel decides. On Windows the handle is a SOCKET held as an int,
// as libpq's PQsocket hands one out: Windows keeps kernel handles within 32 bits.
class Socket final
{
public:
    Socket() = default;
    explicit Socket(int handle)
        : m_handle(handle)
    {}
    ~Socket();
    Socket(Socket &&other) noexcept;
    Socket &operator=(Socket &&other) noexcept;
    Socket(const Socket &) = delete;
    Socket &operator=(const Socket &) = delete;

    bool isOpen() const { return m_handle >= 0; }
    int handle() const { return m_handle; }
    void close();

private:
    int m_handle = -1;
};

class TcpAddress;
// Starts a non-blocking connect with Nagle off: the socket turns writable when the connect ends,
// and connectSucceeded then says how. A closed Socket when it failed at once (no descriptor left,
// or refused on the spot).
Socket startConnect(const TcpAddress &address);

// One resolved IPv4 or IPv6 address and port.
class TcpAddress final
{
public:
    // Every address host resolves to, in the resolver's order. Throws std::runtime_error when it
    // resolves to none.
    static std::vector<TcpAddress> resolve(const std::string &host, int port);

private:
    friend Socket startConnect(const TcpAddress &address);

    std::array<unsigned char, 128> m_storage{}; // a sockaddr_storage
    unsigned m_length = 0;
    int m_family = 0;
};

// Whether the connect startConnect began succeeded; ask once the socket is writable or hung up.
bool connectSucceeded(const Socket &socket);

// Listens on 127.0.0.1:port (0: a free port the kernel picks), non-blocking.
Socket listenLoopback(int port);
int localPort(const Socket &socket);
// The next pending connection, non-blocking with Nagle off; a closed Socket when none is pending.
Socket acceptConnection(const Socket &listener);

enum class Transfer { Moved, WouldBlock, Closed, Failed };
struct TransferResult
{
    Transfer status = Transfer::WouldBlock;
    std::size_t bytes = 0;
};
// Closed is the peer's end of stream; Failed a reset or any other error.
TransferResult receiveSome(const Socket &socket, std::span<char> buffer);
// Failed when the peer is gone; never raises SIGPIPE.
TransferResult sendSome(const Socket &socket, std::span<const char> bytes);
// Sends FIN after whatever is queued; a socket that is already gone is left as it is.
void shutdownWrite(const Socket &socket);

// A self-pipe that wakes pollSockets from another thread (on Windows a connected pair of loopback
// TCP sockets: WSAPoll watches sockets only).
class Waker final
{
public:
    Waker();

    void wake();
    void drain();
    int handle() const { return m_read.handle(); }

private:
    Socket m_read;
    Socket m_write;
};

struct PollItem
{
    int handle = -1;
    bool wantRead = false;
    bool wantWrite = false;
    bool readable = false;
    bool writable = false;
    bool hungUp = false; // an error or hang-up: the next read or write says which
};

// Waits until an item is ready or the timeout passes (nullopt: no limit). An interrupted wait
// returns with nothing ready.
void pollSockets(std::span<PollItem> items, std::optional<std::chrono::milliseconds> timeout);

} // namespace leader::platform
