#include "demorunner.h"

#include "bootstrap.h"
#include "embedded/cluster.h"
#include "faults/switchboard.h"
#include "lease/events.h"
#include "lease/roles.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/conninfo.h"
#include "replica/replica.h"
#include "takeoverwatch.h"
#include "workload.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>

namespace leader::demo {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 5s;
constexpr auto TakeoverPoll = 200ms;
constexpr auto ThrottleEvery = 200ms; // replicasChanged at most five times a second
constexpr auto RefreshEvery = 1s;     // a freeze counts down in the switchboard's description

// The workload: two tenants a second in rounds of a minute, up to MaxTenants in the database
// (kept across runs). Each subscription recurs every WorkloadPeriod, so billing keeps steady
// work after the cap is reached while the tables stop growing but for invoices.
constexpr double WorkloadRate = 2.0;
constexpr std::int64_t WorkloadRound = 120;
constexpr std::int64_t MaxTenants = 300;
constexpr auto WorkloadPeriod = 600s;
constexpr auto WorkloadCapRecheck = 60s;
constexpr auto WorkloadRetry = 5s;

// One line, no secret: the first line of an engine message with the cluster's password removed.
std::string oneLine(const std::string &message, const std::string &url)
{
    std::string text = url.empty() ? message : pg::redactSecrets(message, url);
    if (const std::size_t end = text.find_first_of("\r\n"); end != std::string::npos)
        text.resize(end);
    const std::size_t first = text.find_first_not_of(" \t");
    const std::size_t last = text.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

// Locale-proof, whatever setlocale the host process made.
std::string number(double value, std::chars_format format, int precision)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
    return std::string(buffer, result.ptr);
}

// Waits for duration or until stop is requested.
void pause(std::stop_token stop, std::chrono::milliseconds duration)
{
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    wake.wait_for(lock, stop, duration, [] { return false; });
}

// Moves the items whose done flag is set from one list to the other.
template<typename Item>
void takeDone(std::list<Item> &from, std::list<Item> &to)
{
    for (auto it = from.begin(); it != from.end();) {
        const auto next = std::next(it);
        if (it->done->load())
            to.splice(to.end(), from, it);
        it = next;
    }
}

DemoEventKind demoEventOf(lease::EventKind kind)
{
    switch (kind) {
    case lease::EventKind::Acquired:
        return DemoEventKind::Acquired;
    case lease::EventKind::Released:
        return DemoEventKind::Released;
    case lease::EventKind::ReleaseFailed:
        return DemoEventKind::ReleaseFailed;
    case lease::EventKind::Lost:
        return DemoEventKind::Lost;
    case lease::EventKind::LateBeat:
        return DemoEventKind::LateBeat;
    case lease::EventKind::PausedObserved:
        return DemoEventKind::PausedObserved;
    }
    return DemoEventKind::Error;
}

} // namespace

bool isDemoFault(faults::Fault fault)
{
    switch (fault) {
    case faults::Fault::Kill:
    case faults::Fault::Freeze:
    case faults::Fault::Sever:
    case faults::Fault::Slow:
    case faults::Fault::Heal:
    case faults::Fault::Panic:
    case faults::Fault::Stop:
    case faults::Fault::Restart:
        return true;
    default:
        return false;
    }
}

std::string describeFault(const FaultRequest &request)
{
    std::string text = std::string(faults::nameOf(request.kind)) + ' ' + request.replica;
    switch (request.kind) {
    case faults::Fault::Freeze:
    case faults::Fault::Sever:
        text += ' '
                + number(std::chrono::duration<double>(request.duration).count(),
                         std::chars_format::general, 4)
                + " s";
        break;
    case faults::Fault::Slow:
        text += ' ' + std::to_string(request.duration.count()) + " ms";
        break;
    case faults::Fault::Panic:
        text += ' ' + request.role + (request.step.empty() ? "" : ' ' + request.step);
        break;
    default:
        break;
    }
    return text;
}

std::string_view nameOf(ReplicaState state)
{
    switch (state) {
    case ReplicaState::Starting:
        return "starting";
    case ReplicaState::Running:
        return "running";
    case ReplicaState::Stopping:
        return "stopping";
    case ReplicaState::Stopped:
        return "stopped";
    case ReplicaState::Killed:
        return "killed";
    }
    return "unknown";
}

struct DemoRunner::Private
{
    struct Hosted
    {
        std::string id;
        std::shared_ptr<replica::Replica> replica; // replaced, on the caller's thread, by a restart
        std::shared_ptr<faults::Switchboard> switchboard; // the replica's, replaced with it
        std::string holderId;
        ReplicaState state = ReplicaState::Starting;
        std::vector<std::string> leading;
        std::string faults = "normal";
        bool faulted = false;
    };
    // A watch or a chore sets done as its very last act, so joining it then never waits on us.
    struct Watch
    {
        std::unique_ptr<TakeoverWatch> watch;
        std::shared_ptr<std::atomic<bool>> done;
    };
    struct Chore
    {
        std::jthread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };

    Private(Options options, DemoListener &listener)
        : options(std::move(options))
        , listener(listener)
    {}

    // Every listener call goes through here: one at a time, in order. Lock order: mutex, then
    // listenerMutex, never the other way.
    template<typename Call>
    void notify(Call call)
    {
        const std::lock_guard lock(listenerMutex);
        try {
            call();
        } catch (...) {
            // The contract says a listener does not throw; a thread of ours must not die of it.
        }
    }
    void say(const std::string &step)
    {
        notify([&] { listener.progress(step); });
    }
    void report(DemoEventKind event, const std::string &detail, const std::string &role = {})
    {
        DemoEvent entry;
        entry.time = std::chrono::system_clock::now();
        entry.source = options.faultSource;
        entry.role = role;
        entry.event = event;
        entry.detail = detail;
        notify([&] { listener.event(entry); });
    }

    StartResult start();
    void quiesce(); // everything but the server
    void teardown();
    void inject(const FaultRequest &request);

    std::shared_ptr<replica::Replica> makeReplica(const std::string &id,
                                                  std::shared_ptr<faults::Switchboard> switchboard);
    void onReplicaEvent(const std::string &id, const std::string &holderId,
                        const lease::TransitionEvent &transition);
    void startWorkload();
    void supervise(std::stop_token stop);
    std::unique_ptr<TakeoverWatch> makeWatch(const std::string &victim,
                                             const std::string &victimHolder,
                                             const std::string &fault, bool cleanStop,
                                             std::shared_ptr<std::atomic<bool>> done);
    void chore(std::function<void()> work);

    // With mutex held.
    Hosted *find(const std::string &id);
    std::vector<ReplicaStatus> statuses() const;
    void refreshFaults();

    const Options options;
    DemoListener &listener;
    std::mutex listenerMutex;

    std::unique_ptr<embedded::Cluster> cluster; // the caller's thread only
    std::string replicaUrl;                     // TCP, so the link faults have a link to act on
    std::string hostUrl; // the Unix socket: the runner's own connections, never cut by a fault
    std::atomic<bool> running = false;

    mutable std::mutex mutex; // guards what follows
    std::condition_variable_any wake;
    std::vector<Hosted> replicas;
    std::map<std::string, std::string> replicaOfHolder;
    std::list<Watch> watches;
    // Kills, stops and restarts run off the caller's thread (joining a replica's runners takes a
    // while); the supervisor joins each once done, stop() all of them.
    std::list<Chore> chores;
    bool changed = false;

    std::jthread workload;
    std::jthread supervisor;
};

DemoRunner::Private::Hosted *DemoRunner::Private::find(const std::string &id)
{
    const auto it = std::find_if(replicas.begin(), replicas.end(),
                                 [&id](const Hosted &hosted) { return hosted.id == id; });
    return it == replicas.end() ? nullptr : &*it;
}

std::vector<ReplicaStatus> DemoRunner::Private::statuses() const
{
    std::vector<ReplicaStatus> list;
    for (const Hosted &hosted : replicas)
        list.push_back({hosted.id, hosted.holderId, hosted.state, hosted.faults, hosted.leading,
                        hosted.faulted});
    return list;
}

void DemoRunner::Private::refreshFaults()
{
    for (Hosted &hosted : replicas) {
        faults::Switchboard::Condition condition{.faulted = false, .description = "normal"};
        if (hosted.replica && hosted.switchboard)
            condition = hosted.switchboard->condition();
        if (condition.description != hosted.faults || condition.faulted != hosted.faulted) {
            hosted.faults = std::move(condition.description);
            hosted.faulted = condition.faulted;
            changed = true;
        }
    }
}

std::shared_ptr<replica::Replica>
DemoRunner::Private::makeReplica(const std::string &id,
                                 std::shared_ptr<faults::Switchboard> switchboard)
{
    replica::ReplicaOptions replicaOptions;
    replicaOptions.id = id;
    replicaOptions.database.url = replicaUrl;
    replicaOptions.fastWake = true;
    replicaOptions.faults = std::move(switchboard);
    auto made = std::make_shared<replica::Replica>(std::move(replicaOptions));
    const std::string holderId = made->holderId();
    {
        const std::lock_guard lock(mutex);
        replicaOfHolder[holderId] = id;
    }
    // Every replica is stopped (its runners joined) before this object goes.
    made->subscribe([this, id, holderId](const replica::ReplicaEvent &event) {
        onReplicaEvent(id, holderId, event.transition);
    });
    return made;
}

void DemoRunner::Private::onReplicaEvent(const std::string &id, const std::string &holderId,
                                         const lease::TransitionEvent &transition)
{
    DemoEvent entry;
    entry.time = transition.wall;
    entry.source = id;
    entry.role = transition.role;
    entry.event = demoEventOf(transition.kind);
    entry.token = transition.token;
    const std::string_view parts[] = {
            transition.outcome ? nameOf(*transition.outcome) : std::string_view(),
            transition.reason ? nameOf(*transition.reason) : std::string_view(), transition.detail};
    for (const std::string_view part : parts) {
        if (!part.empty())
            entry.detail += (entry.detail.empty() ? "" : "; ") + oneLine(std::string(part), {});
    }
    entry.databaseTime = transition.databaseTime;

    const std::lock_guard lock(mutex);
    for (const Watch &watch : watches) {
        if (transition.kind == lease::EventKind::Acquired)
            watch.watch->noteAcquired(entry.role, entry.token, holderId, entry.databaseTime);
        else if (transition.kind == lease::EventKind::Released)
            watch.watch->noteReleased(entry.role, entry.token, entry.databaseTime);
    }
    // Under the lock, so the event is told before the replica list that reflects it.
    notify([&] { listener.event(entry); });
    Hosted *hosted = find(id);
    // A restarted replica's predecessor has nothing more to say about what it leads.
    if (!hosted || hosted->holderId != holderId || transition.kind == lease::EventKind::LateBeat)
        return;
    std::vector<std::string> &leading = hosted->leading;
    const auto at = std::find(leading.begin(), leading.end(), entry.role);
    if (transition.kind == lease::EventKind::Acquired && at == leading.end()) {
        leading.push_back(entry.role);
        std::sort(leading.begin(), leading.end());
        changed = true;
    } else if (transition.kind != lease::EventKind::Acquired && at != leading.end()) {
        leading.erase(at);
        changed = true;
    }
}

DemoRunner::StartResult DemoRunner::Private::start()
{
    if (running || cluster)
        return {"The demo is already running; stop it first.", {}};
    const std::filesystem::path directory
            = options.directory.empty() ? defaultDemoDirectory() : options.directory;
    try {
        cluster = startDemoCluster(directory, [this](const std::string &step) {
                      say(step);
                  }).cluster;
        replicaUrl = cluster->tcpUrl(DemoDatabase);
        hostUrl = cluster->url(DemoDatabase);
        // The socket URL carries no password (local connections are trusted): safe to log, and
        // what an operator pastes into psql to look inside the demo.
        log::write(log::Level::Info, "demo", "cluster ready", "url=" + hostUrl);

        std::vector<std::string> ids;
        std::string names;
        for (int i = 1; i <= options.replicas; ++i) {
            ids.push_back("r" + std::to_string(i));
            names += (names.empty() ? "" : ", ") + ids.back();
        }
        say("starting replicas " + names);
        for (const std::string &id : ids) {
            auto switchboard = std::make_shared<faults::Switchboard>();
            std::shared_ptr<replica::Replica> made = makeReplica(id, switchboard);
            {
                const std::lock_guard lock(mutex);
                replicas.push_back(
                        {id, made, switchboard, made->holderId(), ReplicaState::Starting, {}, {}});
            }
            made->start();
            const std::lock_guard lock(mutex);
            find(id)->state = ReplicaState::Running;
        }
        if (options.workload) {
            say("starting the workload");
            startWorkload();
        }
    } catch (const std::exception &error) {
        const std::string message = "Cannot start the embedded demo in " + directory.string() + ": "
                                    + oneLine(error.what(), replicaUrl);
        teardown();
        // Also on stderr: the one place a console started from a terminal, or a script, reads it.
        log::write(log::Level::Error, "demo", "cannot start", "error=" + message);
        return {message, {}};
    }
    running = true;
    {
        const std::lock_guard lock(mutex);
        refreshFaults();
        changed = true; // the supervisor's first round tells the list, after start() returned
    }
    supervisor = std::jthread([this](std::stop_token stop) { supervise(std::move(stop)); });

    DemoEndpoint endpoint;
    endpoint.host = "127.0.0.1";
    endpoint.port = cluster->port();
    endpoint.database = DemoDatabase;
    endpoint.user = cluster->superuser();
    endpoint.password = cluster->password();
    endpoint.socketUrl = hostUrl;
    return {{}, std::move(endpoint)};
}

void DemoRunner::Private::supervise(std::stop_token stop)
{
    auto refreshed = std::chrono::steady_clock::now();
    for (;;) {
        std::list<Watch> endedWatches;
        std::list<Chore> endedChores;
        {
            std::unique_lock lock(mutex);
            wake.wait_for(lock, stop, ThrottleEvery, [] { return false; });
            if (stop.stop_requested())
                return;
            takeDone(watches, endedWatches);
            takeDone(chores, endedChores);
            if (std::chrono::steady_clock::now() - refreshed >= RefreshEvery) {
                refreshFaults();
                refreshed = std::chrono::steady_clock::now();
            }
            if (changed) {
                changed = false;
                const std::vector<ReplicaStatus> list = statuses();
                notify([&] { listener.replicasChanged(list); });
            }
        }
        // endedWatches and endedChores are joined here, outside the lock: they are past their
        // last act, so this is immediate.
    }
}

void DemoRunner::Private::startWorkload()
{
    workload = std::jthread([this](std::stop_token stop) {
        pg::Connection connection(
                {.url = hostUrl, .applicationName = "leader demo workload", .stop = stop});
        while (!stop.stop_requested()) {
            try {
                const std::int64_t existing
                        = connection
                                  .exec("count tenants", "SELECT count(*) FROM tenants", {},
                                        StatementTimeout)
                                  .toInt64(0, 0);
                if (existing >= MaxTenants) {
                    pause(stop, WorkloadCapRecheck);
                    continue;
                }
                WorkloadOptions workloadOptions;
                workloadOptions.ratePerSecond = WorkloadRate;
                workloadOptions.count = std::min(WorkloadRound, MaxTenants - existing);
                workloadOptions.duration = 2min;
                workloadOptions.period = WorkloadPeriod;
                Workload round(connection, workloadOptions);
                const std::stop_callback stopRound(stop, [&round] { round.stop(); });
                round.run();
            } catch (const std::exception &error) {
                if (stop.stop_requested())
                    return; // the statement in flight was cancelled by the stop itself
                DemoEvent entry;
                entry.time = std::chrono::system_clock::now();
                entry.source = "workload";
                entry.event = DemoEventKind::Error;
                entry.detail = oneLine(error.what(), hostUrl) + "; retrying in 5 s";
                notify([&] { listener.event(entry); });
                pause(stop, WorkloadRetry);
            }
        }
    });
}

void DemoRunner::Private::chore(std::function<void()> work)
{
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::jthread thread([work = std::move(work), done]() mutable {
        try {
            work();
        } catch (...) {
            // Each chore reports its own failures; nothing may escape a thread.
        }
        work = nullptr; // what it holds (a replica) goes before it says it is done
        done->store(true);
    });
    const std::lock_guard lock(mutex);
    chores.push_back({std::move(thread), std::move(done)});
}

std::unique_ptr<TakeoverWatch>
DemoRunner::Private::makeWatch(const std::string &victim, const std::string &victimHolder,
                               const std::string &fault, bool cleanStop,
                               std::shared_ptr<std::atomic<bool>> done)
{
    TakeoverWatch::Options watchOptions;
    watchOptions.database = {.url = hostUrl, .applicationName = "leader demo takeover watch"};
    watchOptions.fault = fault;
    watchOptions.victim = victim;
    watchOptions.victimHolder = victimHolder;
    watchOptions.cleanStop = cleanStop;
    watchOptions.pollEvery = TakeoverPoll;
    watchOptions.deadline = options.takeoverDeadline;
    TakeoverWatch::Callbacks callbacks;
    callbacks.replicaOf = [this](const std::string &holderId) {
        const std::lock_guard lock(mutex);
        const auto it = replicaOfHolder.find(holderId);
        return it == replicaOfHolder.end() ? std::string() : it->second;
    };
    callbacks.measured = [this](const Takeover &takeover) {
        report(DemoEventKind::Takeover,
               takeover.victim + " \u2192 " + takeover.successor + " in "
                       + number(takeover.gapSeconds, std::chars_format::fixed, 2) + " s after "
                       + takeover.fault,
               takeover.role);
        notify([&] { listener.takeoverMeasured(takeover); });
    };
    callbacks.missed = [this](const std::string &role, const std::string &message) {
        report(DemoEventKind::NoTakeover, message, role);
    };
    callbacks.finished = [this, done = std::move(done)] {
        done->store(true);
        wake.notify_all();
    };
    return std::make_unique<TakeoverWatch>(std::move(watchOptions), std::move(callbacks));
}

void DemoRunner::Private::inject(const FaultRequest &request)
{
    const std::string fault = describeFault(request);
    const auto refuse = [&](const std::string &why) {
        report(DemoEventKind::Fault, fault + ": refused, " + why);
    };
    if (!isDemoFault(request.kind))
        return refuse("the demo does not inject this fault");
    if (!running)
        return refuse("the demo is not running");
    std::string id;
    std::string holderId;
    ReplicaState state = ReplicaState::Starting;
    std::shared_ptr<replica::Replica> target;
    std::shared_ptr<faults::Switchboard> switchboard;
    std::vector<std::string> leading; // as the console shows it: what the fault is meant to take
    {
        const std::lock_guard lock(mutex);
        const Hosted *hosted = find(request.replica);
        if (!hosted)
            return refuse("there is no replica named \"" + request.replica + "\"");
        id = hosted->id;
        holderId = hosted->holderId;
        state = hosted->state;
        target = hosted->replica;
        switchboard = hosted->switchboard;
        leading = hosted->leading;
    }
    if (request.kind == faults::Fault::Restart) {
        if (state != ReplicaState::Killed && state != ReplicaState::Stopped)
            return refuse(id + " is " + std::string(nameOf(state)) + "; stop or kill it first");
    } else if (state != ReplicaState::Running || !target) {
        return refuse(id + " is " + std::string(nameOf(state)) + ", not running");
    }
    if ((request.kind == faults::Fault::Freeze || request.kind == faults::Fault::Sever)
        && request.duration <= 0ms)
        return refuse("a duration is needed");
    if ((request.kind == faults::Fault::Sever || request.kind == faults::Fault::Slow)
        && (!switchboard || !switchboard->hasLink()))
        return refuse(id + " has no network link to act on");
    if (request.kind == faults::Fault::Slow && request.duration < 0ms)
        return refuse("the latency cannot be negative");
    if (request.kind == faults::Fault::Panic && !lease::isKnownRole(request.role))
        return refuse("\"" + request.role + "\" is not one of the five roles");

    // The roles held and the database clock are read before the fault lands.
    std::unique_ptr<TakeoverWatch> watch;
    auto watchDone = std::make_shared<std::atomic<bool>>(false);
    const bool canTakeOver
            = request.kind == faults::Fault::Kill || request.kind == faults::Fault::Freeze
              || request.kind == faults::Fault::Sever || request.kind == faults::Fault::Stop;
    std::vector<std::string> held;
    if (canTakeOver) {
        try {
            watch = makeWatch(id, holderId, fault, request.kind == faults::Fault::Stop, watchDone);
            held = watch->arm();
        } catch (const std::exception &error) {
            watch.reset();
            const std::string why = oneLine(error.what(), replicaUrl);
            report(DemoEventKind::Fault, fault + ": takeover not measured: " + why);
            // Said per role too, as for a fault that missed: whoever waits for the takeover of a
            // role the list showed led stops waiting (the drill tries the fault again).
            for (const std::string &role : leading)
                report(DemoEventKind::FaultMissed,
                       fault + ": takeover of " + role + " not measured: " + why, role);
        }
    }

    try {
        switch (request.kind) {
        case faults::Fault::Kill: {
            switchboard->kill(); // the cut is immediate; joining the runners is not
            {
                const std::lock_guard lock(mutex);
                Hosted *hosted = find(id);
                hosted->state = ReplicaState::Killed;
                hosted->leading.clear();
                changed = true;
            }
            chore([target] { target->kill(); });
            break;
        }
        case faults::Fault::Freeze:
            switchboard->freeze(request.duration);
            break;
        case faults::Fault::Sever:
            switchboard->sever(request.duration);
            break;
        case faults::Fault::Slow:
            switchboard->slow(request.duration);
            break;
        case faults::Fault::Heal:
            switchboard->heal();
            break;
        case faults::Fault::Panic:
            switchboard->armPanic(request.role, request.step);
            break;
        case faults::Fault::Stop: {
            {
                const std::lock_guard lock(mutex);
                find(id)->state = ReplicaState::Stopping;
                changed = true;
            }
            chore([this, target, id, holderId] {
                target->stop();
                const std::lock_guard lock(mutex);
                Hosted *stopped = find(id);
                if (!stopped || stopped->holderId != holderId)
                    return;
                stopped->state = ReplicaState::Stopped;
                stopped->leading.clear();
                changed = true;
            });
            break;
        }
        case faults::Fault::Restart: {
            auto freshSwitchboard = std::make_shared<faults::Switchboard>();
            std::shared_ptr<replica::Replica> fresh = makeReplica(id, freshSwitchboard);
            const std::string freshHolder = fresh->holderId();
            {
                const std::lock_guard lock(mutex);
                Hosted *hosted = find(id);
                hosted->replica = fresh;
                hosted->switchboard = std::move(freshSwitchboard);
                hosted->holderId = freshHolder;
                hosted->state = ReplicaState::Starting;
                hosted->leading.clear();
                changed = true;
            }
            chore([this, fresh, old = std::move(target), id, freshHolder]() mutable {
                old.reset(); // its runners are joined here, not on the caller's thread
                std::string failure;
                try {
                    fresh->start();
                } catch (const std::exception &error) {
                    failure = oneLine(error.what(), replicaUrl);
                }
                {
                    const std::lock_guard lock(mutex);
                    Hosted *restarted = find(id);
                    if (!restarted || restarted->holderId != freshHolder)
                        return;
                    restarted->state
                            = failure.empty() ? ReplicaState::Running : ReplicaState::Stopped;
                    changed = true;
                }
                if (!failure.empty())
                    report(DemoEventKind::Fault, "restart " + id + " failed: " + failure);
            });
            break;
        }
        default: // refused above: not one of the demo's
            break;
        }
    } catch (const std::exception &error) {
        return refuse(oneLine(error.what(), replicaUrl));
    }

    report(DemoEventKind::Fault, fault);
    if (watch) {
        // A tick's release races the fault: the list showed the role led, the table had it
        // released when the watch read it. Said per role, so whoever waits for its takeover stops.
        for (const std::string &role : leading)
            if (std::find(held.begin(), held.end(), role) == held.end())
                report(DemoEventKind::FaultMissed,
                       id + " had released " + role + " when the "
                               + std::string(faults::nameOf(request.kind))
                               + " landed: no takeover to measure",
                       role);
        if (held.empty()) {
            report(DemoEventKind::Fault, id + " held no role at the fault: no takeover to measure");
        } else {
            watch->start();
            const std::lock_guard lock(mutex);
            watches.push_back({std::move(watch), std::move(watchDone)});
        }
    }
    const std::lock_guard lock(mutex);
    refreshFaults();
    changed = true;
}

void DemoRunner::Private::quiesce()
{
    running = false;
    supervisor = {}; // requests its stop and joins it
    std::list<Watch> endingWatches;
    std::list<Chore> endingChores;
    {
        const std::lock_guard lock(mutex);
        endingWatches.swap(watches);
        endingChores.swap(chores);
    }
    for (const Watch &watch : endingWatches)
        watch.watch->stop();
    endingWatches.clear();   // joins: each watch wakes at once and its statement is cancelled
    workload.request_stop(); // ends the statement in flight and the round

    // A frozen replica's statements wait at its fault gate for the rest of the freeze; healed,
    // they go out (and fail their fence, or release what is still theirs).
    {
        const std::lock_guard lock(mutex);
        for (Hosted &hosted : replicas)
            if (hosted.replica && hosted.switchboard)
                hosted.switchboard->heal();
    }
    // Restarts and stops still running finish first, so no replica is started behind our back.
    endingChores.clear();

    std::vector<std::shared_ptr<replica::Replica>> stopping;
    {
        const std::lock_guard lock(mutex);
        for (Hosted &hosted : replicas)
            if (hosted.replica)
                stopping.push_back(std::move(hosted.replica));
        replicas.clear();
        replicaOfHolder.clear();
    }
    // Side by side: each stop is bounded by its statement deadlines, so the whole is bounded by
    // the slowest, not by their sum.
    {
        std::vector<std::jthread> stops;
        for (std::shared_ptr<replica::Replica> &replica : stopping)
            stops.emplace_back([replica = std::move(replica)]() mutable {
                try {
                    replica->stop(); // a clean release of the running ticks
                } catch (...) {
                    // A stop that throws has still stopped what it could.
                }
                replica.reset();
            });
    }
    workload = {};
}

void DemoRunner::Private::teardown()
{
    quiesce();
    if (cluster) {
        try {
            cluster->stop();
        } catch (const std::exception &error) {
            // The destructor tries once more.
            log::write(log::Level::Warning, "demo", "cluster stop failed",
                       "error=" + oneLine(error.what(), {}));
        }
        cluster.reset();
    }
}

DemoRunner::DemoRunner(Options options, DemoListener &listener)
    : d(std::make_unique<Private>(std::move(options), listener))
{}

DemoRunner::~DemoRunner()
{
    d->teardown();
}

DemoRunner::StartResult DemoRunner::start()
{
    return d->start();
}

void DemoRunner::inject(const FaultRequest &request)
{
    d->inject(request);
}

void DemoRunner::stopReplicas()
{
    if (d->running)
        d->say("stopping the replicas");
    d->quiesce();
}

void DemoRunner::stop()
{
    if (d->cluster)
        d->say("stopping the demo");
    d->teardown();
}

bool DemoRunner::isRunning() const
{
    return d->running;
}

std::vector<ReplicaStatus> DemoRunner::replicas() const
{
    const std::lock_guard lock(d->mutex);
    return d->statuses();
}

} // namespace leader::demo
