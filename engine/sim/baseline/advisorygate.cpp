#include "advisorygate.h"

#include "lease/roles.h"

#include <algorithm>

namespace leader::baseline {

namespace {

using namespace std::chrono_literals;

// The old gate's statements had the engine's client-side deadline like every other statement.
constexpr auto StatementTimeout = 2s;
constexpr std::int64_t FirstKey = 76540001;

} // namespace

std::optional<std::int64_t> advisoryKey(std::string_view role)
{
    const auto found = std::find(lease::Roles.begin(), lease::Roles.end(), role);
    if (found == lease::Roles.end())
        return std::nullopt;
    return FirstKey + (found - lease::Roles.begin());
}

AdvisoryGate::AdvisoryGate(pg::ConnectOptions options, std::int64_t key)
    : m_connection(std::move(options))
    , m_key(key)
{}

LockAttempt AdvisoryGate::tryLock()
{
    const pg::Result result
            = m_connection.exec("pg_try_advisory_lock",
                                "SELECT pg_try_advisory_lock($1), "
                                "(extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                                {m_key}, StatementTimeout);
    return {.held = result.toBool(0, 0), .atMillis = result.toInt64(0, 1)};
}

Unlock AdvisoryGate::unlock()
{
    const pg::Result result
            = m_connection.exec("pg_advisory_unlock", "SELECT pg_advisory_unlock($1), now()::text",
                                {m_key}, StatementTimeout);
    return {.released = result.toBool(0, 0), .databaseTime = std::string(result.text(0, 1))};
}

} // namespace leader::baseline
