#pragma once

#include "connection.h"

#include <memory>
#include <mutex>
#include <vector>

namespace leader::pg {

// A few idle connections kept for reuse. Every engine statement is autocommit with no session
// state, so any pooled connection serves any statement. Connections open lazily, inside the
// deadline of the first statement that uses them.
class ConnectionPool final
{
public:
    class Lease;

    explicit ConnectionPool(ConnectOptions options, std::size_t maxIdle = 8);

    Lease take();
    const ConnectOptions &options() const { return m_options; }

private:
    void giveBack(Connection connection);

    ConnectOptions m_options;
    std::size_t m_maxIdle;
    std::mutex m_mutex;
    std::vector<Connection> m_idle;
};

// A connection borrowed from the pool, returned when the lease ends; a broken one is not kept.
class ConnectionPool::Lease final
{
public:
    Lease(ConnectionPool &pool, Connection connection);
    ~Lease();
    Lease(Lease &&other) noexcept;
    Lease &operator=(Lease &&) = delete;
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;

    Connection &operator*() { return *m_connection; }
    Connection *operator->() { return &*m_connection; }

private:
    ConnectionPool *m_pool;
    std::optional<Connection> m_connection;
};

} // namespace leader::pg
