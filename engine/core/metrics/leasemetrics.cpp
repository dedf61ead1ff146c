#include "leasemetrics.h"

#include "lease/roles.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "registry.h"
#include "schema/features.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace leader::metrics {

namespace {

constexpr std::string_view LeaseLost = "hardcount_leader_lease_lost_total";
constexpr std::string_view LeaseLostHelp
        = "Ticks this replica led whose lease was lost, by reason; reason=panicked counts ticks "
          "whose work panicked (a defect, not a lost lease)";
constexpr std::string_view TickDuration = "hardcount_leader_tick_duration_seconds";
constexpr std::string_view TickDurationHelp = "Wall time of each tick this replica led";
constexpr std::string_view Acquire = "hardcount_leader_acquire_seconds";
constexpr std::string_view AcquireHelp = "Round trip of the ACQUIRE statement";
constexpr std::string_view Renew = "hardcount_leader_renew_seconds";
constexpr std::string_view RenewHelp = "Round trip of the RENEW statement";
constexpr std::string_view LastTickAge = "hardcount_leader_last_tick_age_seconds";
constexpr std::string_view LastTickAgeHelp
        = "Seconds since the role's last completed tick, on the database clock; absent while it "
          "never ran or leader_status is unreadable (see hardcount_leader_last_tick_state)";
constexpr std::string_view LastTickState = "hardcount_leader_last_tick_state";
constexpr std::string_view LastTickStateHelp
        = "1 for the role's current last-tick state (ok, never_ran, error: leader_status "
          "unreadable), 0 for the others";
constexpr std::string_view Paused = "hardcount_leader_paused";
constexpr std::string_view PausedHelp = "1 while the role is paused with leader_pause";

constexpr std::string_view StatusUp = "hardcount_leader_status_up";
constexpr std::string_view StatusUpHelp
        = "1 when this replica's last read of leader_status for /metrics succeeded";
constexpr std::string_view StatusStaleness = "hardcount_leader_status_staleness_seconds";
constexpr std::string_view StatusStalenessHelp
        = "Seconds since the leader_status readings served were taken (read at most once a second "
          "on the replica's metrics session)";

constexpr std::string_view BacklogPending = "hardcount_leader_backlog_pending";
constexpr std::string_view BacklogPendingHelp
        = "Work the role has waiting, as its registered backlog source counts it (what says what "
          "it counts; extension 0186, leader_ext.leader_backlog); absent while the source fails";
constexpr std::string_view BacklogOldestAge = "hardcount_leader_backlog_oldest_age_seconds";
constexpr std::string_view BacklogOldestAgeHelp
        = "Seconds the role's oldest waiting item has waited, on the database clock; 0 when "
          "nothing waits, absent while the source fails";
constexpr std::string_view BacklogSourceUp = "hardcount_leader_backlog_source_up";
constexpr std::string_view BacklogSourceUpHelp
        = "1 when the role's backlog source answered this replica's last read of "
          "leader_ext.leader_backlog, 0 when it or the read failed";

constexpr std::array<std::string_view, 3> States{"ok", "never_ran", "error"};

// Statements take 2 s at most (the lease statement timeout), so round trips end at 2.5 s.
const std::vector<double> RoundTripBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1,   0.25,   0.5,   1,    2.5};
// The demo's ticks last seconds; a billing tick can run for minutes.
const std::vector<double> TickBuckets{0.01, 0.05, 0.1, 0.25, 0.5, 1,   2.5, 5,
                                      10,   30,   60,  120,  300, 600, 1800};

constexpr std::string_view StatusSql
        = "SELECT role, last_tick_age_seconds, state FROM leader_status";
// With 0189 a pause with an end is held in not_before, which the ADR's view reads as cooling; the
// extended view reads it as paused.
constexpr int ExtendedStatusExtension = static_cast<int>(schema::Extension::AdrFleet);
constexpr std::string_view ExtendedStatusSql
        = "SELECT role, last_tick_age_seconds, state FROM leader_ext.leader_status";

// Extension 0186: leader_ext.leader_backlog(), one row per registered source, ordered by role.
constexpr int BacklogExtension = static_cast<int>(schema::Extension::Backlog);
constexpr std::string_view BacklogSql
        = "SELECT role, what, pending, oldest_pending_age_seconds, error "
          "FROM leader_ext.leader_backlog()";

Labels roleLabel(std::string_view role)
{
    return {{"role", std::string(role)}};
}

struct RoleStatus
{
    std::optional<double> age;
    bool paused = false;
};

struct BacklogSource
{
    std::string what;
    std::optional<double> pending; // absent when the source failed
    double oldestAge = 0;
    std::string error;
};

} // namespace

struct LeaseMetrics::BacklogReading
{
    // Whether the database has 0186, as last probed; the rest means nothing without it.
    bool available = false;
    // The reader itself failed (a timeout, a privilege, a dead session): the sources are unknown.
    std::optional<std::string> failure;
    std::map<std::string, BacklogSource, std::less<>> sources;
};

LeaseMetrics::LeaseMetrics(Registry &registry)
    : m_registry(registry)
{
    // Pre-created so the first panic after a start is an increase the page rule can see
    // (ADR-114 amendment 2026-10-19, item 6). Only this reason: any other would page on its first.
    for (const std::string_view role : lease::Roles)
        m_registry.counter(LeaseLost, LeaseLostHelp,
                           {{"role", std::string(role)},
                            {"reason", std::string(nameOf(lease::LossReason::Panicked))}});
}

void LeaseMetrics::leaseLost(std::string_view role, lease::LossReason reason)
{
    m_registry
            .counter(LeaseLost, LeaseLostHelp,
                     {{"role", std::string(role)}, {"reason", std::string(nameOf(reason))}})
            .inc();
}

void LeaseMetrics::tickFinished(std::string_view role, std::chrono::duration<double> duration)
{
    m_registry.histogram(TickDuration, TickDurationHelp, roleLabel(role), TickBuckets)
            .observe(duration.count());
}

void LeaseMetrics::acquireRoundTrip(std::string_view role, std::chrono::duration<double> duration)
{
    m_registry.histogram(Acquire, AcquireHelp, roleLabel(role), RoundTripBuckets)
            .observe(duration.count());
}

void LeaseMetrics::renewRoundTrip(std::string_view role, std::chrono::duration<double> duration)
{
    m_registry.histogram(Renew, RenewHelp, roleLabel(role), RoundTripBuckets)
            .observe(duration.count());
}

bool LeaseMetrics::scrapeStatus(pg::Connection &connection,
                                std::optional<std::chrono::milliseconds> serverTimeout)
{
    std::map<std::string, RoleStatus, std::less<>> statuses;
    std::optional<std::string> failure;
    std::optional<BacklogReading> backlog; // read only after leader_status was
    // A session opened by this scrape may be another server's (a failover, a multi-host URL).
    const bool newSession = !connection.isOpen();
    try {
        // The client's deadline a little past the server's, so the server's error is the one seen.
        const std::chrono::milliseconds timeout
                = serverTimeout ? *serverTimeout + std::chrono::milliseconds(500)
                                : std::chrono::milliseconds(2000);
        if (serverTimeout) {
            connection.exec("scrape status begin", "BEGIN", {}, timeout);
            connection.exec("scrape status timeout",
                            "SET LOCAL statement_timeout = "
                                    + std::to_string(serverTimeout->count()),
                            {}, timeout);
        }
        const int extension = probedExtension(connection, newSession);
        const pg::Result result = connection.exec(
                "scrape status",
                extension >= ExtendedStatusExtension ? ExtendedStatusSql : StatusSql, {}, timeout);
        for (int row = 0; row < result.rows(); ++row) {
            RoleStatus &status = statuses[std::string(result.text(row, 0))];
            if (!result.isNull(row, 1))
                status.age = std::max(0.0, result.toDouble(row, 1));
            status.paused = result.text(row, 2) == "paused";
        }
        backlog = readBacklog(connection, extension >= BacklogExtension, timeout);
        if (serverTimeout && connection.isOpen())
            connection.exec("scrape status end", backlog->failure ? "ROLLBACK" : "COMMIT", {},
                            timeout);
    } catch (const pg::Error &error) {
        failure = pg::explain(error);
        if (serverTimeout)
            connection.close(); // its transaction aborted, or its session in doubt
    }

    const std::lock_guard lock(m_scrapeMutex);
    if (failure && m_statusReadable)
        log::write(log::Level::Warning, "metrics",
                   "leader_status unreadable; every role's last-tick state is error",
                   "error=\"" + *failure + "\"");
    else if (!failure && !m_statusReadable)
        log::write(log::Level::Info, "metrics", "leader_status readable again");
    m_statusReadable = !failure;

    for (const std::string_view role : lease::Roles) {
        // A missing row reads as never ran: the next ACQUIRE recreates it without a completion.
        const auto found = statuses.find(role);
        const RoleStatus status = found != statuses.end() ? found->second : RoleStatus{};
        const Labels labels = roleLabel(role);
        std::string_view state = "error";
        if (!failure) {
            state = status.age ? "ok" : "never_ran";
            m_registry.gauge(Paused, PausedHelp, labels).set(status.paused ? 1 : 0);
        }
        if (status.age)
            m_registry.gauge(LastTickAge, LastTickAgeHelp, labels).set(*status.age);
        else
            m_registry.removeSeries(LastTickAge, labels);
        for (const std::string_view each : States)
            m_registry
                    .gauge(LastTickState, LastTickStateHelp,
                           {{"role", std::string(role)}, {"state", std::string(each)}})
                    .set(each == state ? 1 : 0);
    }
    if (backlog && !failure)
        applyBacklog(*backlog);
    else // leader_status unreadable, so the backlog was not read either
        for (const auto &[role, series] : m_backlogSeries)
            dropBacklog(role, true);
    return !failure;
}

int LeaseMetrics::probedExtension(pg::Connection &connection, bool newSession)
{
    const auto now = std::chrono::steady_clock::now();
    {
        const std::lock_guard lock(m_scrapeMutex);
        if (!newSession && m_probedAt && now - *m_probedAt < ProbeEvery)
            return m_extension;
    }
    const int extension = schema::probeFeatures(connection).extension;
    const std::lock_guard lock(m_scrapeMutex);
    m_extension = extension;
    m_probedAt = now;
    return extension;
}

LeaseMetrics::BacklogReading LeaseMetrics::readBacklog(pg::Connection &connection, bool available,
                                                       std::chrono::milliseconds timeout)
{
    BacklogReading reading;
    reading.available = available;
    try {
        if (!reading.available)
            return reading;
        const pg::Result result = connection.exec("scrape backlog", BacklogSql, {}, timeout);
        for (int row = 0; row < result.rows(); ++row) {
            BacklogSource &source = reading.sources[std::string(result.text(row, 0))];
            source.what = std::string(result.text(row, 1));
            if (!result.isNull(row, 4)) {
                source.error = std::string(result.text(row, 4));
                continue;
            }
            source.pending = result.isNull(row, 2) ? 0.0 : result.toDouble(row, 2);
            if (!result.isNull(row, 3))
                source.oldestAge = std::max(0.0, result.toDouble(row, 3));
        }
    } catch (const pg::Error &error) {
        reading.failure = pg::explain(error);
        // The status read before it stands; a session the error may have left in doubt does not.
        if (error.kind() != pg::ErrorKind::Definite)
            connection.close();
    }
    return reading;
}

void LeaseMetrics::dropBacklog(std::string_view role, bool keepUp)
{
    const auto found = m_backlogSeries.find(role);
    if (found == m_backlogSeries.end())
        return;
    m_registry.removeSeries(BacklogPending,
                            {{"role", std::string(role)}, {"what", found->second.what}});
    m_registry.removeSeries(BacklogOldestAge, roleLabel(role));
    if (keepUp)
        m_registry.gauge(BacklogSourceUp, BacklogSourceUpHelp, roleLabel(role)).set(0);
    else
        m_registry.removeSeries(BacklogSourceUp, roleLabel(role));
}

void LeaseMetrics::applyBacklog(const BacklogReading &reading)
{
    // Called under m_scrapeMutex.
    if (!reading.available) { // no 0186 (any more): no backlog series at all
        for (const auto &[role, series] : m_backlogSeries)
            dropBacklog(role, false);
        m_backlogSeries.clear();
        return;
    }
    if (reading.failure && m_backlogReadable)
        log::write(log::Level::Warning, "metrics",
                   "leader_ext.leader_backlog unreadable; every role's backlog source_up is 0",
                   "error=\"" + *reading.failure + "\"");
    else if (!reading.failure && !m_backlogReadable)
        log::write(log::Level::Info, "metrics", "leader_ext.leader_backlog readable again");
    m_backlogReadable = !reading.failure;
    if (reading.failure) { // the roles known stay, as down, until a read says otherwise
        for (const auto &[role, series] : m_backlogSeries)
            dropBacklog(role, true);
        return;
    }

    // Unregistered since: their series go.
    for (auto it = m_backlogSeries.begin(); it != m_backlogSeries.end();) {
        if (reading.sources.contains(it->first)) {
            ++it;
            continue;
        }
        dropBacklog(it->first, false);
        it = m_backlogSeries.erase(it);
    }
    for (const auto &[role, source] : reading.sources) {
        BacklogSeries &series
                = m_backlogSeries.try_emplace(role, BacklogSeries{source.what}).first->second;
        if (series.what != source.what) { // registered again, counting something else
            dropBacklog(role, true);
            series.what = source.what;
        }
        const bool up = source.pending.has_value();
        if (series.up != up) // a new role starts up: only its failure is news
            log::write(up ? log::Level::Info : log::Level::Warning, "metrics",
                       up ? "backlog source answers again" : "backlog source failed",
                       "role=" + role + (up ? "" : " error=\"" + source.error + "\""));
        series.up = up;
        if (!up) {
            dropBacklog(role, true);
            continue;
        }
        const Labels labels = roleLabel(role);
        m_registry.gauge(BacklogSourceUp, BacklogSourceUpHelp, labels).set(1);
        m_registry
                .gauge(BacklogPending, BacklogPendingHelp, {{"role", role}, {"what", series.what}})
                .set(*source.pending);
        m_registry.gauge(BacklogOldestAge, BacklogOldestAgeHelp, labels).set(source.oldestAge);
    }
}

StatusSnapshot::StatusSnapshot(LeaseMetrics &metrics, Registry &registry, Options options)
    : m_metrics(metrics)
    , m_registry(registry)
    , m_options(std::move(options))
{}

StatusSnapshot::~StatusSnapshot()
{
    stop();
}

void StatusSnapshot::refresh()
{
    std::unique_lock lock(m_mutex);
    if (m_stopped)
        return;
    const Clock::time_point now = Clock::now();
    if (m_requested == m_done
        && (!m_lastStarted || now - *m_lastStarted >= m_options.refreshEvery)) {
        ++m_requested;
        if (!m_thread.joinable())
            m_thread = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
        m_changed.notify_all();
    }
    const std::uint64_t asked = m_requested;
    m_changed.wait_until(lock, now + m_options.waitFor,
                         [&] { return m_done >= asked || m_stopped; });
    if (m_lastRead)
        m_registry.gauge(StatusStaleness, StatusStalenessHelp)
                .set(std::chrono::duration<double>(Clock::now() - *m_lastRead).count());
}

void StatusSnapshot::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopped = true;
        m_changed.notify_all();
    }
    if (m_thread.joinable()) {
        m_thread.request_stop();
        m_thread.join();
    }
}

void StatusSnapshot::run(std::stop_token stop)
{
    pg::ConnectOptions options = m_options.database;
    options.stop = stop;
    pg::Connection connection(std::move(options));
    for (;;) {
        std::uint64_t asked = 0;
        {
            std::unique_lock lock(m_mutex);
            if (!m_changed.wait(lock, stop, [&] { return m_requested > m_done; }))
                return;
            asked = m_requested;
            m_lastStarted = Clock::now();
        }
        const bool read = m_metrics.scrapeStatus(connection, m_options.statementTimeout);
        m_registry.gauge(StatusUp, StatusUpHelp).set(read ? 1 : 0);
        {
            const std::lock_guard lock(m_mutex);
            m_done = asked;
            if (read)
                m_lastRead = *m_lastStarted;
        }
        m_changed.notify_all();
    }
}

} // namespace leader::metrics
