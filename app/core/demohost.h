#pragma once

#include "connectionprofile.h"
#include "demotypes.h"

#include <QList>
#include <QMetaType> // connectionprofile.h uses Q_DECLARE_METATYPE without including it
#include <QObject>
#include <QString>

#include <memory>

namespace leader::console {

// The embedded demo (demo::DemoRunner: the private cluster, three replicas with fault switchboards,
// the workload, the takeover watches) behind Qt signals. It lives in a worker thread
// (moveToThread); start() and shutdown() block that thread while the runner starts or stops. The
// runner reports from its own threads (and from the host's, inside start, inject and shutdown),
// and DemoHost emits each report as a signal right there: receivers living in another thread (the
// session, the tests) get them queued, in the order the runner reported them.
class DemoHost final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoHost)

public:
    struct Options
    {
        // The cluster's directory; empty: demo::defaultDemoDirectory(), the one `leaderctl demo`
        // uses.
        QString directory;
        int replicas = 3;
        bool workload = true;
    };

    explicit DemoHost(Options options, QObject *parent = nullptr);
    ~DemoHost() override; // stops everything still running

public Q_SLOTS:
    // Emits progress(...) then started(...) or failed(...); before started, pausedFromLastRun
    // when roles are still paused from the last run.
    void start();
    void shutdown(); // clean stop of replicas and workload, then the cluster; emits stopped()
    void inject(const leader::console::FaultRequest &request);

Q_SIGNALS:
    void progress(const QString &step);
    void started(const leader::console::ConnectionProfile &monitor);
    // The roles paused when the demo started, by role: nothing this run did, so the operator is
    // told and may unpause them. Not emitted when none are, nor when they could not be read.
    void pausedFromLastRun(const QList<leader::console::LeftoverPause> &pauses);
    void failed(const QString &message);
    void replicasChanged(const QList<leader::console::ReplicaInfo> &replicas);
    void event(const leader::console::EventLogEntry &entry);
    void failoverMeasured(const leader::console::Failover &failover);
    void stopped();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace leader::console
