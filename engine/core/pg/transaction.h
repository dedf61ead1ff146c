#pragma once

#include "connection.h"

#include <chrono>

namespace leader::pg {

// ROLLBACK on connection; a lost session is no error here, its transaction went with it.
void rollbackQuietly(Connection &connection, std::chrono::milliseconds timeout);

// BEGIN … COMMIT around work, each statement under timeout; ROLLBACK when work or the COMMIT
// throws (a statement refused, the session lost), then the exception goes on. So several rows
// change together or not at all, also through a transaction pooler. Returns what work returns.
template<typename Work>
auto inTransaction(Connection &connection, std::chrono::milliseconds timeout, Work &&work)
{
    connection.exec("begin", "BEGIN", {}, timeout);
    try {
        auto result = work();
        connection.exec("commit", "COMMIT", {}, timeout);
        return result;
    } catch (...) {
        rollbackQuietly(connection, timeout);
        throw;
    }
}

} // namespace leader::pg
