#include "drillrunner.h"

#include "core/consolesession.h"
#include "core/drillauditor.h"
#include "core/leasefacts.h"

#include <QSysInfo>
#include <QTimer>

#include <algorithm>

namespace leader::console {

namespace {

const QString Role = leaseRoleName(LeaseRole::Billing);
const QString By = QStringLiteral("leader-console drill");

struct PlannedFault
{
    FaultKind kind;
    int durationMs;
};
constexpr PlannedFault Faults[] = {
        {FaultKind::Kill, 0},
        {FaultKind::Freeze, DrillRunner::FaultMs},
        {FaultKind::Sever, DrillRunner::FaultMs},
};
constexpr int FaultCount = int(std::size(Faults));

// The demo's start and, if a previous run left billing's interval (60 s) running, its next tick.
constexpr int FirstHolderMs = 180000;
// A takeover comes within 15 s of the last heartbeat; anything else comes within one interval.
constexpr int HolderMs = 75000;
constexpr int TakeoverMs = 30000;
constexpr int PauseMs = 15000;
constexpr int LedAgainMs = 30000;
constexpr int HealMarginMs = 5000;
constexpr int AuditMs = 90000;

} // namespace

DrillRunner::DrillRunner(ConsoleSession *session, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_deadline(new QTimer(this))
{
    m_deadline->setSingleShot(true);
    connect(m_deadline, &QTimer::timeout, this, [this] {
        fail(tr("%1: not done within %2 s").arg(m_what).arg(m_deadline->interval() / 1000));
    });
    connect(session, &ConsoleSession::replicasChanged, this, [this] {
        if (m_step == Step::WaitHolder)
            tryNextFault();
        else if (m_step == Step::WaitHealed)
            auditWhenHealed();
    });
    connect(session, &ConsoleSession::failoverMeasured, this, &DrillRunner::onFailover);
    connect(session, &ConsoleSession::demoEvent, this, &DrillRunner::onEvent);
    connect(session, &ConsoleSession::actionFinished, this, &DrillRunner::onAction);
    connect(session, &ConsoleSession::drillAudited, this, &DrillRunner::onAudited);
    connect(session, &ConsoleSession::demoFailed, this, [this](const QString &message) {
        if (isRunning())
            fail(tr("the demo could not start: %1").arg(message));
    });
    connect(session, &ConsoleSession::demoStopped, this, [this] {
        if (isRunning())
            fail(tr("%1: the demo stopped").arg(m_what));
    });
}

void DrillRunner::start()
{
    if (isRunning())
        return;
    m_result = {};
    m_result.role = Role;
    m_result.startedAt = QDateTime::currentDateTimeUtc();
    m_faultIndex = 0;
    m_victim.clear();
    m_expected.clear();
    m_unpaused = false;
    enter(Step::WaitHolder, FirstHolderMs, tr("waiting for a holder of %1").arg(Role));
    tryNextFault();
}

void DrillRunner::enter(Step step, int deadlineMs, const QString &what)
{
    m_step = step;
    m_what = what;
    m_deadline->start(deadlineMs);
    Q_EMIT progress(tr("Drill: %1…").arg(what));
}

void DrillRunner::tryNextFault()
{
    // A frozen or cut replica still lists the roles it held when it stopped answering, so the
    // victim is the last successor, else a healthy holder.
    const ReplicaInfo *victim = nullptr;
    const QList<ReplicaInfo> replicas = m_session->replicas();
    for (const ReplicaInfo &replica : replicas) {
        if (replica.state != ReplicaState::Running || !replica.leading.contains(Role)
            || replica.faulted)
            continue;
        if (!victim || replica.id == m_expected)
            victim = &replica;
    }
    if (!victim)
        return; // replicasChanged calls again
    m_victim = victim->id;
    if (m_faultIndex == FaultCount) {
        m_result.pause.holder = victim->id;
        m_result.pause.holderId = victim->holderId;
        m_result.pause.requestedAt = QDateTime::currentDateTimeUtc();
        enter(Step::WaitPaused, PauseMs,
              tr("pausing %1 until its holder %2 stops").arg(Role, m_victim));
        // Ends by itself should the drill fail before its unpause.
        m_session->pause({Role}, By, tr("drill: pause-to-cancel"),
                         PauseEnd{.duration = QStringLiteral("15m"), .at = {}});
        return;
    }
    const PlannedFault &planned = Faults[m_faultIndex];
    enter(Step::WaitTakeover, TakeoverMs,
          tr("%1 %2 (fault %3 of %4), waiting for the takeover of %5")
                  .arg(faultName(planned.kind), m_victim)
                  .arg(m_faultIndex + 1)
                  .arg(FaultCount + 1)
                  .arg(Role));
    m_session->inject({.replica = m_victim,
                       .kind = planned.kind,
                       .durationMs = planned.durationMs,
                       .role = {},
                       .step = {}});
}

void DrillRunner::onFailover(const Failover &failover)
{
    if (m_step != Step::WaitTakeover || failover.role != Role || failover.victim != m_victim)
        return;
    const FaultKind kind = Faults[m_faultIndex].kind;
    m_result.faults.append({faultName(kind), failover});
    // Back under the same name, so the freeze and the cut each leave a replica to take over and
    // the demo is whole again after the drill.
    if (kind == FaultKind::Kill)
        m_session->inject({.replica = m_victim,
                           .kind = FaultKind::Restart,
                           .durationMs = 0,
                           .role = {},
                           .step = {}});
    m_expected = failover.successor;
    ++m_faultIndex;
    enter(Step::WaitHolder, HolderMs, tr("waiting for the next holder of %1").arg(Role));
    tryNextFault();
}

// The victim's tick ended between the list that named it and the fault: the same fault again, on
// the next holder. A killed victim comes back first, as after a takeover; a frozen or cut one
// heals by itself and is passed over until then.
void DrillRunner::faultMissed(const QString &detail)
{
    if (Faults[m_faultIndex].kind == FaultKind::Kill)
        m_session->inject({.replica = m_victim,
                           .kind = FaultKind::Restart,
                           .durationMs = 0,
                           .role = {},
                           .step = {}});
    m_expected.clear();
    enter(Step::WaitHolder, HolderMs,
          tr("%1; waiting for the next holder of %2").arg(detail, Role));
    tryNextFault();
}

void DrillRunner::onEvent(const EventLogEntry &entry)
{
    if (entry.role != Role)
        return;
    if (m_step == Step::WaitTakeover && entry.event == EventKind::NoTakeover) {
        fail(tr("%1: %2").arg(m_what, entry.detail));
    } else if (m_step == Step::WaitTakeover && entry.event == EventKind::FaultMissed) {
        faultMissed(entry.detail);
    } else if (m_step == Step::WaitPaused && entry.source == m_result.pause.holder
               && !m_result.pause.stoppedAt.isValid()
               && (entry.event == EventKind::PausedObserved || entry.event == EventKind::Lost
                   || entry.event == EventKind::Released)) {
        m_result.pause.stoppedAt = entry.time;
        m_result.pause.stopEvent = eventKindName(entry.event);
        if (m_result.pause.pausedAt.isValid())
            unpause();
    } else if (m_step == Step::WaitLedAgain && entry.event == EventKind::Acquired) {
        m_result.pause.ledAgainAt = entry.time;
        m_result.pause.ledAgainBy = entry.source;
        enter(Step::WaitHealed, DrillRunner::FaultMs + HealMarginMs,
              tr("waiting for the last freeze or cut to end"));
        auditWhenHealed();
    }
}

void DrillRunner::onAction(const ActionResult &result)
{
    if (result.roles != QStringList{Role}
        || (m_step != Step::WaitPaused && m_step != Step::WaitLedAgain))
        return;
    if (!result.ok) {
        fail(tr("%1: %2 refused: %3").arg(m_what, pauseActionName(result.action), result.error));
        return;
    }
    if (result.action != PauseAction::Pause || m_step != Step::WaitPaused)
        return;
    const RoleChange change = result.changes.value(0);
    if (!change.changed) {
        fail(tr("%1: %2 was paused already, by %3").arg(m_what, Role, change.pausedBy));
        return;
    }
    m_result.pause.pausedAt = change.pausedAt;
    if (m_result.pause.stoppedAt.isValid())
        unpause();
}

void DrillRunner::unpause()
{
    m_unpaused = true;
    // The replica's event time is rounded to the millisecond, so it may read a hair later.
    m_result.pause.unpauseRequestedAt
            = std::max(QDateTime::currentDateTimeUtc(), m_result.pause.stoppedAt);
    enter(Step::WaitLedAgain, LedAgainMs, tr("unpausing %1 until it is led again").arg(Role));
    m_session->unpause({Role}, By, tr("drill: pause-to-cancel measured"));
}

// A frozen or cut replica that comes back and claims under its old token is what the fence
// refuses: the refusals are counted once every fault has ended.
void DrillRunner::auditWhenHealed()
{
    const QList<ReplicaInfo> replicas = m_session->replicas();
    for (const ReplicaInfo &replica : replicas) {
        if (replica.state == ReplicaState::Running && replica.faulted)
            return; // replicasChanged calls again
    }
    audit();
}

void DrillRunner::audit()
{
    enter(Step::Audit, AuditMs, tr("counting fence refusals and running the auditor"));
    m_session->auditDrill(m_result.faults.value(0).takeover.faultAt);
}

void DrillRunner::onAudited(const DrillAudit &audited)
{
    if (m_step != Step::Audit)
        return;
    m_deadline->stop();
    m_step = Step::Done;
    m_result.refusalsByRole = audited.refusals;
    m_result.invariants = audited.invariants;
    m_result.auditError = audited.error;
    m_result.endedAt = QDateTime::currentDateTimeUtc();
    m_result.environment = {
            .consoleVersion = QStringLiteral(LEADER_CONSOLE_VERSION),
            .serverVersion = audited.serverVersion,
            .hostName = QSysInfo::machineHostName(),
            .os = QStringLiteral("%1, %2 %3")
                          .arg(QSysInfo::prettyProductName(), QSysInfo::kernelType(),
                               QSysInfo::kernelVersion()),
    };
    Q_EMIT progress(tr("Drill done: %1").arg(m_result.summary()));
    Q_EMIT finished(m_result);
}

void DrillRunner::fail(const QString &message)
{
    if (!isRunning())
        return;
    const bool paused = m_result.pause.requestedAt.isValid() && !m_unpaused;
    const bool auditing = m_step == Step::Audit;
    m_step = Step::Done;
    m_deadline->stop();
    if (auditing)
        m_session->cancelDrillAudit();
    if (paused)
        m_session->unpause({Role}, By, tr("drill failed"));
    Q_EMIT progress(tr("Drill failed: %1").arg(message));
    Q_EMIT failed(message);
}

} // namespace leader::console
