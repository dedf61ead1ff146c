#pragma once

#include "core/statustypes.h"

#include <QObject>

class QLabel;
class QStatusBar;

namespace leader::console {

// The status bar's lasting part: what the connection is doing (or the demo's current step), whether
// the early take is on, the last poll's round trip and the database clock's drift (blank while the
// rows are stale: they describe a poll that is no longer the last word); and, from the same facts,
// why the rows shown are not live. Transient messages stay the status bar's own (showMessage).
class SessionStatusBar final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionStatusBar)

public:
    explicit SessionStatusBar(QStatusBar *bar); // adds its labels to bar, which owns it
    ~SessionStatusBar() override;

    // target names the database ("demo (user@host:5432/db)"); returns the line now shown.
    QString showConnection(ConnectionState state, const QString &message, const QString &target);
    void showStep(const QString &text); // the demo's progress, a failure, the shutdown
    void showSnapshot(const StatusSnapshot &snapshot);
    void showPollProblem(const QString &message);
    // The database's extensions, at connect: without the takeover at a holder's death (0179) the
    // early take's place says a role is taken at its lease's expiry, and what the rest needs.
    void showFeatures(const DatabaseFeatures &features);

    // The rows went stale: "poll —" and "db clock —" until the next showSnapshot().
    void showStale();

    // One line for the stale banner, what the console does next first and the target named once:
    // "retrying — demo (…): cannot reach the server: Connection refused". The engine's and
    // libpq's restatements of the host are left to staleDetail().
    QString staleReason() const;
    // All of it, for the banner's tooltip: the connection line or the poll's error as received.
    QString staleDetail() const;

private:
    QStatusBar *m_bar;
    QLabel *m_connection;
    QLabel *m_latency;
    QLabel *m_drift;
    QLabel *m_earlyTake; // hidden until known; "takeover at expiry" without extension 0179
    QString m_earlyTakeTip;
    QString m_expiryOnly; // why a role is taken only at its expiry here; empty with 0179
    ConnectionState m_state = ConnectionState::Disconnected;
    QString m_target;
    QString m_connectProblem; // the last failed connect's, until connected
    QString m_lastProblem;    // since the last rows
};

} // namespace leader::console
