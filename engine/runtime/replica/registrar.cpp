#include "registrar.h"

#include "lease/constants.h"
#include "lease/draincontrol.h"
#include "lease/markerstate.h"
#include "log/log.h"
#include "pg/error.h"
#include "pg/pool.h"

namespace leader::replica {

Registrar::Registrar(pg::ConnectionPool &pool, lease::ReplicaInfo replica,
                     std::chrono::milliseconds every, bool named, const lease::MarkerState *marker)
    : m_pool(pool)
    , m_replica(std::move(replica))
    , m_every(every)
    , m_marker(marker)
    , m_named(named)
{}

Registrar::~Registrar()
{
    join();
}

void Registrar::start()
{
    // A drained replica learns it before its runners start: the first beat is here, on the
    // caller's thread.
    if (m_drain.report)
        beat();
    m_thread = std::thread([this] { loop(); });
}

void Registrar::beatNow()
{
    {
        const std::lock_guard lock(m_mutex);
        m_beatNow = true;
    }
    m_wake.notify_all();
}

void Registrar::requestStop(bool deregister)
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_stop)
            return;
        m_stop = true;
        if (deregister)
            m_goneBy = std::chrono::steady_clock::now() + GoneStartWithin;
    }
    m_wake.notify_all();
}

void Registrar::join()
{
    requestStop(false);
    if (m_thread.joinable())
        m_thread.join();
}

void Registrar::loop()
{
    std::unique_lock lock(m_mutex);
    // start() ran the first beat already when it reads the drain.
    bool beatNext = !m_drain.report;
    while (!m_stop) {
        if (beatNext) {
            lock.unlock();
            beat();
            lock.lock();
        }
        beatNext = true;
        m_wake.wait_for(lock, m_every, [this] { return m_stop || m_beatNow; });
        m_beatNow = false;
    }
    const std::optional<std::chrono::steady_clock::time_point> goneBy = m_goneBy;
    lock.unlock();
    if (goneBy)
        deregister(*goneBy);
}

void Registrar::beat()
{
    try {
        pg::ConnectionPool::Lease connection = m_pool.take();
        lease::ReplicaInfo replica = m_replica;
        if (m_marker)
            replica.markerSession = m_marker->key();
        try {
            lease::replicaSeen(*connection, replica, lease::StatementTimeout, {}, m_named);
        } catch (const pg::Error &error) {
            // 0182 was undone under this replica: its five-argument beat still works.
            if (!m_named || error.sqlstate() != pg::sqlstate::UndefinedFunction)
                throw;
            m_named = false;
            lease::replicaSeen(*connection, replica, lease::StatementTimeout);
        }
        if (m_drain.report) {
            try {
                const DrainHooks::Report report = m_drain.report();
                m_drain.flagged(lease::drainBeat(*connection, m_replica.holderId, report.local,
                                                 report.running, lease::StatementTimeout));
            } catch (const pg::Error &error) {
                // 0183 was undone under this replica: no drain any more.
                if (error.sqlstate() != pg::sqlstate::UndefinedFunction)
                    throw;
                const std::function<void(bool)> flagged = std::move(m_drain.flagged);
                m_drain = {};
                flagged(false);
                log::write(log::Level::Warning, "replica",
                           "the drain functions are gone (migration 0183 undone); not draining",
                           "holder=" + m_replica.holderId);
            }
        }
        if (m_reportEarlyTake && m_marker)
            reportSuspension(*connection);
        if (m_failing)
            log::write(log::Level::Info, "replica", "registry beat works again",
                       "holder=" + m_replica.holderId);
        m_failing = false;
    } catch (const pg::Error &error) {
        if (!m_failing)
            log::write(log::Level::Warning, "replica",
                       "registry beat failed; leader_replicas shows this replica aging until a "
                       "later beat works",
                       "holder=" + m_replica.holderId + " error=\"" + pg::explain(error) + "\"");
        m_failing = true;
    }
}

void Registrar::reportSuspension(pg::Connection &connection)
{
    const std::optional<lease::MarkerState::Suspension> suspension = m_marker->suspension();
    const std::optional<std::chrono::steady_clock::time_point> off
            = suspension ? std::optional(suspension->until) : std::nullopt;
    if (off == m_reportedOff)
        return;
    try {
        lease::replicaEarlyTakeOff(
                connection, m_replica.holderId,
                suspension ? std::optional(std::chrono::duration_cast<std::chrono::milliseconds>(
                        suspension->until - std::chrono::steady_clock::now()))
                           : std::nullopt,
                suspension ? suspension->reason : std::string(), lease::StatementTimeout);
        m_reportedOff = off;
    } catch (const pg::Error &error) {
        // 0189 was undone under this replica: nothing to report to.
        if (error.sqlstate() != pg::sqlstate::UndefinedFunction)
            throw;
        m_reportEarlyTake = false;
    }
}

void Registrar::deregister(std::chrono::steady_clock::time_point startBy)
{
    try {
        pg::ConnectionPool::Lease connection = m_pool.take();
        lease::replicaGone(*connection, m_replica.holderId, GoneTimeout, {.startBy = startBy});
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "replica",
                   "could not delete this replica's registry row; it reads gone after 35 s and "
                   "is deleted after 24 h",
                   "holder=" + m_replica.holderId + " error=\"" + pg::explain(error) + "\"");
    }
}

} // namespace leader::replica
