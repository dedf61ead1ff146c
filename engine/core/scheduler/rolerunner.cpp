#include "rolerunner.h"

#include "lease/constants.h"
#include "log/log.h"
#include "pg/error.h"

#include <algorithm>
#include <random>

namespace leader::scheduler {

namespace {

using namespace std::chrono_literals;

// A floor against a hot loop when the row says "due" but ACQUIRE just lost a race.
constexpr auto MinPoll = 20ms;
// The row's instants are on the database clock and the wait on this host's monotonic clock; a
// little margin makes sure now() has passed the instant when ACQUIRE runs.
constexpr auto ClockMargin = 5ms;
// ReadFirst: a runner whose role is due by its reading reads again before it locks the row, but
// uses a reading another runner of its replica took this recently: runners that wake together
// send one statement.
constexpr auto ShareReadingWithin = 100ms;

constexpr std::string_view UntilAcquirableSql = R"sql(
SELECT paused_at IS NOT NULL AND paused_until IS NULL,
       extract(epoch FROM greatest(CASE WHEN expires_at > now() THEN expires_at END,
                                   CASE WHEN paused_at IS NOT NULL THEN paused_until END,
                                   not_before,
                                   last_tick_ended_at + $2::bigint * interval '1 millisecond'
                                   /*handover wait*/)
                          - now()) * 1000
  FROM leader_leases
 WHERE role = $1
)sql";

// With 0185 ($3 this holder, $4 PreferFor): the end of a handover's preference for another
// contender, as LeaseBoard's reading has it.
constexpr std::string_view HandoverWait = R"sql(,
                                   CASE WHEN handover_token = holder_token
                                             AND CASE WHEN handover_to IS NOT NULL
                                                      THEN handover_to <> $3
                                                      ELSE handover_from = $3 END
                                        THEN greatest(handover_at,
                                                      last_tick_ended_at
                                                          + $2::bigint * interval '1 millisecond',
                                                      not_before)
                                             + $4::bigint * interval '1 millisecond' END)sql";

const std::string &untilAcquirableSql(bool handovers)
{
    static const std::string plain(UntilAcquirableSql);
    static const std::string withHandover = [] {
        std::string text(UntilAcquirableSql);
        constexpr std::string_view Marker = "/*handover wait*/";
        text.replace(text.find(Marker), Marker.size(), HandoverWait);
        return text;
    }();
    return handovers ? withHandover : plain;
}

} // namespace

RoleRunner::RoleRunner(lease::Manager &manager, RoleSchedule schedule, LeaseBoard *board)
    : m_manager(manager)
    , m_schedule(std::move(schedule))
    , m_board(board)
{
    if (m_board)
        m_board->add(m_schedule.role, m_schedule.interval);
}

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

bool RoleRunner::stopping()
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_stopping)
            return true;
    }
    return m_manager.isShuttingDown();
}

bool RoleRunner::waitUntil(Clock::time_point deadline)
{
    std::unique_lock lock(m_mutex);
    const bool woken = m_wake.wait_until(lock, deadline, [this] { return m_stopping || m_woken; });
    m_woken = false;
    return woken;
}

std::chrono::milliseconds
RoleRunner::untilAcquirable(pg::Connection &connection, std::string_view role,
                            std::chrono::milliseconds interval,
                            std::optional<std::string_view> handoverHolder)
{
    const pg::Result row
            = handoverHolder
                      ? connection.exec("until acquirable", untilAcquirableSql(true),
                                        {role, interval.count(), *handoverHolder,
                                         static_cast<std::int64_t>(lease::PreferFor.count())},
                                        lease::StatementTimeout)
                      : connection.exec("until acquirable", untilAcquirableSql(false),
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

bool RoleRunner::leadOnce(const std::string &context)
{
    ++m_polls;
    // Whether the work ran: a statement error in it is the work's own error return, handled by
    // lead(), so a pg::Error reaching here is ACQUIRE's.
    bool led = false;
    const lease::Work work = [this, &led](lease::TickContext &tick) {
        led = true;
        m_schedule.work(tick);
    };
    try {
        if (m_manager.lead(m_schedule.role, m_schedule.interval, work).draining)
            return true;
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
    return false;
}

bool RoleRunner::awaitAcquirable(Clock::time_point earliest)
{
    // The first reading is taken after the last ACQUIRE (or RELEASE) returned: one from before
    // it would not know what that statement changed.
    Clock::time_point takenFrom = Clock::now();
    // This runner woke at its draw past a due instant: a reading that still says acquirable
    // now is its turn, not a new draw over what is left of the width.
    bool drawn = false;
    for (;;) {
        if (stopping())
            return false;
        Clock::time_point takenAt;
        Clock::time_point tryAt;
        Clock::time_point readAgainAt;
        bool unread = false;
        try {
            const LeaseBoard::Reading reading = m_board->read(m_schedule.role, takenFrom);
            if (reading.heldBy)
                m_manager.heldElsewhere(m_schedule.role, *reading.heldBy);
            takenAt = reading.takenAt;
            tryAt = std::max(reading.acquirableAt, earliest);
            // Drawn per wait; a wake (a NOTIFY, a holder's death) is not spread.
            if (reading.spreadWithin.count() > 0
                && !(drawn && reading.acquirableAt <= Clock::now()))
                tryAt += std::chrono::microseconds(std::uniform_int_distribution<long long>(
                        0, reading.spreadWithin.count())(m_random));
            readAgainAt = reading.readAgainAt;
        } catch (const LeaseBoard::Unread &failure) {
            // The board has said it, once for the replica's runners.
            if (pg::mayPass(failure.cause())) {
                // A lost connection, a busy or slow server: read again, with the replica's other
                // runners, not ACQUIRE (a row lock each). Retrying harder than a healthy replica
                // polls is what kept a stalled pool from ever catching up.
                if (waitUntil(failure.readAgainAt()))
                    return !stopping();
                takenFrom = failure.takenAt() + Clock::duration(1);
                continue;
            }
            // As AcquireFirst does after a failed read: ACQUIRE after MaxPoll, whose own
            // statement may still work (and says why if not).
            tryAt = readAgainAt = Clock::now() + lease::MaxPoll;
            unread = true;
        }
        if (tryAt <= Clock::now())
            return true;
        if (waitUntil(std::min(tryAt, readAgainAt)))
            return !stopping(); // a wake: ACQUIRE at once, as AcquireFirst does
        if (unread)
            return true;
        drawn = Clock::now() >= tryAt;
        if (drawn) {
            // Due by the reading: read again, before locking the row.
            takenFrom = Clock::now() - ShareReadingWithin;
        } else {
            // The reading is due for renewal: any later one will do, another runner's of this
            // replica too. Its next read is then at that one's readAgainAt, so the runners of a
            // replica that are waiting fall in with each other and share one read a MaxPoll.
            takenFrom = takenAt + Clock::duration(1);
        }
    }
}

void RoleRunner::loop()
{
    const std::string context = "role=" + m_schedule.role;
    Clock::time_point earliest = Clock::now();
    for (;;) {
        if (stopping())
            return;
        if (m_board) {
            if (!awaitAcquirable(earliest))
                return;
            if (leadOnce(context))
                waitUntil(Clock::now() + lease::MaxPoll); // draining: an undrain wakes it
            earliest = Clock::now() + MinPoll;
            continue;
        }
        if (leadOnce(context)) {
            waitUntil(Clock::now() + lease::MaxPoll);
            continue;
        }
        std::chrono::milliseconds wait = lease::MaxPoll;
        try {
            pg::ConnectionPool::Lease connection = m_manager.pool().take();
            wait = untilAcquirable(*connection, m_schedule.role, m_schedule.interval,
                                   m_manager.honoursHandovers()
                                           ? std::optional<std::string_view>(m_manager.holderId())
                                           : std::nullopt);
        } catch (const pg::Error &error) {
            log::write(log::Level::Warning, "scheduler", "cannot read the role's row",
                       context + " error=\"" + pg::explain(error) + "\"");
        }
        waitUntil(Clock::now() + wait);
    }
}

} // namespace leader::scheduler
