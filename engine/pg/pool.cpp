#include "pool.h"

namespace leader::pg {

ConnectionPool::ConnectionPool(ConnectOptions options, std::size_t maxIdle)
    : m_options(std::move(options))
    , m_maxIdle(maxIdle)
{}

ConnectionPool::Lease ConnectionPool::take()
{
    const std::lock_guard lock(m_mutex);
    if (m_idle.empty())
        return Lease(*this, Connection(m_options));
    Connection connection = std::move(m_idle.back());
    m_idle.pop_back();
    return Lease(*this, std::move(connection));
}

void ConnectionPool::giveBack(Connection connection)
{
    // A connection left mid-transaction by an exception is no use to the next borrower.
    if (!connection.isOpen() || connection.inTransaction())
        return;
    const std::lock_guard lock(m_mutex);
    if (m_idle.size() < m_maxIdle)
        m_idle.push_back(std::move(connection));
}

ConnectionPool::Lease::Lease(ConnectionPool &pool, Connection connection)
    : m_pool(&pool)
    , m_connection(std::move(connection))
{}

ConnectionPool::Lease::~Lease()
{
    if (m_connection)
        m_pool->giveBack(std::move(*m_connection));
}

ConnectionPool::Lease::Lease(Lease &&other) noexcept
    : m_pool(other.m_pool)
    , m_connection(std::move(other.m_connection))
{
    other.m_connection.reset();
}

} // namespace leader::pg
