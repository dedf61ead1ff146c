#pragma once

#include "events.h"
#include "instruments.h"
#include "markerstate.h"
#include "pg/conninfo.h"
#include "pg/pool.h"
#include "statements.h"
#include "tick.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace leader::lease {

struct ManagerOptions
{
    pg::ConnectOptions database;
    // The heartbeat's own connections; empty url: the same database as above.
    pg::ConnectOptions heartbeat;
    std::string holderId; // empty: makeHolderId()
    EventBus *events = nullptr;
    Instruments *metrics = nullptr;
    // A WakeListener feeds renewNow (a pause's wake): every tick opens its heartbeat connection
    // when it starts, so the wake's RENEW does not wait for a connect.
    bool fastWake = false;
};

struct LeadResult
{
    bool acquired = false;
    std::int64_t token = 0;
    Outcome outcome = Outcome::Completed; // when acquired
    std::optional<LossReason> lossReason; // when outcome is Lost
    // Not tried: the manager drains (setDraining), and starts no tick until it is undrained.
    bool draining = false;
};

using Work = std::function<void(TickContext &)>;

// Manager::lead is ADR-114's Lead: ACQUIRE, run the work with a context carrying the token while
// a heartbeat renews the lease on its own connection, then RELEASE by outcome on a fresh
// deadline, whatever happened to the work. Thread-safe: each role runner calls lead() from its
// own thread.
class Manager final
{
public:
    explicit Manager(ManagerOptions options);
    ~Manager();
    Manager(const Manager &) = delete;
    Manager &operator=(const Manager &) = delete;

    // Not acquired: the role is not due, held, paused or cooling. A statement error (pg::Error)
    // that ends the work is the work's error return: logged, and the tick released as work that
    // returned. Any other exception (other than TickCancelled) is a panic: the tick is released
    // first (failed, or lost/interrupted if that came first) and the exception then continues to
    // the caller. Statement errors of ACQUIRE itself propagate as pg::Error.
    LeadResult lead(std::string_view role, std::chrono::milliseconds interval, const Work &work);

    // A notification said the role's row changed (paused, say): its running tick renews now
    // rather than at its next beat, and so learns of a loss at once. Only a hint.
    void renewNow(std::string_view role);

    // This process's marker session (migrations 0179 and 0180): its listener reports the
    // session's life here. Every ACQUIRE and RENEW records the connected, proven key (when the
    // statement finds it held and the role's early take is on); none through a pooler. Each
    // change renews every running tick at once, so that its row names the live session again,
    // names none, or learns that it was taken meanwhile. A tick whose row names a key that ended
    // is cancelled (reason marker_lost) unless a RENEW repaired the row within MarkerRepairWithin
    // (amendment 2026-12-05).
    MarkerState &marker() { return m_marker; }
    // Called by lead() on its own thread when a live holder with a marker kept the role, so that
    // the replica can wait for that holder's death. Set before the first lead().
    using HeldElsewhere = std::function<void(const std::string &role, const HolderSession &)>;
    void onHeldElsewhere(HeldElsewhere callback) { m_heldElsewhere = std::move(callback); }
    // The same report from a reading of the row that found it held (a read-first poll).
    void heldElsewhere(const std::string &role, const HolderSession &holder)
    {
        if (m_heldElsewhere)
            m_heldElsewhere(role, holder);
    }

    // Each tick is recorded after its RELEASE (leader_tick_record, extension 0184): outcome,
    // duration, the first failed step and its error. Off until the replica finds the extension.
    void recordTicks(bool on) { m_recordTicks.store(on); }
    // Handovers (leader_ext.leader_handover, extension 0185): ACQUIRE honours and clears a
    // handover's preference, and RENEW asks whether the tick is to hand the role over; the tick
    // then ends at its next safe point (TickContext::requestStop). Off until the replica finds the
    // extension: the statements name its columns.
    void honourHandovers(bool on) { m_handovers.store(on); }
    bool honoursHandovers() const { return m_handovers.load(); }
    // Markers bound to their lease (leader_leases.holder_session_token, extension 0189): on by
    // default; off where the database lacks the column, which a statement that finds it gone
    // (0189 undone under this replica) also turns off.
    void bindMarkersToTokens(bool on) { m_markerTokens.store(on); }
    // Hand-over requests cleared by the database (extension 0190): ACQUIRE no longer clears the
    // request's columns itself, which the app may not write there. A statement refused the write
    // (0190 applied under this replica) also turns it on.
    void clearHandoversInDatabase(bool on) { m_handoversClearedByDatabase.store(on); }

    // A draining manager starts no new tick (lead() returns at once, LeadResult::draining) and
    // lets the running ones end as they would. Thread-safe.
    void setDraining(bool draining);
    bool isDraining() const;
    // The roles whose lead() is past the drain check: ACQUIRE in flight, a tick running or being
    // released. Empty while draining: drained.
    std::vector<std::string> runningRoles() const;
    // Called on the leading thread each time a lead() that passed the drain check returns, after
    // the role has left runningRoles(). Set before the first lead().
    void onLeadEnded(std::function<void()> callback) { m_leadEnded = std::move(callback); }

    // Cancels every running tick as interrupted; later lead() calls acquire nothing.
    void shutdown();
    bool isShuttingDown() const { return m_shuttingDown.load(); }

    const std::string &holderId() const { return m_holderId; }
    // The pool the manager's own statements use, for the replica's other autocommit statements.
    pg::ConnectionPool &pool() { return m_pool; }
    // Database clock minus this host's clock, from the last ACQUIRE or RENEW: for display only,
    // never compared with a database timestamp to decide anything.
    std::optional<std::chrono::milliseconds> clockDrift() const;

private:
    // What lead() and its heartbeat thread share.
    struct Beat
    {
        std::mutex mutex;
        std::condition_variable wake;
        bool stop = false;
        bool now = false;
    };
    // Removes a tick from m_ticks however lead() leaves.
    class Registration;
    // Removes a role from m_leading however lead() leaves.
    class Leading;
    // Every running tick's heartbeat, or only the role's, renews now.
    void wakeHeartbeats(std::optional<std::string_view> role);
    void heartbeat(TickContext &context, Beat &beat);
    // The heartbeat's verdicts; neither cancels a tick whose work has already returned.
    // A reason known now is reported with the cancel; without one, setLossReason follows.
    static bool cancelUnlessReturned(const TickContext &context, Beat &beat,
                                     std::optional<LossReason> reason = std::nullopt);
    // TickContext's statement gate: waits while the row names a marker not proven alive.
    void markerGate(const TickContext &context) const;
    // Cancels the ticks whose row still names an ended marker past its repair deadline.
    void watchRepairs(std::stop_token stop);
    LossReason lossReasonAfterEmptyRenew(pg::Connection &connection, const TickContext &context);
    void releaseTick(pg::Connection &connection, const TickContext &context, Outcome outcome,
                     std::optional<LossReason> lossReason,
                     std::chrono::steady_clock::time_point ended);
    // statement(shape), with 0185's handover columns and 0189's marker token where the database
    // has them. The one that finds either gone (its migration undone under this replica) is sent
    // again without, and so is every later one: otherwise no ACQUIRE or RENEW would succeed
    // until a restart.
    template<typename Statement>
    auto withExtensions(Statement statement);
    // Waits up to duration, or less when the manager shuts down.
    void waitUnlessShutdown(std::chrono::milliseconds duration);
    void observeDrift(double databaseEpochSeconds, std::chrono::system_clock::time_point sent,
                      std::chrono::system_clock::time_point received);
    // Best effort, on a short deadline: a record that fails is logged and changes nothing else.
    void recordTick(pg::Connection &connection, const TickContext &context, Outcome outcome,
                    std::optional<LossReason> lossReason, std::chrono::milliseconds duration,
                    const std::optional<FailedStep> &failedStep);
    void publish(EventKind kind, const TickContext &context,
                 std::optional<Outcome> outcome = std::nullopt,
                 std::optional<LossReason> reason = std::nullopt, std::string detail = {},
                 std::string databaseTime = {});

    const std::string m_holderId;
    EventBus *m_events;
    Instruments *m_metrics;
    const bool m_fastWake;
    const std::string m_databaseUrl; // only to mask its password in a recorded error
    pg::ConnectionPool m_pool;
    pg::ConnectionPool m_heartbeatPool;
    std::atomic<bool> m_shuttingDown = false;
    std::atomic<bool> m_recordTicks = false;
    std::atomic<bool> m_handovers = false;
    std::atomic<bool> m_markerTokens = true;
    std::atomic<bool> m_handoversClearedByDatabase = false;
    std::atomic<long long> m_driftMs = 0;
    std::atomic<bool> m_driftKnown = false;
    MarkerState m_marker;
    HeldElsewhere m_heldElsewhere;

    mutable std::mutex m_ticksMutex;
    std::map<const TickContext *, Beat *> m_ticks;
    bool m_draining = false;              // with m_ticksMutex
    std::multiset<std::string> m_leading; // with m_ticksMutex
    std::function<void()> m_leadEnded;
    std::condition_variable m_shutdownWake;  // with m_ticksMutex
    std::condition_variable m_markerChanged; // with m_ticksMutex: wakes watchRepairs
    std::jthread m_repairs;                  // last: started once the rest is built
};

} // namespace leader::lease
