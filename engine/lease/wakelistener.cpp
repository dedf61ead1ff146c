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
// How often the loop looks at the stop flag while no notification comes.
constexpr auto WakeCheck = 200ms;

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

WakeListener::WakeListener(pg::ConnectOptions session, Callback callback)
    : m_session(std::move(session))
    , m_callback(std::move(callback))
    , m_probe("probe:" + makeHolderId())
{
    m_session.applicationName = "leader wake";
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
    m_listening.store(false);
}

void WakeListener::loop()
{
    while (!m_stopping.load()) {
        if (!m_connection->isOpen()) {
            try {
                m_connection->exec("listen", "LISTEN leader_leases", {}, ListenTimeout);
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
        if (!waitForInput(*m_connection, WakeCheck)) {
            m_connection->close();
            continue;
        }
        drain(*m_connection, m_probe, m_callback);
    }
}

} // namespace leader::lease
