#include "wakelistener.h"

#include "constants.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "pg/failurekind.h"
#include "platform/socketwait.h"
#include "tick.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>

namespace leader::lease {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto ListenTimeout = 2s;
// After a reconnect that failed; the first one, right after the session ended, is at once.
constexpr auto ReconnectAfter = 1s;
// start()'s probes when their session fails: a second apart, so a restart's few seconds pass.
constexpr int ProbeAttempts = 3;
// How often the loop looks at the stop flag while no notification comes: a stop, and so a
// killed replica's marker session closing, waits for it at most this long.
constexpr auto WakeCheck = pg::StopCheckEvery;

struct NotifyDeleter
{
    void operator()(PGnotify *notify) const { PQfreemem(notify); }
};
using NotifyPtr = std::unique_ptr<PGnotify, NotifyDeleter>;

// Delivers the queued notifications; returns whether the probe was among them.
bool drain(pg::Connection &connection, const std::string &probe,
           const WakeListener::Callback &callback)
{
    bool sawProbe = false;
    while (NotifyPtr notify{PQnotifies(connection.handle())}) {
        const std::string payload = notify->extra ? notify->extra : "";
        if (payload == probe)
            sawProbe = true;
        else if (callback)
            callback(payload);
    }
    return sawProbe;
}

// Waits for input on the session for at most timeout; false when the connection broke.
bool waitForInput(pg::Connection &connection, std::chrono::milliseconds timeout)
{
    if (platform::waitSocket(PQsocket(connection.handle()), platform::WaitFor::Read, timeout)
        == platform::WaitResult::Failed)
        return false;
    return PQconsumeInput(connection.handle()) == 1;
}

} // namespace

WakeListener::WakeListener(pg::ConnectOptions session, Callback callback, std::string holderId,
                           MarkerState *marker)
    : m_session(std::move(session))
    , m_callback(std::move(callback))
    , m_holderId(std::move(holderId))
    , m_marker(m_holderId.empty() ? nullptr : marker)
    , m_probe("probe:" + makeHolderId())
{
    // A DBA's reaper can tell the marker from the sessions it may end (docs/runbook.md); the
    // server truncates the name to 63 bytes.
    m_session.applicationName = m_marker ? "leader marker " + m_holderId : "leader wake";
}

std::int64_t WakeListener::sessionKeyPrefix(std::string_view holderId)
{
    // FNV-1a: stable across builds and platforms, unlike std::hash.
    std::uint32_t hash = 2166136261u;
    for (const char c : holderId) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return static_cast<std::int64_t>(hash % 0x7fffffffu) + 1;
}

void WakeListener::takeMarker(pg::Connection &connection)
{
    m_key = 0;
    if (!m_marker)
        return;
    try {
        // Any login may set these for its own session. Without the idle timeouts at 0 the server
        // would end an idle marker (PostgreSQL 14's idle_session_timeout); with the keepalives
        // it ends a silent one only after MarkerSilenceEnds, when a holder that cannot renew has
        // long stopped.
        const pg::Result row = connection.exec(
                "marker",
                "SELECT k, pg_advisory_lock(k), leader_ext.leader_server_incarnation(), "
                "set_config('idle_session_timeout', '0', false), "
                "set_config('idle_in_transaction_session_timeout', '0', false), "
                "set_config('tcp_keepalives_idle', $2, false), "
                "set_config('tcp_keepalives_interval', $3, false), "
                "set_config('tcp_keepalives_count', $4, false), "
                "set_config('tcp_user_timeout', $5, false) "
                "FROM (SELECT ($1::bigint << 32) | pg_backend_pid() AS k) AS s",
                {sessionKeyPrefix(m_holderId), std::to_string(MarkerKeepalivesIdle.count()),
                 std::to_string(MarkerKeepalivesInterval.count()),
                 std::to_string(MarkerKeepalivesCount),
                 std::to_string(
                         std::chrono::duration_cast<std::chrono::milliseconds>(MarkerSilenceEnds)
                                 .count())},
                ListenTimeout);
        m_key = row.toInt64(0, 0);
        m_incarnation = row.toInt64(0, 2);
        m_marker->connected(m_key);
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "lease",
                   "no marker session; a death of this process is seen at its leases' expiry",
                   "error=\"" + pg::explain(error) + "\"");
    }
}

WakeListener::~WakeListener()
{
    stop();
}

WakeListener::Probe WakeListener::probe(pg::Connection &session, std::chrono::milliseconds timeout,
                                        std::string &failure)
{
    try {
        session.exec("listen", "LISTEN leader_leases", {}, ListenTimeout);
        pg::Connection sender(m_session);
        sender.exec("probe", "SELECT pg_notify('leader_leases', $1)", {m_probe}, ListenTimeout);
        const auto deadline = Clock::now() + timeout;
        bool delivered = drain(session, m_probe, m_callback);
        while (!delivered && Clock::now() < deadline) {
            if (!waitForInput(session, std::chrono::duration_cast<std::chrono::milliseconds>(
                                               deadline - Clock::now()))) {
                const std::string ended = session.serverEndedWith();
                failure = "the session ended while waiting for the probe"
                          + (ended.empty() ? std::string() : " (SQLSTATE " + ended + ")");
                return Probe::Failed;
            }
            delivered = drain(session, m_probe, m_callback);
        }
        return delivered ? Probe::Delivered : Probe::Silent;
    } catch (const pg::Error &error) {
        failure = pg::explain(error);
        return Probe::Failed;
    }
}

bool WakeListener::start(std::chrono::milliseconds probeTimeout)
{
    stop();
    m_stopSource = std::stop_source();
    m_session.stop = m_stopSource.get_token();
    std::unique_ptr<pg::Connection> session;
    for (int attempt = 1;; ++attempt) {
        session = std::make_unique<pg::Connection>(m_session);
        std::string failure;
        const Probe result = probe(*session, probeTimeout, failure);
        if (result == Probe::Delivered)
            break;
        if (result == Probe::Silent) {
            log::write(log::Level::Info, "lease",
                       "LISTEN delivers nothing here (a transaction pooler?); polling instead",
                       "database=" + session->target());
            return false;
        }
        session->close();
        if (attempt == ProbeAttempts) {
            log::write(log::Level::Info, "lease", "no fast wake; polling instead",
                       "error=\"" + failure + "\"");
            return false;
        }
        log::write(log::Level::Info, "lease", "the fast wake's probe failed; trying again",
                   "attempt=" + std::to_string(attempt) + " error=\"" + failure + "\"");
        std::this_thread::sleep_for(ReconnectAfter);
    }
    takeMarker(*session);
    m_connection = std::move(session);
    m_listening.store(true);
    m_stopping.store(false);
    m_thread = std::thread([this] { loop(); });
    return true;
}

void WakeListener::stop()
{
    m_stopping.store(true);
    m_stopSource.request_stop(); // a reconnect in progress gives up
    if (m_thread.joinable())
        m_thread.join();
    // Closing the session releases the marker lock, as a process death would.
    if (m_connection)
        m_connection->close();
    m_listening.store(false);
}

std::optional<std::string> WakeListener::connect()
{
    try {
        m_connection->exec("listen", "LISTEN leader_leases", {}, ListenTimeout);
    } catch (const pg::Error &error) {
        // A session that answered with an error is open but not listening: start over.
        m_connection->close();
        return std::string(error.what());
    }
    takeMarker(*m_connection);
    return std::nullopt;
}

void WakeListener::sessionEnded(const std::string &sqlstate)
{
    const std::int64_t ended = m_key;
    const std::int64_t incarnation = m_incarnation;
    m_key = 0;
    m_connection->close();
    if (!m_marker || ended == 0) {
        connect();
        return;
    }
    // A server that is going away says so (a shutdown, a crash restart: 57P01, 57P02) and then
    // refuses new sessions for that reason; pg_terminate_backend also says 57P01, but its server
    // takes the new session at once. So the reconnect, tried now, tells the two apart. A refusal
    // for another reason (too many clients, a login refused) or no answer says nothing of the
    // server's life, and the row must be repaired in time.
    const bool announced = pg::announcesServerEnd(sqlstate);
    m_marker->ended(ended, Clock::now(), announced);
    log::write(log::Level::Info, "lease", "marker session ended; repairing",
               "session=" + std::to_string(ended)
                       + (sqlstate.empty() ? std::string() : " sqlstate=" + sqlstate));
    // An end read by a listener that had not looked for a while (its process was stopped) may be
    // older than the restart that now refuses the reconnect: the row may have been taken early
    // meanwhile, on the old incarnation, so the repair is owed whatever the end says (found by
    // the Spin model: a freeze across a termination, an early take, then a restart).
    const bool stale = Clock::now() - m_lookedAt > MarkerFreshFor;
    const std::optional<std::string> failed = connect();
    const bool otherIncarnation = !failed && m_key != 0 && m_incarnation != incarnation;
    if (!stale && (otherIncarnation || (failed && announced && pg::serverNotAccepting(*failed))))
        m_marker->serverEnding(ended);
    else
        m_marker->serverUp(ended);
}

void WakeListener::loop()
{
    // Whether a ping is in flight, and when it was sent.
    bool pinging = false;
    Clock::time_point pingSent;
    auto nextPing = Clock::now() + MarkerPingEvery;
    bool unproven = false;
    while (!m_stopping.load()) {
        if (!m_connection->isOpen()) {
            if (connect()) {
                // Polling covers the gap until the session is back.
                const auto retryAt = Clock::now() + ReconnectAfter;
                while (!m_stopping.load() && Clock::now() < retryAt)
                    std::this_thread::sleep_for(WakeCheck);
                continue;
            }
            pinging = false;
            nextPing = Clock::now() + MarkerPingEvery;
            unproven = false;
        }
        PGconn *conn = m_connection->handle();
        if (m_key != 0 && !pinging && Clock::now() >= nextPing) {
            // An empty query: the server answers without parsing or planning anything.
            if (!PQsendQuery(conn, "") || PQflush(conn) < 0) {
                sessionEnded({});
                continue;
            }
            pinging = true;
            pingSent = Clock::now();
        }
        // No end of file had arrived by this instant if the wait and the reads below find none.
        const auto lookedAt = Clock::now();
        const auto wait
                = m_key == 0 || pinging
                          ? WakeCheck
                          : std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               nextPing - lookedAt),
                                       0ms, std::chrono::milliseconds(WakeCheck));
        const bool readable = waitForInput(*m_connection, wait);
        // The ping's answer, or the error the server ended the session with under it.
        std::string failed;
        while (pinging && !PQisBusy(conn)) {
            PGresult *result = PQgetResult(conn);
            if (!result) {
                if (PQstatus(conn) == CONNECTION_BAD)
                    break;
                nextPing = pingSent + MarkerPingEvery;
                pinging = false;
                if (unproven) {
                    unproven = false;
                    m_marker->proven(true);
                }
                break;
            }
            // An ERROR (a DBA's pg_cancel_backend) leaves the session as it was; a FATAL ends it.
            const char *severity = PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED);
            if (failed.empty() && severity
                && (std::string_view(severity) == "FATAL"
                    || std::string_view(severity) == "PANIC")) {
                const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
                failed = state ? state : "?";
            }
            PQclear(result);
        }
        // Also parses what came unasked: a FATAL error reaches the connection's notice receiver.
        drain(*m_connection, m_probe, m_callback);
        if (!readable || !failed.empty() || !m_connection->serverEndedWith().empty()
            || PQstatus(conn) == CONNECTION_BAD) {
            sessionEnded(failed.empty() || failed == "?" ? m_connection->serverEndedWith()
                                                         : failed);
            continue;
        }
        if (pinging && !unproven && Clock::now() - pingSent >= MarkerUnprovenAfter) {
            unproven = true;
            log::write(log::Level::Warning, "lease",
                       "marker session silent; its leases end at their expiry until it answers",
                       "session=" + std::to_string(m_key));
            m_marker->proven(false);
        }
        m_lookedAt = lookedAt;
        if (m_marker && m_key != 0)
            m_marker->alive(lookedAt);
    }
}

} // namespace leader::lease
