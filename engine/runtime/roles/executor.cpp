#include "executor.h"

#include "lease/constants.h"
#include "lease/tick.h"
#include "log/log.h"

namespace leader::roles {

pg::Result Executor::exec(std::string_view statement, std::string_view sql,
                          std::initializer_list<pg::Param> params)
{
    if (m_context)
        return m_context->exec(statement, sql, params);
    return m_connection->exec(statement, sql, params, lease::StatementTimeout);
}

Transaction::Transaction(Executor executor)
    : m_executor(executor)
{
    m_executor.exec("begin", "BEGIN", {});
}

Transaction::~Transaction()
{
    if (!m_open)
        return;
    try {
        m_executor.exec("rollback", "ROLLBACK", {});
    } catch (const std::exception &error) {
        // A cancelled tick starts no statement; the manager rolls back what its work left open
        // before RELEASE. A broken connection has no transaction left to roll back.
        log::write(log::Level::Warning, "roles", "rollback skipped",
                   "error=\"" + std::string(error.what()) + "\"");
    }
}

void Transaction::commit()
{
    m_executor.exec("commit", "COMMIT", {});
    m_open = false;
}

} // namespace leader::roles
