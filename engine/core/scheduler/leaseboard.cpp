#include "leaseboard.h"

#include "lease/constants.h"
#include "log/log.h"
#include "pg/pool.h"

namespace leader::scheduler {

namespace {

using namespace std::chrono_literals;

// As RoleRunner's: the rows' instants are on the database clock and the wait on this host's
// monotonic clock, so a little margin makes sure now() has passed the instant when ACQUIRE runs.
constexpr auto ClockMargin = 5ms;

// How wide a due instant is spread per live replica that runs the role, and at most: their reads
// arrive about one every 5 ms, while a handful of replicas still wake within a few milliseconds
// of the instant. Without it, at 1,000 replicas a thousand reads queued in PgBouncer's pool ahead
// of the one ACQUIRE that takes the role, and with half a millisecond a replica the reads that
// fall in one 500 ms burst still outran two cores. With 2 ms a replica, roles whose ticks cycle
// in about MaxPoll drew the fleet's reads into the 2 s after each due instant, where they came
// back a poll later: bursts of 1,000 reads a second with almost none between, and spells of
// 100 ms in which every read queued (docs/benchmarks/scale.md). At most MaxPoll: wider would only
// move the burst.
constexpr auto SpreadPerReplica = 5ms;
constexpr auto MaxSpread = std::chrono::duration_cast<std::chrono::microseconds>(lease::MaxPoll);
// A replica that has just started may see its fleet still starting: it counts again one registry
// beat later for its first minute, and once a minute after that.
constexpr int EarlyFleetCounts = 4;
constexpr auto FleetCountEvery = EarlyFleetCounts * lease::ReplicaSeenEvery;
// How much sooner than MaxPoll a waiting runner may read again: never later, so that an unpause is
// still seen within MaxPoll.
constexpr auto MaxPollJitter
        = std::chrono::duration_cast<std::chrono::microseconds>(lease::MaxPoll) / 10;
// After a failed read, as wide: the reads a stalled pool failed together would otherwise come back
// within half a second of each other, a thousand of them at 1,000 replicas.
constexpr auto FailedReadJitter
        = std::chrono::duration_cast<std::chrono::microseconds>(lease::MaxPoll) / 2;

// RoleRunner::untilAcquirable's expression for every role of the replica at once; a role without
// a row (ACQUIRE inserts it) comes back with no row values, that is acquirable now. When $4 is
// true it also counts the live replicas that run each role (0178's view, which the app may read),
// for the spread, hence not on every read: about 1.3 ms for five roles at 1,000 replicas (0187;
// before it, 0182's view called pg_lock_status() once per replica row). A correlated count per
// role, not one grouped count over the unnested roles: that sorts five rows a replica and took
// three times as long (docs/benchmarks/scale.md).
constexpr std::string_view ReadSql = R"sql(
SELECT s.role,
       l.paused_at IS NOT NULL AND l.paused_until IS NULL,
       extract(epoch FROM greatest(CASE WHEN l.expires_at > now() THEN l.expires_at END,
                                   CASE WHEN l.paused_at IS NOT NULL THEN l.paused_until END,
                                   l.not_before,
                                   l.last_tick_ended_at + s.interval_ms * interval '1 millisecond'
                                   /*handover wait*/)
                          - now()) * 1000,
       CASE WHEN l.expires_at > now() AND l.holder_id <> $3
                 AND l.holder_session_incarnation = leader_ext.leader_server_incarnation()
            THEN l.holder_session END,
       l.holder_session_incarnation,
       CASE WHEN $4::boolean
            THEN (SELECT count(*) FROM leader_ext.leader_replicas_status r
                   WHERE r.state = 'alive' AND s.role = ANY(r.roles)) END
  FROM unnest($1::text[], $2::bigint[]) AS s(role, interval_ms)
  LEFT JOIN leader_leases l ON l.role = s.role
)sql";

// With 0185: the end of a handover's preference for another contender (statements.cpp's ACQUIRE
// refuses this one until then).
constexpr std::string_view HandoverWait = R"sql(,
                                   CASE WHEN l.handover_token = l.holder_token
                                             AND CASE WHEN l.handover_to IS NOT NULL
                                                      THEN l.handover_to <> $3
                                                      ELSE l.handover_from = $3 END
                                        THEN greatest(l.handover_at,
                                                      l.last_tick_ended_at
                                                          + s.interval_ms
                                                            * interval '1 millisecond',
                                                      l.not_before)
                                             + $5::bigint * interval '1 millisecond' END)sql";

// With 0188: the same read with the handover wait, as a function whose plan is kept.
constexpr std::string_view BoardSql
        = "SELECT * FROM leader_ext.leader_board($1::text[], $2::bigint[], $3, $4::boolean, "
          "$5::bigint)";

const std::string &readSql(bool handovers)
{
    static const std::string plain(ReadSql);
    static const std::string withHandover = [] {
        std::string text(ReadSql);
        constexpr std::string_view Marker = "/*handover wait*/";
        text.replace(text.find(Marker), Marker.size(), HandoverWait);
        return text;
    }();
    return handovers ? withHandover : plain;
}

} // namespace

LeaseBoard::LeaseBoard(pg::ConnectionPool &pool, std::string holderId)
    : m_pool(pool)
    , m_holderId(std::move(holderId))
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
    if (m_failure && m_failure->takenAt() >= takenFrom)
        throw *m_failure;
    if (!m_unlisted || m_unlisted->takenAt < takenFrom)
        return std::nullopt;
    const auto found = m_readings.find(role);
    return found == m_readings.end() ? *m_unlisted : found->second;
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
    const bool count = !m_fleetCountedAt
                       || takenAt - *m_fleetCountedAt >= (m_counts < EarlyFleetCounts
                                                                  ? lease::ReplicaSeenEvery
                                                                  : FleetCountEvery);
    std::optional<pg::Result> rows;
    try {
        pg::ConnectionPool::Lease connection = m_pool.take();
        const auto send = [&](bool function, bool handovers) {
            std::vector<pg::Param> params{roles, intervals, m_holderId, count ? "true" : "false"};
            if (handovers)
                params.emplace_back(static_cast<std::int64_t>(lease::PreferFor.count()));
            return connection->exec("until acquirable (all roles)",
                                    function ? BoardSql : readSql(handovers), params,
                                    lease::StatementTimeout);
        };
        // An extension undone under this replica: the read that finds 0188's function or 0185's
        // handover columns gone is sent again without them, and so is every later one. Otherwise
        // every read failed until a restart, and each runner sent ACQUIRE after MaxPoll.
        for (;;) {
            const bool function = m_function.load();
            const bool handovers = function || m_handovers.load();
            try {
                rows = send(function, handovers);
                break;
            } catch (const pg::Error &error) {
                const auto warn = [this](const char *what) {
                    log::write(log::Level::Warning, "scheduler", what, "holder=" + m_holderId);
                };
                if (function && error.sqlstate() == pg::sqlstate::UndefinedFunction) {
                    m_function.store(false);
                    warn("leader_ext.leader_board() is gone (migration 0188 undone); reading "
                         "the roles' rows with the plain statement");
                } else if (handovers && lease::handoverColumnsGone(error)) {
                    m_function.store(false); // leader_board() reads them too
                    m_handovers.store(false);
                    warn("the handover columns are gone (migration 0185 undone); reading the "
                         "roles' rows without them");
                } else {
                    throw;
                }
            }
        }
    } catch (const pg::Error &error) {
        const auto jitter = std::chrono::microseconds(
                std::uniform_int_distribution<long long>(0, FailedReadJitter.count())(m_random));
        // From the failure, not the send: a read that failed on its timeouts must not be retried
        // at once.
        const Unread failure(error, takenAt, Clock::now() + lease::MaxPoll - jitter);
        // Said once here, not by each runner that receives it.
        log::write(log::Level::Warning, "scheduler", "cannot read the roles' rows",
                   "roles=" + roles.substr(1, roles.size() - 2) + " error=\"" + pg::explain(error)
                           + "\"");
        const std::lock_guard lock(m_mutex);
        m_failure = failure;
        throw failure;
    }
    const auto received = Clock::now();
    // One draw for the whole reading, so that the replica's runners still read together.
    const auto readAgainAt = takenAt + lease::MaxPoll
                             - std::chrono::microseconds(std::uniform_int_distribution<long long>(
                                     0, MaxPollJitter.count())(m_random));
    // A role without a row: acquirable now (ACQUIRE inserts it).
    const Reading unlisted{takenAt, readAgainAt, received};
    std::map<std::string, Reading> readings;
    for (int row = 0; row < rows->rows(); ++row) {
        std::string name(rows->text(row, 0));
        if (count)
            m_fleet[name] = rows->toInt64(row, 5);
        Reading reading = unlisted;
        if (rows->toBool(row, 1)) {
            reading.acquirableAt = takenAt + lease::MaxPoll;
        } else if (!rows->isNull(row, 2)) {
            const auto wait
                    = std::chrono::milliseconds(static_cast<long long>(rows->toDouble(row, 2)));
            reading.acquirableAt = std::max(received, received + wait + ClockMargin);
            const auto found = m_fleet.find(name);
            const std::int64_t fleet
                    = found == m_fleet.end() ? 1 : std::max<std::int64_t>(found->second, 1);
            const auto width
                    = std::min<std::chrono::microseconds>(MaxSpread, fleet * SpreadPerReplica);
            // Due a moment ago, the fleet's race for it still on: the rest of the width, not at
            // once. At 1,000 replicas the reads of the fleet's regular polls that landed between
            // the due instant and the winner's commit each sent an ACQUIRE straight away, two or
            // three a tick queued on the row's lock behind the winner, and they were the ACQUIRE
            // tail (docs/benchmarks/scale.md).
            if (wait + width > std::chrono::microseconds(0))
                reading.spreadWithin = wait.count() > 0 ? width : width + wait;
        }
        if (!rows->isNull(row, 3))
            reading.heldBy = lease::HolderSession{rows->toInt64(row, 3), rows->toInt64(row, 4)};
        readings.emplace(std::move(name), reading);
    }
    if (count) {
        m_fleetCountedAt = takenAt;
        ++m_counts;
    }
    const std::lock_guard lock(m_mutex);
    m_failure.reset();
    m_unlisted = unlisted;
    m_readings = std::move(readings);
    const auto found = m_readings.find(role);
    return found == m_readings.end() ? unlisted : found->second;
}

} // namespace leader::scheduler
