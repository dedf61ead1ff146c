#include "demohost.h"

#include "demo/bootstrap.h"
#include "demo/workload.h"
#include "embedded/cluster.h"
#include "lease/events.h"
#include "lease/roles.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/process.h"
#include "replica/replica.h"
#include "takeoverwatch.h"

#include <QDateTime>
#include <QMetaObject>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>

namespace leader::console {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 5s;
constexpr auto TakeoverDeadline = 40s;
constexpr auto TakeoverPoll = 200ms;
constexpr int ThrottleMs = 200; // replicasChanged at most five times a second
constexpr int RefreshMs = 1000; // a freeze counts down in the switchboard's description

// The workload: two tenants a second in rounds of a minute, up to MaxTenants in the database
// (kept across runs). Each subscription recurs every WorkloadPeriod, so billing keeps steady
// work after the cap is reached while the tables stop growing but for invoices.
constexpr double WorkloadRate = 2.0;
constexpr std::int64_t WorkloadRound = 120;
constexpr std::int64_t MaxTenants = 300;
constexpr auto WorkloadPeriod = 600s;
constexpr auto WorkloadCapRecheck = 60s;
constexpr auto WorkloadRetry = 5s;

QString qtext(std::string_view value)
{
    return QString::fromUtf8(value.data(), qsizetype(value.size()));
}

// One line, no secret: the first line of an engine message with the cluster's password removed.
QString oneLine(const std::string &message, const std::string &url)
{
    std::string text = url.empty() ? message : pg::redactSecrets(message, url);
    if (const std::size_t end = text.find_first_of("\r\n"); end != std::string::npos)
        text.resize(end);
    return qtext(text).trimmed();
}

QString defaultDirectory()
{
    // The server runs as an unprivileged account when we are root, and it cannot reach /root.
    if (platform::isRoot())
        return QStringLiteral("/var/lib/leader-console/demo-cluster");
    // The directory `leaderctl demo` uses too, so both reach the same cluster.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
           + QStringLiteral("/leader-console/demo-cluster");
}

QString seconds(int milliseconds)
{
    return QString::number(milliseconds / 1000.0, 'g', 4) + QStringLiteral(" s");
}

QString describeRequest(const FaultRequest &request)
{
    QString text = faultName(request.kind) + u' ' + request.replica;
    switch (request.kind) {
    case FaultKind::Freeze:
    case FaultKind::Sever:
        text += u' ' + seconds(request.durationMs);
        break;
    case FaultKind::Slow:
        text += u' ' + QString::number(request.durationMs) + QStringLiteral(" ms");
        break;
    case FaultKind::Panic:
        text += u' ' + request.role + (request.step.isEmpty() ? QString() : u' ' + request.step);
        break;
    default:
        break;
    }
    return text;
}

// Runs each job on a thread of its own and joins them all: every job is bounded by construction
// (statement deadlines, stop tokens, healed fault gates), so running them side by side bounds the
// whole by the slowest.
void runAll(std::vector<std::function<void()>> jobs)
{
    std::vector<std::thread> running;
    running.reserve(jobs.size());
    for (std::function<void()> &job : jobs) {
        running.emplace_back([job = std::move(job)] {
            try {
                job();
            } catch (...) {
                // A stop that throws has still stopped what it could.
            }
        });
    }
    for (std::thread &thread : running)
        thread.join();
}

} // namespace

struct DemoHost::Private
{
    // What engine threads reach the host through: it posts to the host's thread while the host
    // lives, and drops what arrives after, and it maps holder ids to replica ids for the watches.
    struct Relay
    {
        std::mutex mutex;
        DemoHost *host = nullptr;
        std::map<QString, QString> replicaOfHolder;

        void post(std::function<void(Private &)> work)
        {
            const std::lock_guard lock(mutex);
            if (!host)
                return;
            Private *d = host->d.get();
            QMetaObject::invokeMethod(
                    host, [d, work = std::move(work)] { work(*d); }, Qt::QueuedConnection);
        }
        void addHolder(const QString &holderId, const QString &replica)
        {
            const std::lock_guard lock(mutex);
            replicaOfHolder[holderId] = replica;
        }
        QString replicaOf(const QString &holderId)
        {
            const std::lock_guard lock(mutex);
            const auto it = replicaOfHolder.find(holderId);
            return it == replicaOfHolder.end() ? QString() : it->second;
        }
    };

    struct WorkloadState
    {
        std::mutex mutex;
        std::condition_variable wake;
        bool stopRequested = false;
        demo::Workload *current = nullptr;
        std::stop_source stop; // ends the statement in flight
    };

    struct Hosted
    {
        QString id;
        std::shared_ptr<replica::Replica> replica; // null while a restart builds the new one
        QString holderId;
        ReplicaState state = ReplicaState::Starting;
        QStringList leading;
        QString faults;
    };

    explicit Private(DemoHost *q, Options options)
        : q(q)
        , options(std::move(options))
        , relay(std::make_shared<Relay>())
    {
        relay->host = q;
    }

    void start();
    void teardown();
    void inject(const FaultRequest &request);

    std::shared_ptr<replica::Replica> makeReplica(const QString &id) const;
    void startWorkload();
    std::shared_ptr<TakeoverWatch> armWatch(const Hosted &victim, const QString &fault,
                                            bool cleanStop);
    void chore(std::function<void()> work);

    Hosted *find(const QString &id);
    void handleEvent(const QString &replicaId, const QString &holderId, lease::EventKind kind,
                     const EventLogEntry &entry);
    void log(const QString &event, const QString &detail, const QString &role = {});
    void markChanged();
    void refreshFaults();
    void emitReplicas();

    DemoHost *q;
    Options options;
    std::shared_ptr<Relay> relay;
    std::unique_ptr<embedded::Cluster> cluster;
    std::string replicaUrl; // TCP, so the link faults have a link to act on
    std::string hostUrl;    // the Unix socket: the host's own connections, never cut by a fault
    QList<Hosted> replicas;
    bool running = false;

    std::shared_ptr<WorkloadState> workload;
    std::thread workloadThread;

    std::list<std::shared_ptr<TakeoverWatch>> watches;

    // Kills, stops and restarts run off the host's thread (joining a replica's runners takes a
    // while); each is joined once done, and all of them at teardown.
    struct Chore
    {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::list<Chore> chores;

    QTimer *throttle = nullptr;
    QTimer *refresh = nullptr;
};

std::shared_ptr<replica::Replica> DemoHost::Private::makeReplica(const QString &id) const
{
    replica::ReplicaOptions replicaOptions;
    replicaOptions.id = id.toStdString();
    replicaOptions.database.url = replicaUrl;
    replicaOptions.fastWake = true;
    replicaOptions.faults = true;
    auto made = std::make_shared<replica::Replica>(std::move(replicaOptions));
    std::weak_ptr<Relay> weakRelay = relay;
    const QString holderId = qtext(made->holderId());
    relay->addHolder(holderId, id);
    made->subscribe([weakRelay, id, holderId](const replica::ReplicaEvent &event) {
        const std::shared_ptr<Relay> relay = weakRelay.lock();
        if (!relay)
            return;
        const lease::TransitionEvent &transition = event.transition;
        EventLogEntry entry;
        entry.time = QDateTime::fromMSecsSinceEpoch(
                std::chrono::duration_cast<std::chrono::milliseconds>(
                        transition.wall.time_since_epoch())
                        .count(),
                Qt::UTC);
        entry.source = id;
        entry.role = qtext(transition.role);
        entry.event = qtext(lease::eventName(transition.kind));
        entry.token = transition.token;
        QStringList detail;
        for (const std::string *part :
             {&transition.outcome, &transition.reason, &transition.detail})
            if (!part->empty())
                detail.append(oneLine(*part, {}));
        entry.detail = detail.join(QStringLiteral("; "));
        entry.databaseTime = qtext(transition.databaseTime);
        const lease::EventKind kind = transition.kind;
        relay->post([id, holderId, kind, entry](Private &d) {
            d.handleEvent(id, holderId, kind, entry);
        });
    });
    return made;
}

void DemoHost::Private::start()
{
    if (running || cluster) {
        Q_EMIT q->failed(QStringLiteral("The demo is already running; stop it first."));
        return;
    }
    const QString directory = options.directory.isEmpty() ? defaultDirectory() : options.directory;
    try {
        cluster = demo::startDemoCluster(directory.toStdString(), [this](const std::string &step) {
                      Q_EMIT q->progress(qtext(step));
                  }).cluster;
        replicaUrl = cluster->tcpUrl(demo::DemoDatabase);
        hostUrl = cluster->url(demo::DemoDatabase);
        // The socket URL carries no password (local connections are trusted): safe to log, and
        // what an operator pastes into psql to look inside the demo.
        log::write(log::Level::Info, "demo", "cluster ready", "url=" + hostUrl);

        QStringList ids;
        for (int i = 1; i <= options.replicas; ++i)
            ids.append(QStringLiteral("r%1").arg(i));
        Q_EMIT q->progress(
                QStringLiteral("starting replicas %1").arg(ids.join(QStringLiteral(", "))));
        for (const QString &id : std::as_const(ids)) {
            Hosted hosted;
            hosted.id = id;
            hosted.replica = makeReplica(id);
            hosted.holderId = qtext(hosted.replica->holderId());
            hosted.state = ReplicaState::Starting;
            replicas.append(hosted);
            replicas.last().replica->start();
            replicas.last().state = ReplicaState::Running;
        }
        if (options.workload) {
            Q_EMIT q->progress(QStringLiteral("starting the workload"));
            startWorkload();
        }
    } catch (const std::exception &error) {
        const QString message = QStringLiteral("Cannot start the embedded demo in %1: %2")
                                        .arg(directory, oneLine(error.what(), replicaUrl));
        teardown();
        // Also on stderr: the one place a console started from a terminal, or a script, reads it.
        log::write(log::Level::Error, "demo", "cannot start", "error=" + message.toStdString());
        Q_EMIT q->failed(message);
        return;
    }
    running = true;
    refreshFaults();
    refresh->start(RefreshMs);

    ConnectionProfile monitor;
    monitor.host = QStringLiteral("127.0.0.1");
    monitor.port = cluster->port();
    monitor.database = QLatin1String(demo::DemoDatabase);
    monitor.user = qtext(cluster->superuser());
    monitor.password = qtext(cluster->password());
    monitor.sslMode = QStringLiteral("disable");
    Q_EMIT q->started(monitor);
    emitReplicas();
}

void DemoHost::Private::startWorkload()
{
    workload = std::make_shared<WorkloadState>();
    std::weak_ptr<Relay> weakRelay = relay;
    workloadThread = std::thread([state = workload, url = hostUrl, weakRelay] {
        pg::Connection connection({.url = url,
                                   .applicationName = "leader-console workload",
                                   .stop = state->stop.get_token()});
        const auto pause = [&state](std::chrono::milliseconds duration) {
            std::unique_lock lock(state->mutex);
            state->wake.wait_for(lock, duration, [&state] { return state->stopRequested; });
        };
        for (;;) {
            {
                const std::lock_guard lock(state->mutex);
                if (state->stopRequested)
                    return;
            }
            try {
                const std::int64_t existing
                        = connection
                                  .exec("count tenants", "SELECT count(*) FROM tenants", {},
                                        StatementTimeout)
                                  .toInt64(0, 0);
                if (existing >= MaxTenants) {
                    pause(WorkloadCapRecheck);
                    continue;
                }
                demo::WorkloadOptions workloadOptions;
                workloadOptions.ratePerSecond = WorkloadRate;
                workloadOptions.count = std::min(WorkloadRound, MaxTenants - existing);
                workloadOptions.duration = 2min;
                workloadOptions.period = WorkloadPeriod;
                demo::Workload round(connection, workloadOptions);
                {
                    const std::lock_guard lock(state->mutex);
                    if (state->stopRequested)
                        return;
                    state->current = &round;
                }
                try {
                    round.run();
                } catch (...) {
                    const std::lock_guard lock(state->mutex);
                    state->current = nullptr;
                    throw;
                }
                const std::lock_guard lock(state->mutex);
                state->current = nullptr;
            } catch (const std::exception &error) {
                if (const std::shared_ptr<Relay> relay = weakRelay.lock()) {
                    const QString detail = oneLine(error.what(), url);
                    relay->post([detail](Private &d) {
                        EventLogEntry entry;
                        entry.time = QDateTime::currentDateTimeUtc();
                        entry.source = QStringLiteral("workload");
                        entry.event = QStringLiteral("error");
                        entry.detail = detail + QStringLiteral("; retrying in 5 s");
                        Q_EMIT d.q->event(entry);
                    });
                }
                pause(WorkloadRetry);
            }
        }
    });
}

void DemoHost::Private::chore(std::function<void()> work)
{
    chores.remove_if([](Chore &finished) {
        if (!finished.done->load())
            return false;
        finished.thread.join();
        return true;
    });
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([work = std::move(work), done] {
        try {
            work();
        } catch (...) {
            // Each chore reports its own failures; nothing may escape a thread.
        }
        done->store(true);
    });
    chores.push_back({std::move(thread), std::move(done)});
}

void DemoHost::Private::teardown()
{
    if (refresh && QThread::currentThread() == q->thread()) {
        refresh->stop();
        throttle->stop();
    }
    for (const std::shared_ptr<TakeoverWatch> &watch : watches)
        watch->stop();
    watches.clear(); // joins: each watch wakes at once and its statements have a 2 s deadline

    if (workload) {
        {
            const std::lock_guard lock(workload->mutex);
            workload->stopRequested = true;
            if (workload->current)
                workload->current->stop();
        }
        workload->stop.request_stop();
        workload->wake.notify_all();
    }
    // A frozen replica's statements wait at its fault gate for the rest of the freeze; healed,
    // they go out (and fail their fence, or release what is still theirs).
    for (Hosted &hosted : replicas) {
        if (hosted.replica && hosted.replica->faults())
            hosted.replica->faults()->heal();
    }
    std::vector<std::function<void()>> stops;
    if (workloadThread.joinable())
        stops.push_back([thread = std::make_shared<std::thread>(std::move(workloadThread))] {
            thread->join();
        });
    workload.reset();
    // Restarts and stops still running finish first, so no replica is started behind our back.
    for (Chore &chore : chores)
        chore.thread.join();
    chores.clear();
    for (Hosted &hosted : replicas) {
        if (hosted.replica)
            stops.push_back([replica = std::move(hosted.replica)]() mutable {
                replica->stop(); // a clean release of the running ticks
                replica.reset();
            });
    }
    replicas.clear();
    runAll(std::move(stops));

    if (cluster) {
        try {
            cluster->stop();
        } catch (const std::exception &) {
            // The destructor tries once more; there is nobody left to tell.
        }
        cluster.reset();
    }
    running = false;
}

DemoHost::Private::Hosted *DemoHost::Private::find(const QString &id)
{
    for (Hosted &hosted : replicas)
        if (hosted.id == id)
            return &hosted;
    return nullptr;
}

void DemoHost::Private::log(const QString &event, const QString &detail, const QString &role)
{
    EventLogEntry entry;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.source = QStringLiteral("panel");
    entry.role = role;
    entry.event = event;
    entry.detail = detail;
    Q_EMIT q->event(entry);
}

void DemoHost::Private::handleEvent(const QString &replicaId, const QString &holderId,
                                    lease::EventKind kind, const EventLogEntry &entry)
{
    for (const std::shared_ptr<TakeoverWatch> &watch : watches) {
        if (kind == lease::EventKind::Acquired)
            watch->noteAcquired(entry.role, entry.token, holderId, entry.databaseTime);
        else if (kind == lease::EventKind::Released)
            watch->noteReleased(entry.role, entry.token, entry.databaseTime);
    }
    Q_EMIT q->event(entry);
    Hosted *hosted = find(replicaId);
    // A restarted replica's predecessor has nothing more to say about what it leads.
    if (!hosted || hosted->holderId != holderId)
        return;
    const bool had = hosted->leading.contains(entry.role);
    if (kind == lease::EventKind::LateBeat)
        return;
    if (kind == lease::EventKind::Acquired && !had) {
        hosted->leading.append(entry.role);
        std::sort(hosted->leading.begin(), hosted->leading.end());
    } else if (kind != lease::EventKind::Acquired && had) {
        hosted->leading.removeAll(entry.role);
    } else {
        return;
    }
    markChanged();
}

void DemoHost::Private::markChanged()
{
    if (!throttle->isActive())
        throttle->start(ThrottleMs);
}

void DemoHost::Private::refreshFaults()
{
    bool changed = false;
    for (Hosted &hosted : replicas) {
        QString faults = QStringLiteral("normal");
        if (hosted.replica && hosted.replica->faults())
            faults = qtext(hosted.replica->faults()->describe());
        if (faults != hosted.faults) {
            hosted.faults = faults;
            changed = true;
        }
    }
    if (changed)
        markChanged();
}

void DemoHost::Private::emitReplicas()
{
    QList<ReplicaInfo> list;
    for (const Hosted &hosted : std::as_const(replicas))
        list.append({hosted.id, hosted.holderId, hosted.state, hosted.faults, hosted.leading});
    Q_EMIT q->replicasChanged(list);
}

std::shared_ptr<TakeoverWatch> DemoHost::Private::armWatch(const Hosted &victim,
                                                           const QString &fault, bool cleanStop)
{
    TakeoverWatch::Options watchOptions;
    watchOptions.database = {.url = hostUrl, .applicationName = "leader-console takeover watch"};
    watchOptions.fault = fault;
    watchOptions.victim = victim.id;
    watchOptions.victimHolder = victim.holderId;
    watchOptions.cleanStop = cleanStop;
    watchOptions.pollEvery = TakeoverPoll;
    watchOptions.deadline = TakeoverDeadline;
    std::weak_ptr<Relay> weakRelay = relay;
    // The watch is made after its callbacks; finished() runs only once it has started.
    auto self = std::make_shared<TakeoverWatch *>(nullptr);
    TakeoverWatch::Callbacks callbacks;
    callbacks.replicaOf = [weakRelay](const QString &holderId) {
        const std::shared_ptr<Relay> relay = weakRelay.lock();
        return relay ? relay->replicaOf(holderId) : QString();
    };
    callbacks.measured = [weakRelay](const Failover &failover) {
        if (const std::shared_ptr<Relay> relay = weakRelay.lock())
            relay->post([failover](Private &d) {
                d.log(QStringLiteral("takeover"),
                      QStringLiteral("%1 → %2 in %3 s after %4")
                              .arg(failover.victim, failover.successor,
                                   QString::number(failover.gapSeconds, 'f', 2), failover.fault),
                      failover.role);
                Q_EMIT d.q->failoverMeasured(failover);
            });
    };
    callbacks.missed = [weakRelay](const QString &role, const QString &message) {
        if (const std::shared_ptr<Relay> relay = weakRelay.lock())
            relay->post([role, message](Private &d) {
                d.log(QStringLiteral("no_takeover"), message, role);
            });
    };
    callbacks.finished = [weakRelay, self] {
        if (const std::shared_ptr<Relay> relay = weakRelay.lock())
            relay->post([raw = *self](Private &d) {
                d.watches.remove_if([raw](const auto &watch) { return watch.get() == raw; });
            });
    };
    auto watch = std::make_shared<TakeoverWatch>(watchOptions, std::move(callbacks));
    *self = watch.get();
    return watch;
}

void DemoHost::Private::inject(const FaultRequest &request)
{
    const QString fault = describeRequest(request);
    if (!running) {
        log(QStringLiteral("fault"), fault + QStringLiteral(": refused, the demo is not running"));
        return;
    }
    Hosted *hosted = find(request.replica);
    if (!hosted) {
        log(QStringLiteral("fault"),
            fault
                    + QStringLiteral(": refused, there is no replica named \"%1\"")
                              .arg(request.replica));
        return;
    }
    const bool isRunning = hosted->state == ReplicaState::Running && hosted->replica;
    const auto refuse = [&](const QString &why) {
        log(QStringLiteral("fault"), fault + QStringLiteral(": refused, ") + why);
    };
    if (request.kind == FaultKind::Restart) {
        if (hosted->state != ReplicaState::Killed && hosted->state != ReplicaState::Stopped)
            return refuse(QStringLiteral("%1 is %2; stop or kill it first")
                                  .arg(hosted->id, replicaStateName(hosted->state)));
    } else if (!isRunning) {
        return refuse(QStringLiteral("%1 is %2, not running")
                              .arg(hosted->id, replicaStateName(hosted->state)));
    }
    faults::Switchboard *switchboard = hosted->replica ? hosted->replica->faults() : nullptr;
    if ((request.kind == FaultKind::Freeze || request.kind == FaultKind::Sever)
        && request.durationMs <= 0)
        return refuse(QStringLiteral("a duration is needed"));
    if ((request.kind == FaultKind::Sever || request.kind == FaultKind::Slow)
        && (!switchboard || !switchboard->hasLink()))
        return refuse(QStringLiteral("%1 has no network link to act on").arg(hosted->id));
    if (request.kind == FaultKind::Slow && request.durationMs < 0)
        return refuse(QStringLiteral("the latency cannot be negative"));
    if (request.kind == FaultKind::Panic && !lease::isKnownRole(request.role.toStdString()))
        return refuse(QStringLiteral("\"%1\" is not one of the five roles").arg(request.role));

    // The roles held and the database clock are read before the fault lands.
    std::shared_ptr<TakeoverWatch> watch;
    const bool canTakeOver = request.kind == FaultKind::Kill || request.kind == FaultKind::Freeze
                             || request.kind == FaultKind::Sever || request.kind == FaultKind::Stop;
    QStringList held;
    if (canTakeOver) {
        try {
            watch = armWatch(*hosted, fault, request.kind == FaultKind::Stop);
            held = watch->arm();
        } catch (const std::exception &error) {
            watch.reset();
            log(QStringLiteral("fault"), QStringLiteral("%1: takeover not measured: %2")
                                                 .arg(fault, oneLine(error.what(), replicaUrl)));
        }
    }

    const std::chrono::milliseconds duration(request.durationMs);
    try {
        switch (request.kind) {
        case FaultKind::Kill: {
            switchboard->kill(); // the cut is immediate; joining the runners is not
            hosted->state = ReplicaState::Killed;
            hosted->leading.clear();
            chore([replica = hosted->replica] { replica->kill(); });
            break;
        }
        case FaultKind::Freeze:
            switchboard->freeze(duration);
            break;
        case FaultKind::Sever:
            switchboard->sever(duration);
            break;
        case FaultKind::Slow:
            switchboard->slow(duration);
            break;
        case FaultKind::Heal:
            switchboard->heal();
            break;
        case FaultKind::Panic:
            switchboard->armPanic(request.role.toStdString(), request.step.toStdString());
            break;
        case FaultKind::Stop: {
            hosted->state = ReplicaState::Stopping;
            std::weak_ptr<Relay> weakRelay = relay;
            const QString id = hosted->id;
            const QString holderId = hosted->holderId;
            chore([replica = hosted->replica, weakRelay, id, holderId] {
                replica->stop();
                if (const std::shared_ptr<Relay> relay = weakRelay.lock())
                    relay->post([id, holderId](Private &d) {
                        Hosted *stopped = d.find(id);
                        if (!stopped || stopped->holderId != holderId)
                            return;
                        stopped->state = ReplicaState::Stopped;
                        stopped->leading.clear();
                        d.markChanged();
                    });
            });
            break;
        }
        case FaultKind::Restart: {
            hosted->state = ReplicaState::Starting;
            std::shared_ptr<replica::Replica> fresh = makeReplica(hosted->id);
            std::shared_ptr<replica::Replica> old = std::move(hosted->replica);
            hosted->replica = fresh;
            hosted->holderId = qtext(fresh->holderId());
            hosted->leading.clear();
            std::weak_ptr<Relay> weakRelay = relay;
            const QString id = hosted->id;
            const QString holderId = hosted->holderId;
            chore([fresh, old = std::move(old), weakRelay, id, holderId,
                   url = replicaUrl]() mutable {
                old.reset(); // its runners are joined here, not on the host's thread
                QString failure;
                try {
                    fresh->start();
                } catch (const std::exception &error) {
                    failure = oneLine(error.what(), url);
                }
                if (const std::shared_ptr<Relay> relay = weakRelay.lock())
                    relay->post([id, holderId, failure](Private &d) {
                        Hosted *restarted = d.find(id);
                        if (!restarted || restarted->holderId != holderId)
                            return;
                        restarted->state
                                = failure.isEmpty() ? ReplicaState::Running : ReplicaState::Stopped;
                        if (!failure.isEmpty())
                            d.log(QStringLiteral("fault"),
                                  QStringLiteral("restart %1 failed: %2").arg(id, failure));
                        d.markChanged();
                    });
            });
            break;
        }
        }
    } catch (const std::exception &error) {
        return refuse(oneLine(error.what(), replicaUrl));
    }

    log(QStringLiteral("fault"), fault);
    if (watch) {
        if (held.isEmpty()) {
            log(QStringLiteral("fault"),
                QStringLiteral("%1 held no role at the fault: no takeover to measure")
                        .arg(hosted->id));
        } else {
            watches.push_back(watch);
            watch->start();
        }
    }
    refreshFaults();
    markChanged();
}

DemoHost::DemoHost(Options options, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this, std::move(options)))
{
    qRegisterMetaType<FaultRequest>();
    qRegisterMetaType<ReplicaInfo>();
    qRegisterMetaType<QList<ReplicaInfo>>();
    qRegisterMetaType<EventLogEntry>();
    qRegisterMetaType<Failover>();
    qRegisterMetaType<ConnectionProfile>();
    // Children, so they move to the host's thread with it.
    d->throttle = new QTimer(this);
    d->throttle->setSingleShot(true);
    connect(d->throttle, &QTimer::timeout, this, [this] { d->emitReplicas(); });
    d->refresh = new QTimer(this);
    connect(d->refresh, &QTimer::timeout, this, [this] { d->refreshFaults(); });
}

DemoHost::~DemoHost()
{
    {
        const std::lock_guard lock(d->relay->mutex);
        d->relay->host = nullptr; // nothing more is posted to a host going away
    }
    d->teardown();
}

void DemoHost::start()
{
    d->start();
}

void DemoHost::shutdown()
{
    if (d->running || d->cluster)
        Q_EMIT progress(QStringLiteral("stopping the demo"));
    d->teardown();
    Q_EMIT stopped();
}

void DemoHost::inject(const FaultRequest &request)
{
    d->inject(request);
}

} // namespace leader::console
