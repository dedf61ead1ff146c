#include "takeoverwatch.h"

#include "lease/constants.h"
#include "pg/connection.h"
#include "pg/error.h"

#include <QDateTime>

#include <cmath>

namespace leader::console {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 2s;
constexpr double LeaseTtlSeconds = std::chrono::duration<double>(lease::LeaseTTL).count();

std::string text(const QString &value)
{
    return value.toStdString();
}

QString qtext(std::string_view value)
{
    return QString::fromUtf8(value.data(), qsizetype(value.size()));
}

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

QDateTime TakeoverWatch::fromEpoch(double seconds)
{
    return QDateTime::fromMSecsSinceEpoch(std::llround(seconds * 1000.0), Qt::UTC);
}

QStringList TakeoverWatch::arm()
{
    const pg::Result result = m_connection->exec("victim's leases", R"sql(
SELECT role, holder_token, extract(epoch FROM expires_at)::float8,
       extract(epoch FROM clock_timestamp())::float8
  FROM leader_leases
 WHERE holder_id = $1 AND expires_at > now()
 ORDER BY role
)sql",
                                                 {text(m_options.victimHolder)}, StatementTimeout);
    QStringList roles;
    m_watched.clear();
    for (int row = 0; row < result.rows(); ++row) {
        Watched watched;
        watched.role = qtext(result.text(row, 0));
        watched.token = result.toInt64(row, 1);
        watched.lastExpires = result.toDouble(row, 2);
        m_watched.append(watched);
        roles.append(watched.role);
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
    m_thread = std::thread([this] { run(); });
}

void TakeoverWatch::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopRequested = true;
    }
    m_stop.request_stop();
    m_wake.notify_all();
}

void TakeoverWatch::noteAcquired(const QString &role, qint64 token, const QString &holderId,
                                 const QString &databaseTime)
{
    const std::lock_guard lock(m_mutex);
    m_noted.append({true, role, token, holderId, databaseTime});
}

void TakeoverWatch::noteReleased(const QString &role, qint64 token, const QString &databaseTime)
{
    const std::lock_guard lock(m_mutex);
    m_noted.append({false, role, token, {}, databaseTime});
}

void TakeoverWatch::run()
{
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
        std::unique_lock lock(m_mutex);
        if (m_stopRequested)
            break;
        const auto wake
                = std::min(deadline, std::chrono::steady_clock::now() + m_options.pollEvery);
        m_wake.wait_until(lock, wake, [this] { return m_stopRequested; });
        if (m_stopRequested)
            break;
        if (std::chrono::steady_clock::now() >= deadline) {
            lock.unlock();
            const auto seconds
                    = std::chrono::duration_cast<std::chrono::seconds>(m_options.deadline);
            for (const Watched &watched : std::as_const(m_watched)) {
                if (!watched.done && m_callbacks.missed)
                    m_callbacks.missed(watched.role,
                                       QStringLiteral("no takeover of %1 within %2 s after %3")
                                               .arg(watched.role)
                                               .arg(seconds.count())
                                               .arg(m_options.fault));
            }
            break;
        }
    }
    if (m_callbacks.finished)
        m_callbacks.finished();
}

bool TakeoverWatch::poll()
{
    if (m_watched.isEmpty())
        return false;
    QList<Noted> noted;
    {
        const std::lock_guard lock(m_mutex);
        noted.swap(m_noted);
    }
    // The events carry now() as the database printed it; the database reads it back.
    const auto epochOf = [this](const QString &databaseTime) -> std::optional<double> {
        if (databaseTime.isEmpty())
            return std::nullopt;
        const pg::Result result = m_connection->exec(
                "event time", "SELECT extract(epoch FROM $1::timestamptz)::float8",
                {text(databaseTime)}, StatementTimeout);
        return optionalDouble(result, 0, 0);
    };

    QStringList roles;
    for (const Watched &watched : std::as_const(m_watched))
        if (!watched.done)
            roles.append(watched.role);
    const pg::Result rows = m_connection->exec("watch leases", R"sql(
SELECT role, holder_token, holder_id, extract(epoch FROM acquired_at)::float8,
       extract(epoch FROM expires_at)::float8, extract(epoch FROM clock_timestamp())::float8
  FROM leader_leases
 WHERE role = ANY(string_to_array($1, ','))
)sql",
                                               {text(roles.join(u','))}, StatementTimeout);

    bool more = false;
    for (Watched &watched : m_watched) {
        if (watched.done)
            continue;
        // The earliest successor wins: the first takeover is what the fault caused.
        std::optional<qint64> successorToken;
        QString successorHolder;
        std::optional<double> acquiredAt;
        for (const Noted &note : std::as_const(noted)) {
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
            if (qtext(rows.text(row, 0)) != watched.role)
                continue;
            const qint64 token = rows.toInt64(row, 1);
            const std::optional<std::string> holder = rows.optionalText(row, 2);
            const std::optional<double> expires = optionalDouble(rows, row, 4);
            if (token == watched.token && holder && expires)
                watched.lastExpires = std::max(watched.lastExpires, *expires);
            if (token == watched.token && !holder && !watched.releasedAt && m_options.cleanStop)
                watched.releasedAt = rows.toDouble(row, 5); // no event yet: when it was seen
            const std::optional<double> acquired = optionalDouble(rows, row, 3);
            if (token > watched.token && holder && acquired
                && QString::fromStdString(*holder) != m_options.victimHolder
                && (!successorToken || token < *successorToken)) {
                successorToken = token;
                successorHolder = QString::fromStdString(*holder);
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

void TakeoverWatch::report(Watched &watched, qint64 token, const QString &holderId,
                           double acquiredAt)
{
    watched.done = true;
    Failover failover;
    failover.role = watched.role;
    failover.fault = m_options.fault;
    failover.victim = m_options.victim;
    failover.victimHolder = m_options.victimHolder;
    failover.victimToken = watched.token;
    failover.successorHolder = holderId;
    failover.successorToken = token;
    const QString hosted = m_callbacks.replicaOf ? m_callbacks.replicaOf(holderId) : QString();
    failover.successor = hosted.isEmpty() ? holderId : hosted;
    failover.faultAt = fromEpoch(m_faultAt);
    failover.acquiredAt = fromEpoch(acquiredAt);
    double from = watched.lastExpires - LeaseTtlSeconds;
    if (m_options.cleanStop && watched.releasedAt) {
        from = *watched.releasedAt;
        failover.releasedAt = fromEpoch(from);
    } else {
        failover.lastHeartbeatAt = fromEpoch(from);
    }
    failover.gapSeconds = acquiredAt - from;
    if (m_callbacks.measured)
        m_callbacks.measured(failover);
}

} // namespace leader::console
