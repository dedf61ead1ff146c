#pragma once

#include "core/connectionprofile.h"
#include "core/databaseidentity.h"
#include "core/demotypes.h"
#include "core/drillauditor.h"
#include "core/holderchange.h"
#include "core/pauselog.h"
#include "core/registrytypes.h"
#include "core/statustypes.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>

#include <stop_token>

class QThread;
class QTimer;

namespace leader::console {

class DemoHost;
class StatusPoller;
class TakeoverTracker;

// The one object between the window and everything behind it: it owns the poller's thread and,
// in the demo, the demo host's thread (the host and the drill's auditor), and the shutdown of both.
// The window calls its slots and listens to its signals; nothing it offers blocks the GUI thread.
//
// Takeovers are told here too, once for every listener (takeover()): the demo's measured ones
// while it runs, else those the polled rows prove (TakeoverTracker).
//
// Freshness is judged here, once: the data is stale when the connection is not up, when a poll
// failed since the last rows arrived, or when no rows arrived for two poll intervals. Poll errors
// are reported once per distinct message, with a count of the repeats.
class ConsoleSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleSession)

public:
    enum class Phase {
        Idle,         // nothing started
        Running,      // polling a database, with or without the demo
        ShuttingDown, // the poller abandoned, the demo releasing its roles and stopping its server
        Finished,     // every worker ended, or the bound passed; finished() was emitted
    };
    Q_ENUM(Phase)

    // How long shutdown() may take: the demo releases its roles and stops its server; a database
    // session needs only to be abandoned.
    static constexpr int DemoShutdownBoundMs = 4500;
    static constexpr int DatabaseShutdownBoundMs = 700;

    explicit ConsoleSession(QObject *parent = nullptr);
    ~ConsoleSession() override;

    Phase phase() const { return m_phase; }
    // Running or shutting down: a window closing waits for finished().
    bool hasWorkers() const { return m_phase != Phase::Idle && m_phase != Phase::Finished; }
    bool isDemoRunning() const { return m_demoRunning; }
    bool isStale() const { return m_stale; }
    QDateTime lastRowsAt() const { return m_lastRowsAt; }      // the workstation's clock, UTC
    QList<ReplicaInfo> replicas() const { return m_replicas; } // the demo's, as last reported

public Q_SLOTS:
    void connectTo(const leader::console::ConnectionProfile &profile);
    // The demo's private cluster in directory (empty: the default); connects when it is up.
    void startDemo(const QString &directory);
    void stopDemo(); // the operator moves to a real database; the replicas release their roles
    void setInterval(int milliseconds);
    void setSuspended(bool suspended);
    void refresh();
    // Several roles, one transaction: all of them change or none does (see StatusPoller).
    void pause(const QStringList &roles, const QString &by, const QString &reason,
               const leader::console::PauseEnd &end);
    void unpause(const QStringList &roles, const QString &by, const QString &reason);
    // Answered by pauseLogRead(), from the poller's thread (a read waits behind a poll in flight).
    void readPauseLog(leader::console::PauseLogSince since);
    // A replica's drain (extension 0183) on the poller's thread, answered by drainFinished();
    // without a connection, answered at once with an error.
    void checkDrain(const QString &replica);
    void drain(const QString &replica, const QString &by, const QString &reason, bool force);
    void undrain(const QString &replica, const QString &by, const QString &reason);
    // Hands role over now (extension 0185) on the poller's thread, answered by
    // handoverFinished(); toReplica empty: to any replica but the holder.
    void handOver(const QString &role, const QString &by, const QString &reason,
                  const QString &toReplica);
    void inject(const leader::console::FaultRequest &request);
    // The demo's drill: kills the replica leading billing (else any replica leading something) as
    // soon as there is one, and says which through drillVictim().
    void runDrill();
    // DrillRunner's audit of the demo's database (DrillAuditor) on the demo host's thread, which
    // it holds meanwhile: the fence's refusals from since (the drill's first fault) on, then the
    // demo auditor. Answered by drillAudited(), later; stopDemo() and shutdown() cancel it, and a
    // cancelled audit is not answered.
    void auditDrill(const QDateTime &since);
    void cancelDrillAudit(); // cancels the statement in flight; no answer comes
    void forgetHolders();    // another database: the holders its polls saw are not the next one's
    // Ends everything within DemoShutdownBoundMs or DatabaseShutdownBoundMs, then emits
    // finished(), always later from the event loop. Safe to call more than once.
    void shutdown();

Q_SIGNALS:
    // changes: the roles the rows prove changed holder since the last snapshot, and how
    // (TakeoverTracker).
    void snapshot(const leader::console::StatusSnapshot &snapshot,
                  const QList<leader::console::HolderChange> &changes);
    void connectionChanged(leader::console::ConnectionState state,
                           const QString &message); // StatusPoller's
    // After a Failed: the poller tries again by itself in milliseconds; refresh() tries at once.
    void retryScheduled(int milliseconds);
    void privilegesChanged(const leader::console::Privileges &privileges);
    // After each connect, before its Connected (StatusPoller::identified): the chart's history
    // is kept under this, not under how the database was opened.
    void databaseIdentified(const leader::console::DatabaseIdentity &identity);
    void actionFinished(const leader::console::ActionResult &result);
    void pauseLogRead(const leader::console::PauseLogResult &result);
    // The replica registry, read every few polls (StatusPoller::RegistryEveryMs) and on refresh.
    void registryChanged(const leader::console::RegistrySnapshot &registry);
    void drainFinished(const leader::console::DrainResult &result);
    void handoverFinished(const leader::console::HandoverResult &result);
    // A poll that failed; repeats of the same message come again with the running count.
    void pollProblem(const QString &message, int repeats);
    // Stale: the rows shown are those received at asOf and nothing newer can be had.
    void staleChanged(bool stale, const QDateTime &asOf);

    void demoProgress(const QString &step);
    void demoStarted(const leader::console::ConnectionProfile &monitor);
    // Before demoStarted: roles still paused from the demo's last run (DemoHost).
    void demoPausedFromLastRun(const QList<leader::console::LeftoverPause> &pauses);
    void demoFailed(const QString &message);
    void demoStopped();
    void replicasChanged(const QList<leader::console::ReplicaInfo> &replicas);
    void demoEvent(const leader::console::EventLogEntry &entry);
    void failoverMeasured(const leader::console::Failover &failover);
    // Every takeover, once: failoverMeasured's while the demo runs, else those the rows prove
    // (before the snapshot that proves them).
    void takeover(const leader::console::Failover &takeover);
    void drillVictim(const QString &replica, const QStringList &leading);
    void drillAudited(const leader::console::DrillAudit &audit);

    void finished();

private:
    void startPoller();
    void onSnapshot(const StatusSnapshot &rows);
    void onConnectionChanged(ConnectionState state, const QString &message);
    void onPollFailed(const QString &message);
    void setStale(bool stale);
    void armStaleTimer();
    void onDemoStopped();
    void finishIfDone();
    void finish();
    void joinThreads(int boundMs);

    Phase m_phase = Phase::Idle;
    QThread *m_pollThread = nullptr;
    QPointer<StatusPoller> m_poller; // lives in m_pollThread
    QThread *m_demoThread = nullptr;
    QPointer<DemoHost> m_demo;        // lives in m_demoThread
    QPointer<DrillAuditor> m_auditor; // lives in m_demoThread
    std::stop_source m_auditStop;     // the audit in flight's
    bool m_demoRunning = false;
    bool m_demoStopping = false;
    int m_intervalMs = 1000;
    bool m_suspended = false;
    QList<ReplicaInfo> m_replicas;
    ConnectionProfile m_demoDatabase; // the superuser's login over loopback: the drill's audit
    TakeoverTracker *m_takeovers = nullptr;

    bool m_haveRows = false;
    bool m_stale = false;
    QDateTime m_lastRowsAt;
    QTimer *m_staleTimer = nullptr;
    QString m_lastProblem;
    int m_problemRepeats = 0;

    QTimer *m_shutdownBound = nullptr;
};

} // namespace leader::console
