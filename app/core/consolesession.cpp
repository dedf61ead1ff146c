#include "consolesession.h"

#include "core/demohost.h"
#include "core/leasefacts.h"
#include "core/queued.h"
#include "core/statuspoller.h"
#include "core/takeovertracker.h"

#include <QDeadlineTimer>
#include <QThread>
#include <QTimer>

namespace leader::console {

namespace {

// Two intervals with no rows make the table stale; the margin covers a poll's own round trip.
constexpr int StaleMarginMs = 500;
// What the destructor still waits for a worker after shutdown's bound: a thread that outlives it
// would be destroyed running.
constexpr int JoinGraceMs = 300;

} // namespace

ConsoleSession::ConsoleSession(QObject *parent)
    : QObject(parent)
    , m_takeovers(new TakeoverTracker(this))
    , m_staleTimer(new QTimer(this))
    , m_shutdownBound(new QTimer(this))
{
    qRegisterMetaType<FaultRequest>();
    qRegisterMetaType<ConnectionProfile>();
    qRegisterMetaType<PauseLogResult>();
    qRegisterMetaType<RegistrySnapshot>();
    qRegisterMetaType<DrillAudit>();
    connect(m_takeovers, &TakeoverTracker::takeover, this, &ConsoleSession::takeover);
    m_staleTimer->setSingleShot(true);
    connect(m_staleTimer, &QTimer::timeout, this, [this] { setStale(true); });
    m_shutdownBound->setSingleShot(true);
    connect(m_shutdownBound, &QTimer::timeout, this, [this] {
        qWarning("leader-console: the workers did not stop within the shutdown bound; closing");
        finish();
    });
}

ConsoleSession::~ConsoleSession()
{
    if (m_phase == Phase::Running)
        shutdown();
    joinThreads(JoinGraceMs);
}

void ConsoleSession::startPoller()
{
    if (m_poller)
        return;
    m_pollThread = new QThread(this);
    m_pollThread->setObjectName(QStringLiteral("status poller"));
    auto *poller = new StatusPoller;
    poller->moveToThread(m_pollThread);
    m_poller = poller;
    connect(m_pollThread, &QThread::finished, poller, &QObject::deleteLater);
    connect(m_pollThread, &QThread::finished, this, &ConsoleSession::finishIfDone);
    connect(poller, &StatusPoller::snapshot, this, &ConsoleSession::onSnapshot);
    connect(poller, &StatusPoller::connectionChanged, this, &ConsoleSession::onConnectionChanged);
    connect(poller, &StatusPoller::privilegesChanged, this, &ConsoleSession::privilegesChanged);
    connect(poller, &StatusPoller::identified, this, [this](const DatabaseIdentity &identity) {
        if (m_phase == Phase::Running)
            Q_EMIT databaseIdentified(identity);
    });
    connect(poller, &StatusPoller::actionFinished, this, &ConsoleSession::actionFinished);
    connect(poller, &StatusPoller::pollFailed, this, &ConsoleSession::onPollFailed);
    connect(poller, &StatusPoller::retryScheduled, this, [this](int milliseconds) {
        if (m_phase == Phase::Running)
            Q_EMIT retryScheduled(milliseconds);
    });
    connect(poller, &StatusPoller::pauseLogRead, this, [this](const PauseLogResult &result) {
        if (m_phase == Phase::Running)
            Q_EMIT pauseLogRead(result);
    });
    connect(poller, &StatusPoller::registryRead, this, [this](const RegistrySnapshot &registry) {
        if (m_phase == Phase::Running)
            Q_EMIT registryChanged(registry);
    });
    connect(poller, &StatusPoller::drainFinished, this, &ConsoleSession::drainFinished);
    connect(poller, &StatusPoller::handoverFinished, this, &ConsoleSession::handoverFinished);
    m_pollThread->start();
    m_phase = Phase::Running;
    setInterval(m_intervalMs);
}

void ConsoleSession::connectTo(const ConnectionProfile &profile)
{
    if (m_phase == Phase::ShuttingDown || m_phase == Phase::Finished)
        return;
    startPoller();
    m_haveRows = false;
    m_lastRowsAt = {};
    m_lastProblem.clear();
    m_problemRepeats = 0;
    m_staleTimer->stop();
    setStale(false);
    postTo(m_poller, [poller = m_poller, profile] { poller->setTarget(profile); });
}

void ConsoleSession::startDemo(const QString &directory)
{
    if (m_demo || m_phase == Phase::ShuttingDown || m_phase == Phase::Finished)
        return;
    startPoller();
    m_demoThread = new QThread(this);
    m_demoThread->setObjectName(QStringLiteral("demo host"));
    DemoHost::Options options;
    options.directory = directory;
    auto *demo = new DemoHost(options);
    demo->moveToThread(m_demoThread);
    m_demo = demo;
    connect(m_demoThread, &QThread::finished, demo, &QObject::deleteLater);
    connect(m_demoThread, &QThread::finished, this, &ConsoleSession::finishIfDone);
    connect(demo, &DemoHost::progress, this, &ConsoleSession::demoProgress);
    connect(demo, &DemoHost::started, this, [this](const ConnectionProfile &monitor) {
        if (m_phase != Phase::Running)
            return;
        m_demoRunning = true;
        m_demoDatabase = monitor;
        connectTo(monitor);
        Q_EMIT demoStarted(monitor);
    });
    connect(demo, &DemoHost::pausedFromLastRun, this, &ConsoleSession::demoPausedFromLastRun);
    connect(demo, &DemoHost::failed, this, &ConsoleSession::demoFailed);
    connect(demo, &DemoHost::replicasChanged, this, [this](const QList<ReplicaInfo> &replicas) {
        m_replicas = replicas;
        Q_EMIT replicasChanged(replicas);
    });
    connect(demo, &DemoHost::event, this, &ConsoleSession::demoEvent);
    connect(demo, &DemoHost::failoverMeasured, this, [this](const Failover &failover) {
        Q_EMIT failoverMeasured(failover);
        Q_EMIT takeover(failover);
    });
    connect(demo, &DemoHost::stopped, this, &ConsoleSession::onDemoStopped);
    // The drill's audit reads the demo's database, so it runs beside the host that owns it.
    auto *auditor = new DrillAuditor;
    auditor->moveToThread(m_demoThread);
    m_auditor = auditor;
    connect(m_demoThread, &QThread::finished, auditor, &QObject::deleteLater);
    connect(auditor, &DrillAuditor::audited, this, &ConsoleSession::drillAudited);
    m_demoThread->start();
    postTo(demo, &DemoHost::start);
}

void ConsoleSession::stopDemo()
{
    if (!m_demo || m_demoStopping)
        return;
    m_demoRunning = false;
    m_demoStopping = true;
    m_auditStop.request_stop(); // not to hold the host's shutdown up
    postTo(m_demo, &DemoHost::shutdown);
}

void ConsoleSession::onDemoStopped()
{
    m_demoRunning = false;
    m_demoStopping = true; // stopped by itself, too: nothing more is posted to it
    if (m_demoThread)
        m_demoThread->quit(); // finished → the host is deleted in its thread, finishIfDone
    Q_EMIT demoStopped();
}

void ConsoleSession::setInterval(int milliseconds)
{
    m_intervalMs = qMax(0, milliseconds);
    if (m_poller)
        postTo(m_poller, [poller = m_poller, milliseconds = m_intervalMs] {
            poller->setInterval(milliseconds);
        });
    armStaleTimer();
}

void ConsoleSession::setSuspended(bool suspended)
{
    m_suspended = suspended;
    if (suspended)
        m_staleTimer->stop(); // nothing is polled while minimised: not a failure
    else
        armStaleTimer();
    if (m_poller)
        postTo(m_poller, [poller = m_poller, suspended] { poller->setSuspended(suspended); });
}

void ConsoleSession::refresh()
{
    if (m_poller)
        postTo(m_poller, &StatusPoller::pollNow);
}

void ConsoleSession::pause(const QStringList &roles, const QString &by, const QString &reason,
                           const PauseEnd &end)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller, [poller = m_poller, roles, by, reason, end] {
            poller->pause(roles, by, reason, end);
        });
}

void ConsoleSession::unpause(const QStringList &roles, const QString &by, const QString &reason)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller,
               [poller = m_poller, roles, by, reason] { poller->unpause(roles, by, reason); });
}

void ConsoleSession::checkDrain(const QString &replica)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller, [poller = m_poller, replica] { poller->checkDrain(replica); });
    else
        Q_EMIT drainFinished(DrainResult{.replica = replica, .error = tr("not connected")});
}

void ConsoleSession::handOver(const QString &role, const QString &by, const QString &reason,
                              const QString &toReplica)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller, [poller = m_poller, role, by, reason, toReplica] {
            poller->handOver(role, by, reason, toReplica);
        });
    else
        Q_EMIT handoverFinished(
                HandoverResult{.role = role, .toReplica = toReplica, .error = tr("not connected")});
}

void ConsoleSession::drain(const QString &replica, const QString &by, const QString &reason,
                           bool force)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller, [poller = m_poller, replica, by, reason, force] {
            poller->drain(replica, by, reason, force);
        });
    else
        Q_EMIT drainFinished(DrainResult{
                .action = DrainAction::Drain, .replica = replica, .error = tr("not connected")});
}

void ConsoleSession::undrain(const QString &replica, const QString &by, const QString &reason)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller,
               [poller = m_poller, replica, by, reason] { poller->undrain(replica, by, reason); });
    else
        Q_EMIT drainFinished(DrainResult{
                .action = DrainAction::Undrain, .replica = replica, .error = tr("not connected")});
}

void ConsoleSession::readPauseLog(PauseLogSince since)
{
    if (m_poller && m_phase == Phase::Running)
        postTo(m_poller, [poller = m_poller, since] { poller->readPauseLog(since); });
    else
        Q_EMIT pauseLogRead(PauseLogResult{.error = tr("not connected")});
}

void ConsoleSession::inject(const FaultRequest &request)
{
    // Not m_demoRunning: the demo's replicas lead, and are listed here, before its started()
    // arrives, and the drill faults the first holder it sees. Posted, the fault waits on the
    // host's thread behind the start; a demo that did not start refuses it, and says so.
    if (m_demo && !m_demoStopping && m_phase == Phase::Running) {
        postTo(m_demo, [demo = m_demo, request] { demo->inject(request); });
        return;
    }
    Q_EMIT demoEvent({.time = QDateTime::currentDateTimeUtc(),
                      .source = QStringLiteral("console"),
                      .role = request.role,
                      .event = EventKind::Fault,
                      .detail = tr("%1 %2: not sent, the demo is not running")
                                        .arg(faultName(request.kind), request.replica)});
}

void ConsoleSession::runDrill()
{
    if (m_phase != Phase::Running || !m_demo)
        return;
    const ReplicaInfo *victim = nullptr;
    for (const ReplicaInfo &replica : std::as_const(m_replicas)) {
        if (replica.state == ReplicaState::Running
            && replica.leading.contains(leaseRoleName(LeaseRole::Billing)))
            victim = &replica;
    }
    for (const ReplicaInfo &replica : std::as_const(m_replicas)) {
        if (!victim && replica.state == ReplicaState::Running && !replica.leading.isEmpty())
            victim = &replica;
    }
    if (!victim) {
        QTimer::singleShot(250, this, &ConsoleSession::runDrill); // roles are tick-scoped
        return;
    }
    Q_EMIT drillVictim(victim->id, victim->leading);
    inject({.replica = victim->id, .kind = FaultKind::Kill});
}

void ConsoleSession::auditDrill(const QDateTime &since)
{
    if (!m_auditor || !m_demoRunning || m_phase != Phase::Running) {
        postTo(this, [this] { Q_EMIT drillAudited({.error = tr("the demo is not running")}); });
        return;
    }
    m_auditStop = std::stop_source();
    postTo(m_auditor, [auditor = m_auditor, database = m_demoDatabase, since,
                       stop = m_auditStop.get_token()] { auditor->audit(database, since, stop); });
}

void ConsoleSession::cancelDrillAudit()
{
    m_auditStop.request_stop();
}

void ConsoleSession::forgetHolders()
{
    m_takeovers->clear();
}

void ConsoleSession::shutdown()
{
    if (m_phase == Phase::ShuttingDown || m_phase == Phase::Finished)
        return;
    m_phase = Phase::ShuttingDown;
    m_staleTimer->stop();
    m_shutdownBound->start(m_demo ? DemoShutdownBoundMs : DatabaseShutdownBoundMs);
    if (m_poller) {
        m_poller->abandon(); // thread-safe: ends a connect or poll in flight at once
        postTo(m_poller, &StatusPoller::stop);
        m_pollThread->quit();
    }
    m_auditStop.request_stop(); // not to hold the demo host's shutdown up
    if (m_demo) {
        m_demoRunning = false;
        if (!m_demoStopping) {
            m_demoStopping = true;
            postTo(m_demo, &DemoHost::shutdown);
        }
    }
    // Never from within this call: a window's closeEvent calls it, and a close() nested in that
    // event is dropped (the workers may well have ended already on a busy machine).
    QMetaObject::invokeMethod(this, &ConsoleSession::finishIfDone, Qt::QueuedConnection);
}

void ConsoleSession::finishIfDone()
{
    if (m_phase != Phase::ShuttingDown)
        return;
    const bool pollerDone = !m_pollThread || m_pollThread->isFinished();
    const bool demoDone = !m_demoThread || m_demoThread->isFinished();
    if (pollerDone && demoDone)
        finish();
}

void ConsoleSession::finish()
{
    if (m_phase == Phase::Finished)
        return;
    m_phase = Phase::Finished;
    m_shutdownBound->stop();
    Q_EMIT finished();
}

void ConsoleSession::joinThreads(int boundMs)
{
    const QDeadlineTimer deadline(boundMs);
    for (QThread *thread : {m_pollThread, m_demoThread}) {
        if (!thread)
            continue;
        thread->quit();
        if (!thread->wait(deadline)) {
            // Only a worker that broke its own bound gets here; a QThread destroyed running
            // aborts the process, so it is left to the process's exit instead.
            qWarning("leader-console: the %s thread did not stop; exiting without it",
                     qPrintable(thread->objectName()));
            thread->setParent(nullptr);
        }
    }
}

void ConsoleSession::onSnapshot(const StatusSnapshot &rows)
{
    if (m_phase != Phase::Running)
        return;
    m_haveRows = true;
    m_lastRowsAt = rows.receivedAt.isValid() ? rows.receivedAt : QDateTime::currentDateTimeUtc();
    m_lastProblem.clear();
    m_problemRepeats = 0;
    setStale(false);
    armStaleTimer();
    // Takeovers first, as the window has always told them: before the snapshot's alerts.
    const QList<HolderChange> changes = m_takeovers->append(rows, m_demoRunning);
    Q_EMIT snapshot(rows, changes);
}

void ConsoleSession::onConnectionChanged(ConnectionState state, const QString &message)
{
    if (!isConnected(state) && m_haveRows)
        setStale(true);
    Q_EMIT connectionChanged(state, message);
}

void ConsoleSession::onPollFailed(const QString &message)
{
    if (m_phase != Phase::Running)
        return;
    if (m_haveRows)
        setStale(true);
    m_problemRepeats = message == m_lastProblem ? m_problemRepeats + 1 : 1;
    m_lastProblem = message;
    Q_EMIT pollProblem(message, m_problemRepeats);
}

void ConsoleSession::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    Q_EMIT staleChanged(stale, m_lastRowsAt);
}

void ConsoleSession::armStaleTimer()
{
    if (m_haveRows && m_intervalMs > 0 && !m_suspended && m_phase == Phase::Running)
        m_staleTimer->start(2 * m_intervalMs + StaleMarginMs);
    else
        m_staleTimer->stop();
}

} // namespace leader::console
