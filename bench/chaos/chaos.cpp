#include "chaos.h"

#include "demowork.h"
#include "host.h"
#include "idleproxy.h"
#include "lease/constants.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "replicaprocess.h"
#include "text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace bench::chaos {

namespace {

using namespace std::chrono_literals;
using bench::ReplicaEvent;
using leader::lease::EventKind;

constexpr auto StatementTimeout = 10s;
constexpr auto ActionTimeout = std::chrono::seconds(120);
constexpr auto ReachableDeadline = 120s;
constexpr auto MemorySampleEvery = 5s;
// A lease outlives its holder's death by its TTL: a fault's effect on the roles lasts that long.
constexpr auto LeaseTtl = leader::lease::LeaseTTL;
// A panic fires on its replica's next tick of the role; past this it is left armed.
constexpr auto PanicFireDeadline = 45s;
// The failover's primary keeps issuing ACQUIREs after the cut until this many, or this long.
constexpr std::int64_t AcquiresAfterCut = 3;
// The ACQUIREs remembered to aim a panic at a role its victim has been winning.
constexpr std::size_t RecentAcquiredKept = 200;
constexpr auto CutDeadline = 20s;
constexpr auto DrainDeadline = 120s;
constexpr int ReplicaFaultsPerCycle = 2;

// The session events. A window is long enough for billing (8 s ticks, 6 s apart) to complete a
// tick inside it however the two line up; a full run's are drawn longer.
constexpr auto QuickSessionWindow = 25s;
constexpr double FullSessionWindowLow = 45;
constexpr double FullSessionWindowHigh = 90;
constexpr const char *IdleSessionTimeout = "5s";
constexpr auto ProxyIdleLimit = 5s;
// A DBA's reaper: every ReaperEvery, the app login's sessions idle longer than ReaperIdleSeconds.
constexpr auto ReaperEvery = 20s;
constexpr const char *ReaperIdleSeconds = "10";
// The partition lasts longer than the servers take to end a silent peer's session (keepalives
// 1 + 1 x 2 s, tcp_user_timeout 3 s: bench/chaos/servers.sh) and than a lease's TTL, so that both
// an early take and the TTL path can show.
constexpr double PartitionLow = 8;
constexpr double PartitionHigh = 16;
// It waits this long at most for the isolated replica to be in a tick of billing or dunning, half
// as long more for one of any role, at least this far into it.
constexpr auto PartitionAimDeadline = 24s;
constexpr double PartitionAimTickAge = 0.5;

// Every role ticks; billing and dunning long enough that a database event lands mid-tick, the
// outboxes briskly. Targets are interval + 15 s.
struct RoleConfig
{
    const char *role;
    const char *interval;
    const char *minTick;
    const char *itemLatency;
    int batch;
    double intervalSeconds;
    double minTickSeconds;
};
constexpr RoleConfig Roles[] = {
        {"billing", "6s", "8s", "200ms", 5, 6, 8},
        {"dunning", "4s", "4s", "200ms", 5, 4, 4},
        {"webhook_outbox", "2s", "1s", "20ms", 50, 2, 1},
        {"email_outbox", "2s", "1s", "20ms", 50, 2, 1},
        {"webhook_delivery", "2s", "1s", "20ms", 50, 2, 1},
};

// A role and the name of the first step of its tick, for "panic ROLE STEP". Billing's slow
// cadence would leave its panic armed for long; the others tick every few seconds.
constexpr std::pair<const char *, const char *> PanicSteps[] = {
        {"dunning", "ListDueRuns"},
        {"webhook_outbox", "process batch"},
        {"email_outbox", "claim batch"},
        {"webhook_delivery", "list pending deliveries"},
};

// The demo workload: tenants per second, each with a subscription due every minute, a webhook
// event and an email. Within what the outboxes drain between faults.
constexpr const char *WorkloadRate = "1";

const char *actionOf(Fault kind)
{
    switch (kind) {
    case Fault::PgRestart:
        return "restart";
    case Fault::PgCrash:
        return "crash";
    case Fault::BouncerRestart:
        return "bouncer-restart";
    case Fault::BouncerReconnect:
        return "bouncer-reconnect";
    case Fault::Failover:
        return "promote";
    default:
        return "";
    }
}

// Odd slots go straight to Postgres through the multi-host URL, so they must follow a promotion
// on their own, and run without the fault switchboard (its link proxy fronts one server, so
// leader-replica takes --control only with a one-server URL): they take the signals. Even slots
// go through PgBouncer, which the failover repoints, and take every fault. r1 is never killed, so
// one memory figure spans the run; r2 and r3 run under a wall clock one hour ahead and one hour
// behind.
// r1 is the one the partition cuts off, when there is a network namespace to run it in: never
// killed, it is a holder whose process lives through the cut.
std::vector<SlotSetup> fleetSlots(int replicas, bool isolateFirst)
{
    std::vector<SlotSetup> slots;
    for (int i = 1; i <= replicas; ++i) {
        slots.push_back({.id = "r" + std::to_string(i),
                         .path = i % 2 == 1 ? Path::Direct : Path::Bouncer,
                         .control = i % 2 == 0,
                         .skewSeconds = i == 2   ? 3600
                                        : i == 3 ? -3600
                                                 : 0,
                         .killable = i != 1,
                         .isolated = i == 1 && isolateFirst});
    }
    return slots;
}

std::optional<int> terminatedCount(const std::string &line)
{
    constexpr std::string_view Marker = "terminated ";
    const std::size_t at = line.find(Marker);
    if (at == std::string::npos)
        return std::nullopt;
    int count = 0;
    const char *first = line.data() + at + Marker.size();
    const auto [end, error] = std::from_chars(first, line.data() + line.size(), count);
    if (error != std::errc())
        return std::nullopt;
    return count;
}

} // namespace

ChaosBench::ChaosBench(const Options &options, std::filesystem::path workDirectory,
                       FleetSetup fleetSetup)
    : m_options(options)
    , m_directory(std::move(workDirectory))
    , m_redact(fleetSetup.redact)
    , m_quick(options.duration < FullDuration)
    , m_db({.url = options.databaseUrl, .applicationName = "chaos-bench"})
    , m_fleet(std::move(fleetSetup), fleetSlots(options.replicas, !options.netns.empty()), m_events)
    , m_servers(options.serversScript, options.serversDirectory, m_directory / "servers.log")
    , m_random(options.seed)
    , m_busy(static_cast<std::size_t>(options.replicas))
{
    for (int slot = 0; slot < m_fleet.size(); ++slot)
        m_record.slots.push_back(m_fleet.setup(slot));
    for (const RoleConfig &role : Roles)
        m_record.roles.push_back({role.role, role.intervalSeconds, role.minTickSeconds});
    m_record.fullRun = !m_quick;
    m_sessionKinds = {Fault::IdleTimeout, Fault::Reaper};
    if (!options.proxyDatabaseUrl.empty())
        m_sessionKinds.push_back(Fault::IdleProxy);
    else
        m_notes.push_back("idle-proxy skipped: no --proxy-ports");
    if (!options.netns.empty())
        m_sessionKinds.push_back(Fault::Partition);
    else
        m_notes.push_back("partition skipped: no --netns (bench/chaos/servers.sh makes a network "
                          "namespace only as root, with ip and tc's blackhole qdisc)");
}

// Whatever ended the run, nothing it started outlives it: each ReplicaProcess thaws and kills
// its child, replicas and workload alike.
ChaosBench::~ChaosBench() = default;

void ChaosBench::progress(const std::string &line) const
{
    std::cerr << "chaos-bench: " << m_redact(line) << std::endl;
}

double ChaosBench::uniform(double low, double high)
{
    return std::uniform_real_distribution<double>(low, high)(m_random);
}

RunResults ChaosBench::run()
{
    RunResults results;
    results.startedAt = bench::formatTimestamp(wallClock());
    results.system = bench::systemDescription();
    results.processors = bench::processorCount();
    setUp();
    soak();
    waitForQuiet();
    m_record.faultsEndedAt = wallClock();
    // Fault-free time at the end: the last event's ticks finish, and any tick lost now is lost
    // for no reason at all.
    progress("faults over; settling");
    pause(m_quick ? 15s : 60s);
    stopWorkload();
    drain();
    m_fleet.scrapeAll();
    m_fleet.sampleMemory();
    progress("stopping the replicas");
    m_fleet.terminateAll(10s);
    m_record.endedAt = wallClock();
    m_record.tookOver = m_leaseWatch->stop();
    consumeEvents();
    collect();
    m_record.events = m_events.since(0);
    m_record.lives = m_fleet.lives();
    results.verdicts = analyze(m_record);
    results.record = std::move(m_record);
    results.serverVersion = m_serverVersion;
    std::ifstream config(m_directory / "replica.conf");
    std::stringstream text;
    text << config.rdbuf();
    results.replicaConfig = text.str();
    if (m_workloadRestarts > 0)
        m_notes.push_back("the workload was restarted " + std::to_string(m_workloadRestarts)
                          + " times after a database event cut it off");
    results.notes = m_notes;
    results.finishedAt = bench::formatTimestamp(wallClock());
    return results;
}

int ChaosBench::leaderctl(const std::vector<std::string> &arguments, std::chrono::seconds timeout,
                          std::vector<std::string> *output)
{
    const std::filesystem::path log = m_directory / "leaderctl.log";
    std::error_code ignored;
    const std::uintmax_t before
            = std::filesystem::exists(log, ignored) ? std::filesystem::file_size(log, ignored) : 0;
    std::vector<std::string> argv{m_options.leaderctl.string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    argv.insert(argv.end(), {"--database", m_options.databaseUrl});
    const int code = runToEnd(argv, log, timeout);
    if (output)
        *output = linesFrom(log, before);
    return code;
}

void ChaosBench::setUp()
{
    progress("migrating (leaderctl migrate --demo)");
    if (const int code = leaderctl({"migrate", "--demo"}, 120s); code != 0)
        throw std::runtime_error("leaderctl migrate --demo failed (exit code "
                                 + std::to_string(code) + ") [log "
                                 + (m_directory / "leaderctl.log").string() + "]");
    m_serverVersion = std::string(query("server version", "SHOW server_version").text(0, 0));
    // Every column a tick, a pause or a cooldown leaves behind, and every demo row: the run
    // starts from nothing, whatever ran here before.
    query("reset leases",
          "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, expires_at = NULL, "
          "last_tick_ended_at = NULL, last_tick_holder = NULL, paused_at = NULL, "
          "paused_by = NULL, pause_reason = NULL, not_before = NULL");
    query("reset demo", "TRUNCATE tenants, claim_log, external_effects, fence_refusals RESTART "
                        "IDENTITY CASCADE");
    m_leaseWatch = std::make_unique<LeaseWatch>(m_options.databaseUrl);
    writeConfig();
    m_workloadUntil = Clock::now() + m_options.duration + 30s;
    startWorkload();
    progress("starting " + std::to_string(m_fleet.size()) + " replicas");
    for (int slot = 0; slot < m_fleet.size(); ++slot) {
        m_fleet.start(slot);
        progress("  " + m_fleet.setup(slot).describe() + " pid "
                 + std::to_string(m_fleet.pid(slot)));
    }
    m_record.startedAt = wallClock();
    m_nextMemorySample = Clock::now();
}

void ChaosBench::writeConfig()
{
    std::ofstream config(m_directory / "replica.conf");
    config << "# written by chaos-bench\n";
    for (const RoleConfig &role : Roles)
        config << role.role << ".interval = " << role.interval << "\n"
               << role.role << ".min_tick = " << role.minTick << "\n"
               << role.role << ".item_latency = " << role.itemLatency << "\n"
               << role.role << ".batch = " << role.batch << "\n";
    if (!config.flush())
        throw std::runtime_error("cannot write " + (m_directory / "replica.conf").string());
}

void ChaosBench::startWorkload()
{
    const auto left
            = std::chrono::duration_cast<std::chrono::seconds>(m_workloadUntil - Clock::now());
    if (left < 5s)
        return;
    const std::filesystem::path log = m_directory / "workload.log";
    m_workload = std::make_unique<bench::ReplicaProcess>(
            std::vector<std::string>{m_options.leaderctl.string(), "workload", "--database",
                                     m_options.databaseUrl, "--rate", WorkloadRate, "--count",
                                     "1000000", "--duration", std::to_string(left.count())},
            log, log, [](int, std::string_view) {});
}

void ChaosBench::restartWorkload()
{
    // It stopped on a database event; it goes on once the database is back.
    if (m_outage)
        schedule(1s, [this] { restartWorkload(); });
    else if (!m_workload)
        startWorkload();
}

void ChaosBench::stopWorkload()
{
    if (!m_workload)
        return;
    m_workload->terminate();
    if (!m_workload->waitForExit(5s))
        m_workload->kill();
    m_workload.reset();
}

void ChaosBench::soak()
{
    const auto end = Clock::now() + m_options.duration;
    const std::vector<Fault> replicaKinds(std::begin(ReplicaFaultKinds),
                                          std::end(ReplicaFaultKinds));
    // A cycle ends with a database event or a session event: one at a time, after the replica
    // faults, so that each one's effects are its own.
    std::vector<Fault> eventKinds(std::begin(DatabaseFaultKinds), std::end(DatabaseFaultKinds));
    eventKinds.insert(eventKinds.end(), m_sessionKinds.begin(), m_sessionKinds.end());
    std::vector<Fault> replicaBag, eventBag;
    const auto landed = [this](const std::vector<Fault> &kinds) {
        return std::all_of(kinds.begin(), kinds.end(),
                           [this](Fault kind) { return m_counts.contains(kind); });
    };
    while (Clock::now() < end || !landed(replicaKinds) || !landed(eventKinds)) {
        // Past the duration a cycle only completes the round: replica faults while a kind of
        // them has not landed yet, then the events still missing.
        if (Clock::now() < end || !landed(replicaKinds)) {
            for (int i = 0; i < ReplicaFaultsPerCycle; ++i) {
                pause(std::chrono::milliseconds(static_cast<int>(uniform(2, 6) * 1000)));
                injectReplicaFault(draw(replicaBag, replicaKinds));
            }
        }
        waitForQuiet();
        pause(std::chrono::milliseconds(static_cast<int>(uniform(1, 4) * 1000)));
        const Fault kind = draw(eventBag, eventKinds);
        if (isSessionEvent(kind))
            sessionEvent(kind);
        else
            databaseEvent(kind);
    }
}

Fault ChaosBench::draw(std::vector<Fault> &bag, const std::vector<Fault> &kinds)
{
    // A shuffled bag of every kind, refilled when empty: each kind lands once per round.
    if (bag.empty()) {
        bag = kinds;
        std::shuffle(bag.begin(), bag.end(), m_random);
    }
    const Fault kind = bag.back();
    bag.pop_back();
    return kind;
}

std::optional<int> ChaosBench::pickVictim(Fault kind)
{
    std::vector<int> eligible, holding;
    for (int slot = 0; slot < m_fleet.size(); ++slot) {
        const SlotSetup &setup = m_fleet.setup(slot);
        if (m_busy[slot] || !m_fleet.running(slot))
            continue;
        if ((kind == Fault::SigKill || kind == Fault::SigTerm) && !setup.killable)
            continue;
        if ((kind == Fault::Freeze || kind == Fault::Sever || kind == Fault::Slow
             || kind == Fault::Panic)
            && !setup.control)
            continue;
        eligible.push_back(slot);
        const int pid = m_fleet.pid(slot);
        if (std::any_of(m_openTicks.begin(), m_openTicks.end(),
                        [pid](const auto &open) { return std::get<0>(open.first) == pid; }))
            holding.push_back(slot);
    }
    // A fault matters most to a replica in the middle of a tick: prefer one.
    const std::vector<int> &from = kind != Fault::Panic && !holding.empty() ? holding : eligible;
    if (from.empty())
        return std::nullopt;
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(m_random)];
}

bool ChaosBench::control(int slot, const std::string &command)
{
    try {
        const std::string reply = bench::sendControl(m_fleet.controlSocket(slot), command, 2000ms);
        if (reply.rfind("ok", 0) == 0)
            return true;
        m_notes.push_back(m_fleet.setup(slot).id + " refused '" + command + "': " + reply);
    } catch (const std::exception &error) {
        m_notes.push_back(m_fleet.setup(slot).id + ": '" + command + "' not sent: " + error.what());
    }
    progress(m_notes.back());
    return false;
}

void ChaosBench::injectReplicaFault(Fault kind)
{
    const std::optional<int> victim = pickVictim(kind);
    if (!victim) {
        m_notes.push_back(std::string(nameOf(kind))
                          + ": no replica could take it when it was due; skipped");
        return;
    }
    const int slot = *victim;
    ReplicaFault fault{.kind = kind,
                       .replica = m_fleet.setup(slot).id,
                       .pid = m_fleet.pid(slot),
                       .at = wallClock()};
    const std::size_t index = m_record.replicaFaults.size();
    const auto lasting = [&](double low, double high) {
        return std::chrono::milliseconds(static_cast<int>(uniform(low, high) * 1000));
    };
    std::function<void()> end;
    Clock::duration endsAfter{};
    switch (kind) {
    case Fault::SigKill:
        fault.command = "SIGKILL";
        // Its panicked count as it stood: a dead process serves no /metrics.
        m_fleet.scrape(slot);
        m_fleet.kill(slot);
        endsAfter = lasting(2, 6);
        end = [this, slot, index] {
            restart(slot, index);
        };
        break;
    case Fault::SigTerm: {
        fault.command = "SIGTERM";
        m_fleet.scrape(slot);
        m_fleet.terminate(slot, 5s);
        endsAfter = lasting(1, 4);
        end = [this, slot, index] {
            restart(slot, index);
        };
        break;
    }
    case Fault::SigStop:
        fault.command = "SIGSTOP";
        m_fleet.stop(slot);
        endsAfter = lasting(4, 14);
        end = [this, slot, index] {
            m_fleet.resume(slot);
            endFault(index);
        };
        break;
    case Fault::Freeze:
    case Fault::Sever: {
        const int length = static_cast<int>(uniform(4, 12));
        fault.command = std::string(kind == Fault::Freeze ? "freeze " : "sever ")
                        + std::to_string(length);
        if (!control(slot, fault.command))
            return;
        endsAfter = std::chrono::seconds(length);
        end = [this, index] {
            endFault(index);
        };
        break;
    }
    case Fault::Slow:
        fault.command = "slow " + std::to_string(static_cast<int>(uniform(100, 400)));
        if (!control(slot, fault.command))
            return;
        endsAfter = lasting(5, 12);
        end = [this, slot, index] {
            control(slot, "heal");
            endFault(index);
        };
        break;
    case Fault::Panic: {
        // A role the victim has been winning lately, so that the panic fires soon: a replica
        // through PgBouncer loses most races to the direct ones.
        std::vector<std::size_t> led;
        for (std::size_t i = 0; i < std::size(PanicSteps); ++i) {
            if (std::any_of(m_recentAcquired.begin(), m_recentAcquired.end(),
                            [&](const auto &recent) {
                                return recent.first == fault.pid
                                       && recent.second == PanicSteps[i].first;
                            }))
                led.push_back(i);
        }
        const std::size_t pick = led.empty() ? std::uniform_int_distribution<std::size_t>(
                                         0, std::size(PanicSteps) - 1)(m_random)
                                             : led[std::uniform_int_distribution<std::size_t>(
                                                     0, led.size() - 1)(m_random)];
        const auto &[role, step] = PanicSteps[pick];
        fault.role = role;
        fault.command = std::string("panic ") + role + " " + step;
        if (!control(slot, fault.command))
            return;
        // It ends when it fires (service() sees the failed tick), or is left armed at the
        // deadline: the checks match it to whatever tick it fails later.
        endsAfter = PanicFireDeadline;
        end = [this, index] {
            endFault(index);
        };
        break;
    }
    default:
        return;
    }
    progress(fault.replica + " (pid " + std::to_string(fault.pid) + "): " + fault.command);
    m_record.replicaFaults.push_back(fault);
    m_faultActive.push_back(true);
    m_busy[slot] = index;
    m_counts[kind] += 1;
    m_quietFrom = std::max(m_quietFrom, Clock::now() + LeaseTtl + 2s);
    schedule(endsAfter, std::move(end));
}

void ChaosBench::endFault(std::size_t index)
{
    if (!m_faultActive[index])
        return;
    m_faultActive[index] = false;
    ReplicaFault &fault = m_record.replicaFaults[index];
    if (fault.kind != Fault::Panic)
        fault.endedAt = wallClock();
    for (std::optional<std::size_t> &busy : m_busy) {
        if (busy == index)
            busy.reset();
    }
    m_quietFrom = std::max(m_quietFrom, Clock::now() + 3s);
}

void ChaosBench::restart(int slot, std::optional<std::size_t> fault, Route route)
{
    // Not while the database is down: the start would fail for a reason of ours.
    if (m_outage) {
        schedule(1s, [this, slot, fault, route] { restart(slot, fault, route); });
        return;
    }
    if (fault)
        endFault(*fault);
    try {
        m_fleet.start(slot, route);
        progress(m_fleet.setup(slot).id + " started again, pid "
                 + std::to_string(m_fleet.pid(slot)));
    } catch (const StartError &error) {
        // On record in the fleet's lives as an exit nobody asked for; tried again later.
        progress(error.what());
        schedule(10s, [this, slot] { restart(slot, std::nullopt); });
    }
}

void ChaosBench::schedule(Clock::duration after, std::function<void()> action)
{
    m_pending.push_back({Clock::now() + after, std::move(action)});
}

void ChaosBench::consumeEvents()
{
    std::vector<ReplicaEvent> fresh = m_events.since(m_consumed);
    m_consumed += fresh.size();
    for (const ReplicaEvent &event : fresh) {
        if (!event.token)
            continue;
        const auto key = std::make_tuple(event.pid, event.role, *event.token);
        if (event.transition == EventKind::Acquired) {
            ++m_acquired;
            m_openTicks[key] = event.dbTimeEpoch.value_or(event.receivedAt);
            m_recentAcquired.emplace_back(event.pid, event.role);
            if (m_recentAcquired.size() > RecentAcquiredKept)
                m_recentAcquired.pop_front();
            continue;
        }
        if (event.transition != EventKind::Released && event.transition != EventKind::ReleaseFailed)
            continue;
        const auto open = m_openTicks.find(key);
        if (open == m_openTicks.end())
            continue;
        if (event.outcome == leader::lease::Outcome::Completed) {
            double &latest = m_lastCompleted[event.role];
            latest = std::max(latest, open->second);
        } else if (event.outcome == leader::lease::Outcome::Failed) {
            m_failedTicks.emplace_back(event.pid, event.role, open->second);
        }
        m_openTicks.erase(open);
    }
    // A killed replica's ticks end with it.
    std::erase_if(m_openTicks, [this](const auto &open) {
        const int pid = std::get<0>(open.first);
        for (int slot = 0; slot < m_fleet.size(); ++slot) {
            if (m_fleet.pid(slot) == pid)
                return !m_fleet.running(slot);
        }
        return true;
    });
}

void ChaosBench::service()
{
    bench::throwIfInterrupted();
    consumeEvents();
    for (const int slot : m_fleet.reapUnexpected()) {
        progress(m_fleet.setup(slot).id + " exited by itself; starting it again in 3 s [log "
                 + m_fleet.errorLog(slot).string() + "]");
        schedule(3s, [this, slot] { restart(slot, std::nullopt); });
    }
    // A panic's end is its firing: the failed tick of its role on its process.
    for (std::size_t index = 0; index < m_record.replicaFaults.size(); ++index) {
        const ReplicaFault &fault = m_record.replicaFaults[index];
        if (!m_faultActive[index] || fault.kind != Fault::Panic)
            continue;
        if (std::any_of(m_failedTicks.begin(), m_failedTicks.end(), [&](const auto &failed) {
                return std::get<0>(failed) == fault.pid && std::get<1>(failed) == fault.role
                       && std::get<2>(failed) + 1.0 >= fault.at;
            })) {
            progress(fault.replica + ": the panic fired");
            endFault(index);
        }
    }
    const Clock::time_point now = Clock::now();
    std::vector<Pending> due;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->at <= now) {
            due.push_back(std::move(*it));
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
    std::sort(due.begin(), due.end(),
              [](const Pending &a, const Pending &b) { return a.at < b.at; });
    for (Pending &pending : due)
        pending.action();
    if (now >= m_nextMemorySample) {
        m_fleet.sampleMemory();
        m_nextMemorySample = now + MemorySampleEvery;
    }
    if (m_workload && !m_workload->running()) {
        const std::optional<bench::ExitStatus> exit = m_workload->exitStatus();
        m_workload.reset();
        if (exit && !exit->clean()) {
            ++m_workloadRestarts;
            schedule(2s, [this] { restartWorkload(); });
        }
    }
}

void ChaosBench::pause(Clock::duration duration)
{
    const Clock::time_point until = Clock::now() + duration;
    do {
        service();
        bench::sleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(
                std::clamp<Clock::duration>(until - Clock::now(), 0ms, 100ms)));
    } while (Clock::now() < until);
}

void ChaosBench::waitForQuiet()
{
    while (std::find(m_faultActive.begin(), m_faultActive.end(), true) != m_faultActive.end()
           || Clock::now() < m_quietFrom)
        pause(100ms);
}

leader::pg::Result ChaosBench::query(const char *statement, const char *sql)
{
    // The benchmark's own connection meets the same restarts as the replicas: it retries.
    const Clock::time_point deadline = Clock::now() + ReachableDeadline;
    for (;;) {
        try {
            return m_db.exec(statement, sql, {}, StatementTimeout);
        } catch (const leader::pg::Error &) {
            m_db.close();
            if (Clock::now() >= deadline)
                throw;
            bench::sleepFor(500ms);
        }
    }
}

void ChaosBench::waitUntilReachable(DatabaseEvent &event, const std::string &what)
{
    // Each path the event cut must take a write again: straight to the primary (the multi-host
    // URL) and through PgBouncer, which after a failed server login waits server_login_retry. A
    // PgBouncer event leaves the direct path as it was.
    const Clock::time_point deadline = Clock::now() + ReachableDeadline;
    std::optional<double> &direct = event.directReachableAt;
    std::optional<double> &pooled = event.bouncerReachableAt;
    const auto directBack = [&] {
        return !event.affectsDirect || direct.has_value();
    };
    for (;;) {
        if (!directBack())
            direct = writableAt(m_options.databaseUrl);
        if (!pooled)
            pooled = writableAt(m_options.bouncerDatabaseUrl);
        if (directBack() && pooled)
            break;
        if (Clock::now() >= deadline)
            throw std::runtime_error("the database was not reachable again within "
                                     + std::to_string(ReachableDeadline.count()) + " s of " + what
                                     + (directBack() ? " through PgBouncer" : "") + " [servers "
                                     + m_options.serversDirectory.string() + "]");
        pause(100ms);
    }
    event.reachableAt = event.affectsDirect ? direct : pooled;
}

void ChaosBench::waitForRecovery(double reachableAt)
{
    // Until every role has completed a tick acquired with the database back, or past every
    // role's target and its tick's length: the checks judge it; this only paces the run.
    double cap = 0;
    for (const RoleSchedule &role : m_record.roles)
        cap = std::max(cap, role.interval + RecoveryAllowance + role.minTick + 5);
    const Clock::time_point deadline
            = Clock::now() + std::chrono::milliseconds(static_cast<int>(cap * 1000));
    const auto recovered = [&] {
        return std::all_of(m_record.roles.begin(), m_record.roles.end(),
                           [&](const RoleSchedule &role) {
                               const auto it = m_lastCompleted.find(role.role);
                               return it != m_lastCompleted.end() && it->second >= reachableAt;
                           });
    };
    while (!recovered() && Clock::now() < deadline)
        pause(100ms);
}

void ChaosBench::databaseEvent(Fault kind)
{
    DatabaseEvent event{.kind = kind,
                        .number = ++m_counts[kind],
                        .affectsDirect
                        = kind != Fault::BouncerRestart && kind != Fault::BouncerReconnect};
    const std::string name = std::string(nameOf(kind)) + " " + std::to_string(event.number);
    progress(name);
    const auto said = [&](const std::vector<std::string> &lines) {
        for (const std::string &line : lines) {
            progress("  " + line);
            event.notes.push_back(line);
        }
    };
    if (kind == Fault::Failover) {
        // The standby stops receiving WAL, the primary goes on granting leases: the promoted
        // standby will not know of the last ones.
        said(m_servers.run("cut-replication", ActionTimeout));
        const std::int64_t mark = m_acquired;
        const Clock::time_point deadline = Clock::now() + CutDeadline;
        while (m_acquired - mark < AcquiresAfterCut && Clock::now() < deadline)
            pause(100ms);
        event.acquiresAfterCut = m_acquired - mark;
        progress("  " + std::to_string(event.acquiresAfterCut)
                 + " ACQUIREs on the primary after the cut");
    }
    event.startedAt = wallClock();
    m_outage = true;
    said(m_servers.run(actionOf(kind), ActionTimeout));
    waitUntilReachable(event, name);
    m_outage = false;
    m_record.databaseEvents.push_back(event);
    waitForRecovery(*event.reachableAt);
    // A PgBouncer event leaves the direct path up: only the pooler's return is worth a figure.
    std::string line
            = name + ": writable "
              + (event.affectsDirect
                         ? seconds(*event.directReachableAt - event.startedAt, 1) + " (direct), "
                         : std::string())
              + seconds(*event.bouncerReachableAt - event.startedAt, 1)
              + " (PgBouncer) after it began";
    const auto slowest = std::max_element(
            m_record.roles.begin(), m_record.roles.end(), [&](const auto &a, const auto &b) {
                return m_lastCompleted[a.role] > m_lastCompleted[b.role];
            });
    if (m_lastCompleted[slowest->role] >= *event.reachableAt)
        line += "; every role ticked again";
    else
        line += "; " + slowest->role + " has not ticked again";
    progress(line);
    if (kind == Fault::Failover) {
        // A standby again, so that the next failover has somewhere to go.
        std::vector<std::string> rebuilt = m_servers.run("rebuild-standby", ActionTimeout);
        for (const std::string &text : rebuilt) {
            progress("  " + text);
            m_record.databaseEvents.back().notes.push_back(text);
        }
    }
}

void ChaosBench::sessionEvent(Fault kind)
{
    SessionEvent event{.kind = kind, .number = ++m_counts[kind], .startedAt = wallClock()};
    const std::string name = std::string(nameOf(kind)) + " " + std::to_string(event.number);
    progress(name);
    const Clock::duration window
            = m_quick ? Clock::duration(QuickSessionWindow)
                      : std::chrono::milliseconds(static_cast<int>(
                              uniform(FullSessionWindowLow, FullSessionWindowHigh) * 1000));
    const Clock::time_point until = Clock::now() + window;
    switch (kind) {
    case Fault::IdleTimeout:
        idleTimeout(event, until);
        break;
    case Fault::Reaper:
        reaper(event, until);
        break;
    case Fault::IdleProxy:
        idleProxy(event, until);
        break;
    case Fault::Partition:
        partition(event, window);
        break;
    default:
        return;
    }
    event.endedAt = wallClock();
    progress(name + ": over after " + seconds(event.endedAt - event.startedAt, 1));
    m_record.sessionEvents.push_back(std::move(event));
    m_quietFrom = std::max(m_quietFrom, Clock::now() + 3s);
}

void ChaosBench::idleTimeout(SessionEvent &event, Clock::time_point until)
{
    for (const std::string &line :
         m_servers.run("idle-timeout", ActionTimeout, {IdleSessionTimeout})) {
        progress("  " + line);
        event.notes.push_back(line);
    }
    // The reload reaches a session at its next statement; one that has sent nothing since it
    // started keeps the value it started with. The killable replicas start again under the
    // setting, as after a deploy, so that the fleet holds sessions of both kinds.
    event.restarted = restartKillable(Route::Usual);
    pause(until - Clock::now());
    for (const std::string &line : m_servers.run("idle-timeout", ActionTimeout, {"off"})) {
        progress("  " + line);
        event.notes.push_back(line);
    }
}

void ChaosBench::reaper(SessionEvent &event, Clock::time_point until)
{
    for (Clock::time_point next = Clock::now(); Clock::now() < until;) {
        if (Clock::now() >= next) {
            for (const std::string &line :
                 m_servers.run("reap", ActionTimeout, {ReaperIdleSeconds})) {
                progress("  " + line);
                event.notes.push_back(line);
                event.sessionsTerminated += terminatedCount(line).value_or(0);
            }
            ++event.reaperRounds;
            next += ReaperEvery;
        }
        pause(std::min(next, until) - Clock::now());
    }
}

void ChaosBench::idleProxy(SessionEvent &event, Clock::time_point until)
{
    IdleCutProxy proxy(m_options.proxyPorts, ProxyIdleLimit);
    event.restarted = restartKillable(Route::Proxied);
    pause(until - Clock::now());
    // Back on their own route before the proxy goes, so that it cuts only inside the window.
    restartKillable(Route::Usual);
    event.proxied = proxy.accepted();
    event.proxyCuts = proxy.cut();
    progress("  the proxy took " + std::to_string(event.proxied) + " connections and cut "
             + std::to_string(event.proxyCuts) + " of them for their client's silence");
}

void ChaosBench::partition(SessionEvent &event, Clock::duration window)
{
    int slot = 0;
    while (slot < m_fleet.size() && !m_fleet.setup(slot).isolated)
        ++slot;
    if (slot == m_fleet.size() || !m_fleet.running(slot)) {
        m_notes.push_back("partition " + std::to_string(event.number)
                          + ": the isolated replica was not running; skipped");
        progress(m_notes.back());
        return;
    }
    const int pid = m_fleet.pid(slot);
    // A holder cut off with work in flight, as when the issue measured it: a tick of billing or
    // dunning (long enough to see the rest of it run on) preferably, of any role otherwise.
    const auto holding = [&](bool longTicksOnly) -> std::optional<std::string> {
        const double now = wallClock();
        for (const auto &[key, acquiredAt] : m_openTicks) {
            const auto &[tickPid, role, token] = key;
            if (tickPid == pid && now - acquiredAt >= PartitionAimTickAge
                && (!longTicksOnly || role == "billing" || role == "dunning"))
                return role;
        }
        return std::nullopt;
    };
    std::optional<std::string> role;
    for (const Clock::time_point deadline = Clock::now() + PartitionAimDeadline;
         !(role = holding(true)) && Clock::now() < deadline;)
        pause(100ms);
    for (const Clock::time_point deadline = Clock::now() + PartitionAimDeadline / 2;
         !role && !(role = holding(false)) && Clock::now() < deadline;)
        pause(100ms);
    const double length = uniform(PartitionLow, PartitionHigh);
    ReplicaFault fault{.kind = Fault::Partition,
                       .replica = m_fleet.setup(slot).id,
                       .pid = pid,
                       .at = wallClock(),
                       .command = "partition " + seconds(length, 1)};
    event.startedAt = fault.at;
    event.victim = fault.replica;
    event.victimPid = pid;
    event.victimRole = role.value_or("");
    const Clock::time_point until = Clock::now() + window;
    for (const std::string &line : m_servers.run("partition-cut", ActionTimeout)) {
        progress("  " + line);
        event.notes.push_back(line);
    }
    event.cutAt = fault.at;
    progress(fault.replica + " (pid " + std::to_string(pid) + ") cut off for " + seconds(length, 1)
             + (role ? " while holding " + *role : std::string(" holding nothing")));
    // On record as a fault of that process too: its own lost ticks are the cut's.
    const std::size_t index = m_record.replicaFaults.size();
    m_record.replicaFaults.push_back(fault);
    m_faultActive.push_back(true);
    m_busy[slot] = index;
    pause(std::chrono::milliseconds(static_cast<int>(length * 1000)));
    for (const std::string &line : m_servers.run("partition-heal", ActionTimeout)) {
        progress("  " + line);
        event.notes.push_back(line);
    }
    endFault(index);
    event.healedAt = wallClock();
    pause(until - Clock::now());
    m_quietFrom = std::max(m_quietFrom, Clock::now() + LeaseTtl + 2s);
}

std::vector<std::string> ChaosBench::restartKillable(Route route)
{
    std::vector<std::string> restarted;
    // One at a time, so that the rest of the fleet leads meanwhile; SIGTERM hands each one's
    // roles over at once.
    for (int slot = 0; slot < m_fleet.size(); ++slot) {
        if (!m_fleet.setup(slot).killable || m_busy[slot] || !m_fleet.running(slot))
            continue;
        const std::string &id = m_fleet.setup(slot).id;
        m_fleet.scrape(slot);
        m_fleet.terminate(slot, 5s);
        try {
            m_fleet.start(slot, route);
            restarted.push_back(id);
            progress("  " + id + " started again"
                     + (route == Route::Proxied ? " behind the proxy" : "") + ", pid "
                     + std::to_string(m_fleet.pid(slot)));
        } catch (const StartError &error) {
            progress(error.what());
            schedule(10s, [this, slot] { restart(slot, std::nullopt); });
        }
        pause(1s);
    }
    return restarted;
}

void ChaosBench::drain()
{
    // The auditor wants every webhook and email older than its grace handled: the fleet, with
    // the workload stopped, finishes what is left.
    const Clock::time_point deadline = Clock::now() + DrainDeadline;
    std::int64_t pending = query("pending work", PendingWorkSql).toInt64(0, 0);
    if (pending > 0)
        progress("draining " + std::to_string(pending) + " webhook and email items");
    while (pending > 0 && Clock::now() < deadline) {
        pause(1s);
        pending = query("pending work", PendingWorkSql).toInt64(0, 0);
    }
    if (pending > 0)
        m_notes.push_back(std::to_string(pending)
                          + " webhook and email items were still undone after the drain");
}

void ChaosBench::collect()
{
    const leader::pg::Result claims
            = query("claims", "SELECT role, token, extract(epoch FROM fenced_at)::float8 "
                              "FROM claim_log");
    for (int row = 0; row < claims.rows(); ++row)
        m_record.claims.push_back({std::string(claims.text(row, 0)), claims.toInt64(row, 1),
                                   claims.toDouble(row, 2)});
    const leader::pg::Result refusals = query(
            "fence refusals",
            "SELECT role, token, extract(epoch FROM refused_at)::float8 FROM fence_refusals");
    for (int row = 0; row < refusals.rows(); ++row)
        m_record.refusals.push_back({std::string(refusals.text(row, 0)), refusals.toInt64(row, 1),
                                     refusals.toDouble(row, 2)});
    m_record.fenceRefusals = refusals.rows();
    const leader::pg::Result effects
            = query("effects", "SELECT kind, idempotency_key, role, token, "
                               "extract(epoch FROM happened_at)::float8 FROM external_effects "
                               "WHERE token IS NOT NULL");
    for (int row = 0; row < effects.rows(); ++row)
        m_record.effects.push_back({.kind = std::string(effects.text(row, 0)),
                                    .key = std::string(effects.text(row, 1)),
                                    .role = std::string(effects.text(row, 2)),
                                    .token = effects.toInt64(row, 3),
                                    .at = effects.toDouble(row, 4)});
    progress("auditing (leaderctl audit --json)");
    std::vector<std::string> output;
    const int code = leaderctl({"audit", "--json"}, 300s, &output);
    std::string json;
    for (const std::string &line : output) {
        if (line.rfind("{\"holds\":", 0) == 0)
            json = line;
    }
    m_record.audit = parseAudit(json);
    // 0: every invariant holds; 5: some does not, as the JSON says; anything else is no audit.
    if (m_record.audit.error.empty() && code != 0 && code != 5)
        m_record.audit.error = "leaderctl audit exited with code " + std::to_string(code);
    if (!m_record.audit.error.empty())
        m_record.audit.error = m_redact(m_record.audit.error + " [log "
                                        + (m_directory / "leaderctl.log").string() + "]");
}

} // namespace bench::chaos
