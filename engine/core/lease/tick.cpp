#include "tick.h"

#include "constants.h"
#include "pg/error.h"
#include "platform/process.h"

#include <cstdio>
#include <random>
#include <utility>

namespace leader::lease {

namespace {

thread_local FailedSteps *t_failedSteps = nullptr;
thread_local const TickContext *t_currentTick = nullptr;

} // namespace

TickContext::TickContext(std::string role, std::int64_t token, std::string holderId,
                         std::chrono::milliseconds interval, pg::Connection &connection,
                         Clock::time_point lastAck, LostCallback onLost)
    : m_role(std::move(role))
    , m_token(token)
    , m_holderId(std::move(holderId))
    , m_interval(interval)
    , m_connection(connection)
    , m_lastAck(lastAck.time_since_epoch().count())
    , m_onLost(std::move(onLost))
{}

bool TickContext::isCancelled() const
{
    return cause() != CancelCause::None;
}

CancelCause TickContext::cause() const
{
    const std::lock_guard lock(m_mutex);
    return m_cause;
}

std::optional<LossReason> TickContext::lossReason() const
{
    const std::lock_guard lock(m_mutex);
    return m_reason;
}

void TickContext::throwIfCancelled() const
{
    // The abandon is judged here too, so no statement starts after it even if the heartbeat
    // thread is still asleep.
    if (Clock::now() >= abandonAt())
        cancel(CancelCause::LeaseLost, LossReason::HeartbeatTimeout);
    const std::lock_guard lock(m_mutex);
    if (m_cause != CancelCause::None)
        throw TickCancelled(
                "tick of " + m_role + " cancelled"
                + (m_reason ? " (" + std::string(nameOf(*m_reason)) + ")" : std::string()));
}

pg::Result TickContext::exec(std::string_view statement, std::string_view sql,
                             std::initializer_list<pg::Param> params,
                             std::chrono::milliseconds timeout)
{
    return exec(statement, sql, std::span<const pg::Param>(params.begin(), params.size()), timeout);
}

pg::Result TickContext::exec(std::string_view statement, std::string_view sql,
                             std::span<const pg::Param> params, std::chrono::milliseconds timeout)
{
    throwIfCancelled();
    // Judged again after the fault gate and any reconnect, just before the statement is sent;
    // and a statement that starts before the abandon ends before the lease can expire.
    const Clock::time_point abandon = abandonAt();
    try {
        return m_connection.exec(statement, sql, params, timeout,
                                 {.startBy = abandon,
                                  .endBy = abandon + StatementTimeout,
                                  .beforeSend =
                                          [this] {
                                              throwIfCancelled();
                                              if (m_gate)
                                                  m_gate(*this);
                                          },
                                  .cancel = m_stopStatement.get_token()});
    } catch (const pg::Error &error) {
        // Cancelled mid-statement: the tick's cancel, not the statement's error, ends it.
        if (isCancelled() && error.sqlstate() == pg::sqlstate::QueryCanceled)
            throwIfCancelled();
        if (!error.notStarted() || Clock::now() < abandon)
            throw;
        cancel(CancelCause::LeaseLost, LossReason::HeartbeatTimeout);
        throwIfCancelled(); // throws: the tick is cancelled now
        throw;
    }
}

bool TickContext::sleepFor(std::chrono::milliseconds duration) const
{
    std::unique_lock lock(m_mutex);
    return !m_cancelled.wait_for(lock, duration, [this] { return m_cause != CancelCause::None; });
}

void TickContext::acknowledged(Clock::time_point sentAt)
{
    m_lastAck.store(sentAt.time_since_epoch().count());
}

TickContext::Clock::time_point TickContext::lastAck() const
{
    return Clock::time_point(Clock::duration(m_lastAck.load()));
}

TickContext::Clock::time_point TickContext::abandonAt() const
{
    return lastAck() + AbandonAfter;
}

bool TickContext::cancel(CancelCause cause, std::optional<LossReason> reason) const
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_cause != CancelCause::None)
            return false;
        m_cause = cause;
        m_reason = reason;
    }
    m_cancelled.notify_all();
    if (!reason)
        return true;
    stopStatementIfTaken(*reason);
    if (cause == CancelCause::LeaseLost && m_onLost)
        m_onLost(*reason);
    return true;
}

void TickContext::setLossReason(LossReason reason) const
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_cause != CancelCause::LeaseLost || m_reason)
            return;
        m_reason = reason;
    }
    stopStatementIfTaken(reason);
    if (m_onLost)
        m_onLost(reason);
}

void TickContext::stopStatementIfTaken(LossReason reason) const
{
    // The row is, or may be, another holder's: the statement in flight is cancelled on the
    // server too, so that the work ends before its successor's grace ends or at once after the
    // takeover. Any other cancel (a shutdown, a pause, the abandon) lets it end by its own
    // deadline, before the lease could expire: cancel requests cost a connection each, and
    // PgBouncer 1.18 has crashed on one racing its client's close.
    if (reason == LossReason::MarkerLost || reason == LossReason::TakenOver)
        m_stopStatement.request_stop();
}

Fence fence(const TickContext *context)
{
    if (!context)
        throw NoToken("a leader-only statement ran outside a led tick");
    context->throwIfCancelled();
    return Fence{context->role(), context->token()};
}

const TickContext *currentTick()
{
    return t_currentTick;
}

CurrentTick::CurrentTick(const TickContext &context)
    : m_previous(std::exchange(t_currentTick, &context))
{}

CurrentTick::~CurrentTick()
{
    t_currentTick = m_previous;
}

FailedSteps::FailedSteps()
    : m_outer(std::exchange(t_failedSteps, this))
{}

FailedSteps::~FailedSteps()
{
    t_failedSteps = m_outer;
}

void FailedSteps::note(std::string_view path, std::string_view error, bool panicked)
{
    if (!m_first || (panicked && !m_first->panicked))
        m_first = FailedStep{std::string(path), std::string(error), panicked};
}

std::optional<FailedStep> FailedSteps::take()
{
    return std::exchange(m_first, std::nullopt);
}

void noteFailedStep(std::string_view path, std::string_view error, bool panicked)
{
    if (t_failedSteps)
        t_failedSteps->note(path, error, panicked);
}

std::string makeHolderId()
{
    std::random_device entropy;
    const unsigned suffix = std::uniform_int_distribution<unsigned>()(entropy);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", suffix);
    return platform::hostName() + ":" + std::to_string(platform::processId()) + ":" + hex;
}

} // namespace leader::lease
