#include "demohost.h"

#include "core/demoengine.h"
#include "demo/demorunner.h"
#include "monitor/statusreader.h"

#include <QDateTime>
#include <QStringList>

#include <atomic>
#include <variant>

namespace leader::console {

namespace {

QString qtext(const std::string &value)
{
    return QString::fromStdString(value);
}

QDateTime utc(std::chrono::system_clock::time_point time)
{
    return QDateTime::fromMSecsSinceEpoch(
            std::chrono::round<std::chrono::milliseconds>(time.time_since_epoch()).count(),
            Qt::UTC);
}

QStringList qlist(const std::vector<std::string> &values)
{
    QStringList list;
    for (const std::string &value : values)
        list.append(qtext(value));
    return list;
}

EventLogEntry entryOf(const demo::DemoEvent &event)
{
    EventLogEntry entry;
    entry.time = utc(event.time);
    entry.source = qtext(event.source);
    entry.role = qtext(event.role);
    entry.event = fromEngine(event.event);
    entry.token = event.token;
    entry.detail = qtext(event.detail);
    entry.databaseTime = qtext(event.databaseTime);
    return entry;
}

Failover failoverOf(const demo::Takeover &takeover)
{
    Failover failover;
    failover.role = qtext(takeover.role);
    failover.fault = qtext(takeover.fault);
    failover.victim = qtext(takeover.victim);
    failover.victimHolder = qtext(takeover.victimHolder);
    failover.victimToken = takeover.victimToken;
    failover.successor = qtext(takeover.successor);
    failover.successorHolder = qtext(takeover.successorHolder);
    failover.successorToken = takeover.successorToken;
    failover.faultAt = utc(takeover.faultAt);
    if (takeover.lastHeartbeatAt)
        failover.lastHeartbeatAt = utc(*takeover.lastHeartbeatAt);
    if (takeover.releasedAt)
        failover.releasedAt = utc(*takeover.releasedAt);
    failover.acquiredAt = utc(takeover.acquiredAt);
    failover.gapSeconds = takeover.gapSeconds;
    return failover;
}

QDateTime utcFromEpoch(const std::optional<double> &seconds)
{
    return seconds ? QDateTime::fromMSecsSinceEpoch(qRound64(*seconds * 1000), Qt::UTC)
                   : QDateTime();
}

// The roles the demo's database has paused, read once as the console's poller reads them.
QList<LeftoverPause> pausedRoles(const ConnectionProfile &database)
{
    monitor::StatusReader reader(database.conninfo().toStdString(), {},
                                 std::chrono::milliseconds(5000));
    QList<LeftoverPause> paused;
    if (std::holds_alternative<monitor::Failure>(reader.open()))
        return paused; // the poller will say what is wrong with the database
    const monitor::Outcome<monitor::StatusRows> rows = reader.poll();
    if (const auto *status = std::get_if<monitor::StatusRows>(&rows)) {
        for (const monitor::RoleRow &row : status->roles) {
            if (row.pausedAt)
                paused.append({qtext(row.role), qtext(row.pausedBy), qtext(row.pauseReason),
                               utcFromEpoch(row.pausedAt), utcFromEpoch(row.pausedUntil)});
        }
    }
    return paused;
}

demo::DemoRunner::Options runnerOptions(const DemoHost::Options &options)
{
    demo::DemoRunner::Options converted;
    converted.directory = options.directory.toStdString();
    converted.replicas = options.replicas;
    converted.workload = options.workload;
    converted.faultSource = "panel"; // the failure panel asked for it
    return converted;
}

} // namespace

struct DemoHost::Private final : demo::DemoListener
{
    Private(DemoHost *q, const Options &options)
        : q(q)
        , runner(runnerOptions(options), *this)
    {}

    void progress(const std::string &step) override
    {
        if (!quiet)
            Q_EMIT q->progress(qtext(step));
    }
    void event(const demo::DemoEvent &event) override
    {
        if (!quiet)
            Q_EMIT q->event(entryOf(event));
    }
    void replicasChanged(const std::vector<demo::ReplicaStatus> &replicas) override
    {
        if (quiet)
            return;
        QList<ReplicaInfo> list;
        for (const demo::ReplicaStatus &replica : replicas)
            list.append({qtext(replica.id), qtext(replica.holderId), fromEngine(replica.state),
                         qtext(replica.faults), qlist(replica.leading), replica.faulted});
        Q_EMIT q->replicasChanged(list);
    }
    void takeoverMeasured(const demo::Takeover &takeover) override
    {
        if (!quiet)
            Q_EMIT q->failoverMeasured(failoverOf(takeover));
    }

    DemoHost *q;
    std::atomic<bool> quiet = false; // set by a host going away: nothing more is emitted
    demo::DemoRunner runner;         // last: stopped before the rest goes
};

DemoHost::DemoHost(Options options, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this, options))
{
    qRegisterMetaType<FaultRequest>();
    qRegisterMetaType<ReplicaInfo>();
    qRegisterMetaType<QList<ReplicaInfo>>();
    qRegisterMetaType<EventLogEntry>();
    qRegisterMetaType<Failover>();
    qRegisterMetaType<ConnectionProfile>();
    qRegisterMetaType<QList<LeftoverPause>>();
}

DemoHost::~DemoHost()
{
    d->quiet = true;
    d->runner.stop();
}

void DemoHost::start()
{
    const demo::DemoRunner::StartResult result = d->runner.start();
    if (!result.error.empty()) {
        Q_EMIT failed(qtext(result.error));
        return;
    }
    ConnectionProfile monitor;
    monitor.host = qtext(result.endpoint.host);
    monitor.port = result.endpoint.port;
    monitor.database = qtext(result.endpoint.database);
    monitor.user = qtext(result.endpoint.user);
    monitor.password = qtext(result.endpoint.password);
    monitor.sslMode = QStringLiteral("disable");
    // Before started: nothing of this run can have paused a role yet.
    if (const QList<LeftoverPause> paused = pausedRoles(monitor); !paused.isEmpty())
        Q_EMIT pausedFromLastRun(paused);
    Q_EMIT started(monitor);
}

void DemoHost::shutdown()
{
    d->runner.stop();
    Q_EMIT stopped();
}

void DemoHost::inject(const FaultRequest &request)
{
    d->runner.inject({.replica = request.replica.toStdString(),
                      .kind = toEngine(request.kind),
                      .duration = std::chrono::milliseconds(request.durationMs),
                      .role = request.role.toStdString(),
                      .step = request.step.toStdString()});
}

} // namespace leader::console
