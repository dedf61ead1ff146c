#pragma once

#include "connection.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace leader::pg {

// A few idle connections kept for reuse, and at most maxOpen in all. Every engine statement is
// autocommit with no session state, so any pooled connection serves any statement. Connections
// open lazily, inside the deadline of the first statement that uses them, on the borrower's
// thread: the pool's lock is never held across a connect, a statement or a close.
class ConnectionPool final
{
public:
    class Lease;

    // How long take() waits for a connection when maxOpen are lent: the lease statements' own
    // deadline, so a borrower beyond the bound fails as a statement that could not start would.
    static constexpr std::chrono::milliseconds DefaultWait{2000};

    explicit ConnectionPool(ConnectOptions options, std::size_t maxIdle = 8,
                            std::size_t maxOpen = 32, std::chrono::milliseconds wait = DefaultWait);

    // An idle connection, or a new (not yet open) one while fewer than maxOpen exist; otherwise
    // waits up to the pool's wait for one to come back, then throws Error (NotStarted, "pool").
    Lease take();
    const ConnectOptions &options() const { return m_options; }
    std::size_t maxOpen() const { return m_maxOpen; }
    // Connections lent out now plus those kept idle: what the pool may hold open.
    std::size_t size() const;

private:
    void giveBack(std::optional<Connection> connection);

    ConnectOptions m_options;
    const std::size_t m_maxIdle;
    const std::size_t m_maxOpen;
    const std::chrono::milliseconds m_wait;
    mutable std::mutex m_mutex;
    std::condition_variable m_returned;
    std::vector<Connection> m_idle;
    std::size_t m_lent = 0;
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
