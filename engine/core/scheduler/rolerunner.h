#pragma once

#include "lease/manager.h"
#include "leaseboard.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

namespace leader::scheduler {

// How an idle runner learns when to try its role again.
enum class PollMode {
    // ACQUIRE at every wake (it locks the row, also when it refuses), then read the row for the
    // wait: two statements a wake.
    AcquireFirst,
    // Read first: one plain SELECT for all of a replica's roles (LeaseBoard), shared by the runners
    // that wake together, and ACQUIRE only when the reading says the role is acquirable.
    ReadFirst,
};

struct RoleSchedule
{
    std::string role;
    std::chrono::milliseconds interval;
    lease::Work work;
};

// One role's loop on one replica: ACQUIRE, lead the tick, and after a refused ACQUIRE sleep until
// the earliest moment the role could next be acquirable — read from its row on the database
// clock (expiry, not_before, last tick end + interval; a pause polls) and capped at MaxPoll — so
// a contender takes over at expiry rather than up to MaxPoll later. With a board (PollMode::
// ReadFirst) the row is read before ACQUIRE instead of after it, and ACQUIRE is sent only when
// the reading says the role is acquirable, and it wakes a random moment past a due instant (up
// to the reading's spreadWithin), so that a fleet does not read together; a wake() still
// ACQUIREs at once, unread.
class RoleRunner final
{
public:
    // board: nullptr polls AcquireFirst; else the replica's board, shared by its runners, which
    // must outlive this runner.
    RoleRunner(lease::Manager &manager, RoleSchedule schedule, LeaseBoard *board = nullptr);
    ~RoleRunner();
    RoleRunner(const RoleRunner &) = delete;
    RoleRunner &operator=(const RoleRunner &) = delete;

    void start();
    // Stops polling and joins. A running tick ends when the manager shuts down (interrupted).
    void stop();
    // Polls at once, e.g. on a notification that the role was released, or an undrain.
    void wake();

    const RoleSchedule &schedule() const { return m_schedule; }
    std::uint64_t ticksLed() const { return m_ticksLed.load(); }
    // ACQUIREs attempted so far, led or not.
    std::uint64_t polls() const { return m_polls.load(); }

    // How long to wait after a refused ACQUIRE, from the role's row: in [MinPoll, MaxPoll].
    // handoverHolder (the database has 0185): this holder's id, so that a handover's preference
    // for another one is waited out.
    static std::chrono::milliseconds
    untilAcquirable(pg::Connection &connection, std::string_view role,
                    std::chrono::milliseconds interval,
                    std::optional<std::string_view> handoverHolder = std::nullopt);

private:
    using Clock = std::chrono::steady_clock;

    void loop();
    // Returns whether the manager drains: no ACQUIRE was sent.
    bool leadOnce(const std::string &context);
    // ReadFirst: returns once the role should be tried (a reading says it is acquirable, no
    // sooner than earliest, or a wake), false when stopping.
    bool awaitAcquirable(Clock::time_point earliest);
    bool stopping();
    // Returns whether wake() or stop() ended the wait.
    bool waitUntil(Clock::time_point deadline);

    lease::Manager &m_manager;
    const RoleSchedule m_schedule;
    LeaseBoard *const m_board;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_woken = false;
    std::atomic<std::uint64_t> m_ticksLed = 0;
    std::atomic<std::uint64_t> m_polls = 0;
    std::minstd_rand m_random{std::random_device{}()}; // the loop's thread only
};

} // namespace leader::scheduler
