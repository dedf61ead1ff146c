#include "deathwatch.h"

#include "constants.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"

#include <algorithm>
#include <condition_variable>
#include <vector>

namespace leader::lease {

namespace {

using namespace std::chrono_literals;

// The server ends a wait this long (lock_timeout, 55P03) and the watch starts the next one, so a
// session never sits in one statement for ever; the client's own deadline is a little later.
constexpr auto WaitSlice = 30s;
constexpr auto WaitDeadline = WaitSlice + 5s;
constexpr const char *LockNotAvailable = "55P03";

// Session settings of the waiting session, which is direct and its own (never pooled): the
// server ends each wait itself rather than the client cancelling it, and notices a closed client
// while it waits (PostgreSQL 14 and later), so a stopped watch leaves no backend behind. A DBA's
// statement_timeout or transaction_timeout (PostgreSQL 17 and later; it ends the whole session)
// on the login would end a wait early, and with it the watch: 0 here, where the server has them.
constexpr std::string_view SetupSql
        = "SELECT set_config('lock_timeout', $1, false), "
          "set_config('client_connection_check_interval', '1000', false), "
          "(SELECT count(set_config(name, '0', false)) FROM pg_catalog.pg_settings "
          "WHERE name IN ('statement_timeout', 'transaction_timeout'))";

} // namespace

DeathWatch::DeathWatch(pg::ConnectOptions session, Callback onDeath, std::size_t maxWatches)
    : m_session(std::move(session))
    , m_onDeath(std::move(onDeath))
    , m_maxWatches(std::max<std::size_t>(1, maxWatches))
{}

DeathWatch::~DeathWatch()
{
    stop();
}

void DeathWatch::watch(const HolderSession &holder, const std::string &role)
{
    std::vector<std::unique_ptr<Watch>> ended;
    {
        const std::lock_guard lock(m_mutex);
        if (m_stopped)
            return;
        for (auto it = m_watches.begin(); it != m_watches.end();) {
            if (it->second->done) {
                ended.push_back(std::move(it->second));
                it = m_watches.erase(it);
            } else {
                ++it;
            }
        }
        const auto now = std::chrono::steady_clock::now();
        const auto found = m_watches.find(holder.key);
        if (found != m_watches.end() && found->second->holder.incarnation == holder.incarnation) {
            found->second->roles.insert(role);
            found->second->seen = now;
        } else {
            if (found != m_watches.end()) {
                ended.push_back(std::move(found->second));
                m_watches.erase(found);
            }
            if (m_watches.size() >= m_maxWatches) {
                const auto oldest = std::min_element(m_watches.begin(), m_watches.end(),
                                                     [](const auto &a, const auto &b) {
                                                         return a.second->seen < b.second->seen;
                                                     });
                ended.push_back(std::move(oldest->second));
                m_watches.erase(oldest);
            }
            auto watch = std::make_unique<Watch>();
            watch->holder = holder;
            watch->roles = {role};
            watch->seen = now;
            Watch &started = *watch;
            m_watches.emplace(holder.key, std::move(watch));
            started.thread = std::jthread(
                    [this, &started](std::stop_token stop) { run(started, std::move(stop)); });
        }
    }
    // Joined outside the lock: an ending watch takes it once more to report.
    for (const auto &watch : ended)
        watch->thread.request_stop();
}

void DeathWatch::stop()
{
    std::map<std::int64_t, std::unique_ptr<Watch>> watches;
    {
        const std::lock_guard lock(m_mutex);
        m_stopped = true;
        watches.swap(m_watches);
    }
    for (const auto &[key, watch] : watches)
        watch->thread.request_stop();
}

std::size_t DeathWatch::watching() const
{
    const std::lock_guard lock(m_mutex);
    return static_cast<std::size_t>(
            std::count_if(m_watches.begin(), m_watches.end(),
                          [](const auto &entry) { return !entry.second->done; }));
}

void DeathWatch::run(Watch &watch, std::stop_token stop)
{
    pg::ConnectOptions options = m_session;
    options.stop = stop;
    options.applicationName += " watch";
    bool died = false;
    try {
        pg::Connection connection(std::move(options));
        try {
            connection.exec("watch setup", SetupSql, {std::to_string(WaitSlice.count()) + "s"},
                            StatementTimeout);
        } catch (const pg::Error &error) {
            if (error.isTransport())
                throw;
            // An older server without client_connection_check_interval: the wait still works.
        }
        while (!stop.stop_requested()) {
            // Checked before every wait, on the session that waits: after a restart or a
            // failover the lock is free for nothing, and a reconnected session must not wait.
            const pg::Result same
                    = connection.exec("watch incarnation",
                                      "SELECT leader_ext.leader_server_incarnation() = $1::bigint",
                                      {watch.holder.incarnation}, StatementTimeout);
            if (!same.toBool(0, 0))
                break;
            try {
                connection.exec("watch", "SELECT pg_advisory_lock_shared($1::bigint)",
                                {watch.holder.key}, WaitDeadline);
                died = true;
                break;
            } catch (const pg::Error &error) {
                if (error.sqlstate() != LockNotAvailable)
                    throw;
            }
        }
    } catch (const pg::Error &error) {
        if (!stop.stop_requested())
            log::write(log::Level::Info, "lease",
                       "watch on a holder's session ended; its leases end at their expiry",
                       "session=" + std::to_string(watch.holder.key) + " error=\""
                               + pg::explain(error) + "\"");
    }
    std::set<std::string> roles;
    {
        const std::lock_guard lock(m_mutex);
        watch.done = true;
        roles = watch.roles;
    }
    if (!died || stop.stop_requested())
        return;
    // A live holder whose marker ended (an idle timeout, a reaper, a proxy's cut) repairs its row
    // within MarkerRepairWithin, or stops its tick: the grace gives it that time, and the ACQUIRE
    // after it tests the marker the row names then (amendment 2026-12-05).
    std::mutex mutex;
    std::condition_variable_any graceOver;
    std::unique_lock lock(mutex);
    if (graceOver.wait_for(lock, stop, EarlyTakeGrace, [] { return false; })
        || stop.stop_requested())
        return;
    log::write(log::Level::Info, "lease", "a holder's session ended; taking its roles now",
               "session=" + std::to_string(watch.holder.key));
    if (m_onDeath)
        m_onDeath(roles);
}

} // namespace leader::lease
