#include "manager.h"

#include "constants.h"
#include "log/log.h"
#include "metrics/leasemetrics.h"
#include "pg/error.h"

#include <thread>

namespace leader::lease {

namespace {

using Clock = std::chrono::steady_clock;
using Wall = std::chrono::system_clock;

pg::ConnectOptions withDefaultName(pg::ConnectOptions options, const char *name)
{
    if (options.applicationName.empty() || options.applicationName == "leader-console")
        options.applicationName = name;
    return options;
}

} // namespace

Manager::Manager(ManagerOptions options)
    : m_holderId(options.holderId.empty() ? makeHolderId() : options.holderId)
    , m_events(options.events)
    , m_metrics(options.metrics)
    , m_pool(withDefaultName(options.database, "leader lease"))
    , m_heartbeatPool(
              withDefaultName(options.heartbeat.url.empty() ? options.database : options.heartbeat,
                              "leader heartbeat"))
{}

Manager::~Manager()
{
    shutdown();
}

void Manager::shutdown()
{
    m_shuttingDown.store(true);
    const std::lock_guard lock(m_ticksMutex);
    for (const auto &[context, beat] : m_ticks)
        context->cancel(CancelCause::Shutdown);
}

void Manager::renewNow(std::string_view role)
{
    const std::lock_guard lock(m_ticksMutex);
    for (const auto &[context, beat] : m_ticks) {
        if (context->role() != role)
            continue;
        {
            const std::lock_guard beatLock(beat->mutex);
            beat->now = true;
        }
        beat->wake.notify_all();
    }
}

std::optional<std::chrono::milliseconds> Manager::clockDrift() const
{
    if (!m_driftKnown.load())
        return std::nullopt;
    return std::chrono::milliseconds(m_driftMs.load());
}

void Manager::observeDrift(double databaseEpochSeconds, Wall::time_point sent,
                           Wall::time_point received)
{
    const auto midpoint = sent + (received - sent) / 2;
    const double hostMs
            = std::chrono::duration<double, std::milli>(midpoint.time_since_epoch()).count();
    m_driftMs.store(static_cast<long long>(databaseEpochSeconds * 1000.0 - hostMs));
    m_driftKnown.store(true);
}

void Manager::publish(EventKind kind, const TickContext &context, std::string outcome,
                      std::string reason, std::string detail, std::string databaseTime)
{
    if (!m_events)
        return;
    TransitionEvent event{kind, context.role(), context.token(), m_holderId};
    event.outcome = std::move(outcome);
    event.reason = std::move(reason);
    event.detail = std::move(detail);
    event.databaseTime = std::move(databaseTime);
    m_events->publish(event);
}

LeadResult Manager::lead(std::string_view role, std::chrono::milliseconds interval,
                         const Work &work)
{
    if (m_shuttingDown.load())
        return {};
    pg::ConnectionPool::Lease connection = m_pool.take();
    const auto sentAt = Clock::now();
    const auto sentWall = Wall::now();
    const std::optional<Acquired> acquired = acquire(*connection, role, m_holderId, interval);
    if (m_metrics)
        m_metrics->acquireRoundTrip(role, Clock::now() - sentAt);
    if (!acquired)
        return {};
    observeDrift(acquired->now.epochSeconds, sentWall, Wall::now());

    // The lease is anchored at the ACQUIRE's send instant: the database's expiry is later still.
    TickContext context(std::string(role), acquired->token, m_holderId, interval, *connection,
                        sentAt, [this, &context](CancelCause cause, const std::string &reason) {
                            if (cause != CancelCause::LeaseLost)
                                return;
                            log::write(log::Level::Warning, "lease", "lease lost",
                                       "role=" + context.role() + " reason=" + reason
                                               + " token=" + std::to_string(context.token()));
                            publish(reason == "paused" ? EventKind::PausedObserved
                                                       : EventKind::Lost,
                                    context, {}, reason);
                        });
    publish(EventKind::Acquired, context, {}, {}, {}, acquired->now.text);
    Beat beat;
    {
        const std::lock_guard lock(m_ticksMutex);
        m_ticks.emplace(&context, &beat);
    }
    if (m_shuttingDown.load()) // a shutdown that ran between the check above and the insert
        context.cancel(CancelCause::Shutdown);

    std::thread beating([&] { heartbeat(context, beat); });

    const auto workStarted = Clock::now();
    std::exception_ptr failure;
    try {
        work(context);
    } catch (const TickCancelled &) {
        // The tick ended because it was cancelled: its cause decides the outcome below.
    } catch (...) {
        failure = std::current_exception();
    }
    {
        const std::lock_guard lock(beat.mutex);
        beat.stop = true;
    }
    beat.wake.notify_all();
    beating.join();
    {
        const std::lock_guard lock(m_ticksMutex);
        m_ticks.erase(&context);
    }

    // A loss is reported once, even if the work then threw; a shutdown releases as interrupted
    // even if the work then threw (amendment 2026-10-19, item 5).
    Outcome outcome = failure ? Outcome::Failed : Outcome::Completed;
    std::string lossReason;
    if (context.cause() == CancelCause::LeaseLost) {
        outcome = Outcome::Lost;
        lossReason = context.lossReason();
    } else if (context.cause() == CancelCause::Shutdown) {
        outcome = Outcome::Interrupted;
    }
    if (m_metrics) {
        if (outcome == Outcome::Lost)
            m_metrics->leaseLost(role, lossReason);
        else if (outcome == Outcome::Failed)
            m_metrics->leaseLost(role, "panicked");
        m_metrics->tickFinished(role, Clock::now() - workStarted);
    }

    // RELEASE runs on a fresh deadline of its own, whatever happened to the work — also when the
    // work left its connection inside a transaction, which must not swallow the RELEASE.
    if (connection->inTransaction()) {
        try {
            connection->exec("rollback", "ROLLBACK", {}, StatementTimeout);
        } catch (const pg::Error &) {
            connection->close(); // the server rolls back a dropped session; RELEASE reconnects
        }
    }
    try {
        const std::optional<DatabaseNow> released
                = release(*connection, role, acquired->token, outcome, interval);
        publish(EventKind::Released, context, std::string(outcomeName(outcome)), lossReason,
                released ? std::string() : "the row was no longer ours",
                released ? released->text : std::string());
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "lease", "release failed; the lease ends at its expiry",
                   "role=" + context.role() + " error=" + pg::explain(error));
        publish(EventKind::ReleaseFailed, context, std::string(outcomeName(outcome)), lossReason,
                pg::explain(error));
    }
    if (failure)
        std::rethrow_exception(failure);
    return LeadResult{true, acquired->token, outcome, lossReason};
}

void Manager::heartbeat(TickContext &context, Beat &beat)
{
    pg::ConnectionPool::Lease connection = m_heartbeatPool.take();
    Clock::time_point lastSend = context.lastAck();
    for (;;) {
        {
            std::unique_lock lock(beat.mutex);
            beat.wake.wait_until(lock, lastSend + HeartbeatEvery,
                                 [&] { return beat.stop || beat.now; });
            if (beat.stop)
                return;
            beat.now = false;
        }
        // Judged before sending, so that no statement of this tick starts after the abandon.
        if (Clock::now() >= context.lastAck() + AbandonAfter) {
            context.cancel(CancelCause::LeaseLost, "heartbeat_timeout");
            return;
        }
        lastSend = Clock::now();
        const auto sentWall = Wall::now();
        try {
            const std::optional<DatabaseNow> renewed
                    = renew(*connection, context.role(), context.token());
            if (m_metrics)
                m_metrics->renewRoundTrip(context.role(), Clock::now() - lastSend);
            if (!renewed) {
                context.cancel(CancelCause::LeaseLost,
                               lossReasonAfterEmptyRenew(*connection, context));
                return;
            }
            context.acknowledged(lastSend);
            observeDrift(renewed->epochSeconds, sentWall, Wall::now());
        } catch (const pg::Error &error) {
            publish(EventKind::LateBeat, context, {}, {}, pg::explain(error));
        }
    }
}

std::string Manager::lossReasonAfterEmptyRenew(pg::Connection &connection,
                                               const TickContext &context)
{
    try {
        const pg::Result row = connection.exec(
                "loss reason",
                "SELECT paused_at IS NOT NULL, holder_token FROM leader_leases WHERE role = $1",
                {context.role()}, StatementTimeout);
        if (row.rows() == 0)
            return "released";
        if (row.toBool(0, 0))
            return "paused";
        return row.toInt64(0, 1) != context.token() ? "taken_over" : "released";
    } catch (const pg::Error &) {
        return "taken_over"; // RENEW's empty answer was definite; only the detail is unknown
    }
}

} // namespace leader::lease
