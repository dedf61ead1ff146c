#include "leaseboard.h"

#include "lease/constants.h"
#include "pg/pool.h"

namespace leader::scheduler {

namespace {

using namespace std::chrono_literals;

// As RoleRunner's: the rows' instants are on the database clock and the wait on this host's
// monotonic clock, so a little margin makes sure now() has passed the instant when ACQUIRE runs.
constexpr auto ClockMargin = 5ms;

// RoleRunner::untilAcquirable's expression for every role of the replica at once; a role without
// a row (ACQUIRE inserts it) comes back with no row values, that is acquirable now.
constexpr std::string_view ReadSql = R"sql(
SELECT s.role,
       l.paused_at IS NOT NULL AND l.paused_until IS NULL,
       extract(epoch FROM greatest(CASE WHEN l.expires_at > now() THEN l.expires_at END,
                                   CASE WHEN l.paused_at IS NOT NULL THEN l.paused_until END,
                                   l.not_before,
                                   l.last_tick_ended_at + s.interval_ms * interval '1 millisecond')
                          - now()) * 1000
  FROM unnest($1::text[], $2::bigint[]) AS s(role, interval_ms)
  LEFT JOIN leader_leases l ON l.role = s.role
)sql";

} // namespace

LeaseBoard::LeaseBoard(pg::ConnectionPool &pool)
    : m_pool(pool)
{}

void LeaseBoard::add(const std::string &role, std::chrono::milliseconds interval)
{
    const std::lock_guard lock(m_mutex);
    m_roles.emplace_back(role, interval);
}

std::optional<LeaseBoard::Reading> LeaseBoard::cached(const std::string &role,
                                                      Clock::time_point takenFrom) const
{
    const std::lock_guard lock(m_mutex);
    if (!m_takenAt || *m_takenAt < takenFrom)
        return std::nullopt;
    const auto found = m_acquirableAt.find(role);
    return Reading{*m_takenAt, found == m_acquirableAt.end() ? *m_takenAt : found->second};
}

LeaseBoard::Reading LeaseBoard::read(const std::string &role, Clock::time_point takenFrom)
{
    if (const std::optional<Reading> reading = cached(role, takenFrom))
        return *reading;
    const std::lock_guard reading(m_readMutex);
    // The read this caller queued behind may be fresh enough.
    if (const std::optional<Reading> queued = cached(role, takenFrom))
        return *queued;
    // Role names are identifiers (roles::names), so the array literals need no quoting.
    std::string roles = "{";
    std::string intervals = "{";
    {
        const std::lock_guard lock(m_mutex);
        for (const auto &[name, interval] : m_roles) {
            roles += (roles.size() > 1 ? "," : "") + name;
            intervals += (intervals.size() > 1 ? "," : "") + std::to_string(interval.count());
        }
    }
    roles += "}";
    intervals += "}";
    const auto takenAt = Clock::now();
    pg::ConnectionPool::Lease connection = m_pool.take();
    const pg::Result rows = connection->exec("until acquirable (all roles)", ReadSql,
                                             {roles, intervals}, lease::StatementTimeout);
    const auto received = Clock::now();
    std::map<std::string, Clock::time_point> acquirableAt;
    for (int row = 0; row < rows.rows(); ++row) {
        Clock::time_point at = received;
        if (rows.toBool(row, 1))
            at = takenAt + lease::MaxPoll;
        else if (!rows.isNull(row, 2))
            at = std::max(received, received
                                            + std::chrono::milliseconds(
                                                    static_cast<long long>(rows.toDouble(row, 2)))
                                            + ClockMargin);
        acquirableAt.emplace(std::string(rows.text(row, 0)), at);
    }
    const std::lock_guard lock(m_mutex);
    m_takenAt = takenAt;
    m_acquirableAt = std::move(acquirableAt);
    const auto found = m_acquirableAt.find(role);
    return Reading{takenAt, found == m_acquirableAt.end() ? received : found->second};
}

} // namespace leader::scheduler
