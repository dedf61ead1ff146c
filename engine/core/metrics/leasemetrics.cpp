#include "leasemetrics.h"

#include "lease/roles.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "registry.h"

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

constexpr std::array<std::string_view, 3> States{"ok", "never_ran", "error"};

// Statements take 2 s at most (the lease statement timeout), so round trips end at 2.5 s.
const std::vector<double> RoundTripBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1,   0.25,   0.5,   1,    2.5};
// The demo's ticks last seconds; a billing tick can run for minutes.
const std::vector<double> TickBuckets{0.01, 0.05, 0.1, 0.25, 0.5, 1,   2.5, 5,
                                      10,   30,   60,  120,  300, 600, 1800};

constexpr std::string_view StatusSql
        = "SELECT role, last_tick_age_seconds, state FROM leader_status";

Labels roleLabel(std::string_view role)
{
    return {{"role", std::string(role)}};
}

struct RoleStatus
{
    std::optional<double> age;
    bool paused = false;
};

} // namespace

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
        const pg::Result result = connection.exec("scrape status", StatusSql, {}, timeout);
        if (serverTimeout)
            connection.exec("scrape status commit", "COMMIT", {}, timeout);
        for (int row = 0; row < result.rows(); ++row) {
            RoleStatus &status = statuses[std::string(result.text(row, 0))];
            if (!result.isNull(row, 1))
                status.age = std::max(0.0, result.toDouble(row, 1));
            status.paused = result.text(row, 2) == "paused";
        }
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
    return !failure;
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
