#pragma once

#include "pg/connection.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leader::baseline {

// The leader gate ADR-114 replaced (ADR-006), kept only so the failover benchmark can measure it
// beside the lease: a session-scoped Postgres advisory lock per role, taken with
// pg_try_advisory_lock on a pinned connection at the start of each tick and given back with
// pg_advisory_unlock at its end. Leadership is the TCP session: the lock is freed when the server
// ends the backend that holds it, whatever the holder's process is doing; nothing fences the work.

// The old per-role keys, 76540001 (billing) to 76540005 (webhook_delivery), in lease::Roles
// order; nullopt for a name that is not one of the five roles.
std::optional<std::int64_t> advisoryKey(std::string_view role);

struct LockAttempt
{
    bool held = false;
    // The attempt's clock_timestamp() in epoch milliseconds: the tick's number when held (the
    // gate has no token, and a later tick on the same database clock has a larger number).
    std::int64_t atMillis = 0;
};

struct Unlock
{
    // What pg_advisory_unlock answered: false means this session did not hold the lock (the
    // server also logs a WARNING), as when a transaction pooler ran it on another backend.
    bool released = false;
    std::string databaseTime; // the unlock's now(), as the server printed it
};

// One role's lock on one pinned connection. A broken connection is reopened by its next statement
// (pg::Connection), as the old scheduler's next tick took a fresh one: the lock of the old session
// is then gone with it, or stranded, depending on what ended that session. Not thread-safe.
class AdvisoryGate final
{
public:
    AdvisoryGate(pg::ConnectOptions options, std::int64_t key);

    // SELECT pg_try_advisory_lock(key). Throws pg::Error.
    LockAttempt tryLock();
    // SELECT pg_advisory_unlock(key). Throws pg::Error.
    Unlock unlock();

    std::int64_t key() const { return m_key; }
    // The pinned session, for its backend pid in tests.
    pg::Connection &connection() { return m_connection; }

private:
    pg::Connection m_connection;
    const std::int64_t m_key;
};

} // namespace leader::baseline
