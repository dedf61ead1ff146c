#pragma once

#include "pg/connection.h"

#include <initializer_list>
#include <string_view>

namespace leader::lease {
class TickContext;
}

namespace leader::roles {

// Where a store's unfenced statements run: on the tick's context (cancellation, capped
// deadlines), or on a plain connection, so the CAS tests can race writers that each hold their
// own. Implicit on purpose: a store function takes either. Fenced claims never take one; they
// take the tick itself.
class Executor final
{
public:
    Executor(lease::TickContext &context)
        : m_context(&context)
    {}
    Executor(pg::Connection &connection)
        : m_connection(&connection)
    {}

    pg::Result exec(std::string_view statement, std::string_view sql,
                    std::initializer_list<pg::Param> params);

private:
    lease::TickContext *m_context = nullptr;
    pg::Connection *m_connection = nullptr;
};

// BEGIN now, COMMIT on commit(). Destroyed uncommitted (a step threw), it rolls back, so every
// row the transaction wrote is as it was.
class Transaction final
{
public:
    explicit Transaction(Executor executor);
    ~Transaction();
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;

    void commit();

private:
    Executor m_executor;
    bool m_open = true;
};

} // namespace leader::roles
