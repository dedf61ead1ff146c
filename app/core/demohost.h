#pragma once

#include "connectionprofile.h"
#include "demotypes.h"

#include <QList>
#include <QMetaType> // connectionprofile.h uses Q_DECLARE_METATYPE without including it
#include <QObject>
#include <QString>

#include <memory>

namespace leader::console {

// The embedded demo, hosted in a worker thread (moveToThread): a private PostgreSQL cluster in
// the user's data directory (created on first run, reused after), the lease and demo migrations
// on database leader_demo, three replicas running the five roles with the demo profile and fault
// switchboards, and the workload. Every slot returns quickly or runs on the host's thread;
// results and engine events come back as queued signals.
class DemoHost final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoHost)

public:
    struct Options
    {
        // The cluster's directory; empty: <GenericDataLocation>/leader-console/demo-cluster, the
        // one `leaderctl demo` uses (as root /var/lib/leader-console/demo-cluster).
        QString directory;
        int replicas = 3;
        bool workload = true;
    };

    explicit DemoHost(Options options, QObject *parent = nullptr);
    ~DemoHost() override; // stops everything still running

public Q_SLOTS:
    void start();    // emits progress(...) then started(...) or failed(...)
    void shutdown(); // clean stop of replicas and workload, then the cluster; emits stopped()
    void inject(const leader::console::FaultRequest &request);

Q_SIGNALS:
    void progress(const QString &step);
    void started(const leader::console::ConnectionProfile &monitor);
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
