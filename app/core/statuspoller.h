#pragma once

#include "core/connectionprofile.h"
#include "core/statustypes.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <optional>

class QSqlDatabase;
class QSqlError;
class QTimer;

namespace leader::console {

// Polls leader_status and runs pause/unpause over one QPSQL connection. Meant to live in its own
// QThread (moveToThread before the first slot call): every slot may block on the database, and the
// GUI talks to it only through queued calls and signals.
//
// Only plain QSqlQuery::exec(QString) of literal SQL, never prepare(): QPSQL's prepared statements
// are named server-side and break through PgBouncer in transaction mode (DESIGN.md, Known traps).
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

public Q_SLOTS:
    void setTarget(const leader::console::ConnectionProfile &profile); // (re)connects at once
    void setInterval(int milliseconds); // 0: off (no timer; pollNow still works)
    // Window minimised: no polls (nor reconnects) until resumed, then one at once.
    void setSuspended(bool suspended);
    void pollNow();
    void pause(const QString &role, const QString &by, const QString &reason);
    void unpause(const QString &role);
    void stop(); // closes the connection; call (queued/blocking) before the thread quits

Q_SIGNALS:
    void snapshot(const leader::console::StatusSnapshot &snapshot);
    void connectionChanged(leader::console::ConnectionState state, const QString &message);
    void privilegesChanged(const leader::console::Privileges &privileges);
    void actionFinished(const QString &role, const QString &action, bool ok,
                        const QString &message);
    void pollFailed(const QString &message);

private:
    void connectNow();
    void scheduleRetry(const QString &reason);
    bool checkSchemaAndPrivileges(QSqlDatabase &db, QString *failure);
    void poll();
    void lost(const QString &reason);
    void closeConnection();
    void updateTimer();
    bool connectionBroken(QSqlDatabase &db, const QSqlError &error) const;
    QString describeError(const QSqlError &error) const;
    QString literal(QSqlDatabase &db, const QString &value) const;
    QString notConnectedMessage() const;
    void runAction(const QString &role, const QString &action, const QString &sql);

    QTimer *m_pollTimer = nullptr;
    QTimer *m_retryTimer = nullptr;
    std::optional<ConnectionProfile> m_target;
    QString m_connectionName; // unique; the QSqlDatabase is made in this object's thread
    int m_intervalMs = 0;
    bool m_suspended = false;
    bool m_connected = false;
    bool m_everConnected = false;      // this target: the next success says "reconnected"
    bool m_immediateRetryUsed = false; // since the last good poll
    int m_retryAttempt = 0;            // backoff step, since the last good poll
    QString m_lastFailure;
    QElapsedTimer m_downSince;
};

} // namespace leader::console
