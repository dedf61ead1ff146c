#pragma once

#include "platform/sockets.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace leader::faults {

enum class LinkMode { Pass, Severed, Slow };

struct LinkCounters
{
    std::uint64_t bytesToUpstream = 0; // client to server, as delivered to the server
    std::uint64_t bytesToClient = 0;
    std::uint64_t connectionsAccepted = 0;
    std::uint64_t connectionsOpen = 0;
    std::uint64_t idleCuts = 0; // connections closed by cutIdle()
};

// A TCP proxy from 127.0.0.1 to upstream host:port that breaks the link the way a network does,
// for fault injection: a replica's database traffic goes through it, and tests, the console and
// the benchmarks cut, slow or drop that replica's link while the replica keeps running.
//
// Severed is a blackhole: nothing moves either way, and no FIN or RST is sent; whatever arrives
// waits in the kernel's buffers and the proxy's, and heal() delivers it in order, so a connection
// that idles (or has a deadline longer than the cut) survives. Unlike a real blackhole the local
// kernel still acknowledges, so the client's TCP keepalives and user timeout never fire: only its
// own deadlines notice. A connection made while severed completes its TCP handshake with the proxy
// (a real blackhole would drop the SYN) but the server is not dialled until heal(), so a client's
// connect hangs until its own connect timeout instead of failing fast.
//
// One I/O thread serves every connection. start() and stop() belong to one thread; the mode
// changes and readers may be called from any thread.
class LinkProxy final
{
public:
    LinkProxy(std::string upstreamHost, int upstreamPort);
    ~LinkProxy();
    LinkProxy(const LinkProxy &) = delete;
    LinkProxy &operator=(const LinkProxy &) = delete;

    // Resolves the upstream, listens on 127.0.0.1:listenPort (0: a free port) and starts
    // forwarding; returns the port. Throws std::system_error or std::runtime_error, and
    // std::logic_error when already running.
    int start(int listenPort = 0);
    // Closes every connection and the listener and joins the I/O thread; the mode stays for the
    // next start().
    void stop();
    // False after stop(), or when the I/O thread failed (it logs why).
    bool isRunning() const;
    int port() const; // 0 when not running

    // Each change returns once the I/O thread has taken it: no byte moves against it afterwards.
    void sever();
    // Severs, and heals by itself after duration.
    void sever(std::chrono::milliseconds duration);
    void heal();
    // Delays every chunk by latency in both directions, keeping their order; 0 ms is no delay.
    // Independent of sever: heal() keeps the latency.
    void slow(std::chrono::milliseconds latency);
    // Heals and removes the latency.
    void pass();
    // Closes every proxied connection at once, both sides, as a killed process's sockets close
    // (FIN, or RST where data is unread); the mode is unchanged and new connections are accepted.
    void dropAll();
    // Closes a connection, both sides, once no byte has moved either way for idle, as a proxy with
    // an idle timeout does (HAProxy's timeout client / timeout server); 0 ms: never. Independent of
    // the other modes; a severed link is not cut.
    void cutIdle(std::chrono::milliseconds idle);

    LinkMode mode() const;
    std::chrono::milliseconds latency() const;
    LinkCounters counters() const;

private:
    using Clock = std::chrono::steady_clock;
    class Pump;

    struct Control
    {
        bool severed = false;
        std::optional<Clock::time_point> healAt;
        std::chrono::milliseconds latency{0};
        std::chrono::milliseconds idleCut{0};
        std::uint64_t drops = 0;
        bool stopping = false;
    };

    template<typename Edit>
    void change(Edit edit);
    void run(platform::Socket listener, std::vector<platform::TcpAddress> upstream);

    const std::string m_upstreamHost;
    const int m_upstreamPort;
    platform::Waker m_waker;
    std::thread m_thread;

    mutable std::mutex m_mutex;
    std::condition_variable m_taken;
    Control m_control;
    std::uint64_t m_changesRequested = 0;
    std::uint64_t m_changesTaken = 0;
    bool m_running = false;
    int m_port = 0;

    std::atomic<std::uint64_t> m_bytesToUpstream = 0;
    std::atomic<std::uint64_t> m_bytesToClient = 0;
    std::atomic<std::uint64_t> m_connectionsAccepted = 0;
    std::atomic<std::uint64_t> m_connectionsOpen = 0;
    std::atomic<std::uint64_t> m_idleCuts = 0;
};

} // namespace leader::faults
