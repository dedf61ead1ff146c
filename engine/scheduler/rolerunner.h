#pragma once

#include "lease/manager.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace leader::scheduler {

struct RoleSchedule
{
    std::string role;
    std::chrono::milliseconds interval;
    lease::Work work;
};

// One role's loop on one replica: ACQUIRE, lead the tick, and after a refused ACQUIRE sleep until
// the earliest moment the role could next be acquirable — read from its row on the database
// clock (expiry, not_before, last tick end + interval; a pause polls) and capped at MaxPoll — so
// a contender takes over at expiry rather than up to MaxPoll later.
class RoleRunner final
{
public:
    RoleRunner(lease::Manager &manager, RoleSchedule schedule);
    ~RoleRunner();
    RoleRunner(const RoleRunner &) = delete;
    RoleRunner &operator=(const RoleRunner &) = delete;

    void start();
    // Stops polling and joins. A running tick ends when the manager shuts down (interrupted).
    void stop();
    // Polls at once, e.g. on a notification that the role was released.
    void wake();

    const RoleSchedule &schedule() const { return m_schedule; }
    std::uint64_t ticksLed() const { return m_ticksLed.load(); }
    // ACQUIREs attempted so far, led or not.
    std::uint64_t polls() const { return m_polls.load(); }

    // How long to wait after a refused ACQUIRE, from the role's row: in [MinPoll, MaxPoll].
    static std::chrono::milliseconds untilAcquirable(pg::Connection &connection,
                                                     std::string_view role,
                                                     std::chrono::milliseconds interval);

private:
    void loop();
    void waitFor(std::chrono::milliseconds duration);

    lease::Manager &m_manager;
    const RoleSchedule m_schedule;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_woken = false;
    std::atomic<std::uint64_t> m_ticksLed = 0;
    std::atomic<std::uint64_t> m_polls = 0;
};

} // namespace leader::scheduler
