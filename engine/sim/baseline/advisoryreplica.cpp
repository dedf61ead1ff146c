#include "advisoryreplica.h"

#include "advisorygate.h"
#include "lease/tick.h"
#include "log/log.h"
#include "pg/error.h"
#include "roles/demoschema.h"

#include <condition_variable>
#include <mutex>

namespace leader::baseline {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The pause between two claims of a tick held open by min_tick, as the lease replica's.
constexpr auto RepeatEvery = 500ms;
constexpr auto ClaimTimeout = 2s;

constexpr std::string_view ClaimSql
        = "INSERT INTO claim_log (role, token, item) VALUES ($1, $2, $3)";

// Waits for duration unless stop is requested first; false when it was.
bool sleepFor(std::chrono::milliseconds duration, const std::stop_token &stop)
{
    std::mutex mutex;
    std::condition_variable_any never;
    std::unique_lock lock(mutex);
    never.wait_for(lock, stop, duration, [] { return false; });
    return !stop.stop_requested();
}

} // namespace

AdvisoryReplica::AdvisoryReplica(AdvisoryReplicaOptions options, Subscriber onEvent)
    : m_options(std::move(options))
    , m_onEvent(std::move(onEvent))
    , m_holderId(lease::makeHolderId())
{
    if (m_options.faults)
        m_switchboard = std::make_unique<faults::Switchboard>();
}

AdvisoryReplica::~AdvisoryReplica()
{
    stop();
}

pg::ConnectOptions AdvisoryReplica::connectOptions(const std::string &purpose) const
{
    pg::ConnectOptions options = m_options.database;
    options.applicationName = "leader-replica " + m_options.id + " " + purpose;
    return m_switchboard ? m_switchboard->route(options) : options;
}

void AdvisoryReplica::start()
{
    if (!m_threads.empty())
        throw std::logic_error("an advisory replica starts once");
    {
        pg::Connection connection(connectOptions("check"));
        connection.open();
        roles::requireDemoSchema(connection);
    }
    for (const replica::RoleProfile &profile : m_options.roles)
        m_threads.emplace_back([this, &profile](std::stop_token stop) { run(profile, stop); });
    log::write(log::Level::Info, "replica", "started",
               "replica=" + m_options.id + " holder=" + m_holderId + " gate=advisory");
}

void AdvisoryReplica::stop()
{
    for (std::jthread &thread : m_threads)
        thread.request_stop();
    m_threads.clear(); // joins
}

void AdvisoryReplica::publish(lease::TransitionEvent event) const
{
    event.holderId = m_holderId;
    if (m_onEvent)
        m_onEvent(event);
}

void AdvisoryReplica::run(const replica::RoleProfile &profile, std::stop_token stop)
{
    // Checked by selectRoles before a replica is made.
    const std::int64_t key = advisoryKey(profile.role).value();
    AdvisoryGate gate(connectOptions("gate " + profile.role), key);
    pg::Connection work(connectOptions("work " + profile.role));
    while (!stop.stop_requested()) {
        try {
            const LockAttempt attempt = gate.tryLock();
            if (attempt.held) {
                tick(profile, attempt.atMillis, work, stop);
                lease::TransitionEvent ended{.kind = lease::EventKind::Released,
                                             .role = profile.role,
                                             .token = attempt.atMillis};
                ended.outcome = stop.stop_requested() ? lease::Outcome::Interrupted
                                                      : lease::Outcome::Completed;
                try {
                    const Unlock unlock = gate.unlock();
                    ended.databaseTime = unlock.databaseTime;
                    if (!unlock.released) {
                        ended.kind = lease::EventKind::ReleaseFailed;
                        ended.detail = "pg_advisory_unlock returned false: this session holds no "
                                       "lock "
                                       + std::to_string(key);
                    }
                } catch (const pg::Error &error) {
                    ended.kind = lease::EventKind::ReleaseFailed;
                    ended.detail = pg::explain(error);
                }
                publish(ended);
            }
        } catch (const pg::Error &error) {
            log::write(log::Level::Warning, "advisory", "try-lock failed",
                       "role=" + profile.role + " error=" + pg::explain(error));
        }
        sleepFor(profile.interval, stop);
    }
}

void AdvisoryReplica::tick(const replica::RoleProfile &profile, std::int64_t number,
                           pg::Connection &work, std::stop_token stop)
{
    publish({.kind = lease::EventKind::Acquired, .role = profile.role, .token = number});
    const std::string item = "advisory " + m_holderId;
    const auto started = Clock::now();
    for (;;) {
        // Nothing here asks whether the lock is still this replica's: the old gate could not
        // tell, which is what the benchmark's stale claims count.
        try {
            work.exec("claim", ClaimSql, {profile.role, number, item}, ClaimTimeout);
        } catch (const pg::Error &error) {
            log::write(log::Level::Warning, "advisory", "claim failed",
                       "role=" + profile.role + " error=" + pg::explain(error));
        }
        if (!sleepFor(profile.options.perItemLatency, stop))
            return;
        const auto left
                = profile.minTick
                  - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
        // As the lease replica's tick: done once min_tick has passed, else a pause and again.
        if (left <= std::chrono::milliseconds::zero())
            return;
        if (!sleepFor(std::min(left, RepeatEvery), stop) || left <= RepeatEvery)
            return;
    }
}

} // namespace leader::baseline
