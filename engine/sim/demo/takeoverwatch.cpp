#include "takeoverwatch.h"

#include "lease/constants.h"
#include "pg/connection.h"

#include <algorithm>

namespace leader::demo {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 2s;
constexpr double LeaseTtlSeconds = std::chrono::duration<double>(lease::LeaseTTL).count();

std::optional<double> optionalDouble(const pg::Result &result, int row, int column)
{
    if (result.isNull(row, column))
        return std::nullopt;
    return result.toDouble(row, column);
}

} // namespace

TakeoverWatch::TakeoverWatch(Options options, Callbacks callbacks)
    : m_options(std::move(options))
    , m_callbacks(std::move(callbacks))
{
    pg::ConnectOptions database = m_options.database;
    database.stop = m_stop.get_token();
    m_connection = std::make_unique<pg::Connection>(std::move(database));
}

TakeoverWatch::~TakeoverWatch()
{
    stop();
    if (m_thread.joinable())
        m_thread.join();
}

Takeover::Time TakeoverWatch::fromEpoch(double seconds)
{
    // The server's epoch has microseconds; a double holds them exactly enough for a round trip.
    return Takeover::Time(
            std::chrono::round<std::chrono::microseconds>(std::chrono::duration<double>(seconds)));
}

std::vector<std::string> TakeoverWatch::arm()
{
    const pg::Result result = m_connection->exec("victim's leases", R"sql(
SELECT role, holder_token, extract(epoch FROM expires_at)::float8,
       extract(epoch FROM clock_timestamp())::float8
  FROM leader_leases
 WHERE holder_id = $1 AND expires_at > now()
 ORDER BY role
)sql",
                                                 {m_options.victimHolder}, StatementTimeout);
    std::vector<std::string> roles;
    m_watched.clear();
    for (int row = 0; row < result.rows(); ++row) {
        Watched watched;
        watched.role = std::string(result.text(row, 0));
        watched.token = result.toInt64(row, 1);
        watched.lastExpires = result.toDouble(row, 2);
        m_watched.push_back(watched);
        roles.push_back(watched.role);
    }
    m_faultAt = result.rows() > 0
                        ? result.toDouble(0, 3)
                        : m_connection
                                  ->exec("clock",
                                         "SELECT extract(epoch FROM clock_timestamp())::float8", {},
                                         StatementTimeout)
                                  .toDouble(0, 0);
    return roles;
}

void TakeoverWatch::start()
{
    m_thread = std::jthread([this] { run(); });
}

void TakeoverWatch::stop()
{
    m_stop.request_stop();
}

void TakeoverWatch::noteAcquired(const std::string &role, std::int64_t token,
                                 const std::string &holderId, const std::string &databaseTime)
{
    const std::lock_guard lock(m_mutex);
    m_noted.push_back({true, role, token, holderId, databaseTime});
}

void TakeoverWatch::noteReleased(const std::string &role, std::int64_t token,
                                 const std::string &databaseTime)
{
    const std::lock_guard lock(m_mutex);
    m_noted.push_back({false, role, token, {}, databaseTime});
}

void TakeoverWatch::run()
{
    const std::stop_token stop = m_stop.get_token();
    const auto deadline = std::chrono::steady_clock::now() + m_options.deadline;
    for (;;) {
        bool more = false;
        try {
            more = poll();
        } catch (const std::exception &) {
            // The next poll reconnects; a database that stays away ends in "no takeover".
            more = true;
        }
        if (!more)
            break;
        {
            std::unique_lock lock(m_mutex);
            const auto wake
                    = std::min(deadline, std::chrono::steady_clock::now() + m_options.pollEvery);
            m_wake.wait_until(lock, stop, wake, [] { return false; });
        }
        if (stop.stop_requested())
            break;
        if (std::chrono::steady_clock::now() >= deadline) {
            const auto seconds
                    = std::chrono::duration_cast<std::chrono::seconds>(m_options.deadline);
            for (const Watched &watched : m_watched) {
                if (!watched.done && m_callbacks.missed)
                    m_callbacks.missed(watched.role, "no takeover of " + watched.role + " within "
                                                             + std::to_string(seconds.count())
                                                             + " s after " + m_options.fault);
            }
            break;
        }
    }
    if (m_callbacks.finished)
        m_callbacks.finished();
}

bool TakeoverWatch::poll()
{
    if (m_watched.empty())
        return false;
    std::vector<Noted> noted;
    {
        const std::lock_guard lock(m_mutex);
        noted.swap(m_noted);
    }
    // The events carry now() as the database printed it; the database reads it back.
    const auto epochOf = [this](const std::string &databaseTime) -> std::optional<double> {
        if (databaseTime.empty())
            return std::nullopt;
        const pg::Result result = m_connection->exec(
                "event time", "SELECT extract(epoch FROM $1::timestamptz)::float8", {databaseTime},
                StatementTimeout);
        return optionalDouble(result, 0, 0);
    };

    std::string roles;
    for (const Watched &watched : m_watched)
        if (!watched.done)
            roles += (roles.empty() ? "" : ",") + watched.role;
    const pg::Result rows = m_connection->exec("watch leases", R"sql(
SELECT role, holder_token, holder_id, extract(epoch FROM acquired_at)::float8,
       extract(epoch FROM expires_at)::float8, extract(epoch FROM clock_timestamp())::float8
  FROM leader_leases
 WHERE role = ANY(string_to_array($1, ','))
)sql",
                                               {roles}, StatementTimeout);

    bool more = false;
    for (Watched &watched : m_watched) {
        if (watched.done)
            continue;
        // The earliest successor wins: the first takeover is what the fault caused.
        std::optional<std::int64_t> successorToken;
        std::string successorHolder;
        std::optional<double> acquiredAt;
        for (const Noted &note : noted) {
            if (note.role != watched.role)
                continue;
            if (!note.acquired && note.token == watched.token && !watched.releasedAt)
                watched.releasedAt = epochOf(note.databaseTime);
            if (note.acquired && note.token > watched.token
                && note.holderId != m_options.victimHolder
                && (!successorToken || note.token < *successorToken)) {
                if (const std::optional<double> at = epochOf(note.databaseTime)) {
                    successorToken = note.token;
                    successorHolder = note.holderId;
                    acquiredAt = at;
                }
            }
        }
        for (int row = 0; row < rows.rows(); ++row) {
            if (rows.text(row, 0) != watched.role)
                continue;
            const std::int64_t token = rows.toInt64(row, 1);
            const std::optional<std::string> holder = rows.optionalText(row, 2);
            const std::optional<double> expires = optionalDouble(rows, row, 4);
            if (token == watched.token && holder && expires)
                watched.lastExpires = std::max(watched.lastExpires, *expires);
            if (token == watched.token && !holder && !watched.releasedAt && m_options.cleanStop)
                watched.releasedAt = rows.toDouble(row, 5); // no event yet: when it was seen
            const std::optional<double> acquired = optionalDouble(rows, row, 3);
            if (token > watched.token && holder && acquired && *holder != m_options.victimHolder
                && (!successorToken || token < *successorToken)) {
                successorToken = token;
                successorHolder = *holder;
                acquiredAt = acquired;
            }
        }
        if (successorToken && acquiredAt)
            report(watched, *successorToken, successorHolder, *acquiredAt);
        else
            more = true;
    }
    return more;
}

void TakeoverWatch::report(Watched &watched, std::int64_t token, const std::string &holderId,
                           double acquiredAt)
{
    watched.done = true;
    Takeover takeover;
    takeover.role = watched.role;
    takeover.fault = m_options.fault;
    takeover.victim = m_options.victim;
    takeover.victimHolder = m_options.victimHolder;
    takeover.victimToken = watched.token;
    takeover.successorHolder = holderId;
    takeover.successorToken = token;
    const std::string hosted = m_callbacks.replicaOf ? m_callbacks.replicaOf(holderId) : "";
    takeover.successor = hosted.empty() ? holderId : hosted;
    takeover.faultAt = fromEpoch(m_faultAt);
    takeover.acquiredAt = fromEpoch(acquiredAt);
    double from = watched.lastExpires - LeaseTtlSeconds;
    if (m_options.cleanStop && watched.releasedAt) {
        from = *watched.releasedAt;
        takeover.releasedAt = fromEpoch(from);
    } else {
        takeover.lastHeartbeatAt = fromEpoch(from);
    }
    takeover.gapSeconds = std::max(0.0, acquiredAt - from);
    if (m_callbacks.measured)
        m_callbacks.measured(takeover);
}

} // namespace leader::demo
