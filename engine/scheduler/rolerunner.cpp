#include "rolerunner.h"

#include "lease/constants.h"
#include "log/log.h"
#include "pg/error.h"

#include <algorithm>

namespace leader::scheduler {

namespace {

using namespace std::chrono_literals;

// A floor against a hot loop when the row says "due" but ACQUIRE just lost a race.
constexpr auto MinPoll = 20ms;
// The row's instants are on the database clock and the wait on this host's monotonic clock; a
// little margin makes sure now() has passed the instant when ACQUIRE runs.
constexpr auto ClockMargin = 5ms;

constexpr std::string_view UntilAcquirableSql = R"sql(
SELECT paused_at IS NOT NULL AND paused_until IS NULL,
       extract(epoch FROM greatest(CASE WHEN expires_at > now() THEN expires_at END,
                                   CASE WHEN paused_at IS NOT NULL THEN paused_until END,
                                   not_before,
                                   last_tick_ended_at + $2::bigint * interval '1 millisecond')
                          - now()) * 1000
  FROM leader_leases
 WHERE role = $1
)sql";

} // namespace

RoleRunner::RoleRunner(lease::Manager &manager, RoleSchedule schedule)
    : m_manager(manager)
    , m_schedule(std::move(schedule))
{}

RoleRunner::~RoleRunner()
{
    stop();
}

void RoleRunner::start()
{
    m_thread = std::thread([this] { loop(); });
}

void RoleRunner::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void RoleRunner::wake()
{
    {
        const std::lock_guard lock(m_mutex);
        m_woken = true;
    }
    m_wake.notify_all();
}

void RoleRunner::waitFor(std::chrono::milliseconds duration)
{
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, duration, [this] { return m_stopping || m_woken; });
    m_woken = false;
}

std::chrono::milliseconds RoleRunner::untilAcquirable(pg::Connection &connection,
                                                      std::string_view role,
                                                      std::chrono::milliseconds interval)
{
    const pg::Result row = connection.exec("until acquirable", UntilAcquirableSql,
                                           {role, interval.count()}, lease::StatementTimeout);
    if (row.rows() == 0)
        return MinPoll; // ACQUIRE recreates a missing row
    if (row.toBool(0, 0))
        return lease::MaxPoll; // paused with no end: poll, so an unpause is seen within MaxPoll
    if (row.isNull(0, 1))
        return MinPoll;
    const auto wait
            = std::chrono::milliseconds(static_cast<long long>(row.toDouble(0, 1))) + ClockMargin;
    return std::clamp<std::chrono::milliseconds>(wait, MinPoll, lease::MaxPoll);
}

void RoleRunner::loop()
{
    const std::string context = "role=" + m_schedule.role;
    for (;;) {
        {
            const std::lock_guard lock(m_mutex);
            if (m_stopping)
                return;
        }
        if (m_manager.isShuttingDown())
            return;
        ++m_polls;
        // Whether the work ran: a statement error in it is the work's own error return, handled
        // by lead(), so a pg::Error reaching here is ACQUIRE's.
        bool led = false;
        const lease::Work work = [this, &led](lease::TickContext &tick) {
            led = true;
            m_schedule.work(tick);
        };
        try {
            m_manager.lead(m_schedule.role, m_schedule.interval, work);
        } catch (const pg::Error &error) {
            log::write(log::Level::Warning, "scheduler", "acquire failed; polling again",
                       context + " error=\"" + pg::explain(error) + "\"");
        } catch (const std::exception &error) {
            log::write(log::Level::Error, "scheduler", "tick panicked; released",
                       context + " error=\"" + error.what() + "\"");
        } catch (...) {
            log::write(log::Level::Error, "scheduler", "tick panicked; released", context);
        }
        if (led)
            ++m_ticksLed;
        std::chrono::milliseconds wait = lease::MaxPoll;
        try {
            pg::ConnectionPool::Lease connection = m_manager.pool().take();
            wait = untilAcquirable(*connection, m_schedule.role, m_schedule.interval);
        } catch (const pg::Error &error) {
            log::write(log::Level::Warning, "scheduler", "cannot read the role's row",
                       context + " error=\"" + pg::explain(error) + "\"");
        }
        waitFor(wait);
    }
}

} // namespace leader::scheduler
