#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace leader::tools {

// leader-replica's /metrics over HTTP (cpp-httplib), hardened against its clients: a deep listen
// backlog; a worker thread of its own for each connection, started on demand, up to
// MaxConnections at once (more wait for one); every read and write bounded by IoTimeout; a
// kept-alive connection serving a few requests and idling IoTimeout at most. Slow or silent
// clients so hold a worker briefly and cannot keep a scrape waiting behind them. The text comes
// from a callback that must itself not wait long (Replica::metricsText waits 0.5 s at most).
class MetricsServer final
{
public:
    static constexpr std::size_t MaxConnections = 128;
    static constexpr std::chrono::seconds IoTimeout{2};
    static constexpr std::size_t RequestsPerConnection = 20;

    explicit MetricsServer(std::function<std::string()> text);
    ~MetricsServer();
    MetricsServer(const MetricsServer &) = delete;
    MetricsServer &operator=(const MetricsServer &) = delete;

    // Takes the port (false when it is in use or address is not one of this host's).
    bool bind(const std::string &address, int port);
    // Serves on a thread of its own.
    void start();
    // Closes the listening socket: no new connection from now on. Quick.
    void stopListening();
    // Waits for the connections being served (each ends within IoTimeout).
    void join();

private:
    class Http;
    std::unique_ptr<Http> m_server;
    std::thread m_thread;
};

} // namespace leader::tools
