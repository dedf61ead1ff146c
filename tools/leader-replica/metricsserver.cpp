#include "metricsserver.h"

#include "platform/sockets.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#ifdef _WIN32
#include <winsock2.h>
// After winsock2.h, which it assumes.
#include <ws2tcpip.h>
#else
#include <netdb.h>

#include <sys/socket.h>
#endif

namespace leader::tools {

namespace {

using Clock = std::chrono::steady_clock;
using platform::Socket;

// A non-blocking TCP socket of family, not inherited by child processes, that takes its port at
// once after a restart, while the old connections sit in TIME_WAIT.
Socket newListener(int family)
{
#ifdef _WIN32
    Socket socket(static_cast<int>(::WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, nullptr, 0,
                                                WSA_FLAG_NO_HANDLE_INHERIT)));
    const SOCKET handle = static_cast<SOCKET>(socket.handle());
    u_long nonBlocking = 1;
    if (!socket.isOpen() || ::ioctlsocket(handle, FIONBIO, &nonBlocking) != 0)
        return {};
    // Windows rebinds a port in TIME_WAIT unasked; its SO_REUSEADDR would share a bound port.
    const BOOL exclusive = TRUE;
    ::setsockopt(handle, SOL_SOCKET, SO_EXCLUSIVEADDRUSE,
                 reinterpret_cast<const char *>(&exclusive), sizeof exclusive);
#else
    Socket socket(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    const int reuse = 1;
    if (socket.isOpen())
        ::setsockopt(socket.handle(), SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
#endif
    return socket;
}

// Listening on address:port with the kernel's deepest backlog, so that clients connecting at once
// wait there rather than for a SYN retransmit. The platform seam listens on loopback alone;
// --metrics-listen may name any address of this host, or a name. A closed Socket on failure.
Socket listenOn(const std::string &address, int port)
{
#ifdef _WIN32
    WSADATA started;
    if (::WSAStartup(MAKEWORD(2, 2), &started) != 0)
        return {};
#endif
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo *found = nullptr;
    if (::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
        return {};
    Socket listener;
    for (const addrinfo *entry = found; entry && !listener.isOpen(); entry = entry->ai_next) {
        Socket socket = newListener(entry->ai_family);
        if (socket.isOpen() && ::bind(socket.handle(), entry->ai_addr, entry->ai_addrlen) == 0
            && ::listen(socket.handle(), SOMAXCONN) == 0)
            listener = std::move(socket);
    }
    ::freeaddrinfo(found);
    return listener;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    const auto lower = [](char c) {
        return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    };
    return std::ranges::equal(a, b, {}, lower, lower);
}

std::string_view trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// What a request head asks, as far as /metrics cares.
struct Request
{
    int status = 200; // 400 when the head is malformed or carries a body, 404 for another path
    bool head = false;
    bool keepAlive = false;
};

Request parse(std::string_view head)
{
    Request request;
    const auto lineEnd = head.find('\n');
    const std::string_view line = trimmed(head.substr(0, lineEnd));
    const auto firstSpace = line.find(' ');
    const auto lastSpace = line.rfind(' ');
    if (firstSpace == std::string_view::npos || lastSpace == firstSpace) {
        request.status = 400;
        return request;
    }
    const std::string_view method = line.substr(0, firstSpace);
    const std::string_view target = line.substr(firstSpace + 1, lastSpace - firstSpace - 1);
    const std::string_view version = line.substr(lastSpace + 1);
    request.keepAlive = version == "HTTP/1.1";
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        request.status = 400;
    std::string_view headers = lineEnd == std::string_view::npos ? "" : head.substr(lineEnd + 1);
    while (!headers.empty()) {
        const auto end = headers.find('\n');
        const std::string_view field = headers.substr(0, end);
        headers = end == std::string_view::npos ? "" : headers.substr(end + 1);
        const auto colon = field.find(':');
        if (colon == std::string_view::npos)
            continue;
        const std::string_view name = trimmed(field.substr(0, colon));
        const std::string_view value = trimmed(field.substr(colon + 1));
        if (equalsIgnoringCase(name, "Connection"))
            request.keepAlive = equalsIgnoringCase(value, "keep-alive")
                                || (request.keepAlive && !equalsIgnoringCase(value, "close"));
        // A body would be read as the next request: none is read, so none is accepted.
        else if (equalsIgnoringCase(name, "Transfer-Encoding")
                 || (equalsIgnoringCase(name, "Content-Length") && value != "0"))
            request.status = 400;
    }
    if (request.status != 200)
        return request;
    request.head = method == "HEAD";
    const std::string_view path = target.substr(0, target.find('?'));
    if (path != "/metrics" || (method != "GET" && !request.head))
        request.status = 404;
    return request;
}

std::string_view reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 431:
        return "Request Header Fields Too Large";
    default:
        return "Internal Server Error";
    }
}

// The end of the request head in buffer (past its blank line), if it is all there.
std::optional<std::size_t> headEnd(std::string_view buffer)
{
    for (std::size_t at = buffer.find('\n'); at != std::string_view::npos;
         at = buffer.find('\n', at + 1)) {
        if (at + 1 < buffer.size() && buffer[at + 1] == '\n')
            return at + 2;
        if (at + 2 < buffer.size() && buffer[at + 1] == '\r' && buffer[at + 2] == '\n')
            return at + 3;
    }
    return std::nullopt;
}

} // namespace

class MetricsServer::Http final
{
public:
    explicit Http(std::function<std::string()> text)
        : m_text(std::move(text))
    {}

    bool bind(const std::string &address, int port)
    {
        m_listener = listenOn(address, port);
        return m_listener.isOpen();
    }

    void start(std::thread &loop)
    {
        for (std::size_t i = 0; i < RenderThreads; ++i)
            m_renderers.emplace_back([this] { render(); });
        loop = std::thread([this] { serve(); });
    }

    void stopListening()
    {
        m_stopping.store(true);
        m_waker.wake();
    }

    void stopRendering()
    {
        {
            const std::lock_guard lock(m_renderMutex);
            m_renderersStop = true;
        }
        m_renderWanted.notify_all();
        for (std::thread &renderer : m_renderers)
            renderer.join();
        m_renderers.clear();
    }

private:
    enum class State { Reading, Rendering, Writing };

    struct Connection
    {
        Socket socket;
        State state = State::Reading;
        std::string in;  // received, not yet answered
        std::string out; // the answer being written
        std::size_t written = 0;
        bool head = false;      // the request being answered is a HEAD
        bool keepAlive = false; // after the answer being written
        std::size_t served = 0;
        Clock::time_point waitingSince; // for the request head; the eviction order
        Clock::time_point deadline;     // of the head's arrival or of the answer's writing
    };

    struct Rendered
    {
        std::vector<std::uint64_t> ids;
        std::optional<std::string> text; // none when the callback threw
    };

    // The loop: never waits on anything but poll, so no client can hold up another.
    void serve()
    {
        std::optional<Clock::time_point> acceptPausedUntil;
        std::vector<platform::PollItem> items;
        std::vector<std::uint64_t> polled; // items[i + 2] is m_connections[polled[i]]
        for (;;) {
            if (m_stopping.load() && m_listener.isOpen())
                stopAccepting();
            if (!m_listener.isOpen() && m_connections.empty())
                return;
            const Clock::time_point now = Clock::now();
            const bool accepting = m_listener.isOpen()
                                   && (!acceptPausedUntil || now >= *acceptPausedUntil)
                                   && (m_connections.size() < MaxConnections || oldestWaiting());
            items.assign({{.handle = m_waker.handle(), .wantRead = true},
                          {.handle = m_listener.handle(), .wantRead = accepting}});
            polled.clear();
            std::optional<Clock::time_point> wake = acceptPausedUntil;
            for (const auto &[id, connection] : m_connections) {
                if (connection.state == State::Rendering)
                    continue;
                items.push_back({.handle = connection.socket.handle(),
                                 .wantRead = connection.state == State::Reading,
                                 .wantWrite = connection.state == State::Writing});
                polled.push_back(id);
                wake = std::min(wake.value_or(connection.deadline), connection.deadline);
            }
            std::optional<std::chrono::milliseconds> timeout;
            if (wake) // rounded up, so that a deadline is past when the poll ends
                timeout = std::chrono::ceil<std::chrono::milliseconds>(
                        std::max(*wake - now, Clock::duration::zero()));
            platform::pollSockets(items, timeout);

            if (items[0].readable) {
                m_waker.drain();
                answerRendered();
            }
            for (std::size_t i = 0; i < polled.size(); ++i) {
                const platform::PollItem &item = items[i + 2];
                if (item.readable || item.writable || item.hungUp)
                    if (const auto found = m_connections.find(polled[i]);
                        found != m_connections.end())
                        advance(found);
            }
            if (items[1].readable)
                acceptPausedUntil
                        = acceptSome() ? std::nullopt : std::optional(Clock::now() + AcceptPause);
            else if (acceptPausedUntil && Clock::now() >= *acceptPausedUntil)
                acceptPausedUntil.reset();
            expire();
        }
    }

    // The listener readable yet nothing to accept is a connection reset before its accept, or no
    // descriptor left (EMFILE): then accepting pauses briefly instead of spinning.
    static constexpr std::chrono::milliseconds AcceptPause{20};

    // Takes the pending connections, a bounded number per turn so that the open ones are served
    // too. False when there was none to take.
    bool acceptSome()
    {
        constexpr int PerTurn = 64;
        for (int taken = 0; taken < PerTurn; ++taken) {
            std::optional<std::uint64_t> evicted;
            if (m_connections.size() >= MaxConnections) {
                evicted = oldestWaiting();
                if (!evicted)
                    return true; // the rest wait in the backlog until a connection ends
            }
            Socket socket = platform::acceptConnection(m_listener);
            if (!socket.isOpen())
                return taken > 0;
            if (evicted)
                m_connections.erase(*evicted);
            const Clock::time_point now = Clock::now();
            const auto added = m_connections.emplace_hint(m_connections.end(), m_nextId++,
                                                          Connection{.socket = std::move(socket),
                                                                     .waitingSince = now,
                                                                     .deadline = now + IoTimeout});
            advance(added); // its request is often there already
        }
        return true;
    }

    // The connection that has waited longest for a request head: a stalled client, or an idle
    // kept-alive one.
    std::optional<std::uint64_t> oldestWaiting() const
    {
        std::optional<std::uint64_t> oldest;
        Clock::time_point since = Clock::time_point::max();
        for (const auto &[id, connection] : m_connections)
            if (connection.state == State::Reading && connection.waitingSince < since) {
                oldest = id;
                since = connection.waitingSince;
            }
        return oldest;
    }

    using Position = std::map<std::uint64_t, Connection>::iterator;

    // Reads or writes what the connection can now; closes it when it is done or broken.
    void advance(Position position)
    {
        settle(position, position->second.state != State::Writing || writeAnswer(position->second));
    }

    // After an answer, or on the way to one: a connection still open and waiting for a request
    // reads it (a pipelined one is in its buffer already); a connection done with is closed.
    void settle(Position position, bool open)
    {
        if (open && position->second.state == State::Reading)
            open = readRequest(position);
        if (!open)
            m_connections.erase(position);
    }

    // False when the connection is to be closed.
    bool readRequest(Position position)
    {
        Connection &connection = position->second;
        std::array<char, 4096> buffer;
        for (;;) {
            const std::optional<std::size_t> end = headEnd(connection.in);
            if (end.value_or(connection.in.size()) > MaxRequestHead) {
                connection.keepAlive = false;
                return answer(connection, 431, "");
            }
            if (end) {
                const Request request = parse(std::string_view(connection.in).substr(0, *end));
                connection.in.erase(0, *end);
                connection.head = request.head;
                connection.keepAlive = request.keepAlive && request.status == 200
                                       && connection.served + 1 < RequestsPerConnection
                                       && !m_stopping.load();
                if (request.status != 200)
                    return answer(connection, request.status, "");
                connection.state = State::Rendering;
                {
                    const std::lock_guard lock(m_renderMutex);
                    m_toRender.push_back(position->first);
                }
                m_renderWanted.notify_one();
                return true;
            }
            const platform::TransferResult got = platform::receiveSome(connection.socket, buffer);
            if (got.status != platform::Transfer::Moved)
                return got.status == platform::Transfer::WouldBlock;
            connection.in.append(buffer.data(), got.bytes);
        }
    }

    // Starts writing an answer; false when the connection is to be closed.
    bool answer(Connection &connection, int status, std::string_view text)
    {
        std::string &out = connection.out;
        out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason(status)) + "\r\n";
        if (status == 200)
            out += "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n";
        out += "Content-Length: " + std::to_string(text.size()) + "\r\n";
        if (connection.keepAlive)
            out += "Connection: keep-alive\r\nKeep-Alive: timeout="
                   + std::to_string(IoTimeout.count()) + ", max="
                   + std::to_string(RequestsPerConnection - connection.served - 1) + "\r\n";
        else
            out += "Connection: close\r\n";
        out += "\r\n";
        if (!connection.head)
            out += text;
        connection.written = 0;
        connection.state = State::Writing;
        connection.deadline = Clock::now() + IoTimeout;
        return writeAnswer(connection);
    }

    bool writeAnswer(Connection &connection)
    {
        while (connection.written < connection.out.size()) {
            const platform::TransferResult sent = platform::sendSome(
                    connection.socket, std::string_view(connection.out).substr(connection.written));
            if (sent.status != platform::Transfer::Moved)
                return sent.status == platform::Transfer::WouldBlock;
            connection.written += sent.bytes;
        }
        if (!connection.keepAlive)
            return false;
        ++connection.served;
        connection.out.clear();
        connection.state = State::Reading;
        connection.waitingSince = Clock::now();
        connection.deadline = connection.waitingSince + IoTimeout;
        return true;
    }

    // Answers the requests whose text a renderer produced.
    void answerRendered()
    {
        std::vector<Rendered> rendered;
        {
            const std::lock_guard lock(m_renderMutex);
            rendered.swap(m_rendered);
        }
        for (const Rendered &batch : rendered)
            for (const std::uint64_t id : batch.ids) {
                const auto found = m_connections.find(id);
                if (found == m_connections.end())
                    continue;
                settle(found, batch.text ? answer(found->second, 200, *batch.text)
                                         : answer(found->second, 500, ""));
            }
    }

    // Closes the connections whose request head or answer is overdue.
    void expire()
    {
        const Clock::time_point now = Clock::now();
        std::erase_if(m_connections, [now](const auto &entry) {
            return entry.second.state != State::Rendering && now >= entry.second.deadline;
        });
    }

    // No new connection; none waiting for a request either. Those rendering or writing end.
    void stopAccepting()
    {
        m_listener.close();
        std::erase_if(m_connections,
                      [](const auto &entry) { return entry.second.state == State::Reading; });
        for (auto &[id, connection] : m_connections)
            connection.keepAlive = false;
    }

    // A renderer: one call of the callback for every request waiting when it starts.
    void render()
    {
        std::unique_lock lock(m_renderMutex);
        for (;;) {
            m_renderWanted.wait(lock, [this] { return !m_toRender.empty() || m_renderersStop; });
            if (m_toRender.empty())
                return;
            Rendered batch{.ids = std::exchange(m_toRender, {})};
            lock.unlock();
            try {
                batch.text = m_text();
            } catch (const std::exception &) {
                // Answered 500; the next scrape tries again.
            }
            lock.lock();
            m_rendered.push_back(std::move(batch));
            m_waker.wake();
        }
    }

    const std::function<std::string()> m_text;
    Socket m_listener;
    platform::Waker m_waker;
    std::atomic<bool> m_stopping = false;
    // The loop's own.
    std::map<std::uint64_t, Connection> m_connections;
    std::uint64_t m_nextId = 0;

    std::mutex m_renderMutex;
    std::condition_variable m_renderWanted;
    std::vector<std::uint64_t> m_toRender; // connections waiting for a text
    std::vector<Rendered> m_rendered;      // texts for the loop to answer with
    bool m_renderersStop = false;
    std::vector<std::thread> m_renderers;
};

MetricsServer::MetricsServer(std::function<std::string()> text)
    : m_server(std::make_unique<Http>(std::move(text)))
{}

MetricsServer::~MetricsServer()
{
    stopListening();
    join();
}

bool MetricsServer::bind(const std::string &address, int port)
{
    return m_server->bind(address, port);
}

void MetricsServer::start()
{
    m_server->start(m_thread);
}

void MetricsServer::stopListening()
{
    m_server->stopListening();
}

void MetricsServer::join()
{
    if (m_thread.joinable())
        m_thread.join();
    m_server->stopRendering();
}

} // namespace leader::tools
