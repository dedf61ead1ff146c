#include "replica.h"

#include "lease/deathwatch.h"
#include "lease/manager.h"
#include "lease/wakelistener.h"
#include "log/log.h"
#include "pg/error.h"
#include "platform/process.h"
#include "registrar.h"
#include "roles/demoschema.h"
#include "scheduler/rolerunner.h"
#include "scheduler/stepguard.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <algorithm>

namespace leader::replica {

namespace {

// How often a tick held open by its profile's min_tick looks for work again.
constexpr std::chrono::milliseconds RepeatEvery{500};

pg::ConnectOptions named(pg::ConnectOptions options, const std::string &id)
{
    if (options.applicationName.empty() || options.applicationName == "leader-console")
        options.applicationName = "leader-replica " + id;
    return options;
}

} // namespace

Replica::Replica(ReplicaOptions options)
    : m_options(std::move(options))
    , m_metrics(m_registry)
{
    pg::ConnectOptions database = named(m_options.database, m_options.id);
    if (m_options.faults)
        database = m_options.faults->route(database);
    // The metrics session passes the link faults but not the gate: a freeze would hold its thread
    // past the replica's stop, and a scrape never waits for it anyway.
    pg::ConnectOptions status = database;
    status.applicationName += " metrics";
    status.gate = {};
    status.connectTimeout = std::chrono::seconds(2);
    m_status = std::make_unique<metrics::StatusSnapshot>(
            m_metrics, m_registry, metrics::StatusSnapshot::Options{.database = std::move(status)});
    m_manager = std::make_unique<lease::Manager>(
            lease::ManagerOptions{.database = database,
                                  .heartbeat = database,
                                  .events = &m_internal,
                                  .metrics = &m_metrics,
                                  .fastWake = m_options.fastWake});
    m_internal.subscribe([this](const lease::TransitionEvent &event) {
        if (m_killed.load())
            return; // a dead process says nothing more
        const ReplicaEvent tagged{m_options.id, event};
        const std::lock_guard lock(m_subscribersMutex);
        for (const auto &[id, subscriber] : m_subscribers)
            subscriber(tagged);
    });
    if (m_options.poll == scheduler::PollMode::ReadFirst)
        m_board = std::make_unique<scheduler::LeaseBoard>(m_manager->pool(), m_manager->holderId());
    for (const RoleProfile &profile : m_options.roles)
        m_runners.push_back(std::make_unique<scheduler::RoleRunner>(
                *m_manager,
                scheduler::RoleSchedule{profile.role, profile.interval, workFor(profile)},
                m_board.get()));
}

Replica::~Replica()
{
    stop();
}

lease::Work Replica::workFor(const RoleProfile &profile)
{
    std::shared_ptr<roles::Role> role = roles::makeRole(profile.role, profile.options);
    return [this, role, profile](lease::TickContext &context) {
        const auto started = std::chrono::steady_clock::now();
        std::optional<std::string> panicStep
                = m_options.faults ? m_options.faults->takePanic(profile.role) : std::nullopt;
        std::optional<scheduler::StepGuard::ArmedPanic> armed;
        if (panicStep)
            armed.emplace(*panicStep);
        const auto rearm = [&] {
            // A panic armed for a step this tick never reached waits for the next tick.
            if (armed && !armed->fired())
                m_options.faults->armPanic(profile.role, *panicStep);
        };
        try {
            for (;;) {
                role->tick(context);
                const auto left = profile.minTick
                                  - std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - started);
                if (left <= std::chrono::milliseconds::zero())
                    break;
                // A handover: the repetitions left are the steps this tick skips.
                if (context.stopRequested()) {
                    context.noteStoppedEarly();
                    break;
                }
                if (!context.sleepFor(std::min(left, RepeatEvery)))
                    context.throwIfCancelled();
                if (left <= RepeatEvery)
                    break;
            }
        } catch (...) {
            rearm();
            throw;
        }
        rearm();
    };
}

const std::string &Replica::holderId() const
{
    return m_manager->holderId();
}

void Replica::start()
{
    if (m_started.exchange(true))
        throw std::logic_error("a replica starts once");
    schema::LeaseFeatures features;
    {
        pg::ConnectionPool::Lease connection = m_manager->pool().take();
        connection->open();
        // A replica runs with every extension up to the hardened definer functions (the wake,
        // its registry row, the takeover at process death, the early take's switch): the first
        // one missing is named. Its name and marker in the registry (0182) are recorded where
        // the database has them.
        features = schema::probeFeatures(*connection);
        schema::requireAdr(*connection, features);
        if (!features.has(schema::ReplicaNeeds))
            schema::requireExtension(*connection, features, "a replica",
                                     static_cast<schema::Extension>(std::clamp(
                                             features.extension + 1,
                                             static_cast<int>(schema::Extension::PauseNotify),
                                             static_cast<int>(schema::ReplicaNeeds))));
        roles::requireDemoSchema(*connection);
    }
    // Each tick is recorded after its RELEASE where the database can take it (0184).
    m_manager->recordTicks(features.has(schema::Extension::TickDetails));
    // A handover ends its tick at the next safe point, and prefers its replica (0185).
    m_manager->honourHandovers(features.has(schema::Extension::Handover));
    // A marker names the lease it was recorded for (0189).
    m_manager->bindMarkersToTokens(features.has(schema::Extension::AdrFleet));
    // The database clears a hand-over request, which the app may no longer write (0190).
    m_manager->clearHandoversInDatabase(features.has(schema::Extension::SecondReview));
    if (m_board) {
        m_board->setHandovers(features.has(schema::Extension::Handover));
        m_board->setBoardFunction(features.has(schema::Extension::BoardRead));
    }
    lease::ReplicaInfo registered{.holderId = holderId(),
                                  .host = platform::hostName(),
                                  .pid = platform::processId(),
                                  .version = LEADER_VERSION,
                                  .roles = {},
                                  .name = m_options.id,
                                  .markerSession = {}};
    for (const RoleProfile &profile : m_options.roles)
        registered.roles.push_back(profile.role);
    m_registrar = std::make_unique<Registrar>(
            m_manager->pool(), std::move(registered), m_options.registryEvery,
            features.has(schema::Extension::ReplicaNames), &m_manager->marker());
    m_registrar->reportEarlyTake(features.has(schema::Extension::AdrFleet));
    if (features.has(schema::Extension::ReplicaDrain))
        m_registrar->setDrain(DrainHooks{.report =
                                                 [this] {
                                                     const DrainStatus status = currentDrain();
                                                     DrainHooks::Report report;
                                                     report.local = m_localDrain.load();
                                                     if (status.draining)
                                                         report.running = status.running;
                                                     return report;
                                                 },
                                         .flagged =
                                                 [this](bool flagged) {
                                                     m_flagged.store(flagged);
                                                     updateDrain();
                                                 }});
    // A lead() that ends may be the last one a drain waits for.
    m_manager->onLeadEnded([this] { updateDrain(); });
    m_registrar->start();
    if (m_options.fastWake) {
        pg::ConnectOptions listen
                = m_options.listen.url.empty() ? m_options.database : m_options.listen;
        listen = named(listen, m_options.id);
        listen.applicationName += " listen";
        m_listener = std::make_unique<lease::WakeListener>(
                listen, [this](const std::string &payload) { notified(payload); },
                m_options.earlyTake ? holderId() : std::string(), &m_manager->marker());
        // The death watch needs the same kind of session: where LISTEN is delivered, a session
        // is a real one and can wait on a lock.
        if (m_listener->start() && m_options.earlyTake) {
            // The first beat went out before the marker existed: the row names it now, not in
            // a period.
            m_registrar->beatNow();
            m_deathWatch = std::make_unique<lease::DeathWatch>(
                    listen, [this](const std::set<std::string> &roles) { wakeRunners(roles); });
            m_manager->onHeldElsewhere(
                    [this](const std::string &role, const lease::HolderSession &holder) {
                        m_deathWatch->watch(holder, role);
                    });
        }
    }
    for (const auto &runner : m_runners)
        runner->start();
    m_running.store(true);
    log::write(log::Level::Info, "replica", "started",
               "replica=" + m_options.id + " holder=" + holderId()
                       + " fast_wake=" + (fastWake() ? "on" : "off"));
}

void Replica::stop()
{
    m_status->stop();
    // The row is deleted on the registrar's thread while the runners release their ticks.
    if (m_registrar)
        m_registrar->requestStop(!m_killed.load());
    // The ticks first: their RELEASE (and its notification) is what a contender waits for.
    m_manager->shutdown();
    if (m_deathWatch)
        m_deathWatch->stop();
    // On a clean stop the marker outlives the ticks: closing it first let a contender take a
    // lease whose tick was still winding down, while this process lived (found by
    // tst_mixedfleet; tst_replica cleanStopIsNeverTakenEarly). A kill ends it at once, as a death.
    if (m_listener && m_killed.load())
        m_listener->stop();
    for (const auto &runner : m_runners)
        runner->stop();
    if (m_listener)
        m_listener->stop();
    if (m_registrar)
        m_registrar->join();
    if (m_running.exchange(false) && !m_killed.load())
        log::write(log::Level::Info, "replica", "stopped", "replica=" + m_options.id);
}

void Replica::kill()
{
    m_killed.store(true);
    if (m_options.faults)
        m_options.faults->kill();
    stop();
}

void Replica::notified(const std::string &payload)
{
    if (const std::optional<lease::HeldAnnouncement> held = lease::parseHeldAnnouncement(payload)) {
        // Another holder's tick began: wait for its marker's end now, not at the next reading.
        const bool own
                = held->holder.key >> 32 == lease::WakeListener::sessionKeyPrefix(holderId());
        const bool runs = std::any_of(m_runners.begin(), m_runners.end(), [&](const auto &runner) {
            return runner->schedule().role == held->role;
        });
        if (m_deathWatch && !own && runs)
            m_deathWatch->watch(held->holder, held->role);
        return;
    }
    // leader_drain and leader_undrain (0183): the registry beat reads the flag now.
    if (payload.starts_with("drain ")) {
        if (payload.substr(6) == m_options.id && m_registrar)
            m_registrar->beatNow();
        return;
    }
    wakeRunners({payload});
    m_manager->renewNow(payload);
}

DrainStatus Replica::currentDrain() const
{
    DrainStatus status;
    status.local = m_localDrain.load();
    status.draining = m_flagged.load() || status.local;
    if (status.draining) {
        status.running = m_manager->runningRoles();
        status.drained = status.running.empty();
    }
    return status;
}

void Replica::updateDrain()
{
    DrainStatus status;
    bool undrained = false;
    {
        // One thread at a time, so that the status kept is the latest one computed.
        const std::lock_guard lock(m_drainMutex);
        const bool draining = m_flagged.load() || m_localDrain.load();
        undrained = m_manager->isDraining() && !draining;
        m_manager->setDraining(draining);
        status = currentDrain();
        if (status == m_drain)
            return;
        m_drain = status;
    }
    if (undrained)
        for (const auto &runner : m_runners)
            runner->wake(); // poll now, not at the end of the drained wait
    m_drainWake.notify_all();
    // The row shows the change at once (a beat that is running reports it again right after).
    if (m_registrar)
        m_registrar->beatNow();
    if (m_drainChanged && !m_killed.load())
        m_drainChanged(status);
}

DrainStatus Replica::drainStatus() const
{
    const std::lock_guard lock(m_drainMutex);
    return m_drain;
}

bool Replica::drainFor(std::chrono::milliseconds bound)
{
    m_localDrain.store(true);
    updateDrain();
    std::unique_lock lock(m_drainMutex);
    m_drainWake.wait_for(lock, bound, [this] { return m_drain.drained || m_drainCut; });
    return m_drain.drained;
}

void Replica::cutDrainShort()
{
    {
        const std::lock_guard lock(m_drainMutex);
        m_drainCut = true;
    }
    m_drainWake.notify_all();
}

void Replica::wakeRunners(const std::set<std::string> &roles)
{
    for (const auto &runner : m_runners)
        if (roles.contains(runner->schedule().role))
            runner->wake();
}

bool Replica::fastWake() const
{
    return m_listener && m_listener->isListening();
}

int Replica::subscribe(std::function<void(const ReplicaEvent &)> subscriber)
{
    const std::lock_guard lock(m_subscribersMutex);
    m_subscribers.emplace_back(m_nextSubscriber, std::move(subscriber));
    return m_nextSubscriber++;
}

void Replica::unsubscribe(int id)
{
    const std::lock_guard lock(m_subscribersMutex);
    std::erase_if(m_subscribers, [id](const auto &entry) { return entry.first == id; });
}

std::string Replica::metricsText()
{
    if (!m_killed.load())
        m_status->refresh(); // a failed read marks the roles "error" itself
    return m_registry.exposition();
}

std::uint64_t Replica::ticksLed() const
{
    std::uint64_t ticks = 0;
    for (const auto &runner : m_runners)
        ticks += runner->ticksLed();
    return ticks;
}

std::optional<std::chrono::milliseconds> Replica::clockDrift() const
{
    return m_manager->clockDrift();
}

} // namespace leader::replica
