#include "transaction.h"

#include "error.h"

namespace leader::pg {

void rollbackQuietly(Connection &connection, std::chrono::milliseconds timeout)
{
    try {
        connection.exec("rollback", "ROLLBACK", {}, timeout);
    } catch (const Error &) {
        // The session is gone, and its transaction with it.
    }
}

} // namespace leader::pg
