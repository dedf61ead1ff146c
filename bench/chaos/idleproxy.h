#pragma once

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

namespace bench::chaos {

// A TCP proxy on loopback, one listening port per upstream port, that closes a connection (FIN
// both ways) once its client has sent nothing for the idle limit, whatever the server sends
// meanwhile: the idle cut of a proxy or pooler that times its clients' silence, as PgBouncer's
// client_idle_timeout or a cloud database proxy's idle client timeout do. HAProxy's timeout
// client / timeout server are not that: in TCP mode HAProxy closes only a connection idle both
// ways, and a listener that receives every RELEASE's notification never is.
class IdleCutProxy final
{
public:
    // Listens on 127.0.0.1:first for each (first, second), forwarding to 127.0.0.1:second.
    // Throws std::system_error when a port cannot be bound.
    IdleCutProxy(const std::vector<std::pair<int, int>> &ports, std::chrono::milliseconds idle);
    // Closes every connection and the listeners.
    ~IdleCutProxy();
    IdleCutProxy(const IdleCutProxy &) = delete;
    IdleCutProxy &operator=(const IdleCutProxy &) = delete;

    int accepted() const { return m_accepted.load(); }
    int cut() const { return m_cut.load(); } // closed for the client's silence

private:
    struct Listener
    {
        int fd = -1;
        int upstreamPort = 0;
    };
    void run();

    const std::chrono::milliseconds m_idle;
    std::vector<Listener> m_listeners;
    std::atomic<bool> m_stopping = false;
    std::atomic<int> m_accepted = 0;
    std::atomic<int> m_cut = 0;
    std::thread m_thread;
};

} // namespace bench::chaos
