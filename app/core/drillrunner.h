#pragma once

#include "core/drillreport.h"
#include "core/statustypes.h"

#include <QObject>
#include <QString>

class QTimer;

namespace leader::console {

class ConsoleSession;
struct DrillAudit;

// The demo's failover drill, driven through ConsoleSession's slots and signals: it waits for a
// holder of billing, kills it and waits for the takeover (then restarts it), freezes the new holder
// a little longer than the lease and waits, severs the next one's link alike and waits, then pauses
// billing until its holder stops and unpauses it until it is led again. Each step has a deadline
// and fails with a line naming the step; nothing sleeps. Then the session counts the claims the
// fence refused during the drill and runs the demo auditor on the demo's database
// (ConsoleSession::auditDrill). Ends with finished() or failed(), once.
class DrillRunner final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DrillRunner)

public:
    // How long a freeze or a cut lasts: a heartbeat over the 10 s lease, so the lease runs out
    // while the victim cannot renew and another replica takes over before it is back.
    static constexpr int FaultMs = 13000;

    explicit DrillRunner(ConsoleSession *session, QObject *parent = nullptr);

    void start();
    bool isRunning() const { return m_step != Step::Idle && m_step != Step::Done; }

Q_SIGNALS:
    void progress(const QString &step); // one line for the status bar
    void finished(const leader::console::DrillResult &result);
    void failed(const QString &message); // one line naming the step

private:
    enum class Step {
        Idle,
        WaitHolder,
        WaitTakeover,
        WaitPaused,
        WaitLedAgain,
        WaitHealed,
        Audit,
        Done
    };

    void enter(Step step, int deadlineMs, const QString &what);
    void tryNextFault();
    void faultMissed(const QString &detail);
    void onFailover(const Failover &failover);
    void onEvent(const EventLogEntry &entry);
    void onAction(const ActionResult &result);
    void unpause();
    void auditWhenHealed();
    void audit();
    void onAudited(const DrillAudit &audited);
    void fail(const QString &message);

    ConsoleSession *m_session;
    QTimer *m_deadline;
    Step m_step = Step::Idle;
    QString m_what; // the step, for a failure line
    int m_faultIndex = 0;
    QString m_victim;   // replica id of the fault in progress
    QString m_expected; // the last successor: the next victim
    bool m_unpaused = false;
    DrillResult m_result;
};

} // namespace leader::console
