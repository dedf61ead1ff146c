#include "metricsserver.h"

#include <condition_variable>
#include <deque>
#include <httplib.h>
#include <mutex>
#include <vector>

namespace leader::tools {

namespace {

// httplib's task queue with a worker per connection, started on demand up to a cap, instead of a
// fixed pool of about a core's count: a fixed pool let a handful of stalled requests occupy every
// worker while the scrapes queued behind them. Beyond the cap connections wait in order.
class ConnectionWorkers final : public httplib::TaskQueue
{
public:
    explicit ConnectionWorkers(std::size_t cap)
        : m_cap(cap)
    {}
    ~ConnectionWorkers() override { shutdown(); }

    void enqueue(std::function<void()> task) override
    {
        const std::lock_guard lock(m_mutex);
        m_tasks.push_back(std::move(task));
        if (m_tasks.size() > m_idle && m_workers.size() < m_cap)
            m_workers.emplace_back([this] { work(); });
        m_queued.notify_one();
    }

    void shutdown() override
    {
        {
            const std::lock_guard lock(m_mutex);
            m_shuttingDown = true;
        }
        m_queued.notify_all();
        for (std::thread &worker : m_workers)
            if (worker.joinable())
                worker.join();
    }

private:
    void work()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            ++m_idle;
            m_queued.wait(lock, [this] { return !m_tasks.empty() || m_shuttingDown; });
            --m_idle;
            if (m_tasks.empty())
                return; // shutting down with nothing left
            std::function<void()> task = std::move(m_tasks.front());
            m_tasks.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }

    const std::size_t m_cap;
    std::mutex m_mutex;
    std::condition_variable m_queued;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_workers;
    std::size_t m_idle = 0;
    bool m_shuttingDown = false;
};

} // namespace

// httplib's server with a listen backlog the kernel's SOMAXCONN deep instead of its 5, which a few
// clients connecting at once overflowed: the next connect waited a second for a SYN retransmit.
class MetricsServer::Http final : public httplib::Server
{
public:
    bool bindDeep(const std::string &address, int port)
    {
        // listen() again on a listening socket sets its backlog (Linux); Windows keeps the first.
        return bind_to_port(address, port) && ::listen(svr_sock_, SOMAXCONN) == 0;
    }
};

MetricsServer::MetricsServer(std::function<std::string()> text)
    : m_server(std::make_unique<Http>())
{
    m_server->new_task_queue = [] {
        return new ConnectionWorkers(MaxConnections);
    };
    m_server->set_read_timeout(IoTimeout);
    m_server->set_write_timeout(IoTimeout);
    m_server->set_keep_alive_timeout(IoTimeout.count());
    m_server->set_keep_alive_max_count(RequestsPerConnection);
    m_server->set_payload_max_length(4096); // a GET has no body
    m_server->Get("/metrics",
                  [text = std::move(text)](const httplib::Request &, httplib::Response &response) {
                      response.set_content(text(), "text/plain; version=0.0.4; charset=utf-8");
                  });
}

MetricsServer::~MetricsServer()
{
    stopListening();
    join();
}

bool MetricsServer::bind(const std::string &address, int port)
{
    return m_server->bindDeep(address, port);
}

void MetricsServer::start()
{
    m_thread = std::thread([this] { m_server->listen_after_bind(); });
}

void MetricsServer::stopListening()
{
    m_server->stop();
}

void MetricsServer::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

} // namespace leader::tools
