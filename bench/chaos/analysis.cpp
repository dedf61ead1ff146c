#include "analysis.h"

#include "lease/constants.h"
#include "text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <tuple>

namespace bench::chaos {

namespace {

using bench::ReplicaEvent;
using leader::lease::EventKind;
using leader::lease::Outcome;

constexpr double Forever = std::numeric_limits<double>::infinity();
constexpr double LeaseTtl = std::chrono::duration<double>(leader::lease::LeaseTTL).count();
// A panic is armed from the benchmark's clock and taken by the tick's work just after the
// ACQUIRE, whose now() may read a little earlier.
constexpr double PanicArmSlack = 1.0;
// The contract of leader-replica: SIGTERM releases and exits 0 within 3 s.
constexpr double SigtermExitBound = 3.0;
// A replica must have had this long with the database up to be expected to lead something.
constexpr double TakesPartWindow = 30.0;
// A statement held by a cut link (freeze, sever, partition) reaches the server at the heal, or
// within a statement's deadline of it.
constexpr double HeldStatementSlack
        = std::chrono::duration<double>(leader::lease::StatementTimeout).count();

double eventTime(const ReplicaEvent &event)
{
    return event.dbTimeEpoch.value_or(event.receivedAt);
}

std::string tickText(const Tick &tick)
{
    return tick.replica + " (pid " + std::to_string(tick.pid) + ") " + tick.role + " token "
           + std::to_string(tick.token);
}

std::string eventName(const DatabaseEvent &event)
{
    return std::string(nameOf(event.kind)) + " " + std::to_string(event.number);
}

const SlotSetup *slotOf(const RunRecord &record, const std::string &replica)
{
    for (const SlotSetup &slot : record.slots) {
        if (slot.id == replica)
            return &slot;
    }
    return nullptr;
}

// Whether a database event cut the sessions of a replica on this path: Postgres events cut every
// one (PgBouncer's server connections included), PgBouncer events only the pooled ones.
bool affects(const DatabaseEvent &event, Path path)
{
    return path == Path::Bouncer || event.affectsDirect;
}

// When the database was back for a replica on this path.
std::optional<double> reachableFor(const DatabaseEvent &event, Path path)
{
    return path == Path::Direct ? event.directReachableAt : event.bouncerReachableAt;
}

// The tick was in flight when the event began, or was acquired before its path was back.
bool overlapsOutage(const Tick &tick, const DatabaseEvent &event, Path path)
{
    const double end = tick.endedAt.value_or(Forever);
    return tick.acquiredAt <= reachableFor(event, path).value_or(Forever) && end >= event.startedAt;
}

bool overlapsReplicaFault(const Tick &tick, const ReplicaFault &fault, double runEnd)
{
    if (fault.pid != tick.pid || fault.kind == Fault::Panic)
        return false;
    const double end = tick.endedAt.value_or(Forever);
    return fault.at <= end && fault.endedAt.value_or(runEnd) + LeaseTtl >= tick.acquiredAt;
}

void auditCheck(const RunRecord &record, Verdicts &verdicts)
{
    Check check{.name = "auditor: every invariant holds (leaderctl audit)"};
    const AuditOutcome &audit = record.audit;
    if (!audit.error.empty()) {
        check.holds = false;
        check.figure = "not run";
        check.offending.push_back(audit.error);
    } else {
        int holding = 0;
        for (const AuditInvariant &invariant : audit.invariants) {
            if (invariant.holds) {
                ++holding;
                continue;
            }
            check.holds = false;
            std::string line = invariant.role + ": " + invariant.name + ": "
                               + std::to_string(invariant.offending) + " offending";
            for (const std::string &sample : invariant.samples)
                line += "; " + sample;
            check.offending.push_back(line);
        }
        check.figure = std::to_string(holding) + " of " + std::to_string(audit.invariants.size())
                       + " hold";
    }
    verdicts.checks.push_back(std::move(check));
}

void tokenCheck(const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    Check check{.name = "no fencing token issued twice (a role's token in two acquired lines)"};
    std::map<std::pair<std::string, std::int64_t>, std::vector<const Tick *>> byToken;
    for (const Tick &tick : ticks)
        byToken[{tick.role, tick.token}].push_back(&tick);
    std::int64_t twice = 0;
    for (const auto &[key, acquisitions] : byToken) {
        if (acquisitions.size() < 2)
            continue;
        ++twice;
        std::string line = key.first + " token " + std::to_string(key.second) + " acquired by";
        for (const Tick *tick : acquisitions)
            line += " " + tick->replica + " (" + tick->holder + ") at "
                    + bench::formatTimestamp(tick->acquiredAt) + ";";
        line.pop_back();
        check.offending.push_back(line);
    }
    check.holds = twice == 0;
    check.figure = std::to_string(twice) + " of " + std::to_string(byToken.size()) + " tokens";
    verdicts.checks.push_back(std::move(check));
}

void staleClaimCheck(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    // A token stops being current at the latest when the role's next lease is acquired: that
    // ACQUIRE found it expired, released or paused. A claim judged after that instant under the
    // older token got past a fence that should have refused it.
    std::map<std::string, std::vector<const Tick *>> byRole; // in acquisition order, as ticks
    std::map<std::pair<std::string, std::int64_t>, std::vector<const Tick *>> byToken;
    for (const Tick &tick : ticks) {
        byRole[tick.role].push_back(&tick);
        byToken[{tick.role, tick.token}].push_back(&tick);
    }
    Check check{.name = "no stale claim accepted (claim_log against the next lease)"};
    std::int64_t stale = 0;
    for (const Claim &claim : record.claims) {
        const Tick *lease = nullptr;
        for (const Tick *tick : byToken[{claim.role, claim.token}]) {
            if (tick->acquiredAt <= claim.fencedAt)
                lease = tick;
        }
        if (!lease) {
            ++verdicts.claimsWithoutAcquire;
            continue;
        }
        const std::vector<const Tick *> &leases = byRole[claim.role];
        const auto next = std::upper_bound(
                leases.begin(), leases.end(), lease->acquiredAt,
                [](double at, const Tick *tick) { return at < tick->acquiredAt; });
        if (next == leases.end() || claim.fencedAt <= (*next)->acquiredAt)
            continue;
        if (++stale <= 20)
            check.offending.push_back(claim.role + " claim under token "
                                      + std::to_string(claim.token) + " of " + lease->replica
                                      + " judged at " + bench::formatTimestamp(claim.fencedAt)
                                      + ", after " + (*next)->replica + " acquired token "
                                      + std::to_string((*next)->token) + " at "
                                      + bench::formatTimestamp((*next)->acquiredAt));
    }
    verdicts.claims = static_cast<std::int64_t>(record.claims.size());
    verdicts.staleAccepted = stale;
    verdicts.fenceRefusals = record.fenceRefusals;
    check.holds = stale == 0;
    check.figure = std::to_string(stale) + " of " + std::to_string(record.claims.size())
                   + " claims; the fence refused " + std::to_string(record.fenceRefusals);
    verdicts.checks.push_back(std::move(check));
}

void recoveryChecks(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    // A role that never ticks again is broken whatever the run's length; one that ticks late
    // misses a target, judged like memory growth only in a full run.
    Check again{.name = "every role ticked again after each database event"};
    Check soon{.name = "every role ticked again within interval + 15 s of the database being "
                       "back",
               .judged = record.fullRun};
    const std::vector<DatabaseEvent> &events = record.databaseEvents;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const DatabaseEvent &event = events[i];
        DatabaseEventResult result{.kind = event.kind, .number = event.number};
        if (!event.reachableAt) {
            again.holds = false;
            again.offending.push_back(eventName(event) + ": the database never came back");
            verdicts.databaseEvents.push_back(std::move(result));
            continue;
        }
        const double back = *event.reachableAt;
        result.outage = back - event.startedAt;
        if (event.affectsDirect && event.bouncerReachableAt)
            result.bouncerOutage = *event.bouncerReachableAt - event.startedAt;
        const double until = i + 1 < events.size() ? events[i + 1].startedAt : record.endedAt;
        bool everyRole = true;
        double slowest = 0;
        for (const RoleSchedule &role : record.roles) {
            RoleRecovery recovery{.role = role.role, .target = role.interval + RecoveryAllowance};
            for (const Tick &tick : ticks) {
                if (tick.role == role.role && tick.outcome == Outcome::Completed
                    && tick.acquiredAt >= back && tick.acquiredAt < until) {
                    recovery.seconds = tick.acquiredAt - back;
                    break;
                }
            }
            if (!recovery.seconds) {
                everyRole = false;
                again.holds = false;
                again.offending.push_back(eventName(event) + ": " + role.role
                                          + " completed no tick acquired in the "
                                          + fixed(until - back, 1) + " s until "
                                          + (i + 1 < events.size() ? "the next event" : "the end"));
            } else {
                slowest = std::max(slowest, *recovery.seconds);
                if (*recovery.seconds > recovery.target) {
                    soon.holds = false;
                    soon.offending.push_back(eventName(event) + ": " + role.role + " ticked again "
                                             + fixed(*recovery.seconds, 1)
                                             + " s after the database was back (target "
                                             + fixed(recovery.target, 0) + " s)");
                }
            }
            result.roles.push_back(recovery);
        }
        if (everyRole)
            result.everyRole = slowest;
        verdicts.databaseEvents.push_back(std::move(result));
    }
    again.figure = std::to_string(events.size()) + " database events";
    soon.figure = std::to_string(soon.offending.size()) + " late of "
                  + std::to_string(events.size() * record.roles.size()) + " (event, role)";
    if (!record.fullRun)
        soon.figure += "; judged only in a full run";
    if (events.empty()) {
        again.judged = soon.judged = false;
        again.figure = soon.figure = "no database event";
    }
    verdicts.checks.push_back(std::move(again));
    verdicts.checks.push_back(std::move(soon));
}

// Panics injected per (pid, role), in time order; each matches the first failed tick of that
// role on that process acquired after it was armed.
struct ArmedPanic
{
    const ReplicaFault *fault;
    bool fired = false;
};

void lostTickChecks(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    std::vector<ArmedPanic> panics;
    for (const ReplicaFault &fault : record.replicaFaults) {
        if (fault.kind == Fault::Panic)
            panics.push_back({&fault});
    }
    verdicts.panicsInjected = static_cast<int>(panics.size());

    Check lost{.name = "no tick lost or failed once the database was back (without a fault on "
                       "its replica)"};
    Check panicked{.name = "panicked counts only injected panics"};
    std::int64_t judgedTicks = 0;
    std::int64_t falsePanics = 0;
    for (const Tick &tick : ticks) {
        verdicts.outcomes[tick.outcome ? std::string(nameOf(*tick.outcome)) : "open"] += 1;
        if (tick.releaseFailed)
            verdicts.outcomes["release_failed"] += 1;
        if (tick.outcome == Outcome::Lost)
            verdicts.lossReasons[tick.lossReason ? std::string(nameOf(*tick.lossReason)) : "?"]
                    += 1;

        bool panicExplains = false;
        if (tick.outcome == Outcome::Failed) {
            for (ArmedPanic &panic : panics) {
                if (!panic.fired && panic.fault->pid == tick.pid && panic.fault->role == tick.role
                    && tick.acquiredAt + PanicArmSlack >= panic.fault->at) {
                    panic.fired = true;
                    panicExplains = true;
                    break;
                }
            }
            if (!panicExplains) {
                ++falsePanics;
                panicked.offending.push_back(tickText(tick) + " acquired at "
                                             + bench::formatTimestamp(tick.acquiredAt)
                                             + " ended failed with no panic injected");
            }
        }

        const SlotSetup *slot = slotOf(record, tick.replica);
        const Path path = slot ? slot->path : Path::Direct;
        const DatabaseEvent *outage = nullptr;
        const DatabaseEvent *before = nullptr; // the latest event the database was back from
        for (const DatabaseEvent &event : record.databaseEvents) {
            if (!affects(event, path))
                continue;
            if (overlapsOutage(tick, event, path))
                outage = &event;
            else if (reachableFor(event, path) && *reachableFor(event, path) <= tick.acquiredAt)
                before = &event;
        }
        const bool replicaFault
                = std::any_of(record.replicaFaults.begin(), record.replicaFaults.end(),
                              [&](const ReplicaFault &fault) {
                                  return overlapsReplicaFault(tick, fault, record.endedAt);
                              });
        if (!outage && !replicaFault)
            ++judgedTicks;
        if (tick.outcome != Outcome::Lost && tick.outcome != Outcome::Failed)
            continue;
        if (outage || replicaFault || panicExplains) {
            ++verdicts.lostExplained;
            continue;
        }
        lost.offending.push_back(
                tickText(tick) + " acquired "
                + (before ? fixed(tick.acquiredAt - *reachableFor(*before, path), 1) + " s after "
                                    + eventName(*before) + " was back on its path"
                          : "at " + bench::formatTimestamp(tick.acquiredAt)
                                    + " with no database event before it")
                + ": " + std::string(nameOf(*tick.outcome))
                + (tick.lossReason ? " (" + std::string(nameOf(*tick.lossReason)) + ")" : ""));
    }
    lost.holds = lost.offending.empty();
    lost.figure = std::to_string(lost.offending.size()) + " of " + std::to_string(judgedTicks)
                  + " ticks acquired with the database up";
    verdicts.checks.push_back(std::move(lost));

    for (const ArmedPanic &panic : panics)
        verdicts.panicsFired += panic.fired ? 1 : 0;
    // The metric of each process: what its last scrape said, against the panics it was given.
    for (const ProcessLife &life : record.lives) {
        if (!life.panickedMetric)
            continue;
        const auto given = std::count_if(panics.begin(), panics.end(), [&](const ArmedPanic &p) {
            return p.fault->pid == life.pid;
        });
        if (*life.panickedMetric > static_cast<double>(given))
            panicked.offending.push_back(
                    life.replica + " (pid " + std::to_string(life.pid)
                    + "): hardcount_leader_lease_lost_total{reason=\"panicked\"} "
                    + fixed(*life.panickedMetric, 0) + " with " + std::to_string(given)
                    + " panic(s) injected");
    }
    panicked.holds = panicked.offending.empty();
    panicked.figure = std::to_string(falsePanics) + " failed ticks beyond "
                      + std::to_string(verdicts.panicsFired) + " fired of "
                      + std::to_string(panics.size()) + " injected panics";
    verdicts.checks.push_back(std::move(panicked));
}

void exitCheck(const RunRecord &record, Verdicts &verdicts)
{
    Check check{.name = "no replica exited unless the benchmark ended it; SIGTERM: exit 0 "
                        "within 3 s"};
    for (const ProcessLife &life : record.lives) {
        const std::string who = life.replica + " (pid " + std::to_string(life.pid) + ")";
        if (life.sigtermToExit)
            verdicts.sigtermToExit.push_back(*life.sigtermToExit);
        if (!life.exit)
            continue;
        if (life.holder.empty()) {
            check.offending.push_back(who + " never became ready: " + life.exit->describe()
                                      + (life.endedBy.empty() ? "" : " (killed by the benchmark)"));
        } else if (life.endedBy.empty()) {
            check.offending.push_back(who + " exited by itself: " + life.exit->describe());
        } else if (life.endedBy == "SIGTERM") {
            if (!life.sigtermToExit)
                check.offending.push_back(who + " did not exit after SIGTERM; killed");
            else if (!life.exit->clean())
                check.offending.push_back(who + " ended with " + life.exit->describe()
                                          + " after SIGTERM");
            else if (*life.sigtermToExit > SigtermExitBound)
                check.offending.push_back(who + " took " + fixed(*life.sigtermToExit, 2)
                                          + " s to exit after SIGTERM");
        }
    }
    check.holds = check.offending.empty();
    check.figure = std::to_string(check.offending.size()) + " of "
                   + std::to_string(record.lives.size()) + " processes";
    verdicts.checks.push_back(std::move(check));
}

void takesPartCheck(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    // A replica that cannot reach the primary after an event leads nothing again; the others
    // cover its roles, so only this shows it. Judged from the instant its own path was back,
    // over windows long enough that a healthy replica competing for five roles leads something.
    Check check{.name = "every replica led again after each database event (followed the "
                        "primary)"};
    int windows = 0;
    const std::vector<DatabaseEvent> &events = record.databaseEvents;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const double until = i + 1 < events.size() ? events[i + 1].startedAt : record.endedAt;
        for (const ProcessLife &life : record.lives) {
            const SlotSetup *slot = slotOf(record, life.replica);
            const Path path = slot ? slot->path : Path::Direct;
            const std::optional<double> back = reachableFor(events[i], path);
            if (!affects(events[i], path) || !back || until - *back < TakesPartWindow)
                continue;
            const double from = *back;
            // Alive and unharmed by the benchmark the whole window.
            if (life.startedAt > from || life.endedAt.value_or(Forever) < until)
                continue;
            const bool faulted
                    = std::any_of(record.replicaFaults.begin(), record.replicaFaults.end(),
                                  [&](const ReplicaFault &fault) {
                                      // A panic costs a tick, not the replica's part in others.
                                      return fault.pid == life.pid && fault.kind != Fault::Panic
                                             && fault.at < until
                                             && fault.endedAt.value_or(Forever) + LeaseTtl > from;
                                  });
            if (faulted)
                continue;
            ++windows;
            const bool led = std::any_of(ticks.begin(), ticks.end(), [&](const Tick &tick) {
                return tick.pid == life.pid && tick.acquiredAt >= from && tick.acquiredAt < until;
            });
            if (!led)
                check.offending.push_back(life.replica + " (pid " + std::to_string(life.pid)
                                          + ") led nothing in the " + fixed(until - from, 1)
                                          + " s after " + eventName(events[i])
                                          + " was back on its path");
        }
    }
    check.judged = windows > 0;
    check.holds = check.offending.empty();
    check.figure = windows > 0 ? std::to_string(check.offending.size()) + " of "
                                         + std::to_string(windows)
                                         + " (replica, event) windows without a tick"
                               : "no window of 30 s after a database event";
    verdicts.checks.push_back(std::move(check));
}

void memoryCheck(const RunRecord &record, Verdicts &verdicts)
{
    Check check{.name = "replica memory growth < 10 % (VmRSS, first minute to end)"};
    double worst = -Forever;
    std::string worstText;
    for (const ProcessLife &life : record.lives) {
        if (!life.rssBaselineKb || !life.rssLastKb || *life.rssBaselineKb <= 0)
            continue;
        // The baseline is taken a minute in; a figure needs minutes after it to mean anything.
        const double minutes = (life.rssLastAt - life.startedAt) / 60.0 - 1.0;
        if (minutes < 1.0)
            continue;
        MemoryRow row{.replica = life.replica,
                      .pid = life.pid,
                      .minutes = minutes,
                      .baselineKb = *life.rssBaselineKb,
                      .lastKb = *life.rssLastKb};
        row.growth = static_cast<double>(row.lastKb - row.baselineKb)
                     / static_cast<double>(row.baselineKb);
        row.judged = record.fullRun && minutes >= JudgedMemoryMinutes;
        if (row.judged && row.growth >= MemoryGrowthLimit)
            check.offending.push_back(row.replica + " (pid " + std::to_string(row.pid)
                                      + "): " + std::to_string(row.baselineKb) + " kB \u2192 "
                                      + std::to_string(row.lastKb) + " kB in "
                                      + fixed(row.minutes, 1) + " min");
        if (row.growth > worst) {
            worst = row.growth;
            worstText = (row.growth >= 0 ? "+" : "") + fixed(row.growth * 100, 1) + " % ("
                        + row.replica + " over " + fixed(row.minutes, 1) + " min)";
        }
        verdicts.memory.push_back(row);
    }
    check.judged = std::any_of(verdicts.memory.begin(), verdicts.memory.end(),
                               [](const MemoryRow &row) { return row.judged; });
    check.holds = check.offending.empty();
    check.figure = worstText.empty() ? "no process lived two minutes" : "largest " + worstText;
    if (!check.judged)
        check.figure += "; judged only over 20 minutes of a full run";
    verdicts.checks.push_back(std::move(check));
}

// What the old holder of a taken-over lease was doing when its successor acquired it.
enum class HolderState {
    Dead,    // killed or terminated: nothing of it runs
    Stopped, // SIGSTOP during its tick: its lines come when it runs again
    CutOff,  // its link frozen, severed or partitioned, or its path down: its RELEASE may wait
    Running,
};

const char *holderStateName(HolderState state)
{
    switch (state) {
    case HolderState::Dead:
        return "dead";
    case HolderState::Stopped:
        return "stopped";
    case HolderState::CutOff:
        return "cut off";
    case HolderState::Running:
        return "running";
    }
    return "?";
}

HolderState holderState(const RunRecord &record, const Tick &old, double successorAt)
{
    const auto during = [&](double from, std::optional<double> to) {
        return from <= successorAt && to.value_or(Forever) >= old.acquiredAt;
    };
    HolderState state = HolderState::Running;
    for (const ReplicaFault &fault : record.replicaFaults) {
        if (fault.pid != old.pid)
            continue;
        if ((fault.kind == Fault::SigKill || fault.kind == Fault::SigTerm)
            && fault.at <= successorAt)
            return HolderState::Dead;
        if (fault.kind == Fault::SigStop && during(fault.at, fault.endedAt))
            state = HolderState::Stopped;
        else if ((fault.kind == Fault::Freeze || fault.kind == Fault::Sever
                  || fault.kind == Fault::Partition)
                 && during(fault.at, fault.endedAt) && state == HolderState::Running)
            state = HolderState::CutOff;
    }
    for (const ProcessLife &life : record.lives) {
        if (life.pid == old.pid && life.endedAt && *life.endedAt <= successorAt)
            return HolderState::Dead;
    }
    const SlotSetup *slot = slotOf(record, old.replica);
    const Path path = slot ? slot->path : Path::Direct;
    for (const DatabaseEvent &event : record.databaseEvents) {
        if (affects(event, path) && during(event.startedAt, reachableFor(event, path))
            && state == HolderState::Running)
            state = HolderState::CutOff;
    }
    return state;
}

// A statement of the tick reached the server at a cut link's heal: sent before or during the
// cut, not by a holder working on after it.
bool heldByCutLink(const RunRecord &record, int pid, double at)
{
    return std::any_of(record.replicaFaults.begin(), record.replicaFaults.end(),
                       [&](const ReplicaFault &fault) {
                           return fault.pid == pid
                                  && (fault.kind == Fault::Freeze || fault.kind == Fault::Sever
                                      || fault.kind == Fault::Partition)
                                  && fault.at <= at
                                  && at <= fault.endedAt.value_or(Forever) + HeldStatementSlack;
                       });
}

const SessionEvent *sessionEventAt(const RunRecord &record, double at)
{
    for (const SessionEvent &event : record.sessionEvents) {
        if (event.startedAt <= at && at <= event.endedAt + LeaseTtl)
            return &event;
    }
    return nullptr;
}

std::string sessionEventName(const SessionEvent &event)
{
    return std::string(nameOf(event.kind)) + " " + std::to_string(event.number);
}

// The tick of (role, token) a statement at `at` belongs to: the latest acquired before it (a
// token can be acquired twice only across a lossy failover).
const Tick *
tickOf(const std::map<std::pair<std::string, std::int64_t>, std::vector<const Tick *>> &byToken,
       const std::string &role, std::int64_t token, double at)
{
    const auto it = byToken.find({role, token});
    if (it == byToken.end())
        return nullptr;
    const Tick *found = nullptr;
    for (const Tick *tick : it->second) {
        if (tick->acquiredAt <= at)
            found = tick;
    }
    return found;
}

// The issue-30 checks: a lease taken from a holder that had not released it (a takeover) must
// find that holder stopped — its tick ended before the successor's ACQUIRE, and none of its
// statements reaching the database after it — and taken early only if its process is dead.
// Effects made under two tokens are counted by cause; those of two holders at once fail.
void takeoverChecks(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    TakeoverFigures &figures = verdicts.takeovers;
    Check overlap{.name = "no work overlap: a taken-over holder ran nothing after its successor "
                          "acquired (its tick's end, its statements in the database)"};
    Check twice{.name = "no external effect made twice by two holders at once (an "
                        "external_effects key under two tokens)"};
    Check early{.name = "no live holder taken early (took_over = session_ended while its "
                        "process ran)"};

    std::map<std::string, std::vector<const Tick *>> byRole;
    std::map<std::pair<std::string, std::int64_t>, std::vector<const Tick *>> byToken;
    for (const Tick &tick : ticks) {
        byRole[tick.role].push_back(&tick);
        byToken[{tick.role, tick.token}].push_back(&tick);
    }
    // For each taken-over tick, its successor; and the ticks that ran beside theirs.
    std::map<const Tick *, const Tick *> takenBy;
    std::map<const Tick *, bool> overlapped;
    for (const auto &[role, leases] : byRole) {
        for (std::size_t i = 0; i + 1 < leases.size(); ++i) {
            const Tick &old = *leases[i];
            const Tick &next = *leases[i + 1];
            // The row the next ACQUIRE found free was handed over too: the old holder's RELEASE
            // landed though its answer was lost, or a lossy failover forgot the old lease.
            const auto seen = record.tookOver.find({next.role, next.token});
            if (old.handedOver || (seen != record.tookOver.end() && seen->second.empty())) {
                ++figures.handovers;
                continue;
            }
            ++figures.takeovers;
            takenBy[&old] = &next;
            const std::string how = seen == record.tookOver.end() ? "unseen" : seen->second;
            figures.tookOver[how] += 1;
            const HolderState state = holderState(record, old, next.acquiredAt);
            std::string &row = figures.rows.emplace_back(
                    tickText(old) + " \u2192 " + next.replica + " token "
                    + std::to_string(next.token) + " at " + bench::formatTimestamp(next.acquiredAt)
                    + ": took_over " + how + ", holder " + holderStateName(state));
            const std::string taken = tickText(old) + " taken by " + next.replica + " token "
                                      + std::to_string(next.token) + " at "
                                      + bench::formatTimestamp(next.acquiredAt);
            const SessionEvent *during = sessionEventAt(record, next.acquiredAt);
            const std::string within = during ? " (" + sessionEventName(*during) + ")" : "";
            if (how == "session_ended") {
                if (state == HolderState::Dead) {
                    ++figures.earlyOfDead;
                } else if (state == HolderState::Stopped) {
                    ++figures.earlyOfStopped;
                } else {
                    ++figures.earlyOfLive;
                    early.offending.push_back(taken + " early" + within + "; its process ran"
                                              + (state == HolderState::CutOff ? " (cut off)" : ""));
                }
            }
            if (state == HolderState::Dead)
                continue;
            // A running holder's lost line is its cancel: its work starts nothing after it;
            // without one, its end line says the work had returned. A stopped holder prints both
            // once it runs again, a cut-off one when its heartbeat's dial gives up, seconds after
            // its work stopped at the abandon: the database judges those.
            const std::optional<double> end = state != HolderState::Running ? std::nullopt
                                              : old.lostArrivedAt           ? old.lostArrivedAt
                                                                            : old.endArrivedAt;
            if (!end) {
                ++figures.endsNotJudged;
                if (const std::optional<double> late
                    = old.lostArrivedAt ? old.lostArrivedAt : old.endArrivedAt) {
                    figures.notJudgedOverlaps.push_back(*late - next.acquiredAt);
                    row += ", its tick ended " + fixed((*late - next.acquiredAt) * 1000, 0)
                           + " ms after (not judged)";
                }
                continue;
            }
            ++figures.endsJudged;
            const double by = *end - next.acquiredAt;
            row += ", its tick ended " + fixed(by * 1000, 0) + " ms after";
            if (by <= 0)
                continue;
            figures.overlaps.push_back(by);
            overlapped[&old] = true;
            overlap.offending.push_back(taken + within + ": its tick ended " + fixed(by * 1000, 0)
                                        + " ms later");
        }
    }

    // Every statement the database saw under a token, against its tick's successor.
    struct Statement
    {
        const std::string *role;
        std::int64_t token;
        double at;
        std::string what;
    };
    std::vector<Statement> statements;
    for (const Claim &claim : record.claims)
        statements.push_back({&claim.role, claim.token, claim.fencedAt, "claim"});
    for (const Refusal &refusal : record.refusals)
        statements.push_back({&refusal.role, refusal.token, refusal.at, "claim refused"});
    for (const Effect &effect : record.effects)
        statements.push_back(
                {&effect.role, effect.token, effect.at, effect.kind + " " + effect.key});
    std::map<const Tick *, bool> deliveredStale;
    for (const Statement &statement : statements) {
        const Tick *tick = tickOf(byToken, *statement.role, statement.token, statement.at);
        const auto taken = tick ? takenBy.find(tick) : takenBy.end();
        if (taken == takenBy.end() || statement.at <= taken->second->acquiredAt)
            continue;
        if (heldByCutLink(record, tick->pid, statement.at)) {
            ++figures.staleDeliveries;
            deliveredStale[tick] = true;
            continue;
        }
        ++figures.lateStatements;
        overlapped[tick] = true;
        if (figures.lateStatements <= 20)
            overlap.offending.push_back(
                    tickText(*tick) + ": " + statement.what + " at "
                    + bench::formatTimestamp(statement.at) + ", "
                    + fixed((statement.at - taken->second->acquiredAt) * 1000, 0) + " ms after "
                    + taken->second->replica + " acquired token "
                    + std::to_string(taken->second->token));
    }

    // Each key's writers in the order they wrote it; the earlier of two tokens decides why.
    std::map<std::pair<std::string, std::string>, std::vector<const Effect *>> byKey;
    for (const Effect &effect : record.effects)
        byKey[{effect.kind, effect.key}].push_back(&effect);
    for (auto &[key, writes] : byKey) {
        std::sort(writes.begin(), writes.end(),
                  [](const Effect *a, const Effect *b) { return a->at < b->at; });
        bool byOverlap = false, stale = false, again = false;
        for (std::size_t i = 0; i + 1 < writes.size(); ++i) {
            if (writes[i]->token == writes[i + 1]->token)
                continue;
            again = true;
            const Tick *first = tickOf(byToken, writes[i]->role, writes[i]->token, writes[i]->at);
            byOverlap = byOverlap || (first && overlapped.contains(first));
            stale = stale || (first && deliveredStale.contains(first));
        }
        if (!again)
            continue;
        ++figures.keysTwice;
        std::string line = key.first + " " + key.second + ":";
        for (const Effect *write : writes)
            line += " token " + std::to_string(write->token) + " at "
                    + bench::formatTimestamp(write->at) + ";";
        line.pop_back();
        if (byOverlap) {
            ++figures.twiceByOverlap;
            twice.offending.push_back(line);
        } else if (stale) {
            ++figures.twiceStaleDelivery;
            figures.twiceRows.push_back(line + " (a healed link's delivery)");
        } else {
            ++figures.twiceRedone;
            figures.twiceRows.push_back(line + " (made again after the first holder stopped)");
        }
    }

    overlap.holds = overlap.offending.empty();
    overlap.figure = std::to_string(figures.overlaps.size()) + " of "
                     + std::to_string(figures.endsJudged) + " judged takeovers ended late; "
                     + std::to_string(figures.lateStatements)
                     + " statements under an old token after its successor acquired ("
                     + std::to_string(figures.staleDeliveries)
                     + " more delivered by a healed link, not judged)";
    verdicts.checks.push_back(std::move(overlap));
    twice.holds = twice.offending.empty();
    twice.figure = std::to_string(figures.twiceByOverlap) + " of "
                   + std::to_string(figures.keysTwice) + " keys under two tokens ("
                   + std::to_string(figures.twiceRedone)
                   + " made again after the first holder had stopped, "
                   + std::to_string(figures.twiceStaleDelivery) + " by a healed link's delivery)";
    verdicts.checks.push_back(std::move(twice));
    early.holds = early.offending.empty();
    early.figure
            = std::to_string(figures.earlyOfLive) + " of "
              + std::to_string(figures.earlyOfDead + figures.earlyOfStopped + figures.earlyOfLive)
              + " early takes (" + std::to_string(figures.earlyOfDead) + " of a dead holder, "
              + std::to_string(figures.earlyOfStopped) + " of a stopped one)";
    verdicts.checks.push_back(std::move(early));
}

void sigkillFigures(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    for (const ReplicaFault &fault : record.replicaFaults) {
        if (fault.kind != Fault::SigKill)
            continue;
        for (const Tick &held : ticks) {
            if (held.pid != fault.pid || held.acquiredAt > fault.at
                || held.endedAt.value_or(Forever) < fault.at)
                continue;
            const auto next = std::find_if(ticks.begin(), ticks.end(), [&](const Tick &tick) {
                return tick.role == held.role && tick.acquiredAt > fault.at;
            });
            if (next != ticks.end())
                verdicts.sigkillToAcquired.push_back(next->acquiredAt - fault.at);
        }
    }
}

// While a session event runs, every role completes ticks: a holder whose sessions are cut keeps
// its tick, and nobody takes it away mid-tick over and over.
void starvationCheck(const RunRecord &record, const std::vector<Tick> &ticks, Verdicts &verdicts)
{
    Check check{.name = "no role starved during a session event (a tick acquired inside each "
                        "one completed)",
                .judged = !record.sessionEvents.empty()};
    for (const SessionEvent &event : record.sessionEvents) {
        SessionEventResult result{.kind = event.kind,
                                  .number = event.number,
                                  .seconds = event.endedAt - event.startedAt};
        for (const RoleSchedule &role : record.roles) {
            int &completed = result.completedTicks[role.role];
            for (const Tick &tick : ticks) {
                if (tick.role == role.role && tick.outcome == Outcome::Completed
                    && tick.acquiredAt >= event.startedAt && tick.acquiredAt <= event.endedAt)
                    ++completed;
            }
            if (completed == 0)
                check.offending.push_back(sessionEventName(event) + ": " + role.role
                                          + " completed no tick acquired in its "
                                          + fixed(result.seconds, 1) + " s");
        }
        for (const auto &[key, how] : record.tookOver) {
            if (how != "session_ended")
                continue;
            const auto leases = std::find_if(ticks.begin(), ticks.end(), [&](const Tick &tick) {
                return tick.role == key.first && tick.token == key.second;
            });
            if (leases != ticks.end() && sessionEventAt(record, leases->acquiredAt) == &event)
                ++result.earlyTakes;
        }
        verdicts.sessionEvents.push_back(std::move(result));
    }
    check.holds = check.offending.empty();
    check.figure
            = check.judged
                      ? std::to_string(check.offending.size()) + " of "
                                + std::to_string(record.sessionEvents.size() * record.roles.size())
                                + " (event, role)"
                      : "no session event";
    verdicts.checks.push_back(std::move(check));
}

void clockOffsets(const RunRecord &record, Verdicts &verdicts)
{
    // What each replica's own wall clock read against this host's: proof that the skew took.
    std::map<std::string, std::vector<double>> offsets;
    for (const ReplicaEvent &event : record.events) {
        if (event.tsEpoch && event.receivedAt > 0)
            offsets[event.replica].push_back(*event.tsEpoch - event.receivedAt);
    }
    for (auto &[replica, values] : offsets) {
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        verdicts.clockOffsets[replica] = values[values.size() / 2];
    }
}

} // namespace

std::vector<Tick> ticksFrom(const std::vector<ReplicaEvent> &events)
{
    std::vector<Tick> ticks;
    std::map<std::tuple<int, std::string, std::int64_t>, std::size_t> open;
    for (const ReplicaEvent &event : events) {
        if (!event.token)
            continue;
        const auto key = std::make_tuple(event.pid, event.role, *event.token);
        if (event.transition == EventKind::Acquired) {
            open[key] = ticks.size();
            ticks.push_back({.replica = event.replica,
                             .pid = event.pid,
                             .holder = event.holder,
                             .role = event.role,
                             .token = *event.token,
                             .acquiredAt = eventTime(event)});
            continue;
        }
        const auto it = open.find(key);
        if (it == open.end())
            continue;
        Tick &tick = ticks[it->second];
        if (event.transition == EventKind::Lost) {
            tick.lostArrivedAt = event.receivedAt;
            continue;
        }
        if (event.transition != EventKind::Released && event.transition != EventKind::ReleaseFailed)
            continue;
        tick.endedAt = eventTime(event);
        tick.endArrivedAt = event.receivedAt;
        tick.outcome = event.outcome;
        tick.lossReason = event.reason;
        tick.releaseFailed = event.transition == EventKind::ReleaseFailed;
        // A RELEASE that found the row prints its now(); one that found it taken prints none.
        tick.handedOver = event.transition == EventKind::Released && event.dbTimeEpoch.has_value();
        open.erase(it);
    }
    std::stable_sort(ticks.begin(), ticks.end(),
                     [](const Tick &a, const Tick &b) { return a.acquiredAt < b.acquiredAt; });
    return ticks;
}

AuditOutcome parseAudit(const std::string &json)
{
    AuditOutcome outcome;
    // One flat object per invariant, each opening with its role: split there, read each alone.
    const std::string marker = "{\"role\":";
    std::size_t at = json.find(marker);
    if (at == std::string::npos || !bench::jsonField(json, "holds")) {
        outcome.error = "leaderctl audit --json printed no invariant";
        return outcome;
    }
    while (at != std::string::npos) {
        const std::size_t next = json.find(marker, at + marker.size());
        const std::string_view object = std::string_view(json).substr(
                at, next == std::string::npos ? std::string::npos : next - at);
        AuditInvariant invariant;
        invariant.role = bench::jsonField(object, "role").value_or("?");
        invariant.name = bench::jsonField(object, "name").value_or("?");
        invariant.holds = bench::jsonField(object, "holds").value_or("false") == "true";
        invariant.offending = bench::integer(bench::jsonField(object, "offending")).value_or(0);
        // The samples are strings in an array; the first one is enough for a report line.
        const std::size_t samples = object.find("\"samples\":[\"");
        if (samples != std::string_view::npos) {
            const std::string_view rest = object.substr(samples + 11);
            if (const std::optional<std::string> first
                = bench::jsonField("{\"s\":" + std::string(rest), "s"))
                invariant.samples.push_back(*first);
        }
        outcome.invariants.push_back(std::move(invariant));
        at = next;
    }
    return outcome;
}

Verdicts analyze(const RunRecord &record)
{
    Verdicts verdicts;
    // The partition is on record as a fault of its victim too: counted once, as an event.
    for (const ReplicaFault &fault : record.replicaFaults) {
        if (fault.kind != Fault::Partition)
            verdicts.faultsInjected[std::string(nameOf(fault.kind))] += 1;
    }
    for (const DatabaseEvent &event : record.databaseEvents)
        verdicts.faultsInjected[std::string(nameOf(event.kind))] += 1;
    for (const SessionEvent &event : record.sessionEvents)
        verdicts.faultsInjected[std::string(nameOf(event.kind))] += 1;
    const std::vector<Tick> ticks = ticksFrom(record.events);
    verdicts.ticks = static_cast<std::int64_t>(ticks.size());
    auditCheck(record, verdicts);
    tokenCheck(ticks, verdicts);
    staleClaimCheck(record, ticks, verdicts);
    recoveryChecks(record, ticks, verdicts);
    lostTickChecks(record, ticks, verdicts);
    exitCheck(record, verdicts);
    takesPartCheck(record, ticks, verdicts);
    takeoverChecks(record, ticks, verdicts);
    starvationCheck(record, ticks, verdicts);
    sigkillFigures(record, ticks, verdicts);
    memoryCheck(record, verdicts);
    clockOffsets(record, verdicts);
    return verdicts;
}

bool anyFailed(const Verdicts &verdicts)
{
    return std::any_of(verdicts.checks.begin(), verdicts.checks.end(),
                       [](const Check &check) { return check.judged && !check.holds; });
}

} // namespace bench::chaos
