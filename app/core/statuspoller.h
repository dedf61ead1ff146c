#pragma once

#include "core/connectionprofile.h"
#include "core/databaseidentity.h"
#include "core/pauselog.h"
#include "core/registrytypes.h"
#include "core/statustypes.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <stop_token>
#include <string>

class QTimer;

namespace leader::monitor {
class StatusReader;
struct Failure;
} // namespace leader::monitor

namespace leader::console {

// Polls leader_status and runs pause/unpause over one connection, through the engine's
// StatusReader (libpq, unnamed statements, so PgBouncer in transaction mode is fine; client-side
// deadlines). Meant to live in its own QThread (moveToThread before the first slot call): every
// slot may block on the database for at most its deadline, and the GUI talks to it only through
// queued calls and signals, except stop(), which any thread may call to end a wait at once.
// While a target is set the poller keeps trying to (re)connect by itself, backing off 1, 2, 5 s.
class StatusPoller final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StatusPoller)

public:
    explicit StatusPoller(QObject *parent = nullptr);
    ~StatusPoller() override;

    // The wait after the n-th failed attempt in a row (0-based): 1 s, 2 s, then 5 s. A connection
    // lost while polling is retried once at once before this backoff applies.
    static int retryDelayMs(int attempt);
    // A connect's and a statement's client-side deadline.
    static constexpr int StatementTimeoutMs = 5000;
    // How often a poll also reads the replica registry: replicas beat every 15 s, so reading it
    // on every poll would only repeat the same rows. pollNow() reads it at once.
    static constexpr int RegistryEveryMs = 5000;

    // Thread-safe: ends the connect or statement in flight within 50 ms and every one after; the
    // poller is done (its thread's owner then quits the thread). For closing the window.
    void abandon();

public Q_SLOTS:
    void setTarget(const leader::console::ConnectionProfile &profile); // (re)connects at once
    void setInterval(int milliseconds); // 0: off (no timer; pollNow still works)
    // Window minimised: no polls (nor reconnects) until resumed, then one at once.
    void setSuspended(bool suspended);
    void pollNow(); // also reads the replica registry
    // Several roles in one transaction: all of them change, or none does.
    void pause(const QStringList &roles, const QString &by, const QString &reason,
               const leader::console::PauseEnd &end);
    void unpause(const QStringList &roles, const QString &by, const QString &reason);
    // The pause log, over a short session of its own (the poll's is left alone), bounded by the
    // same deadlines and ended by abandon() like a poll.
    void readPauseLog(leader::console::PauseLogSince since);
    // A replica's drain (extension 0183), answered by drainFinished; a drain or undrain reads the
    // registry again at once.
    void checkDrain(const QString &replica);
    void drain(const QString &replica, const QString &by, const QString &reason, bool force);
    void undrain(const QString &replica, const QString &by, const QString &reason);
    // Hands role over now (extension 0185), answered by handoverFinished; toReplica empty: to
    // any replica but the holder.
    void handOver(const QString &role, const QString &by, const QString &reason,
                  const QString &toReplica);
    void stop(); // closes the connection and forgets the target

Q_SIGNALS:
    void snapshot(const leader::console::StatusSnapshot &snapshot);
    // A Reconnected's message tells how long the console was without a session ("reconnected …
    // after 4 s").
    void connectionChanged(leader::console::ConnectionState state, const QString &message);
    void privilegesChanged(const leader::console::Privileges &privileges);
    // After each connect, before its Connected: which database it reached, read over a short
    // session of its own (invalid when that failed; the connection stands all the same).
    void identified(const leader::console::DatabaseIdentity &identity);
    void actionFinished(const leader::console::ActionResult &result);
    void pollFailed(const QString &message);
    // After a failed connect: the next attempt starts in milliseconds (none while suspended).
    void retryScheduled(int milliseconds);
    void pauseLogRead(const leader::console::PauseLogResult &result);
    void registryRead(const leader::console::RegistrySnapshot &registry);
    void drainFinished(const leader::console::DrainResult &result);
    void handoverFinished(const leader::console::HandoverResult &result);

private:
    void connectNow();
    DatabaseIdentity readIdentity();
    QString connectedMessage(ConnectionState state, double downSeconds) const;
    void scheduleRetry(const QString &reason);
    void poll();
    void readRegistry();
    void lost(const QString &reason);
    void closeConnection();
    void updateTimer();
    QString notConnectedMessage() const;
    void actionFailed(ActionResult result, const monitor::Failure &failure);
    // With extension 0189: the holders outside the registry seen on the replica's roles.
    OutsideHolders outsideOfReplica(const QString &replica);

    QTimer *m_pollTimer = nullptr;
    QTimer *m_retryTimer = nullptr;
    std::optional<ConnectionProfile> m_target;
    std::stop_source m_abandon;
    std::unique_ptr<monitor::StatusReader> m_reader;
    int m_intervalMs = 0;
    bool m_suspended = false;
    bool m_connected = false;
    bool m_everConnected = false;      // this target: the next success is a Reconnected
    bool m_immediateRetryUsed = false; // since the last good poll
    int m_retryAttempt = 0;            // backoff step, since the last good poll
    QString m_lastFailure;
    QElapsedTimer m_downSince;
    QElapsedTimer m_sinceGoodPoll;
    Privileges m_privileges;           // as open() found them, features updated by polls
    std::string m_sessionKey;          // the session the last good poll ran on
    QElapsedTimer m_sinceRegistryRead; // invalid: the next good poll reads the registry
};

} // namespace leader::console
