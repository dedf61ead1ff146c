#include "manager.h"

#include "constants.h"
#include "log/log.h"
#include "pg/error.h"

#include <algorithm>
#include <system_error>
#include <thread>

namespace leader::lease {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Wall = std::chrono::system_clock;

// A failed RENEW is retried this soon on a fresh connection, doubling up to the cap, while the
// abandon is still ahead: one dead pooled connection or a server restart of a second costs a
// retry, not the tick.
constexpr auto FirstRenewRetry = 100ms;
constexpr auto MaxRenewRetry = 1s;
// While a row names a marker that ended, a failed RENEW is retried this soon: the repair has
// MarkerRepairWithin in all.
constexpr auto RepairRetry = 10ms;
// A marked tick's heartbeat connection opens at the tick's start within this (see heartbeat).
constexpr auto EarlyOpenTimeout = 500ms;
// How often a statement held by the marker gate looks again.
constexpr auto MarkerGateCheck = 5ms;
// A failed RELEASE is retried this often (see releaseTick).
constexpr auto ReleaseRetryEvery = 250ms;
// The tick's record after RELEASE: short, so that a slow database delays the next poll little.
constexpr auto RecordTickTimeout = 500ms;
// A recorded error's first line is cut here (the function cuts it again, at 300).
constexpr std::size_t RecordedErrorMax = 300;

std::chrono::milliseconds cooldownOf(Outcome outcome, std::chrono::milliseconds interval)
{
    switch (outcome) {
    case Outcome::Failed:
        return interval;
    case Outcome::Lost:
        return std::min(interval, LostCooldownCap);
    case Outcome::Completed:
    case Outcome::Interrupted:
        break;
    }
    return 0ms;
}

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
    , m_fastWake(options.fastWake)
    , m_databaseUrl(options.database.url)
    , m_pool(withDefaultName(options.database, "leader lease"))
    , m_heartbeatPool(
              withDefaultName(options.heartbeat.url.empty() ? options.database : options.heartbeat,
                              "leader heartbeat"))
{
    m_marker.onChange([this] {
        wakeHeartbeats(std::nullopt);
        const std::lock_guard lock(m_ticksMutex);
        m_markerChanged.notify_all();
    });
    m_repairs = std::jthread([this](std::stop_token stop) { watchRepairs(std::move(stop)); });
}

Manager::~Manager()
{
    shutdown();
    m_marker.onChange({});
    {
        const std::lock_guard lock(m_ticksMutex);
        m_repairs.request_stop();
        m_markerChanged.notify_all();
    }
    m_repairs.join();
}

void Manager::shutdown()
{
    m_shuttingDown.store(true);
    const std::lock_guard lock(m_ticksMutex);
    for (const auto &[context, beat] : m_ticks)
        context->cancel(CancelCause::Shutdown);
    m_shutdownWake.notify_all();
}

template<typename Statement>
auto Manager::withExtensions(Statement statement)
{
    for (;;) {
        const StatementShape shape{m_handovers.load(), m_markerTokens.load(),
                                   m_handoversClearedByDatabase.load()};
        try {
            return statement(shape);
        } catch (const pg::Error &error) {
            if (shape.handovers && handoverColumnsGone(error)) {
                if (m_handovers.exchange(false))
                    log::write(log::Level::Warning, "lease",
                               "the handover columns are gone (migration 0185 undone); leading "
                               "without handovers",
                               "holder=" + m_holderId);
            } else if (shape.handovers && !shape.handoversClearedByDatabase
                       && handoverColumnsClosed(error)) {
                if (!m_handoversClearedByDatabase.exchange(true))
                    log::write(log::Level::Info, "lease",
                               "the app may no longer write the handover columns (migration "
                               "0190 applied); the database clears a request",
                               "holder=" + m_holderId);
            } else if (shape.markerTokens && markerTokenColumnGone(error)) {
                if (m_markerTokens.exchange(false))
                    log::write(log::Level::Warning, "lease",
                               "holder_session_token is gone (migration 0189 undone); naming "
                               "markers without it",
                               "holder=" + m_holderId);
            } else {
                throw;
            }
        }
    }
}

void Manager::waitUnlessShutdown(std::chrono::milliseconds duration)
{
    std::unique_lock lock(m_ticksMutex);
    m_shutdownWake.wait_for(lock, duration, [this] { return m_shuttingDown.load(); });
}

class Manager::Registration final
{
public:
    Registration(Manager &manager, const TickContext &context, Beat &beat)
        : m_manager(manager)
        , m_context(context)
    {
        const std::lock_guard lock(m_manager.m_ticksMutex);
        m_manager.m_ticks.emplace(&m_context, &beat);
        // The row may name a marker that ended while its ACQUIRE was in flight.
        m_manager.m_markerChanged.notify_all();
    }
    ~Registration()
    {
        const std::lock_guard lock(m_manager.m_ticksMutex);
        m_manager.m_ticks.erase(&m_context);
    }
    Registration(const Registration &) = delete;
    Registration &operator=(const Registration &) = delete;

private:
    Manager &m_manager;
    const TickContext &m_context;
};

class Manager::Leading final
{
public:
    Leading(Manager &manager, std::string role)
        : m_manager(manager)
        , m_role(std::move(role))
    {}
    ~Leading()
    {
        {
            const std::lock_guard lock(m_manager.m_ticksMutex);
            m_manager.m_leading.erase(m_manager.m_leading.find(m_role));
        }
        if (m_manager.m_leadEnded)
            m_manager.m_leadEnded();
    }
    Leading(const Leading &) = delete;
    Leading &operator=(const Leading &) = delete;

private:
    Manager &m_manager;
    const std::string m_role;
};

void Manager::setDraining(bool draining)
{
    const std::lock_guard lock(m_ticksMutex);
    m_draining = draining;
}

bool Manager::isDraining() const
{
    const std::lock_guard lock(m_ticksMutex);
    return m_draining;
}

std::vector<std::string> Manager::runningRoles() const
{
    const std::lock_guard lock(m_ticksMutex);
    const std::set<std::string> roles(m_leading.begin(), m_leading.end());
    return {roles.begin(), roles.end()};
}

void Manager::renewNow(std::string_view role)
{
    wakeHeartbeats(role);
}

void Manager::wakeHeartbeats(std::optional<std::string_view> role)
{
    const std::lock_guard lock(m_ticksMutex);
    for (const auto &[context, beat] : m_ticks) {
        if (role && context->role() != *role)
            continue;
        {
            const std::lock_guard beatLock(beat->mutex);
            beat->now = true;
        }
        beat->wake.notify_all();
    }
}

void Manager::markerGate(const TickContext &context) const
{
    // Bounded like the statement itself: a listener that cannot look (a starved thread) delays a
    // statement, it does not hang the tick.
    const auto giveUpAt = Clock::now() + StatementTimeout;
    for (;;) {
        context.throwIfCancelled();
        const auto now = Clock::now();
        if (m_marker.mayStart(context.marker(), now))
            return;
        if (now >= giveUpAt)
            throw pg::Error(pg::ErrorKind::NotStarted, {}, "tick statement",
                            "not sent: the marker session its lease names was not seen alive");
        context.sleepFor(MarkerGateCheck);
    }
}

void Manager::watchRepairs(std::stop_token stop)
{
    std::unique_lock lock(m_ticksMutex);
    while (!stop.stop_requested()) {
        std::optional<Clock::time_point> next;
        for (const auto &[context, beat] : m_ticks) {
            const std::optional<Clock::time_point> repairBy = m_marker.repairBy(context->marker());
            if (!repairBy)
                continue;
            if (Clock::now() < *repairBy) {
                next = next ? std::min(*next, *repairBy) : *repairBy;
                continue;
            }
            // Not repaired in time: the tick stops before any contender's grace ends. Its RELEASE
            // (lost) follows when its work has returned.
            if (cancelUnlessReturned(*context, *beat, LossReason::MarkerLost))
                log::write(log::Level::Warning, "lease",
                           "marker session ended and the lease could not be repaired in time; "
                           "the tick stops",
                           "role=" + context->role() + " token=" + std::to_string(context->token())
                                   + " session=" + std::to_string(context->marker()));
        }
        if (next)
            m_markerChanged.wait_until(lock, *next);
        else
            m_markerChanged.wait(lock);
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

void Manager::publish(EventKind kind, const TickContext &context, std::optional<Outcome> outcome,
                      std::optional<LossReason> reason, std::string detail,
                      std::string databaseTime)
{
    if (!m_events)
        return;
    TransitionEvent event{kind, context.role(), context.token(), m_holderId};
    event.outcome = outcome;
    event.reason = reason;
    event.detail = std::move(detail);
    event.databaseTime = std::move(databaseTime);
    m_events->publish(event);
}

LeadResult Manager::lead(std::string_view role, std::chrono::milliseconds interval,
                         const Work &work)
{
    if (m_shuttingDown.load())
        return {};
    {
        // The drain predicate: checked with the role entered in m_leading under one lock, so that
        // a drain either stops this lead() here or waits for it in runningRoles(). (Deleted once:
        // tst_replicadrain's drainedReplicaStartsNoTick and drainOutlivesARestartUntilUndrained
        // failed, a tick started while drained.)
        const std::lock_guard lock(m_ticksMutex);
        if (m_draining) {
            LeadResult result;
            result.draining = true;
            return result;
        }
        m_leading.emplace(role);
    }
    const Leading leading(*this, std::string(role));
    pg::ConnectionPool::Lease connection = m_pool.take();
    const auto sentAt = Clock::now();
    const auto sentWall = Wall::now();
    std::optional<HolderSession> heldBy;
    const std::optional<Acquired> acquired = withExtensions([&](StatementShape shape) {
        return acquire(*connection, role, m_holderId, interval, m_marker.key(), &heldBy, shape);
    });
    if (m_metrics)
        m_metrics->acquireRoundTrip(role, Clock::now() - sentAt);
    if (!acquired) {
        if (heldBy)
            heldElsewhere(std::string(role), *heldBy);
        return {};
    }
    observeDrift(acquired->now.epochSeconds, sentWall, Wall::now());

    // The lease is anchored at the ACQUIRE's send instant: the database's expiry is later still.
    TickContext context(
            std::string(role), acquired->token, m_holderId, interval, *connection, sentAt,
            [this, &context](LossReason reason) {
                log::write(log::Level::Warning, "lease", "lease lost",
                           "role=" + context.role() + " reason=" + std::string(nameOf(reason))
                                   + " token=" + std::to_string(context.token()));
                publish(reason == LossReason::Paused ? EventKind::PausedObserved : EventKind::Lost,
                        context, std::nullopt, reason);
            });
    publish(EventKind::Acquired, context, std::nullopt, std::nullopt, {}, acquired->now.text);
    context.setMarker(acquired->session);
    context.setStatementGate([this](const TickContext &tick) { markerGate(tick); });
    Beat beat;
    // A marker that ended while the ACQUIRE was in flight is repaired by the first RENEW, at once.
    beat.now = m_marker.repairBy(acquired->session).has_value();
    const Registration registration(*this, context, beat);
    if (m_shuttingDown.load()) // a shutdown that ran between the check above and the insert
        context.cancel(CancelCause::Shutdown);
    std::thread beating;
    try {
        beating = std::thread([&] { heartbeat(context, beat); });
    } catch (const std::system_error &) {
        // No heartbeat, no tick: nothing ran, so nothing is lost by giving the role back now.
        releaseTick(*connection, context, Outcome::Interrupted, std::nullopt, Clock::now());
        throw;
    }

    std::exception_ptr failure;
    std::optional<std::string> statementError;
    std::optional<std::string> panicText;
    FailedSteps failedSteps; // the step guards of this tick's work note theirs here
    const auto workStarted = Clock::now();
    try {
        const CurrentTick current(context);
        work(context);
    } catch (const TickCancelled &) {
        // The tick ended because it was cancelled: its cause decides the outcome below.
    } catch (const pg::Error &error) {
        statementError = pg::explain(error);
    } catch (const std::exception &error) {
        failure = std::current_exception();
        panicText = error.what();
    } catch (...) {
        failure = std::current_exception();
        panicText = "an exception that is not a std::exception";
    }
    const auto workEnded = Clock::now();
    // What failed: the step guard's first failed step; else the error that ended the work.
    std::optional<FailedStep> failedStep = failedSteps.take();
    if (!failedStep && (panicText || statementError))
        failedStep
                = FailedStep{{}, panicText ? *panicText : *statementError, panicText.has_value()};
    // The outcome is what had happened when the work returned: a shutdown, or a RENEW that
    // answers while the heartbeat is being stopped, changes nothing about this tick.
    CancelCause cause;
    {
        const std::lock_guard lock(beat.mutex);
        beat.stop = true;
        cause = context.cause();
    }
    beat.wake.notify_all();
    beating.join();

    // A loss is reported once, even if the work then threw; a shutdown releases as interrupted
    // even if the work then threw (amendment 2026-10-19, item 5).
    Outcome outcome = failure ? Outcome::Failed : Outcome::Completed;
    std::optional<LossReason> lossReason;
    if (cause == CancelCause::LeaseLost) {
        outcome = Outcome::Lost;
        lossReason = context.lossReason();
    } else if (cause == CancelCause::Shutdown) {
        outcome = Outcome::Interrupted;
    } else if (!failure && context.stoppedEarly()) {
        // Handed over with work left undone: due again at once, for the preferred replica.
        outcome = Outcome::Interrupted;
    }
    if (statementError)
        log::write(log::Level::Warning, "lease",
                   "tick's work ended on a statement error; released as work that returned",
                   "role=" + context.role() + " outcome=" + std::string(nameOf(outcome))
                           + " error=\"" + *statementError + "\"");
    if (m_metrics) {
        if (outcome == Outcome::Lost && lossReason)
            m_metrics->leaseLost(role, *lossReason);
        else if (outcome == Outcome::Failed)
            m_metrics->leaseLost(role, LossReason::Panicked);
        m_metrics->tickFinished(role, workEnded - workStarted);
    }
    releaseTick(*connection, context, outcome, lossReason, workEnded);
    if (m_recordTicks.load())
        recordTick(*connection, context, outcome, lossReason,
                   std::chrono::duration_cast<std::chrono::milliseconds>(workEnded - workStarted),
                   failedStep);
    if (failure)
        std::rethrow_exception(failure);
    return LeadResult{true, acquired->token, outcome, lossReason};
}

void Manager::releaseTick(pg::Connection &connection, const TickContext &context, Outcome outcome,
                          std::optional<LossReason> lossReason, Clock::time_point ended)
{
    // RELEASE runs on a fresh deadline of its own, whatever happened to the work — also when the
    // work left its connection inside a transaction, which must not swallow the RELEASE.
    if (connection.inTransaction()) {
        try {
            connection.exec("rollback", "ROLLBACK", {}, StatementTimeout);
        } catch (const pg::Error &) {
            connection.close(); // the server rolls back a dropped session; RELEASE reconnects
        }
    }
    // A RELEASE that fails is retried on a fresh connection, so that a lost or failed tick's
    // cooldown takes effect even across a server restart: otherwise the role would be taken
    // again at expiry, into another partial tick. The token keeps a late RELEASE harmless (no
    // row if another holder took the role meanwhile), and sinceEnd keeps the cooldown ending
    // where it would have. The retries stop once the cooldown would have ended anyway (for a
    // completed or interrupted tick: once the lease has expired), or at shutdown.
    const Clock::time_point retryUntil = std::max(ended + cooldownOf(outcome, context.interval()),
                                                  context.lastAck() + LeaseTTL);
    const std::string role = context.role();
    for (bool retried = false;; retried = true) {
        try {
            const std::optional<DatabaseNow> released = release(
                    connection, {.role = role,
                                 .token = context.token(),
                                 .holderId = m_holderId,
                                 .outcome = outcome,
                                 .interval = context.interval(),
                                 .sinceEnd = std::chrono::duration_cast<std::chrono::milliseconds>(
                                         Clock::now() - ended)});
            publish(EventKind::Released, context, outcome, lossReason,
                    released ? std::string() : "the row was no longer ours",
                    released ? released->text : std::string());
            if (retried)
                log::write(log::Level::Info, "lease", "release landed after a retry",
                           "role=" + role);
            return;
        } catch (const pg::Error &error) {
            const bool again = pg::mayPass(error) && !m_shuttingDown.load()
                               && Clock::now() + ReleaseRetryEvery < retryUntil;
            if (!again) {
                log::write(log::Level::Warning, "lease",
                           "release failed; the lease ends at its expiry",
                           "role=" + role + " error=" + pg::explain(error));
                publish(EventKind::ReleaseFailed, context, outcome, lossReason, pg::explain(error));
                return;
            }
            if (!retried)
                log::write(log::Level::Warning, "lease",
                           "release failed; retrying on a fresh connection",
                           "role=" + role + " error=" + pg::explain(error));
            connection.close();
            // A shutdown cuts the wait short, and the attempt after it is the last.
            waitUnlessShutdown(ReleaseRetryEvery);
        }
    }
}

void Manager::recordTick(pg::Connection &connection, const TickContext &context, Outcome outcome,
                         std::optional<LossReason> lossReason, std::chrono::milliseconds duration,
                         const std::optional<FailedStep> &failedStep)
{
    std::string error;
    if (failedStep) {
        error = failedStep->error.substr(0, failedStep->error.find_first_of("\r\n"));
        if (error.size() > RecordedErrorMax)
            error.resize(RecordedErrorMax);
        if (!m_databaseUrl.empty())
            error = pg::redactSecrets(std::move(error), m_databaseUrl);
    }
    try {
        lease::recordTick(connection,
                          TickRecord{.role = context.role(),
                                     .token = context.token(),
                                     .holderId = m_holderId,
                                     .outcome = outcome,
                                     .lossReason = lossReason,
                                     .duration = duration,
                                     .failedStep = failedStep ? std::string_view(failedStep->path)
                                                              : std::string_view(),
                                     .error = error},
                          RecordTickTimeout);
    } catch (const pg::Error &recordError) {
        log::write(log::Level::Warning, "lease",
                   "the tick's record failed; the lease is unaffected",
                   "role=" + context.role() + " error=" + pg::explain(recordError));
    }
}

bool Manager::cancelUnlessReturned(const TickContext &context, Beat &beat,
                                   std::optional<LossReason> reason)
{
    const std::lock_guard lock(beat.mutex);
    return !beat.stop && context.cancel(CancelCause::LeaseLost, reason);
}

void Manager::heartbeat(TickContext &context, Beat &beat)
{
    pg::ConnectionPool::Lease connection = m_heartbeatPool.take();
    // A marked or wakeable tick opens this connection now, not at its first beat 3 s on: the
    // repair RENEW after the marker's end, and the RENEW a pause's wake asks for, run on it and
    // must land within 100 ms (MarkerRepairWithin; a pause's cancel), and a connect with SCRAM
    // took 64-84 ms of those here, more under load (CI lost both, the repair in three attempts
    // out of three). The pool keeps it open for the role's next tick. A failed open changes
    // nothing: the first RENEW opens it as before.
    if ((m_marker.key() || m_fastWake) && !connection->isOpen()) {
        try {
            connection->open(std::min<std::chrono::milliseconds>(
                    EarlyOpenTimeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                              context.abandonAt() - Clock::now())));
        } catch (const pg::Error &) {
        }
    }
    Clock::time_point nextBeat = context.lastAck() + HeartbeatEvery;
    auto retryAfter = FirstRenewRetry;
    bool missed = false;
    for (;;) {
        {
            std::unique_lock lock(beat.mutex);
            beat.wake.wait_until(lock, nextBeat, [&] { return beat.stop || beat.now; });
            if (beat.stop)
                return;
            beat.now = false;
        }
        // Judged before sending and again inside the statement, after the fault gate and any
        // reconnect, so that no statement of this tick starts after the abandon.
        const Clock::time_point abandon = context.abandonAt();
        const auto sent = Clock::now();
        const auto sentWall = Wall::now();
        if (sent >= abandon) {
            cancelUnlessReturned(context, beat, LossReason::HeartbeatTimeout);
            return;
        }
        const std::optional<std::int64_t> key = m_marker.key();
        try {
            const std::optional<Renewed> renewed = withExtensions([&](StatementShape shape) {
                return renew(*connection, context.role(), context.token(), m_holderId,
                             {.startBy = abandon}, key, shape);
            });
            if (m_metrics)
                m_metrics->renewRoundTrip(context.role(), Clock::now() - sent);
            if (!renewed) {
                // A definite loss: the work stops first; the reason is looked up for the report.
                if (cancelUnlessReturned(context, beat))
                    context.setLossReason(lossReasonAfterEmptyRenew(*connection, context));
                return;
            }
            // The row names this holder's key or none; anything else was written by someone who
            // is not this holder, and the tick stops at once.
            if (renewed->session != 0 && renewed->session != key.value_or(0)) {
                if (cancelUnlessReturned(context, beat))
                    context.setLossReason(LossReason::MarkerLost);
                return;
            }
            context.setMarker(renewed->session);
            if (renewed->handover && !context.stopRequested()) {
                context.requestStop();
                log::write(log::Level::Info, "lease",
                           "handover asked: the tick ends at its next safe point",
                           "role=" + context.role() + " token=" + std::to_string(context.token()));
            }
            {
                // The watch on repairs learns that this row no longer names an ended key.
                const std::lock_guard lock(m_ticksMutex);
                m_markerChanged.notify_all();
            }
            context.acknowledged(sent);
            observeDrift(renewed->now.epochSeconds, sentWall, Wall::now());
            nextBeat = sent + HeartbeatEvery;
            retryAfter = FirstRenewRetry;
            missed = false;
            // A marker that changed while this RENEW was in flight is renewed in at once.
            if (m_marker.key() != key)
                nextBeat = Clock::now();
        } catch (const pg::Error &error) {
            if (error.notStarted() && Clock::now() >= abandon) {
                cancelUnlessReturned(context, beat, LossReason::HeartbeatTimeout);
                return;
            }
            // A missed beat, not a loss: retried soon on a fresh connection while the abandon is
            // still ahead (the next wake judges it).
            if (!missed)
                publish(EventKind::LateBeat, context, std::nullopt, std::nullopt,
                        pg::explain(error));
            missed = true;
            connection->close();
            const bool repairing = m_marker.repairBy(context.marker()).has_value();
            nextBeat = std::min(Clock::now() + (repairing ? RepairRetry : retryAfter), abandon);
            retryAfter = std::min<std::chrono::milliseconds>(retryAfter * 2, MaxRenewRetry);
        }
    }
}

LossReason Manager::lossReasonAfterEmptyRenew(pg::Connection &connection,
                                              const TickContext &context)
{
    try {
        // A pause with an end (0189) clears the holder and holds its end in not_before, leaving
        // paused_at NULL: no other writer clears this token's holder and pushes not_before out.
        const pg::Result row = connection.exec(
                "loss reason",
                "SELECT paused_at IS NOT NULL OR (holder_token = $2 AND holder_id IS NULL"
                " AND not_before > now()), holder_token FROM leader_leases WHERE role = $1",
                {context.role(), context.token()}, StatementTimeout);
        if (row.rows() == 0)
            return LossReason::Released;
        if (row.toBool(0, 0))
            return LossReason::Paused;
        return row.toInt64(0, 1) != context.token() ? LossReason::TakenOver : LossReason::Released;
    } catch (const pg::Error &) {
        // RENEW's empty answer was definite; only the detail is unknown.
        return LossReason::TakenOver;
    }
}

} // namespace leader::lease
