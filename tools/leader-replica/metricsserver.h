#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace leader::tools {

// leader-replica's /metrics over HTTP/1.1, hardened against its clients: one thread runs a poll
// loop over every connection, non-blocking, so a slow or silent client costs the others nothing
// (a thread per connection let more stalled clients than threads queue the scrapes behind them).
// Each request head must arrive whole, at most MaxRequestHead bytes, within IoTimeout of the
// connection's accept or previous answer, and each answer be taken within IoTimeout; a kept-alive
// connection serves RequestsPerConnection requests at most. At MaxConnections open, a new
// connection closes the one that has waited longest for a request head (a stalled or idle one);
// when none waits for one, new connections stay in the listen backlog until one ends. The text
// comes from a callback that may wait (Replica::metricsText waits 0.5 s at most): it runs on
// RenderThreads threads of its own, one call serving every request that waits when it starts.
class MetricsServer final
{
public:
    static constexpr std::size_t MaxConnections = 512; // within a default limit of 1024 files
    static constexpr std::chrono::seconds IoTimeout{2};
    static constexpr std::size_t RequestsPerConnection = 20;
    static constexpr std::size_t MaxRequestHead = 8192;
    static constexpr std::size_t RenderThreads = 4;

    explicit MetricsServer(std::function<std::string()> text);
    ~MetricsServer();
    MetricsServer(const MetricsServer &) = delete;
    MetricsServer &operator=(const MetricsServer &) = delete;

    // Takes the port (false when it is in use or address is not one of this host's).
    bool bind(const std::string &address, int port);
    // Serves on threads of its own.
    void start();
    // No new connection from now on; those waiting for a request head are closed. Quick.
    void stopListening();
    // Waits for the answers being rendered and written (each written within IoTimeout).
    void join();

private:
    class Http;
    std::unique_ptr<Http> m_server;
    std::thread m_thread;
};

} // namespace leader::tools
