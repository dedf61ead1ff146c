#include "linkproxy.h"

#include "log/log.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>

namespace leader::faults {

namespace {

using namespace std::chrono_literals;

// Past this many bytes held for one direction the proxy stops reading that side, so the kernel's
// buffers and then the sender's TCP window absorb the rest instead of the proxy's memory.
constexpr std::size_t HeldBytesCap = 1 << 20;
constexpr std::size_t ReadSize = 64 * 1024;

} // namespace

// The I/O thread's side: the listener, every connection and the bytes held for them. Only the I/O
// thread touches it; it meets the callers under the proxy's mutex, once per loop.
class LinkProxy::Pump final
{
public:
    Pump(LinkProxy &proxy, platform::Socket listener, std::vector<platform::TcpAddress> upstream)
        : m_proxy(proxy)
        , m_listener(std::move(listener))
        , m_upstream(std::move(upstream))
        , m_buffer(ReadSize)
    {}

    void run();

private:
    struct Chunk
    {
        std::vector<char> bytes;
        std::size_t sent = 0;
        Clock::time_point due;
    };

    // One direction of one connection.
    struct Flow
    {
        std::deque<Chunk> chunks;
        std::size_t held = 0;  // bytes read but not yet delivered
        bool ended = false;    // the source sent FIN
        bool finished = false; // and the destination got it

        bool isDue(Clock::time_point now) const
        {
            return !chunks.empty() && chunks.front().due <= now;
        }
        bool wantsRead() const { return !ended && held < HeldBytesCap; }
    };

    struct Link
    {
        platform::Socket client;
        platform::Socket upstream; // closed until dialled: a link accepted while severed waits
        std::size_t address = 0;   // which upstream address is being dialled
        bool connected = false;
        Flow toUpstream;
        Flow toClient;
        bool dead = false;
        Clock::time_point lastMoved = Clock::now(); // a byte either way, for the idle cut
    };

    std::optional<Control> takeControl();
    void accept(bool severed);
    void dial(Link &link);
    void pollLinks(const Control &control);
    void transfer(Link &link, const platform::PollItem &client, const platform::PollItem &upstream,
                  std::chrono::milliseconds latency);
    void receive(Link &link, const platform::Socket &from, Flow &flow,
                 std::chrono::milliseconds latency);
    void deliver(Link &link, const platform::Socket &to, Flow &flow,
                 std::atomic<std::uint64_t> &tally);
    static void finish(Link &link);

    LinkProxy &m_proxy;
    platform::Socket m_listener;
    const std::vector<platform::TcpAddress> m_upstream;
    std::vector<std::unique_ptr<Link>> m_links;
    std::vector<platform::PollItem> m_items; // the waker, the listener, then two per polled link
    std::vector<char> m_buffer;
    std::uint64_t m_drops = 0;
};

void LinkProxy::Pump::run()
{
    while (const std::optional<Control> control = takeControl()) {
        if (!control->severed) {
            for (const auto &link : m_links) {
                if (!link->dead && !link->connected && !link->upstream.isOpen())
                    dial(*link);
            }
        }
        std::erase_if(m_links, [](const auto &link) { return link->dead; });
        m_proxy.m_connectionsOpen = m_links.size();
        pollLinks(*control);
        if (m_items[0].readable)
            m_proxy.m_waker.drain();
        // Links accepted below have no poll items yet: only the ones polled are served.
        const std::size_t polled = (m_items.size() - 2) / 2;
        if (m_items[1].readable)
            accept(control->severed);
        for (std::size_t i = 0; i < polled; ++i)
            transfer(*m_links[i], m_items[2 + 2 * i], m_items[3 + 2 * i], control->latency);
        if (control->idleCut > 0ms && !control->severed) {
            const auto now = Clock::now();
            for (const auto &link : m_links) {
                if (!link->dead && now - link->lastMoved >= control->idleCut) {
                    // Both sockets close when the link goes: FIN to each side, as HAProxy's
                    // timeout does.
                    link->dead = true;
                    ++m_proxy.m_idleCuts;
                }
            }
        }
    }
}

// Takes the callers' latest changes (a due timed heal, drops) and acknowledges them before any
// byte moves under them.
std::optional<LinkProxy::Control> LinkProxy::Pump::takeControl()
{
    std::optional<Control> control;
    {
        const std::lock_guard lock(m_proxy.m_mutex);
        Control &shared = m_proxy.m_control;
        if (shared.stopping)
            return {};
        if (shared.healAt && Clock::now() >= *shared.healAt) {
            shared.severed = false;
            shared.healAt.reset();
        }
        if (shared.drops != m_drops) {
            m_links.clear();
            m_drops = shared.drops;
            m_proxy.m_connectionsOpen = 0;
        }
        control = shared;
        m_proxy.m_changesTaken = m_proxy.m_changesRequested;
    }
    m_proxy.m_taken.notify_all();
    return control;
}

void LinkProxy::Pump::accept(bool severed)
{
    for (;;) {
        platform::Socket client = platform::acceptConnection(m_listener);
        if (!client.isOpen())
            return;
        ++m_proxy.m_connectionsAccepted;
        auto link = std::make_unique<Link>();
        link->client = std::move(client);
        if (!severed)
            dial(*link);
        m_links.push_back(std::move(link));
    }
}

// Dials the upstream addresses from link.address on, as libpq would try them; a link with none
// left is dropped, which the client sees as the server closing on it.
void LinkProxy::Pump::dial(Link &link)
{
    link.upstream.close();
    for (; link.address < m_upstream.size(); ++link.address) {
        link.upstream = platform::startConnect(m_upstream[link.address]);
        if (link.upstream.isOpen())
            return;
    }
    link.dead = true;
}

// Severed, only the waker and the listener are polled: the links' sockets are not even watched
// for hang-ups, so nothing about them (data, FIN, reset) is acted on until heal.
void LinkProxy::Pump::pollLinks(const Control &control)
{
    const auto now = Clock::now();
    m_items.assign(2, {});
    m_items[0] = {.handle = m_proxy.m_waker.handle(), .wantRead = true};
    m_items[1] = {.handle = m_listener.handle(), .wantRead = true};
    // max() is "nothing to wake for": GCC 12 reports a std::optional here as maybe-uninitialized.
    Clock::time_point wakeAt
            = control.severed && control.healAt ? *control.healAt : Clock::time_point::max();
    if (control.idleCut > 0ms && !control.severed)
        for (const auto &link : m_links)
            wakeAt = std::min(wakeAt, link->lastMoved + control.idleCut);
    const auto wakeForDue = [&wakeAt, now](const Flow &flow) {
        if (!flow.chunks.empty() && flow.chunks.front().due > now)
            wakeAt = std::min(wakeAt, flow.chunks.front().due);
    };
    // A socket with nothing wanted from it stays out of the poll, so a hang-up already acted on is
    // not reported again and again.
    const auto item = [](const platform::Socket &socket, bool read, bool write) {
        return platform::PollItem{.handle = read || write ? socket.handle() : -1,
                                  .wantRead = read,
                                  .wantWrite = write};
    };
    if (!control.severed) {
        for (const auto &link : m_links) {
            m_items.push_back(
                    item(link->client, link->toUpstream.wantsRead(), link->toClient.isDue(now)));
            if (!link->upstream.isOpen())
                m_items.push_back({});
            else if (!link->connected)
                m_items.push_back(item(link->upstream, false, true));
            else
                m_items.push_back(item(link->upstream, link->toClient.wantsRead(),
                                       link->toUpstream.isDue(now)));
            wakeForDue(link->toUpstream);
            wakeForDue(link->toClient);
        }
    }
    std::optional<std::chrono::milliseconds> timeout;
    if (wakeAt != Clock::time_point::max())
        timeout = std::max(0ms, std::chrono::ceil<std::chrono::milliseconds>(wakeAt - now));
    platform::pollSockets(m_items, timeout);
}

void LinkProxy::Pump::transfer(Link &link, const platform::PollItem &client,
                               const platform::PollItem &upstream,
                               std::chrono::milliseconds latency)
{
    if (!link.connected && link.upstream.isOpen() && (upstream.writable || upstream.hungUp)) {
        if (platform::connectSucceeded(link.upstream)) {
            link.connected = true;
        } else {
            ++link.address;
            dial(link);
            return;
        }
    }
    // A hang-up is read like data: the read says whether it was a FIN or a reset.
    if (client.wantRead && (client.readable || client.hungUp))
        receive(link, link.client, link.toUpstream, latency);
    if (!link.dead && upstream.wantRead && (upstream.readable || upstream.hungUp))
        receive(link, link.upstream, link.toClient, latency);
    // Writes need no readiness: a full socket just takes nothing, and trying at once saves the
    // pass mode a poll round per chunk.
    deliver(link, link.client, link.toClient, m_proxy.m_bytesToClient);
    if (link.connected)
        deliver(link, link.upstream, link.toUpstream, m_proxy.m_bytesToUpstream);
    if (!link.dead)
        finish(link);
}

void LinkProxy::Pump::receive(Link &link, const platform::Socket &from, Flow &flow,
                              std::chrono::milliseconds latency)
{
    const platform::TransferResult result = platform::receiveSome(from, m_buffer);
    switch (result.status) {
    case platform::Transfer::Moved:
        flow.chunks.push_back(
                {.bytes = std::vector<char>(m_buffer.begin(), m_buffer.begin() + result.bytes),
                 .due = Clock::now() + latency});
        flow.held += result.bytes;
        link.lastMoved = Clock::now();
        break;
    case platform::Transfer::Closed:
        flow.ended = true;
        break;
    case platform::Transfer::Failed:
        link.dead = true;
        break;
    case platform::Transfer::WouldBlock:
        break;
    }
}

void LinkProxy::Pump::deliver(Link &link, const platform::Socket &to, Flow &flow,
                              std::atomic<std::uint64_t> &tally)
{
    const auto now = Clock::now();
    while (!link.dead && flow.isDue(now)) {
        Chunk &chunk = flow.chunks.front();
        const platform::TransferResult result
                = platform::sendSome(to, std::span<const char>(chunk.bytes).subspan(chunk.sent));
        if (result.status == platform::Transfer::Failed)
            link.dead = true;
        if (result.status != platform::Transfer::Moved)
            return;
        chunk.sent += result.bytes;
        flow.held -= result.bytes;
        tally += result.bytes;
        link.lastMoved = now;
        if (chunk.sent == chunk.bytes.size())
            flow.chunks.pop_front();
    }
}

// Passes each FIN on once everything before it is delivered; a link whose two directions both
// ended is done.
void LinkProxy::Pump::finish(Link &link)
{
    const auto pass = [](Flow &flow, const platform::Socket &to) {
        if (flow.ended && flow.chunks.empty() && !flow.finished) {
            platform::shutdownWrite(to);
            flow.finished = true;
        }
    };
    pass(link.toClient, link.client);
    if (link.connected)
        pass(link.toUpstream, link.upstream);
    if (link.toClient.finished && link.toUpstream.finished)
        link.dead = true;
}

LinkProxy::LinkProxy(std::string upstreamHost, int upstreamPort)
    : m_upstreamHost(std::move(upstreamHost))
    , m_upstreamPort(upstreamPort)
{}

LinkProxy::~LinkProxy()
{
    stop();
}

int LinkProxy::start(int listenPort)
{
    if (isRunning())
        throw std::logic_error("the link proxy is already running");
    stop(); // joins an I/O thread that failed
    std::vector<platform::TcpAddress> upstream
            = platform::TcpAddress::resolve(m_upstreamHost, m_upstreamPort);
    platform::Socket listener = platform::listenLoopback(listenPort);
    const int port = platform::localPort(listener);
    const auto running = [this](bool running, int port) {
        const std::lock_guard lock(m_mutex);
        m_running = running;
        m_port = port;
    };
    // Set before the thread exists, since the thread clears it when it ends.
    running(true, port);
    try {
        m_thread = std::thread(&LinkProxy::run, this, std::move(listener), std::move(upstream));
    } catch (...) {
        running(false, 0);
        throw;
    }
    return port;
}

void LinkProxy::stop()
{
    if (!m_thread.joinable())
        return;
    {
        const std::lock_guard lock(m_mutex);
        m_control.stopping = true;
    }
    m_waker.wake();
    m_thread.join();
    const std::lock_guard lock(m_mutex);
    m_control.stopping = false;
}

void LinkProxy::run(platform::Socket listener, std::vector<platform::TcpAddress> upstream)
{
    try {
        Pump(*this, std::move(listener), std::move(upstream)).run();
    } catch (const std::exception &error) {
        log::write(log::Level::Error, "faults", "link proxy stopped; its connections are closed",
                   "upstream=" + m_upstreamHost + ":" + std::to_string(m_upstreamPort) + " error=\""
                           + error.what() + "\"");
    }
    m_connectionsOpen = 0;
    {
        const std::lock_guard lock(m_mutex);
        m_running = false;
        m_port = 0;
    }
    m_taken.notify_all();
}

bool LinkProxy::isRunning() const
{
    const std::lock_guard lock(m_mutex);
    return m_running;
}

int LinkProxy::port() const
{
    const std::lock_guard lock(m_mutex);
    return m_port;
}

template<typename Edit>
void LinkProxy::change(Edit edit)
{
    std::unique_lock lock(m_mutex);
    edit(m_control);
    const std::uint64_t change = ++m_changesRequested;
    m_waker.wake();
    m_taken.wait(lock, [&] { return !m_running || m_changesTaken >= change; });
}

void LinkProxy::sever()
{
    change([](Control &control) {
        control.severed = true;
        control.healAt.reset();
    });
}

void LinkProxy::sever(std::chrono::milliseconds duration)
{
    change([duration](Control &control) {
        control.severed = true;
        control.healAt = Clock::now() + duration;
    });
}

void LinkProxy::heal()
{
    change([](Control &control) {
        control.severed = false;
        control.healAt.reset();
    });
}

void LinkProxy::slow(std::chrono::milliseconds latency)
{
    change([latency](Control &control) { control.latency = std::max(latency, 0ms); });
}

void LinkProxy::pass()
{
    change([](Control &control) {
        control.severed = false;
        control.healAt.reset();
        control.latency = 0ms;
    });
}

void LinkProxy::dropAll()
{
    change([](Control &control) { ++control.drops; });
}

void LinkProxy::cutIdle(std::chrono::milliseconds idle)
{
    change([idle](Control &control) { control.idleCut = std::max(idle, 0ms); });
}

LinkMode LinkProxy::mode() const
{
    const std::lock_guard lock(m_mutex);
    if (m_control.severed)
        return LinkMode::Severed;
    return m_control.latency > 0ms ? LinkMode::Slow : LinkMode::Pass;
}

std::chrono::milliseconds LinkProxy::latency() const
{
    const std::lock_guard lock(m_mutex);
    return m_control.latency;
}

LinkCounters LinkProxy::counters() const
{
    return {.bytesToUpstream = m_bytesToUpstream,
            .bytesToClient = m_bytesToClient,
            .connectionsAccepted = m_connectionsAccepted,
            .connectionsOpen = m_connectionsOpen,
            .idleCuts = m_idleCuts};
}

} // namespace leader::faults
