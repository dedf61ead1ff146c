#include "pool.h"

#include "error.h"

#include <algorithm>
#include <string>

namespace leader::pg {

ConnectionPool::ConnectionPool(ConnectOptions options, std::size_t maxIdle, std::size_t maxOpen,
                               std::chrono::milliseconds wait)
    : m_options(std::move(options))
    , m_maxIdle(std::min(maxIdle, maxOpen))
    , m_maxOpen(maxOpen)
    , m_wait(wait)
{}

ConnectionPool::Lease ConnectionPool::take()
{
    std::optional<Connection> reused;
    {
        std::unique_lock lock(m_mutex);
        const bool available = m_returned.wait_for(lock, m_wait, [this] {
            return !m_idle.empty() || m_lent + m_idle.size() < m_maxOpen;
        });
        if (!available)
            throw Error(ErrorKind::NotStarted, {}, "pool",
                        "all " + std::to_string(m_maxOpen) + " connections of \""
                                + m_options.applicationName + "\" stayed in use for "
                                + std::to_string(m_wait.count())
                                + " ms; something holds them (a stuck statement?)");
        if (!m_idle.empty()) {
            reused.emplace(std::move(m_idle.back()));
            m_idle.pop_back();
        }
        ++m_lent; // the slot is taken before the lock is let go
    }
    if (reused)
        return Lease(*this, std::move(*reused));
    // A new connection is only its options: it connects at its first statement, unlocked.
    try {
        return Lease(*this, Connection(m_options));
    } catch (...) {
        giveBack(std::nullopt);
        throw;
    }
}

std::size_t ConnectionPool::size() const
{
    const std::lock_guard lock(m_mutex);
    return m_lent + m_idle.size();
}

void ConnectionPool::giveBack(std::optional<Connection> connection)
{
    // A connection left mid-transaction by an exception is no use to the next borrower. Asked
    // before the lock: both only look at the libpq handle.
    const bool keep = connection && connection->isOpen() && !connection->inTransaction();
    {
        const std::lock_guard lock(m_mutex);
        --m_lent;
        if (keep && m_idle.size() < m_maxIdle) {
            m_idle.push_back(std::move(*connection));
            connection.reset();
        }
    }
    m_returned.notify_one();
    // One not kept is closed here, after the lock (its destructor sends Terminate).
}

ConnectionPool::Lease::Lease(ConnectionPool &pool, Connection connection)
    : m_pool(&pool)
    , m_connection(std::move(connection))
{}

ConnectionPool::Lease::~Lease()
{
    if (m_pool)
        m_pool->giveBack(std::move(m_connection));
}

ConnectionPool::Lease::Lease(Lease &&other) noexcept
    : m_pool(other.m_pool)
    , m_connection(std::move(other.m_connection))
{
    other.m_pool = nullptr;
    other.m_connection.reset();
}

} // namespace leader::pg
