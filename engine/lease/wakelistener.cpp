#include "wakelistener.h"

#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/socketwait.h"
#include "tick.h"

#include <libpq-fe.h>

#include <memory>

namespace leader::lease {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto ListenTimeout = 2s;
constexpr auto ReconnectAfter = 1s;
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
                           SessionCallback onSession)
    : m_session(std::move(session))
    , m_callback(std::move(callback))
    , m_holderId(std::move(holderId))
    , m_onSession(std::move(onSession))
    , m_probe("probe:" + makeHolderId())
{
    m_session.applicationName = "leader wake";
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
    if (m_holderId.empty())
        return;
    try {
        const pg::Result row = connection.exec(
                "marker",
                "SELECT k, pg_advisory_lock(k) FROM (SELECT ($1::bigint << 32) | pg_backend_pid() "
                "AS k) AS s",
                {sessionKeyPrefix(m_holderId)}, ListenTimeout);
        reportSession(row.toInt64(0, 0));
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "lease",
                   "no marker session; a death of this process is seen at its leases' expiry",
                   "error=\"" + pg::explain(error) + "\"");
        reportSession(std::nullopt);
    }
}

void WakeListener::reportSession(std::optional<std::int64_t> key)
{
    if (m_onSession)
        m_onSession(key);
}

WakeListener::~WakeListener()
{
    stop();
}

bool WakeListener::start(std::chrono::milliseconds probeTimeout)
{
    stop();
    auto session = std::make_unique<pg::Connection>(m_session);
    try {
        session->exec("listen", "LISTEN leader_leases", {}, ListenTimeout);
        pg::Connection sender(m_session);
        sender.exec("probe", "SELECT pg_notify('leader_leases', $1)", {m_probe}, ListenTimeout);
        const auto deadline = Clock::now() + probeTimeout;
        bool delivered = drain(*session, m_probe, m_callback);
        while (!delivered && Clock::now() < deadline) {
            if (!waitForInput(*session, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                deadline - Clock::now())))
                break;
            delivered = drain(*session, m_probe, m_callback);
        }
        if (!delivered) {
            log::write(log::Level::Info, "lease",
                       "LISTEN delivers nothing here (a transaction pooler?); polling instead",
                       "database=" + session->target());
            return false;
        }
    } catch (const pg::Error &error) {
        log::write(log::Level::Info, "lease", "no fast wake; polling instead",
                   "error=\"" + pg::explain(error) + "\"");
        return false;
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
    if (m_thread.joinable())
        m_thread.join();
    // Closing the session releases the marker lock, as a process death would.
    if (m_connection)
        m_connection->close();
    m_listening.store(false);
}

void WakeListener::loop()
{
    while (!m_stopping.load()) {
        if (!m_connection->isOpen()) {
            try {
                m_connection->exec("listen", "LISTEN leader_leases", {}, ListenTimeout);
                takeMarker(*m_connection);
            } catch (const pg::Error &) {
                // A session that answered with an error is open but not listening: start over.
                m_connection->close();
                // Polling covers the gap until the session is back.
                const auto retryAt = Clock::now() + ReconnectAfter;
                while (!m_stopping.load() && Clock::now() < retryAt)
                    std::this_thread::sleep_for(WakeCheck);
                continue;
            }
        }
        if (!waitForInput(*m_connection, WakeCheck)
            || PQstatus(m_connection->handle()) == CONNECTION_BAD) {
            // The session is gone with its lock: the leases stop naming it at their next RENEW,
            // which the new session's key triggers at once.
            m_connection->close();
            reportSession(std::nullopt);
            continue;
        }
        drain(*m_connection, m_probe, m_callback);
    }
}

} // namespace leader::lease
