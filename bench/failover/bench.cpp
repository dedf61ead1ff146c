#include "bench.h"

#include "baseline/advisorygate.h"
#include "demo/auditor.h"
#include "demo/workload.h"
#include "demowork.h"
#include "host.h"
#include "lease/constants.h"
#include "lease/statements.h"
#include "pg/conninfo.h"
#include "roles/demoschema.h"
#include "schema/migrator.h"
#include "text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace bench::failover {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using leader::lease::EventKind;

constexpr auto PollEvery = 20ms;
constexpr auto MidTickDeadline = 90s;  // a 30 s tick, its successor, and the aim at up to 29 s
constexpr auto TakeoverDeadline = 60s; // past it, the trial fails: nobody took over
constexpr auto FirstClaimWait = 5s;
constexpr auto VictimEndDeadline = 15s; // for the victim's released / lost line after it resumed
constexpr auto SigtermExitBound = 3s;   // the contract: SIGTERM releases and exits 0 within 3 s
constexpr auto StatementTimeout = 5s;
constexpr auto DrainDeadline = 300s;
constexpr double MinTickAge = 3.0; // seconds into the tick at which a fault may land
constexpr double MaxTickAge = 8.0;
// A SIGKILL or SIGTERM lands anywhere in the 30 s tick but its last second (so that it comes
// before the tick's own release).
constexpr double KillTickSpan = 29.0;
constexpr double LeaseTtlSeconds = std::chrono::duration<double>(leader::lease::LeaseTTL).count();
constexpr const char *Role = "billing";
// The roles that handle what billing emits (invoice.finalized events) and what the workload
// creates beside subscriptions; run only after the measurement, so the audit sees them done.
constexpr const char *DrainRoles = "webhook_outbox,webhook_delivery,email_outbox";

std::string epochParam(double epochSeconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", epochSeconds);
    return text;
}

std::optional<double> optionalDouble(const leader::pg::Result &result, int row, int column)
{
    if (result.isNull(row, column))
        return std::nullopt;
    return result.toDouble(row, column);
}

// The tick's work has returned: its last statement, stale or not, is done. A "lost" line comes
// earlier, from the heartbeat, while the work's own stale statement may still be on its way.
// Claims under a token logged though judged (their now()) after $3, and the fence's refusals.
constexpr std::string_view StaleClaimsSql = R"sql(
SELECT (SELECT count(*) FROM claim_log
         WHERE role = $1 AND token = $2 AND fenced_at > to_timestamp($3::float8)),
       (SELECT count(*) FROM fence_refusals WHERE role = $1 AND token = $2)
)sql";

// The advisory design's claims, read from the log its replicas write unfenced: the latest one,
// and the first tick newer than the victim's with its first claim.
constexpr std::string_view LatestClaimSql = R"sql(
SELECT token, item, extract(epoch FROM claimed_at)::float8,
       extract(epoch FROM clock_timestamp())::float8
  FROM claim_log
 WHERE role = $1
 ORDER BY id DESC
 LIMIT 1
)sql";
constexpr std::string_view NextTickSql = R"sql(
SELECT token, min(item), extract(epoch FROM min(claimed_at))::float8
  FROM claim_log
 WHERE role = $1 AND token > $2
 GROUP BY token
 ORDER BY token
 LIMIT 1
)sql";
// The victim's claims judged (their now()) after the successor took the lock, and after the
// victim ran again; $3 or $4 NULL when there is no such instant.
constexpr std::string_view AdvisoryStaleSql = R"sql(
SELECT (SELECT count(*) FROM claim_log
         WHERE role = $1 AND token = $2 AND fenced_at > to_timestamp($3::float8)),
       (SELECT count(*) FROM claim_log
         WHERE role = $1 AND token = $2 AND fenced_at > to_timestamp($4::float8))
)sql";
// A bigint key shows as classid (high half), objid (low half) and objsubid 1.
constexpr std::string_view AdvisoryLockHeldSql = R"sql(
SELECT count(*) FROM pg_locks
 WHERE locktype = 'advisory' AND granted AND objsubid = 1
   AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid
)sql";
constexpr std::string_view AdvisoryPrefix = "advisory ";
// A holder that claimed this recently is still in its tick (a claim every ~0.6 s).
constexpr double ClaimingWithin = 2.0;
// Under the advisory gate a stopped or cut-off victim keeps its lock and ends its tick itself,
// up to min_tick after it began, once it runs again.
constexpr auto AdvisoryVictimEndDeadline = 40s;

std::int64_t advisoryKey()
{
    return leader::baseline::advisoryKey(Role).value();
}

// The pid in a holder id hostname:pid:8hex, read from the right: a host name is not ours to parse.
std::optional<int> pidInHolderId(const std::string &holder)
{
    const std::size_t last = holder.rfind(':');
    if (last == std::string::npos || last == 0)
        return std::nullopt;
    const std::size_t before = holder.rfind(':', last - 1);
    const std::size_t start = before == std::string::npos ? 0 : before + 1;
    int pid = 0;
    const char *first = holder.data() + start;
    const char *end = holder.data() + last;
    const auto [stop, error] = std::from_chars(first, end, pid);
    if (error != std::errc() || stop != end || pid <= 0)
        return std::nullopt;
    return pid;
}

bool isEndOfTick(const ReplicaEvent &event)
{
    return event.transition == EventKind::Released || event.transition == EventKind::ReleaseFailed;
}

void progress(const std::string &line)
{
    std::cerr << line << std::endl;
}

} // namespace

std::optional<int> LeaseRow::holderPid() const
{
    return holder ? pidInHolderId(*holder) : std::nullopt;
}

std::optional<int> AdvisoryClaim::holderPid() const
{
    return pidInHolderId(holder);
}

FailoverBench::FailoverBench(const Options &options, std::filesystem::path workDirectory,
                             Redact redact)
    : m_options(options)
    , m_directory(std::move(workDirectory))
    , m_redact(std::move(redact))
    , m_db({.url = options.databaseUrl, .applicationName = "failover-bench"})
    , m_replicas(replicaSetup(Role, "r", options.design == Design::Advisory ? "advisory" : ""),
                 options.replicas, m_events)
    , m_random(options.seed)
{}

ReplicaSetup FailoverBench::replicaSetup(const std::string &roles, const std::string &idPrefix,
                                         const std::string &gate) const
{
    return ReplicaSetup{
            .binary = m_options.replicaBinary,
            .databaseUrl = m_options.replicaUrl(),
            .listenDatabaseUrl = m_options.listenDatabaseUrl,
            .roles = roles,
            .configFile = m_directory / "replica.conf",
            .directory = m_directory,
            .idPrefix = idPrefix,
            .gate = gate,
            .redact = m_redact,
    };
}

RunResults FailoverBench::run()
{
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    m_results.startedAt = formatTimestamp(std::chrono::duration<double>(now).count());
    m_results.system = systemDescription();
    m_results.processors = processorCount();
    m_results.design = m_options.design;
    setUp();
    m_results.completed = runTrials();
    stopReplicas();
    m_results.overlappingTicks = scalar("overlapping ticks", R"sql(
WITH ticks AS (SELECT token, min(claimed_at) AS first, max(claimed_at) AS last
                 FROM claim_log WHERE role = 'billing' GROUP BY token)
SELECT count(DISTINCT later.token)
  FROM ticks earlier JOIN ticks later ON later.token > earlier.token AND later.first < earlier.last
)sql");
    if (m_options.design == Design::Lease) {
        drainOtherRoles();
        auditDatabase();
    } else {
        m_results.notes.push_back("advisory design: its claims are claim_log rows only, no "
                                  "domain work, so no drain and no audit");
    }
    const auto end = std::chrono::system_clock::now().time_since_epoch();
    m_results.finishedAt = formatTimestamp(std::chrono::duration<double>(end).count());
    return m_results;
}

bool FailoverBench::runTrials()
{
    const bool advisory = m_options.design == Design::Advisory;
    for (const Fault fault : m_options.faults) {
        if (advisory && fault == Fault::Pause) {
            m_results.faults.push_back({.fault = fault,
                                        .notExpressible
                                        = "no pause exists under the advisory gate: nothing in the "
                                          "database stops a role, and leader_pause writes "
                                          "leader_leases, which the gate never reads"});
            progress("failover-bench: pause: not expressible under the advisory gate");
            continue;
        }
        m_results.faults.push_back({.fault = fault});
        for (int number = 1; number <= m_options.trials; ++number) {
            TrialResult trial = runTrial(fault, number);
            // Without a holder mid-tick there is nothing left to measure: stop, audit, report.
            const bool stuck = trial.victim.empty();
            m_results.faults.back().trials.push_back(std::move(trial));
            if (stuck)
                return false;
        }
    }
    return true;
}

void FailoverBench::setUp()
{
    m_db.open();
    m_results.serverVersion = std::string(
            m_db.exec("server version", "SHOW server_version", {}, StatementTimeout).text(0, 0));
    using leader::schema::MigrationSet;
    const std::vector<int> applied = leader::schema::Migrator(m_db).migrate(
            {MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo});
    for (const int version : applied)
        progress("failover-bench: applied migration " + std::to_string(version));
    leader::roles::requireDemoSchema(m_db);
    m_results.serverKeepalives = std::string(m_db.exec("keepalives", R"sql(
SELECT string_agg(name || ' = ' || setting || coalesce(' ' || unit, ''), ', ' ORDER BY name)
  FROM pg_settings
 WHERE name IN ('tcp_keepalives_idle', 'tcp_keepalives_interval', 'tcp_keepalives_count',
                'tcp_user_timeout')
)sql",
                                                       {}, StatementTimeout)
                                                     .text(0, 0));

    waitForForeignLeasesToExpire();
    if (m_options.design == Design::Advisory)
        waitForAdvisoryLockToBeFree();
    progress("failover-bench: resetting the lease rows and emptying the demo tables of "
             + m_db.target());
    // Every column a tick, a pause or a cooldown leaves behind; the CHECKs allow all of them NULL.
    m_db.exec("reset leases",
              "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, expires_at = NULL, "
              "last_tick_ended_at = NULL, last_tick_holder = NULL, paused_at = NULL, "
              "paused_by = NULL, pause_reason = NULL, not_before = NULL",
              {}, StatementTimeout);
    // Cascades to every demo table that refers to a tenant.
    m_db.exec("reset demo",
              "TRUNCATE tenants, claim_log, external_effects, fence_refusals RESTART IDENTITY "
              "CASCADE",
              {}, 30s);
    // The advisory replicas' claims touch no subscription: due work would only be left undone.
    if (m_options.design == Design::Lease)
        createWork();
    writeConfig();

    progress("failover-bench: starting " + std::to_string(m_replicas.size()) + " replicas ("
             + m_options.replicaBinary.string() + ")");
    m_replicas.startAll();
    int on = 0, off = 0;
    for (int slot = 0; slot < m_replicas.size(); ++slot) {
        const std::optional<bool> fastWake = m_replicas.fastWake(slot);
        on += fastWake.value_or(false) ? 1 : 0;
        off += fastWake.has_value() && !*fastWake ? 1 : 0;
    }
    m_results.fastWake = on == m_replicas.size()    ? "on"
                         : off == m_replicas.size() ? "off"
                         : on + off == 0            ? "unknown"
                                                    : "mixed";
}

void FailoverBench::waitForForeignLeasesToExpire()
{
    // A lease of a replica that is gone ends within its TTL; one that outlives that is being
    // renewed, and a replica we did not start would take part in every takeover we measure.
    const auto deadline = Clock::now() + leader::lease::LeaseTTL + 5s;
    bool announced = false;
    for (;;) {
        const leader::pg::Result held = m_db.exec(
                "foreign leases",
                "SELECT string_agg(role || ' (' || holder_id || ')', ', ' ORDER BY role) "
                "FROM leader_leases WHERE holder_id IS NOT NULL AND expires_at > now()",
                {}, StatementTimeout);
        if (held.isNull(0, 0))
            return;
        if (Clock::now() >= deadline)
            throw std::runtime_error("roles are still led on this database after the lease TTL: "
                                     + std::string(held.text(0, 0))
                                     + "; stop the replicas running against it first");
        if (!announced)
            progress("failover-bench: waiting for leases left by earlier replicas to expire: "
                     + std::string(held.text(0, 0)));
        announced = true;
        sleepFor(500ms);
    }
}

void FailoverBench::createWork()
{
    // Enough due subscriptions that a tick keeps claiming through its 30 s: about one a second,
    // a trial sees one or two ticks. Hourly periods, so none falls due a second time in the run.
    leader::demo::WorkloadOptions options;
    options.count = 60 * static_cast<std::int64_t>(m_options.trials)
                    * static_cast<std::int64_t>(m_options.faults.size());
    options.ratePerSecond = 1e6;
    options.duration = 120s;
    options.period = 3600s;
    options.dueWithin = 0s;
    leader::demo::Workload workload(m_db, options);
    const leader::demo::WorkloadCounts counts = workload.run();
    m_results.subscriptions = counts.subscriptions;
    progress("failover-bench: created " + std::to_string(counts.subscriptions)
             + " due subscriptions");
}

void FailoverBench::writeConfig() const
{
    // A billing tick keeps claiming for 30 s, one subscription at a time, a claim after each
    // 500 ms pause and a charge after each 100 ms of simulated work: a frozen holder's one stale
    // statement is a claim about 5 times in 6, which the fence must refuse (the rest are charges,
    // which the idempotency key absorbs). The other
    // roles are configured for the drain after the measurement: fast, large batches.
    std::ofstream config(m_directory / "replica.conf");
    config << "# written by failover-bench\n"
              "billing.interval = 1s\n"
              "billing.min_tick = 30s\n"
              "billing.item_latency = 100ms\n"
              "billing.batch = 1\n";
    for (const char *role : {"webhook_outbox", "webhook_delivery", "email_outbox"})
        config << role << ".interval = 1s\n"
               << role << ".item_latency = 0ms\n"
               << role << ".batch = 500\n";
    if (!config.flush())
        throw std::runtime_error("cannot write " + (m_directory / "replica.conf").string());
}

LeaseRow FailoverBench::readLease()
{
    const leader::pg::Result result = m_db.exec("poll lease", R"sql(
SELECT holder_token, holder_id, extract(epoch FROM acquired_at)::float8,
       extract(epoch FROM expires_at)::float8, extract(epoch FROM paused_at)::float8,
       extract(epoch FROM now())::float8, took_over
  FROM leader_leases
 WHERE role = $1
)sql",
                                                {Role}, StatementTimeout);
    LeaseRow row;
    if (result.rows() == 0) {
        // ACQUIRE recreates a missing row; until then nobody holds it.
        row.now = databaseClock();
        return row;
    }
    row.token = result.toInt64(0, 0);
    row.holder = result.optionalText(0, 1);
    row.acquiredAt = optionalDouble(result, 0, 2);
    row.expiresAt = optionalDouble(result, 0, 3);
    row.pausedAt = optionalDouble(result, 0, 4);
    row.now = result.toDouble(0, 5);
    row.tookOver = result.optionalText(0, 6);
    return row;
}

double FailoverBench::databaseClock()
{
    return m_db
            .exec("clock", "SELECT extract(epoch FROM clock_timestamp())::float8", {},
                  StatementTimeout)
            .toDouble(0, 0);
}

std::optional<double> FailoverBench::firstClaim(std::int64_t token)
{
    const auto deadline = Clock::now() + FirstClaimWait;
    for (;;) {
        const leader::pg::Result result
                = m_db.exec("first claim",
                            "SELECT extract(epoch FROM min(claimed_at))::float8 FROM claim_log "
                            "WHERE role = $1 AND token = $2",
                            {Role, token}, StatementTimeout);
        if (!result.isNull(0, 0))
            return result.toDouble(0, 0);
        if (Clock::now() >= deadline)
            return std::nullopt;
        sleepFor(50ms);
    }
}

std::int64_t FailoverBench::scalar(const char *statement, const char *sql)
{
    return m_db.exec(statement, sql, {}, 30s).toInt64(0, 0);
}

void FailoverBench::fail(TrialResult &trial, const std::string &failure)
{
    trial.failures.push_back(failure);
    m_results.failures.push_back(failure);
}

void FailoverBench::ensureReplicasRunning(const std::string &when)
{
    for (int slot = 0; slot < m_replicas.size(); ++slot) {
        if (m_replicas.running(slot))
            continue;
        const std::optional<ExitStatus> exit = m_replicas.process(slot).exitStatus();
        const std::string note = m_replicas.id(slot) + " exited unexpectedly ("
                                 + (exit ? exit->describe() : std::string("unknown")) + ") " + when
                                 + "; restarted [log " + m_replicas.errorLog(slot).string() + "]";
        progress("failover-bench: " + note);
        m_results.notes.push_back(note);
        m_replicas.start(slot);
    }
}

std::chrono::seconds FailoverBench::injectThroughControl(const TrialResult &trial, int victimSlot,
                                                         const std::string &verb, int seconds)
{
    const std::string command = verb + " " + std::to_string(seconds);
    const std::string reply = sendControl(m_replicas.controlSocket(victimSlot), command, 2000ms);
    if (reply.rfind("ok", 0) != 0)
        throw std::runtime_error("leader-replica " + trial.victim + " refused '" + command
                                 + "': " + m_redact(reply));
    return std::chrono::seconds(seconds);
}

double FailoverBench::targetTickAge(Fault fault, int number)
{
    // How soon a dead holder's role runs elsewhere may depend on where in its tick it died (have
    // its contenders read the held row yet?), so SIGKILL and SIGTERM are drawn uniformly over
    // the tick, stratified: trial i of n in its own n-th of the span, the strata in a shuffled
    // order, so that even a quick run's two trials fall one in each half. The faults the TTL
    // answers land 3-8 s in, with the rest of the tick left to outlast them.
    if (fault != Fault::SigKill && fault != Fault::SigTerm)
        return std::uniform_real_distribution<double>(MinTickAge, MaxTickAge)(m_random);
    std::vector<double> &ages = m_killTickAges[fault];
    if (ages.empty()) {
        for (int stratum = 0; stratum < m_options.trials; ++stratum)
            ages.push_back(KillTickSpan
                           * (stratum + std::uniform_real_distribution<double>(0, 1)(m_random))
                           / m_options.trials);
        std::shuffle(ages.begin(), ages.end(), m_random);
    }
    return ages[static_cast<std::size_t>(number - 1)];
}

TrialResult FailoverBench::runTrial(Fault fault, int number)
{
    const bool advisory = m_options.design == Design::Advisory;
    const std::string name = std::string(nameOf(fault)) + " " + std::to_string(number) + "/"
                             + std::to_string(m_options.trials);
    ensureReplicasRunning("before " + name);
    TrialResult trial{.number = number, .targetTickAge = targetTickAge(fault, number)};

    // 1. Mid-tick: one of our replicas has led billing for the target age (within one second).
    const std::optional<TickHolder> held = findMidTick(trial, fault, name);
    if (!held)
        return trial;
    ReplicaProcess &victim = m_replicas.process(held->slot);
    trial.victim = m_replicas.id(held->slot);
    trial.victimToken = held->token;
    const int victimPid = victim.pid();
    const std::size_t mark = m_events.size();

    // 2. The fault instant on the database clock, read just before the fault is injected.
    trial.faultAt = databaseClock();
    trial.tickAgeAtFault = trial.faultAt - held->startedAt;
    const Clock::time_point injectedAt = Clock::now();
    if (fault == Fault::Pause) {
        runPauseTrial(trial, held->slot, mark);
        return trial;
    }

    // 3. Inject, then poll until a replica of ours runs a newer tick. Nothing ends an advisory
    // victim's session but the victim or the server, so the trial is capped at TakeoverDeadline.
    std::optional<Clock::time_point> resumeAt;
    std::optional<ExitStatus> sigtermExit;
    switch (fault) {
    case Fault::SigKill:
        victim.kill();
        break;
    case Fault::SigTerm:
        victim.terminate();
        // Reaped at once, so the exit is timed when it happens, not after a polled takeover.
        sigtermExit = victim.waitForExit(SigtermExitBound);
        break;
    case Fault::SigStop:
        victim.freeze();
        resumeAt = injectedAt + std::chrono::seconds(m_options.stopSeconds);
        break;
    case Fault::Freeze:
        // The in-process freeze blocks every statement at its start, after the client's own
        // abandon check: what was about to go out goes out stale, and the fence must refuse it.
        resumeAt = injectedAt
                   + injectThroughControl(trial, held->slot, "freeze", m_options.stopSeconds);
        break;
    case Fault::Sever:
        resumeAt = injectedAt
                   + injectThroughControl(trial, held->slot, "sever", m_options.severSeconds);
        break;
    default:
        throw std::logic_error("failover-bench does not inject " + std::string(nameOf(fault)));
    }
    double lastExpires = held->expiresAt;
    std::optional<double> resumedAt; // database clock, once an advisory victim runs again
    bool resumed = false;
    const auto resumeVictim = [&] {
        resumed = true;
        if (fault == Fault::SigStop) {
            victim.resume();
        } else {
            if (advisory && fault == Fault::Sever)
                trial.lockHeldAtHeal = advisoryLockHeld();
            // sever SECONDS heals by itself; the explicit heal only makes sure of it.
            try {
                const std::string reply
                        = sendControl(m_replicas.controlSocket(held->slot), "heal", 2s);
                if (reply.rfind("ok", 0) != 0)
                    trial.notes.push_back("heal answered: " + m_redact(reply));
            } catch (const std::exception &error) {
                trial.notes.push_back(std::string("heal failed: ") + error.what());
            }
        }
        if (advisory)
            resumedAt = databaseClock();
    };
    // A healed victim may win the role back before anyone else: it runs again, which is what is
    // measured, and the note says by whom.
    const std::optional<TickHolder> successor
            = awaitNextHolder(trial.victimToken, injectedAt + TakeoverDeadline, lastExpires, [&] {
                  if (resumeAt && !resumed && Clock::now() >= *resumeAt)
                      resumeVictim();
              });

    // 4. The measurements, all on the database clock.
    if (successor) {
        trial.successor = m_replicas.id(successor->slot);
        if (successor->slot == held->slot)
            trial.notes.push_back(advisory ? "the victim itself took the next tick first"
                                           : "the victim itself acquired the next token first");
        trial.tookOver = true;
        trial.successorToken = successor->token;
        trial.successorAcquiredAt = successor->startedAt;
        if (advisory)
            measureAdvisoryTakeover(trial, fault, *successor, victimPid, mark);
        else
            measureLeaseTakeover(trial, fault, *successor, lastExpires, victimPid, mark);
    } else if (advisory) {
        // The finding, not a failure: the old gate had nothing that would fail over here.
        trial.notes.push_back("no other replica took the lock within "
                              + std::to_string(TakeoverDeadline.count()) + " s of the fault");
    } else {
        fail(trial, name + ": no takeover within " + std::to_string(TakeoverDeadline.count())
                            + " s of the fault (victim " + trial.victim + ", token "
                            + std::to_string(trial.victimToken) + ")");
    }

    // 5. Let the victim run again (or end), then count what it claimed after the takeover.
    if (resumeAt && !resumed) {
        sleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(
                std::max(*resumeAt - Clock::now(), Clock::duration::zero())));
        resumeVictim();
    }
    if (fault == Fault::SigTerm) {
        std::optional<ExitStatus> exit = sigtermExit;
        if (!exit) {
            fail(trial, name + ": " + trial.victim + " did not exit within 3 s of SIGTERM");
            exit = victim.waitForExit(10s);
            if (!exit) {
                victim.kill();
                exit = victim.waitForExit(5s);
            }
        } else if (!exit->clean()) {
            fail(trial, name + ": " + trial.victim + " ended with " + exit->describe()
                                + " after SIGTERM, not exit code 0");
        }
        if (exit)
            trial.metrics["sigterm_to_exit"]
                    = std::chrono::duration<double>(exit->observedAt - injectedAt).count();
    }
    if (fault == Fault::SigKill) {
        victim.waitForExit(5s);
    } else if (!advisory || fault != Fault::SigTerm) {
        // An advisory victim stopped or cut off keeps its lock and ends its tick itself, up to
        // min_tick after it began, once it runs again.
        const auto endDeadline = advisory ? AdvisoryVictimEndDeadline : VictimEndDeadline;
        const std::optional<ReplicaEvent> ended = m_events.waitFor(
                [&](const ReplicaEvent &event) {
                    return event.pid == victimPid && isEndOfTick(event) && event.role == Role
                           && (!event.token || *event.token == trial.victimToken);
                },
                Clock::now() + endDeadline, mark);
        if (!ended)
            trial.notes.push_back("the victim reported no end of "
                                  + std::string(advisory ? "tick " : "token ")
                                  + std::to_string(trial.victimToken) + " within "
                                  + std::to_string(endDeadline.count()) + " s of "
                                  + (advisory ? "running again" : "resuming"));
        const auto gaveUp = [&](const ReplicaEvent &event) {
            return event.pid == victimPid && event.transition == EventKind::Lost
                   && event.reason == leader::lease::LossReason::HeartbeatTimeout
                   && event.token == trial.victimToken;
        };
        if (!advisory)
            trial.abandonedByClient = m_events.waitFor(gaveUp, Clock::now(), mark).has_value();
    }
    if (advisory)
        countAdvisoryStaleClaims(trial, successor, resumedAt);
    else
        countLeaseStaleClaims(trial, fault, name, lastExpires);

    // 6. Back to K replicas: a killed or stopped victim comes back under the same id.
    if (fault == Fault::SigKill || fault == Fault::SigTerm)
        m_replicas.start(held->slot);

    progress(advisory ? describeAdvisoryTrial(trial, name)
                      : describeLeaseTrial(trial, fault, name));
    return trial;
}

std::optional<FailoverBench::TickHolder> FailoverBench::findMidTick(TrialResult &trial, Fault fault,
                                                                    const std::string &name)
{
    const bool advisory = m_options.design == Design::Advisory;
    // A SIGKILL or SIGTERM waits for a tick that began at its cadence, after a hand-over, as most
    // do: the previous trial's successor took its tick in a race every contender ran, so each of
    // them has read the held row, which contenders of a tick begun at its cadence may not have.
    const bool cadenceOnly = fault == Fault::SigKill || fault == Fault::SigTerm;
    std::string lastSeen = advisory ? "no claim" : "never held";
    for (const auto deadline = Clock::now() + MidTickDeadline;;) {
        const std::optional<TickHolder> holder
                = advisory ? claimingHolder(lastSeen) : leaseHolder(cadenceOnly, lastSeen);
        if (holder) {
            const double age = holder->now - holder->startedAt;
            if (age >= trial.targetTickAge && age < trial.targetTickAge + 1.0)
                return holder;
        }
        if (Clock::now() >= deadline) {
            // A holder that is not one of our pids: another replica runs against this database,
            // or the replica's holder id does not carry its own pid.
            fail(trial, name
                                + (advisory ? ": no replica of ours was claiming mid-tick within "
                                            : ": no replica of ours held billing mid-tick within ")
                                + std::to_string(MidTickDeadline.count()) + " s (" + lastSeen
                                + "); the run stops here");
            progress(trial.failures.back());
            return std::nullopt;
        }
        sleepFor(PollEvery);
    }
}

std::optional<FailoverBench::TickHolder> FailoverBench::leaseHolder(bool cadenceOnly,
                                                                    std::string &lastSeen)
{
    const LeaseRow row = readLease();
    if (!row.held())
        return std::nullopt;
    lastSeen = "last held by " + row.holder.value_or("?") + ", token " + std::to_string(row.token);
    if (!row.acquiredAt || !row.holderPid() || (cadenceOnly && row.tookOver))
        return std::nullopt;
    const std::optional<int> slot = m_replicas.slotOfPid(*row.holderPid());
    if (!slot)
        return std::nullopt;
    return TickHolder{.slot = *slot,
                      .token = row.token,
                      .startedAt = *row.acquiredAt,
                      .now = row.now,
                      .expiresAt = *row.expiresAt};
}

std::optional<FailoverBench::TickHolder> FailoverBench::claimingHolder(std::string &lastSeen)
{
    const AdvisoryClaim claim = readAdvisoryClaim();
    if (claim.tick == 0 || claim.now - claim.claimedAt >= ClaimingWithin)
        return std::nullopt;
    lastSeen = "last claim by " + claim.holder + ", tick " + std::to_string(claim.tick);
    const std::optional<int> pid = claim.holderPid();
    const std::optional<int> slot = pid ? m_replicas.slotOfPid(*pid) : std::nullopt;
    if (!slot)
        return std::nullopt;
    return TickHolder{
            .slot = *slot, .token = claim.tick, .startedAt = claim.lockedAt(), .now = claim.now};
}

std::optional<FailoverBench::TickHolder>
FailoverBench::awaitNextHolder(std::int64_t victimToken, Clock::time_point deadline,
                               double &lastExpires, const std::function<void()> &eachRound)
{
    for (;;) {
        if (eachRound)
            eachRound();
        std::optional<TickHolder> holder = m_options.design == Design::Advisory
                                                   ? nextAdvisoryTick(victimToken)
                                                   : nextLease(victimToken, lastExpires);
        if (holder || Clock::now() >= deadline)
            return holder;
        sleepFor(PollEvery);
    }
}

std::optional<FailoverBench::TickHolder> FailoverBench::nextLease(std::int64_t victimToken,
                                                                  double &lastExpires)
{
    const LeaseRow row = readLease();
    if (row.token == victimToken && row.expiresAt)
        lastExpires = std::max(lastExpires, *row.expiresAt);
    if (row.token <= victimToken || !row.held() || !row.holderPid() || !row.acquiredAt)
        return std::nullopt;
    const std::optional<int> slot = m_replicas.slotOfPid(*row.holderPid());
    if (!slot)
        return std::nullopt;
    return TickHolder{
            .slot = *slot, .token = row.token, .startedAt = *row.acquiredAt, .now = row.now};
}

std::optional<FailoverBench::TickHolder> FailoverBench::nextAdvisoryTick(std::int64_t victimTick)
{
    const leader::pg::Result next
            = m_db.exec("next tick", NextTickSql, {Role, victimTick}, StatementTimeout);
    if (next.rows() != 1)
        return std::nullopt;
    AdvisoryClaim claim{.tick = next.toInt64(0, 0),
                        .holder = std::string(next.text(0, 1)),
                        .claimedAt = next.toDouble(0, 2)};
    if (claim.holder.rfind(AdvisoryPrefix, 0) == 0)
        claim.holder.erase(0, AdvisoryPrefix.size());
    const std::optional<int> pid = claim.holderPid();
    const std::optional<int> slot = pid ? m_replicas.slotOfPid(*pid) : std::nullopt;
    if (!slot)
        return std::nullopt;
    return TickHolder{.slot = *slot,
                      .token = claim.tick,
                      .startedAt = claim.lockedAt(),
                      .claimedAt = claim.claimedAt};
}

void FailoverBench::measureLeaseTakeover(TrialResult &trial, Fault fault,
                                         const TickHolder &successor, double lastExpires,
                                         int victimPid, std::size_t mark)
{
    const double acquiredAt = successor.startedAt;
    if (fault == Fault::SigTerm) {
        const std::optional<ReplicaEvent> released = m_events.waitFor(
                [&](const ReplicaEvent &event) {
                    return event.pid == victimPid && event.transition == EventKind::Released
                           && event.role == Role
                           && (!event.token || *event.token == trial.victimToken);
                },
                Clock::now() + SigtermExitBound, mark);
        if (released && (released->dbTimeEpoch || released->tsEpoch)) {
            if (!released->dbTimeEpoch)
                trial.notes.push_back("the released line has no db_time; used its ts");
            trial.metrics["release_to_acquired"]
                    = acquiredAt - released->dbTimeEpoch.value_or(released->tsEpoch.value_or(0));
            if (released->outcome != leader::lease::Outcome::Interrupted)
                trial.notes.push_back(
                        "released as "
                        + std::string(released->outcome ? nameOf(*released->outcome) : "")
                        + ", not interrupted");
        } else {
            trial.notes.push_back("no released line for token " + std::to_string(trial.victimToken)
                                  + " from the victim; release \u2192 acquired not measured");
        }
    } else {
        trial.metrics["last_heartbeat_to_acquired"] = acquiredAt - (lastExpires - LeaseTtlSeconds);
    }
    const std::optional<double> claimed = firstClaim(successor.token);
    if (!claimed)
        trial.notes.push_back("token " + std::to_string(successor.token)
                              + " claimed nothing within 5 s; fault \u2192 running uses "
                                "acquired_at");
    trial.metrics["fault_to_running"] = claimed.value_or(acquiredAt) - trial.faultAt;
}

void FailoverBench::measureAdvisoryTakeover(TrialResult &trial, Fault fault,
                                            const TickHolder &successor, int victimPid,
                                            std::size_t mark)
{
    trial.metrics["fault_to_running"] = successor.claimedAt - trial.faultAt;
    // Behind a transaction pooler a second try-lock can land on the holder's own backend.
    if (successor.startedAt < trial.faultAt)
        trial.notes.push_back("tick " + std::to_string(successor.token) + " of " + trial.successor
                              + " began " + seconds(trial.faultAt - successor.startedAt, 3)
                              + " before the fault: two leaders at once");
    if (fault == Fault::SigTerm) {
        const std::optional<ReplicaEvent> released = m_events.waitFor(
                [&](const ReplicaEvent &event) {
                    return event.pid == victimPid && event.transition == EventKind::Released
                           && event.role == Role && event.token == trial.victimToken;
                },
                Clock::now() + SigtermExitBound, mark);
        if (released && released->dbTimeEpoch)
            trial.metrics["release_to_acquired"] = successor.startedAt - *released->dbTimeEpoch;
        else
            trial.notes.push_back("no released line with db_time from the victim; unlock "
                                  "\u2192 lock acquired not measured");
    } else {
        trial.metrics["fault_to_acquired"] = successor.startedAt - trial.faultAt;
    }
}

void FailoverBench::countLeaseStaleClaims(TrialResult &trial, Fault fault, const std::string &name,
                                          double lastExpires)
{
    // The victim's fence is false in every snapshot whose now() has passed its lease's expiry
    // (a released lease: once the successor acquired it): a claim judged after that and logged
    // anyway is a stale claim accepted. The claim's own now() is fenced_at.
    const double fenceFalseFrom = fault == Fault::SigTerm
                                          ? trial.successorAcquiredAt.value_or(trial.faultAt)
                                          : lastExpires;
    const leader::pg::Result stale
            = m_db.exec("stale claims", StaleClaimsSql,
                        {Role, trial.victimToken, epochParam(fenceFalseFrom)}, StatementTimeout);
    if (trial.tookOver) {
        trial.staleAccepted = stale.toInt64(0, 0);
        if (*trial.staleAccepted > 0)
            fail(trial, name + ": " + std::to_string(*trial.staleAccepted)
                                + " claims under stale token " + std::to_string(trial.victimToken)
                                + " accepted after " + trial.successor + " took over");
    }
    trial.staleRefused = stale.toInt64(0, 1);
}

void FailoverBench::countAdvisoryStaleClaims(TrialResult &trial,
                                             const std::optional<TickHolder> &successor,
                                             const std::optional<double> &resumedAt)
{
    // No fence: every claim the victim made after the successor took the lock was accepted.
    const leader::pg::Param successorFrom
            = successor ? leader::pg::Param(epochParam(successor->startedAt))
                        : leader::pg::Param(nullptr);
    const leader::pg::Param resumedFrom
            = resumedAt ? leader::pg::Param(epochParam(*resumedAt)) : leader::pg::Param(nullptr);
    const leader::pg::Result stale
            = m_db.exec("stale claims", AdvisoryStaleSql,
                        {Role, trial.victimToken, successorFrom, resumedFrom}, StatementTimeout);
    if (successor)
        trial.staleAccepted = stale.toInt64(0, 0);
    if (resumedAt)
        trial.victimClaimsAfterResume = stale.toInt64(0, 1);
}

std::string FailoverBench::describeLeaseTrial(const TrialResult &trial, Fault fault,
                                              const std::string &name) const
{
    std::string line = name + ": victim " + trial.victim + " token "
                       + std::to_string(trial.victimToken) + " at "
                       + seconds(trial.tickAgeAtFault, 3);
    if (trial.tookOver) {
        const MetricInfo &first = metricsFor(fault, m_options.design).front();
        const std::string metric = std::string(first.key);
        line += " \u2192 " + trial.successor + " token " + std::to_string(trial.successorToken)
                + ", " + std::string(first.label) + " "
                + (trial.metrics.count(metric) ? seconds(trial.metrics.at(metric), 3) : "n/a")
                + ", fault \u2192 running " + seconds(trial.metrics.at("fault_to_running"), 3);
    } else {
        line += ": no takeover";
    }
    if (trial.staleRefused > 0)
        line += ", refused by fence " + std::to_string(trial.staleRefused);
    return line;
}

std::string FailoverBench::describeAdvisoryTrial(const TrialResult &trial,
                                                 const std::string &name) const
{
    std::string line = name + ": victim " + trial.victim + " tick "
                       + std::to_string(trial.victimToken) + " at "
                       + seconds(trial.tickAgeAtFault, 3);
    if (trial.tookOver)
        line += " \u2192 " + trial.successor + " tick " + std::to_string(trial.successorToken)
                + ", fault \u2192 running " + seconds(trial.metrics.at("fault_to_running"), 3);
    else
        line += ": no takeover within " + std::to_string(TakeoverDeadline.count()) + " s";
    if (trial.lockHeldAtHeal)
        line += std::string(", lock ") + (*trial.lockHeldAtHeal ? "still held" : "free")
                + " at the heal";
    if (trial.victimClaimsAfterResume)
        line += ", victim claims after it ran again "
                + std::to_string(*trial.victimClaimsAfterResume);
    if (trial.staleAccepted && *trial.staleAccepted > 0)
        line += ", accepted stale claims " + std::to_string(*trial.staleAccepted);
    return line;
}

AdvisoryClaim FailoverBench::readAdvisoryClaim()
{
    const leader::pg::Result result
            = m_db.exec("latest claim", LatestClaimSql, {Role}, StatementTimeout);
    AdvisoryClaim claim;
    if (result.rows() == 0) {
        claim.now = databaseClock();
        return claim;
    }
    claim.tick = result.toInt64(0, 0);
    const std::string_view item = result.text(0, 1);
    claim.holder = std::string(
            item.substr(item.rfind(AdvisoryPrefix, 0) == 0 ? AdvisoryPrefix.size() : 0));
    claim.claimedAt = result.toDouble(0, 2);
    claim.now = result.toDouble(0, 3);
    return claim;
}

bool FailoverBench::advisoryLockHeld()
{
    return m_db.exec("advisory lock held", AdvisoryLockHeldSql, {advisoryKey()}, StatementTimeout)
                   .toInt64(0, 0)
           > 0;
}

void FailoverBench::waitForAdvisoryLockToBeFree()
{
    // A session left by an earlier run would win every tick we measure.
    const auto deadline = Clock::now() + 15s;
    while (advisoryLockHeld()) {
        if (Clock::now() >= deadline)
            throw std::runtime_error("the billing advisory lock " + std::to_string(advisoryKey())
                                     + " is held by a session of this server (pg_locks); stop "
                                       "the advisory replicas running against it first");
        sleepFor(500ms);
    }
}

void FailoverBench::runPauseTrial(TrialResult &trial, int victimSlot, std::size_t mark)
{
    const std::string name
            = "pause " + std::to_string(trial.number) + "/" + std::to_string(m_options.trials);
    const int victimPid = m_replicas.process(victimSlot).pid();
    leader::lease::pause(m_db, Role, "failover-bench",
                         "failover-bench pause trial " + std::to_string(trial.number));
    // The pause has committed by now: every claim judged later must have seen it.
    const double pauseCommittedBy = databaseClock();
    const LeaseRow paused = readLease();
    const double pausedAt = paused.pausedAt.value_or(trial.faultAt);
    const auto tokenMatches = [&](const ReplicaEvent &event) {
        return event.pid == victimPid && event.role == Role
               && (!event.token || *event.token == trial.victimToken);
    };
    std::optional<ReplicaEvent> observed = m_events.waitFor(
            [&](const ReplicaEvent &event) {
                return tokenMatches(event)
                       && (event.transition == EventKind::PausedObserved
                           || event.transition == EventKind::Lost);
            },
            Clock::now() + TakeoverDeadline, mark);
    if (observed && observed->transition != EventKind::PausedObserved) {
        // The loss may be printed first; the cancellation's own line is the one to time.
        if (std::optional<ReplicaEvent> pausedLine = m_events.waitFor(
                    [&](const ReplicaEvent &event) {
                        return tokenMatches(event) && event.transition == EventKind::PausedObserved;
                    },
                    Clock::now() + 1s, mark))
            observed = pausedLine;
        else
            trial.notes.push_back("no paused_observed line; timed the "
                                  + std::string(nameOf(*observed->transition)) + " line instead");
    }
    if (observed && observed->tsEpoch)
        trial.metrics["pause_to_cancelled"] = *observed->tsEpoch - pausedAt;
    else
        fail(trial, name + ": " + trial.victim + " did not observe the pause within "
                            + std::to_string(TakeoverDeadline.count()) + " s");

    const double unpausedAt = databaseClock();
    leader::lease::unpause(m_db, Role);
    double lastExpires = 0;
    const std::optional<TickHolder> next
            = awaitNextHolder(trial.victimToken, Clock::now() + TakeoverDeadline, lastExpires, {});
    if (next) {
        trial.successor = m_replicas.id(next->slot);
        trial.tookOver = true;
        trial.successorToken = next->token;
        trial.successorAcquiredAt = next->startedAt;
        const std::optional<double> claimed = firstClaim(next->token);
        if (!claimed)
            trial.notes.push_back("token " + std::to_string(next->token)
                                  + " claimed nothing within 5 s; unpause \u2192 running uses "
                                    "acquired_at");
        trial.metrics["unpause_to_running"] = claimed.value_or(next->startedAt) - unpausedAt;
    } else {
        fail(trial, name + ": nobody led billing within " + std::to_string(TakeoverDeadline.count())
                            + " s of the unpause");
    }

    if (!m_events.waitFor(
                [&](const ReplicaEvent &event) {
                    return tokenMatches(event) && isEndOfTick(event);
                },
                Clock::now() + VictimEndDeadline, mark))
        trial.notes.push_back("the victim reported no end of token "
                              + std::to_string(trial.victimToken));
    // Paused, the fence is false in every snapshot taken after the pause committed. paused_at is
    // the pause transaction's start, earlier than its commit: a claim judged between the two
    // rightly passed, so the bound is an instant read after the pause returned.
    const leader::pg::Result stale
            = m_db.exec("stale claims", StaleClaimsSql,
                        {Role, trial.victimToken, epochParam(pauseCommittedBy)}, StatementTimeout);
    trial.staleAccepted = stale.toInt64(0, 0);
    trial.staleRefused = stale.toInt64(0, 1);
    if (*trial.staleAccepted > 0)
        fail(trial, name + ": " + std::to_string(*trial.staleAccepted)
                            + " claims under paused token " + std::to_string(trial.victimToken)
                            + " accepted after the pause");

    std::string line = name + ": victim " + trial.victim + " token "
                       + std::to_string(trial.victimToken) + " at "
                       + seconds(trial.tickAgeAtFault, 3);
    if (trial.metrics.count("pause_to_cancelled"))
        line += ", cancelled " + seconds(trial.metrics.at("pause_to_cancelled"), 3)
                + " after the pause";
    if (next)
        line += "; " + trial.successor + " token " + std::to_string(trial.successorToken)
                + " running " + seconds(trial.metrics.at("unpause_to_running"), 3)
                + " after the unpause";
    progress(line);
}

void FailoverBench::stopReplicas()
{
    progress("failover-bench: stopping the replicas");
    for (const auto &[id, exit] : m_replicas.stopAll(10s)) {
        if (!exit)
            m_results.notes.push_back(id
                                      + " did not exit within 10 s of SIGTERM at the end; "
                                        "killed");
        else if (!exit->clean())
            m_results.notes.push_back(id + " ended with " + exit->describe()
                                      + " on SIGTERM at the end");
    }
}

void FailoverBench::drainOtherRoles()
{
    // Billing emits invoice.finalized events and the workload creates events and emails; with
    // no role to handle them the auditor (grace 0) would report them undone. One replica of the
    // other roles finishes them after the measurement, which it takes no part in.
    std::int64_t pending = scalar("pending work", PendingWorkSql);
    if (pending == 0)
        return;
    progress("failover-bench: draining " + std::to_string(pending)
             + " webhook and email items with " + "one replica of " + DrainRoles
             + " before the audit");
    ReplicaSet drain(replicaSetup(DrainRoles, "drain", ""), 1, m_events);
    drain.startAll();
    const auto deadline = Clock::now() + DrainDeadline;
    auto report = Clock::now() + 10s;
    while (pending > 0 && Clock::now() < deadline) {
        sleepFor(500ms);
        pending = scalar("pending work", PendingWorkSql);
        if (Clock::now() >= report) {
            progress("failover-bench: " + std::to_string(pending) + " items left to drain");
            report += 10s;
        }
        if (!drain.running(0))
            break;
    }
    for (const auto &[id, exit] : drain.stopAll(10s)) {
        if (!exit || !exit->clean())
            m_results.notes.push_back(id + " (the drain replica) ended with "
                                      + (exit ? exit->describe() : std::string("a kill")));
    }
    if (pending > 0)
        m_results.notes.push_back(std::to_string(pending)
                                  + " webhook and email items were still undone after the drain; "
                                    "the auditor counts them");
}

void FailoverBench::auditDatabase()
{
    leader::demo::AuditReport report
            = leader::demo::audit(m_db, {.grace = std::chrono::seconds(0)});
    for (const leader::demo::InvariantResult &invariant : report.invariants) {
        if (invariant.name == "no invoice charged successfully twice")
            m_results.doubleCharges = invariant.offending;
        if (!invariant.holds)
            m_results.failures.push_back("auditor: " + invariant.role + ": " + invariant.name + ": "
                                         + std::to_string(invariant.offending) + " offending");
    }
    m_results.audit = std::move(report);
    m_results.duplicateInvoices = scalar(
            "duplicate invoices",
            "SELECT count(*) - count(DISTINCT (subscription_id, period_start)) FROM invoices");
    if (!m_results.doubleCharges)
        m_results.doubleCharges = scalar("double charges", R"sql(
SELECT count(*) FROM (SELECT invoice_id
                        FROM provider_charges
                       WHERE outcome = 'succeeded'
                       GROUP BY invoice_id
                      HAVING count(*) > 1) twice
)sql");
}

} // namespace bench::failover
