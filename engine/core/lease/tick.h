#pragma once

#include "outcome.h"
#include "pg/connection.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>

namespace leader::lease {

enum class CancelCause {
    None,
    LeaseLost, // RENEW returned no row, or the heartbeat gave up (see lossReason)
    Shutdown,  // the replica is stopping: the tick is released as interrupted
};

// Thrown by a cancelled tick's context instead of starting a statement. The manager treats it as
// the tick ending by cancellation, never as a failure of the work.
class TickCancelled final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// fence() found no tick: a leader-only statement was called outside a led tick.
class NoToken final : public std::logic_error
{
public:
    using std::logic_error::logic_error;
};

// What one tick's work sees: its role, its token (only through fence()), its cancellation, and
// the one connection every statement of the tick goes through. Once cancelled, no statement of
// the tick starts, and when the row may be another's (taken_over, marker_lost) the one in flight
// is cancelled on the server; nor does any start after
// AbandonAfter has passed since the last acknowledged beat, even if the heartbeat thread has not
// woken yet, nor while the marker its row names is not proven alive (the marker gate).
class TickContext final
{
public:
    using Clock = std::chrono::steady_clock;

    // Called once a lost lease's reason is known (with the cancel, or later by setLossReason),
    // outside any lock, by the thread that supplied it.
    using LostCallback = std::function<void(LossReason reason)>;
    // Called just before each statement of the tick is sent, after any fault gate and reconnect:
    // returns when it may start, throws when it must not (TickCancelled, pg::Error).
    using StatementGate = std::function<void(const TickContext &)>;

    TickContext(std::string role, std::int64_t token, std::string holderId,
                std::chrono::milliseconds interval, pg::Connection &connection,
                Clock::time_point lastAck, LostCallback onLost = {});
    TickContext(const TickContext &) = delete;
    TickContext &operator=(const TickContext &) = delete;

    const std::string &role() const { return m_role; }
    const std::string &holderId() const { return m_holderId; }
    std::chrono::milliseconds interval() const { return m_interval; }

    bool isCancelled() const;
    CancelCause cause() const;
    std::optional<LossReason> lossReason() const;
    void throwIfCancelled() const;

    // Runs a statement of the tick, unless the tick is cancelled. Its deadline is capped so that
    // it ends before the lease could expire: AbandonAfter + StatementTimeout < LeaseTTL.
    pg::Result exec(std::string_view statement, std::string_view sql,
                    std::initializer_list<pg::Param> params,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
    pg::Result exec(std::string_view statement, std::string_view sql,
                    std::span<const pg::Param> params, std::chrono::milliseconds timeout);
    // Waits as simulated work does; returns false at once when the tick is cancelled.
    bool sleepFor(std::chrono::milliseconds duration) const;

    // A handover (extension 0185) asks the tick to end at its next safe point: the step guard
    // starts no further step (the one in flight completes), and work without steps polls
    // stopRequested(). Not a cancel: the tick keeps its lease, and its statements run, until it
    // is released. Work that leaves something undone because of it says so (stoppedEarly), and
    // the tick is released as interrupted (no cooldown); work that finished anyway, completed.
    void requestStop() const { m_stopRequested.store(true); }
    bool stopRequested() const { return m_stopRequested.load(); }
    void noteStoppedEarly() const { m_stoppedEarly.store(true); }
    bool stoppedEarly() const { return m_stoppedEarly.load(); }

    // For the manager and its heartbeat.
    std::int64_t token() const { return m_token; }
    void acknowledged(Clock::time_point sentAt);
    Clock::time_point lastAck() const;
    // No statement of the tick starts from this instant on: lastAck() + AbandonAfter.
    Clock::time_point abandonAt() const;
    // The first cause wins; later calls change nothing. Returns whether this call cancelled.
    // Const, like reading it: cancellation is state shared by everyone holding the context. A
    // lease lost with no reason yet (a RENEW that returned no row) wakes the work at once; the
    // reason, read from the row afterwards, follows through setLossReason.
    bool cancel(CancelCause cause, std::optional<LossReason> reason = std::nullopt) const;
    void setLossReason(LossReason reason) const;
    // The marker session key the row names, as the last ACQUIRE or RENEW recorded it; 0: none.
    std::int64_t marker() const { return m_marker.load(); }
    void setMarker(std::int64_t key) { m_marker.store(key); }
    // Set by the manager before the work runs.
    void setStatementGate(StatementGate gate) { m_gate = std::move(gate); }

private:
    const std::string m_role;
    const std::int64_t m_token;
    const std::string m_holderId;
    const std::chrono::milliseconds m_interval;
    pg::Connection &m_connection;
    std::atomic<Clock::rep> m_lastAck;
    void stopStatementIfTaken(LossReason reason) const;

    const LostCallback m_onLost;
    std::atomic<std::int64_t> m_marker = 0;
    StatementGate m_gate;
    // Requested with the cancel: the statement in flight is cancelled on the server.
    mutable std::stop_source m_stopStatement;

    mutable std::mutex m_mutex;
    mutable std::condition_variable m_cancelled;
    mutable CancelCause m_cause = CancelCause::None;
    mutable std::optional<LossReason> m_reason;
    mutable std::atomic<bool> m_stopRequested = false;
    mutable std::atomic<bool> m_stoppedEarly = false;
};

// The tick whose work runs on this thread (Manager::lead sets it around the work), for the step
// guard; nullptr outside a led tick.
const TickContext *currentTick();
class CurrentTick final
{
public:
    explicit CurrentTick(const TickContext &context);
    ~CurrentTick();
    CurrentTick(const CurrentTick &) = delete;
    CurrentTick &operator=(const CurrentTick &) = delete;

private:
    const TickContext *m_previous;
};

struct Fence
{
    std::string role;
    std::int64_t token;
};

// The token a leader-only claim proves with AND leader_fence($role, $token). Throws NoToken
// without a tick, and TickCancelled for a cancelled one: there is no unfenced fallback.
Fence fence(const TickContext *context);

// The first step of the tick running on this thread that failed, for the tick's record
// (leader_tick_record): the step guard reports each failed step here, with its error's text. A
// step that panicked replaces one that failed on a statement; otherwise the first one stays.
// Manager::lead opens a FailedSteps on the tick's thread for the work and takes it after; a step
// failing where none is open is not noted. (On the opener's stack, not in a thread_local: see
// scheduler/stepguard.cpp.)
struct FailedStep
{
    std::string path; // "billing > close period > subscription 42"
    std::string error;
    bool panicked = false;
};
class FailedSteps final
{
public:
    FailedSteps();
    ~FailedSteps();
    FailedSteps(const FailedSteps &) = delete;
    FailedSteps &operator=(const FailedSteps &) = delete;

    void note(std::string_view path, std::string_view error, bool panicked);
    std::optional<FailedStep> take();

private:
    std::optional<FailedStep> m_first;
    FailedSteps *const m_outer;
};
// Notes it in the innermost FailedSteps open on this thread.
void noteFailedStep(std::string_view path, std::string_view error, bool panicked);

// hostname:pid:8hex — observability only, never part of the fence.
std::string makeHolderId();

} // namespace leader::lease
