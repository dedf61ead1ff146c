#pragma once

#include "lease/statements.h"
#include "pg/error.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace leader::pg {
class ConnectionPool;
}

namespace leader::scheduler {

// When each role of one replica could next be acquired, read from their rows in one plain SELECT
// (no row lock) for all of them at once. The role runners of a replica share it in the
// read-first poll mode: a runner sends ACQUIRE, which locks the row, only when a reading says the
// role is acquirable, and runners that wake together share one reading instead of sending a
// statement each. Only a hint: ACQUIRE's own WHERE decides, so a stale reading costs a wasted
// ACQUIRE or a wait of at most MaxPoll, never a second holder. Thread-safe.
class LeaseBoard final
{
public:
    using Clock = std::chrono::steady_clock;

    // holderId: this replica's, so that its own leases are not reported as held elsewhere.
    LeaseBoard(pg::ConnectionPool &pool, std::string holderId);
    LeaseBoard(const LeaseBoard &) = delete;
    LeaseBoard &operator=(const LeaseBoard &) = delete;

    // Before the first read: each role's interval enters the due time (last tick end + interval).
    void add(const std::string &role, std::chrono::milliseconds interval);
    // The database has extension 0185: a role a handover prefers another replica for is
    // acquirable by this one only once the preference has passed (docs/handover.md), so that its
    // runners wait for that instead of retrying ACQUIRE every few milliseconds.
    void setHandovers(bool on) { m_handovers.store(on); }
    // The database has extension 0188: the read is leader_ext.leader_board(), whose plan the
    // server keeps per session, instead of the same statement planned on every call.
    void setBoardFunction(bool on) { m_function.store(on); }

    struct Reading
    {
        // When the statement was about to be sent: the rows are at least this fresh.
        Clock::time_point takenAt;
        // When a runner still waiting reads again: MaxPoll after takenAt less a random share of
        // up to a tenth of it, drawn once per reading (the replica's runners keep reading
        // together). Without it, a replica whose ACQUIRE lost read again exactly MaxPoll later,
        // and where a role's cycle is near MaxPoll that fell just past its next due instant,
        // unspread: the losers of each tick came back together as the next tick's contenders,
        // more of them every cycle (docs/benchmarks/scale.md).
        Clock::time_point readAgainAt;
        // The earliest instant the role's row allows an ACQUIRE, on this host's monotonic clock;
        // a role paused with no end is given takenAt + MaxPoll, so an unpause is seen by polling.
        Clock::time_point acquirableAt;
        // Held by another holder with a marker session on this server incarnation (migration
        // 0179): whose death to wait for.
        std::optional<lease::HolderSession> heldBy;
        // When acquirableAt is a due instant still to come, which every replica running the role
        // read alike: how far past it the runner wakes at random, the same for every replica
        // (the last tick's holder too, so each tick goes to whichever comes first and roles spread
        // across replicas), and wider the more live replicas run the role (5 ms each, at most
        // MaxPoll), so that a fleet's reads do not arrive together. For an instant that passed
        // less than that width ago, what is left of the width, past now. Zero when acquirable
        // since longer, or paused.
        std::chrono::microseconds spreadWithin{0};
    };

    // A read that failed, as every caller that queued behind it receives it, instead of sending
    // the same statement once each: under an overloaded pool a replica's five runners retried a
    // timed-out read one after another and then sent an ACQUIRE each, and a fleet whose pool had
    // stalled for 15 s never caught up again (docs/benchmarks/scale.md).
    class Unread final : public std::runtime_error
    {
    public:
        Unread(pg::Error cause, Clock::time_point takenAt, Clock::time_point readAgainAt)
            : std::runtime_error(cause.what())
            , m_cause(std::move(cause))
            , m_takenAt(takenAt)
            , m_readAgainAt(readAgainAt)
        {}

        const pg::Error &cause() const { return m_cause; }
        // When the failed statement was about to be sent.
        Clock::time_point takenAt() const { return m_takenAt; }
        // When the replica's runners read again, together: within the second half of MaxPoll
        // after the failure came, drawn once per failure, so that a fleet whose reads failed
        // together does not come back together.
        Clock::time_point readAgainAt() const { return m_readAgainAt; }

    private:
        pg::Error m_cause;
        Clock::time_point m_takenAt;
        Clock::time_point m_readAgainAt;
    };

    // The role's answer from a reading taken at or after takenFrom: the last one if it is that
    // fresh, else a new one. One read is in flight at a time; callers that queue behind it use
    // its reading when it is fresh enough for them, or its failure. Throws Unread.
    Reading read(const std::string &role, Clock::time_point takenFrom);

private:
    std::optional<Reading> cached(const std::string &role, Clock::time_point takenFrom) const;

    pg::ConnectionPool &m_pool;
    const std::string m_holderId;
    std::atomic<bool> m_handovers = false;
    std::atomic<bool> m_function = false;
    std::mutex m_readMutex; // held while a read is in flight
    mutable std::mutex m_mutex;
    std::vector<std::pair<std::string, std::chrono::milliseconds>> m_roles;
    // The last reading's answer for a role it has no row for; its takenAt is every reading's.
    std::optional<Reading> m_unlisted;
    std::map<std::string, Reading> m_readings; // by role
    // The last read's failure, if it came after the last reading.
    std::optional<Unread> m_failure;
    // By role, the live replicas that run it at the last count; under m_readMutex.
    std::map<std::string, std::int64_t> m_fleet;
    std::optional<Clock::time_point> m_fleetCountedAt;
    int m_counts = 0;
    std::minstd_rand m_random{std::random_device{}()}; // under m_readMutex
};

} // namespace leader::scheduler
