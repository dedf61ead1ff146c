#include "report.h"

#include "events.h"
#include "jsonwriter.h"
#include "stats.h"
#include "text.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

namespace bench::chaos {

namespace {

// Offending lines printed per check; the JSON has them all.
constexpr std::size_t PrintedOffending = 8;

std::string seconds(double value)
{
    return bench::seconds(value, 1);
}

void figureRow(std::ostream &out, const std::string &label, const std::vector<double> &samples,
               const std::string &suffix = {})
{
    out << "  " << padRight(label, 34) << summaryColumns(summarize(samples), 8, 1) << suffix
        << "\n";
}

void figureHeader(std::ostream &out, const std::string &title)
{
    out << padRight(title, 36) << padLeft("n", 3) << "  " << padLeft("median", 8) << "  "
        << padLeft("p95", 8) << "  " << padLeft("max", 8) << "\n";
}

std::vector<Fault> databaseKindsSeen(const Verdicts &verdicts)
{
    std::vector<Fault> kinds;
    for (const Fault kind : DatabaseFaultKinds) {
        for (const DatabaseEventResult &event : verdicts.databaseEvents) {
            if (event.kind == kind) {
                kinds.push_back(kind);
                break;
            }
        }
    }
    return kinds;
}

std::string mb(long kb)
{
    return fixed(static_cast<double>(kb) / 1024.0, 1) + " MB";
}

std::string sessionEventText(const SessionEvent &event)
{
    std::string text = std::string(nameOf(event.kind)) + " " + std::to_string(event.number) + " ("
                       + seconds(event.endedAt - event.startedAt);
    if (event.kind == Fault::Reaper)
        text += ", " + std::to_string(event.reaperRounds) + " rounds, "
                + std::to_string(event.sessionsTerminated) + " sessions terminated";
    if (event.kind == Fault::IdleProxy)
        text += ", " + std::to_string(event.proxyCuts) + " of " + std::to_string(event.proxied)
                + " connections cut";
    if (event.kind == Fault::Partition && event.cutAt && event.healedAt)
        text += ", " + event.victim + " cut off " + seconds(*event.healedAt - *event.cutAt)
                + (event.victimRole.empty() ? " holding nothing" : " holding " + event.victimRole);
    if (!event.restarted.empty()) {
        text += ", started again ";
        text += event.kind == Fault::IdleProxy ? "behind it:" : "under it:";
        for (const std::string &replica : event.restarted)
            text += " " + replica;
    }
    return text + ")";
}

std::string milliseconds(const std::vector<double> &samples)
{
    const std::optional<Summary> summary = summarize(samples);
    if (!summary)
        return "-";
    return "median " + fixed(summary->p50 * 1000, 0) + " ms, max " + fixed(summary->max * 1000, 0)
           + " ms";
}

void writeSummary(JsonWriter &json, const std::string &key, const std::vector<double> &samples)
{
    json.key(key).beginObject();
    writeSamples(json, samples);
    json.endObject();
}

// The field name: an object of one summary per key.
void writeSummaries(JsonWriter &json, const std::string &name,
                    const std::map<std::string, std::vector<double>> &samplesByKey)
{
    json.key(name).beginObject();
    for (const auto &[key, samples] : samplesByKey)
        writeSummary(json, key, samples);
    json.endObject();
}

void printTakeovers(std::ostream &out, const RunRecord &record, const Verdicts &verdicts)
{
    std::string events;
    for (const SessionEvent &event : record.sessionEvents)
        events += (events.empty() ? "" : ", ") + sessionEventText(event);
    out << "session events: " << (events.empty() ? "none" : events) << "\n";
    if (!verdicts.sessionEvents.empty()) {
        out << "  " << padRight("completed ticks acquired during", 34);
        for (const RoleSchedule &role : record.roles)
            out << "  " << role.role;
        out << "  early takes\n";
        for (const SessionEventResult &event : verdicts.sessionEvents) {
            out << "  "
                << padRight(std::string(nameOf(event.kind)) + " " + std::to_string(event.number),
                            34);
            for (const RoleSchedule &role : record.roles) {
                const auto it = event.completedTicks.find(role.role);
                out << "  "
                    << padLeft(std::to_string(it == event.completedTicks.end() ? 0 : it->second),
                               role.role.size());
            }
            out << "  " << padLeft(std::to_string(event.earlyTakes), 11) << "\n";
        }
    }
    const TakeoverFigures &figures = verdicts.takeovers;
    std::string how;
    for (const auto &[kind, count] : figures.tookOver)
        how += (how.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    out << "takeovers (the role's next lease before its holder released it): " << figures.takeovers
        << (how.empty() ? "" : " (took_over: " + how + ")") << "; handovers " << figures.handovers
        << "\n";
    out << "early takes (took_over = session_ended): "
        << figures.earlyOfDead + figures.earlyOfStopped + figures.earlyOfLive
        << ": of a dead holder " << figures.earlyOfDead << ", of a stopped one "
        << figures.earlyOfStopped << ", of a live one " << figures.earlyOfLive << "\n";
    out << "taken-over tick's end after its successor's ACQUIRE: " << figures.overlaps.size()
        << " of " << figures.endsJudged << " judged"
        << (figures.overlaps.empty() ? "" : " (" + milliseconds(figures.overlaps) + ")");
    const auto late
            = std::count_if(figures.notJudgedOverlaps.begin(), figures.notJudgedOverlaps.end(),
                            [](double by) { return by > 0; });
    out << "; not judged (stopped or cut off): " << figures.endsNotJudged << ", " << late
        << " of them ended after it\n";
    out << "statements under an old token after its successor's ACQUIRE: " << figures.lateStatements
        << "; delivered by a healed link (not judged): " << figures.staleDeliveries << "\n";
    out << "external effects under two tokens: " << figures.keysTwice << " keys: by two holders at "
        << "once " << figures.twiceByOverlap << ", made again after the first holder had stopped "
        << figures.twiceRedone << ", by a healed link's delivery " << figures.twiceStaleDelivery
        << "\n";
}

} // namespace

void printReport(std::ostream &out, const RunResults &results, const ReportContext &context)
{
    const Options &options = context.options;
    const RunRecord &record = results.record;
    const Verdicts &verdicts = results.verdicts;
    const double minutes = (record.faultsEndedAt - record.startedAt) / 60.0;
    out << "chaos-bench: " << options.replicas << " replicas, " << fixed(minutes, 1)
        << " min of faults" << (options.duration < FullDuration ? " (quick run)" : "") << ", seed "
        << options.seed << ", PostgreSQL " << results.serverVersion << "\n";
    for (const SlotSetup &slot : record.slots) {
        out << "  " << padRight(slot.describe(), 50);
        if (const auto it = verdicts.clockOffsets.find(slot.id); it != verdicts.clockOffsets.end())
            out << "its wall clock read " << (it->second >= 0 ? "+" : "") << fixed(it->second, 1)
                << " s";
        out << "\n";
    }
    std::string injected;
    for (const auto &[name, count] : verdicts.faultsInjected)
        injected += (injected.empty() ? "" : ", ") + name + " " + std::to_string(count);
    out << "faults injected: " << (injected.empty() ? "none" : injected) << "\n";

    // Postgres events are timed to Postgres taking writes, PgBouncer events to PgBouncer; the
    // PgBouncer path after a Postgres event also waits out its server_login_retry.
    figureHeader(out, "event \u2192 writable again");
    const std::vector<Fault> kinds = databaseKindsSeen(verdicts);
    for (const Fault kind : kinds) {
        std::vector<double> outages;
        for (const DatabaseEventResult &event : verdicts.databaseEvents) {
            if (event.kind == kind && event.outage)
                outages.push_back(*event.outage);
        }
        figureRow(out, std::string(nameOf(kind)), outages);
    }
    figureHeader(out, "event \u2192 writable through PgBouncer");
    for (const Fault kind : kinds) {
        std::vector<double> outages;
        for (const DatabaseEventResult &event : verdicts.databaseEvents) {
            if (event.kind == kind && event.bouncerOutage)
                outages.push_back(*event.bouncerOutage);
        }
        if (!outages.empty())
            figureRow(out, std::string(nameOf(kind)), outages);
    }
    figureHeader(out, "reachable \u2192 every role ticking again");
    for (const Fault kind : kinds) {
        std::vector<double> recoveries;
        int unrecovered = 0;
        for (const DatabaseEventResult &event : verdicts.databaseEvents) {
            if (event.kind != kind)
                continue;
            if (event.everyRole)
                recoveries.push_back(*event.everyRole);
            else
                ++unrecovered;
        }
        figureRow(out, std::string(nameOf(kind)), recoveries,
                  unrecovered ? "  (" + std::to_string(unrecovered) + " never)" : "");
    }
    figureHeader(out, "reachable \u2192 role ticking (target)");
    for (const RoleSchedule &role : record.roles) {
        std::vector<double> samples;
        int unrecovered = 0;
        for (const DatabaseEventResult &event : verdicts.databaseEvents) {
            for (const RoleRecovery &recovery : event.roles) {
                if (recovery.role != role.role)
                    continue;
                if (recovery.seconds)
                    samples.push_back(*recovery.seconds);
                else
                    ++unrecovered;
            }
        }
        figureRow(out,
                  role.role + " (\u2264 " + fixed(role.interval + RecoveryAllowance, 0) + " s)",
                  samples, unrecovered ? "  (" + std::to_string(unrecovered) + " never)" : "");
    }
    figureHeader(out, "replica");
    figureRow(out, "SIGTERM \u2192 exit", verdicts.sigtermToExit);
    figureRow(out, "SIGKILL \u2192 its roles acquired", verdicts.sigkillToAcquired);

    std::string outcomes;
    for (const auto &[outcome, count] : verdicts.outcomes)
        outcomes += (outcomes.empty() ? "" : ", ") + outcome + " " + std::to_string(count);
    std::string reasons;
    for (const auto &[reason, count] : verdicts.lossReasons)
        reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(count);
    out << "ticks: " << verdicts.ticks << " acquired; " << outcomes;
    if (!reasons.empty())
        out << " (lost: " << reasons << ")";
    out << "; lost or failed under a fault: " << verdicts.lostExplained << "\n";
    out << "panics: " << verdicts.panicsInjected << " injected, " << verdicts.panicsFired
        << " fired\n";
    out << "claims: " << verdicts.claims << " accepted, " << verdicts.staleAccepted
        << " of them stale; " << verdicts.fenceRefusals << " refused by the fence";
    if (verdicts.claimsWithoutAcquire > 0)
        out << "; " << verdicts.claimsWithoutAcquire << " under a token no acquired line named";
    out << "\n";
    printTakeovers(out, record, verdicts);
    for (const MemoryRow &row : verdicts.memory)
        out << "memory: " << row.replica << " (pid " << row.pid << ") " << mb(row.baselineKb)
            << " \u2192 " << mb(row.lastKb) << " (" << (row.growth >= 0 ? "+" : "")
            << fixed(row.growth * 100, 1) << " %) over " << fixed(row.minutes, 1) << " min"
            << (row.judged ? "" : ", not judged") << "\n";

    out << "checks:\n";
    for (const Check &check : verdicts.checks) {
        const char *mark = !check.judged ? "-" : check.holds ? "\u2713" : "\u2717";
        out << "  " << mark << " " << check.name << ": " << check.figure << "\n";
        for (std::size_t i = 0; i < check.offending.size() && i < PrintedOffending; ++i)
            out << "      " << check.offending[i] << "\n";
        if (check.offending.size() > PrintedOffending)
            out << "      ... and " << check.offending.size() - PrintedOffending
                << " more (see the JSON)\n";
    }
    for (const std::string &note : results.notes)
        out << "note: " << note << "\n";
    if (anyFailed(verdicts))
        out << "FAILED: a correctness check failed; logs in " << context.logDirectory.string()
            << "\n";
    out << "reproduce: " << context.command << "\n";
}

void writeJson(JsonWriter &json, const RunResults &results, const ReportContext &context)
{
    const Options &options = context.options;
    const RunRecord &record = results.record;
    const Verdicts &verdicts = results.verdicts;
    json.beginObject();
    json.field("benchmark", "chaos");
    json.field("command", context.command);
    json.field("quick", options.duration < FullDuration);
    json.field("passed", !anyFailed(verdicts));
    json.field("started_at", results.startedAt);
    json.field("finished_at", results.finishedAt);
    json.field("fault_minutes", (record.faultsEndedAt - record.startedAt) / 60.0);
    writeMachine(json, results);

    json.key("settings").beginObject();
    json.field("replicas", options.replicas);
    json.field("duration_s", static_cast<std::int64_t>(options.duration.count()));
    json.field("seed", options.seed);
    json.field("replica_config", results.replicaConfig);
    json.objects("slots", record.slots, [&](const SlotSetup &slot) {
        json.field("id", slot.id);
        json.field("path", slot.path == Path::Direct ? "direct" : "pgbouncer");
        json.field("switchboard", slot.control);
        json.field("clock_skew_s", slot.skewSeconds);
        json.field("killable", slot.killable);
        if (const auto it = verdicts.clockOffsets.find(slot.id); it != verdicts.clockOffsets.end())
            json.field("clock_read_s", it->second);
    });
    json.endObject();

    json.objects("replica_faults", record.replicaFaults, [&](const ReplicaFault &fault) {
        json.field("kind", std::string(nameOf(fault.kind)));
        json.field("replica", fault.replica);
        json.field("pid", fault.pid);
        json.field("command", fault.command);
        json.field("at", formatTimestamp(fault.at));
        json.field("ended_at", formatTimestamp(fault.endedAt));
    });

    json.key("database_events").beginArray();
    for (std::size_t i = 0; i < record.databaseEvents.size(); ++i) {
        const DatabaseEvent &event = record.databaseEvents[i];
        const DatabaseEventResult &result = verdicts.databaseEvents[i];
        json.beginObject();
        json.field("kind", std::string(nameOf(event.kind)));
        json.field("number", event.number);
        json.field("started_at", formatTimestamp(event.startedAt));
        json.field("direct_reachable_at", formatTimestamp(event.directReachableAt));
        json.field("bouncer_reachable_at", formatTimestamp(event.bouncerReachableAt));
        json.field("reachable_at", formatTimestamp(event.reachableAt));
        json.key("outage_s");
        json.value(result.outage);
        json.key("every_role_s");
        json.value(result.everyRole);
        json.key("roles").beginObject();
        for (const RoleRecovery &recovery : result.roles) {
            json.key(recovery.role);
            json.value(recovery.seconds);
        }
        json.endObject();
        if (event.kind == Fault::Failover)
            json.field("acquires_after_cut", event.acquiresAfterCut);
        json.field("notes", event.notes);
        json.endObject();
    }
    json.endArray();

    json.key("session_events").beginArray();
    for (std::size_t i = 0; i < record.sessionEvents.size(); ++i) {
        const SessionEvent &event = record.sessionEvents[i];
        json.beginObject();
        json.field("kind", std::string(nameOf(event.kind)));
        json.field("number", event.number);
        json.field("started_at", formatTimestamp(event.startedAt));
        json.field("ended_at", formatTimestamp(event.endedAt));
        if (event.kind == Fault::Reaper) {
            json.field("reaper_rounds", event.reaperRounds);
            json.field("sessions_terminated", event.sessionsTerminated);
        }
        if (event.kind == Fault::IdleProxy) {
            json.field("proxied_connections", event.proxied);
            json.field("proxy_cuts", event.proxyCuts);
        }
        if (event.kind == Fault::Partition) {
            json.field("victim", event.victim);
            json.field("victim_pid", event.victimPid);
            json.field("victim_role", event.victimRole);
            json.field("cut_at", formatTimestamp(event.cutAt));
            json.field("healed_at", formatTimestamp(event.healedAt));
        }
        json.field("restarted", event.restarted);
        if (i < verdicts.sessionEvents.size()) {
            const SessionEventResult &result = verdicts.sessionEvents[i];
            json.field("completed_ticks", result.completedTicks);
            json.field("early_takes", result.earlyTakes);
        }
        json.field("notes", event.notes);
        json.endObject();
    }
    json.endArray();

    const TakeoverFigures &takeovers = verdicts.takeovers;
    json.key("takeovers").beginObject();
    json.field("handovers", takeovers.handovers);
    json.field("takeovers", takeovers.takeovers);
    json.field("took_over", takeovers.tookOver);
    json.field("early_of_dead_holder", takeovers.earlyOfDead);
    json.field("early_of_stopped_holder", takeovers.earlyOfStopped);
    json.field("early_of_live_holder", takeovers.earlyOfLive);
    json.field("ends_judged", takeovers.endsJudged);
    writeSummary(json, "tick_end_after_successor", takeovers.overlaps);
    json.field("ends_not_judged", takeovers.endsNotJudged);
    writeSummary(json, "not_judged_end_minus_successor", takeovers.notJudgedOverlaps);
    json.field("late_statements", takeovers.lateStatements);
    json.field("stale_deliveries", takeovers.staleDeliveries);
    json.key("effects_under_two_tokens").beginObject();
    json.field("keys", takeovers.keysTwice);
    json.field("by_two_holders_at_once", takeovers.twiceByOverlap);
    json.field("made_again_after_first_stopped", takeovers.twiceRedone);
    json.field("by_healed_link_delivery", takeovers.twiceStaleDelivery);
    json.field("other_keys", takeovers.twiceRows);
    json.endObject();
    json.field("list", takeovers.rows);
    json.endObject();

    json.key("figures").beginObject();
    std::map<std::string, std::vector<double>> outages, bouncerOutages, recoveries, roles;
    for (const DatabaseEventResult &event : verdicts.databaseEvents) {
        const std::string kind(nameOf(event.kind));
        if (event.outage)
            outages[kind].push_back(*event.outage);
        if (event.bouncerOutage)
            bouncerOutages[kind].push_back(*event.bouncerOutage);
        if (event.everyRole)
            recoveries[kind].push_back(*event.everyRole);
        for (const RoleRecovery &recovery : event.roles) {
            if (recovery.seconds)
                roles[recovery.role].push_back(*recovery.seconds);
        }
    }
    writeSummaries(json, "writable_again", outages);
    writeSummaries(json, "writable_through_pgbouncer", bouncerOutages);
    writeSummaries(json, "every_role_ticking_again", recoveries);
    writeSummaries(json, "role_ticking_again", roles);
    writeSummary(json, "sigterm_to_exit", verdicts.sigtermToExit);
    writeSummary(json, "sigkill_to_acquired_elsewhere", verdicts.sigkillToAcquired);
    json.endObject();

    json.key("ticks").beginObject();
    json.field("acquired", verdicts.ticks);
    for (const auto &[outcome, count] : verdicts.outcomes)
        json.field(outcome, count);
    json.field("loss_reasons", verdicts.lossReasons);
    json.field("lost_or_failed_under_a_fault", verdicts.lostExplained);
    json.endObject();
    json.key("panics").beginObject();
    json.field("injected", verdicts.panicsInjected);
    json.field("fired", verdicts.panicsFired);
    json.endObject();
    json.key("claims").beginObject();
    json.field("accepted", verdicts.claims);
    json.field("stale_accepted", verdicts.staleAccepted);
    json.field("refused_by_fence", verdicts.fenceRefusals);
    json.field("without_acquired_line", verdicts.claimsWithoutAcquire);
    json.endObject();
    json.objects("memory", verdicts.memory, [&](const MemoryRow &row) {
        json.field("replica", row.replica);
        json.field("pid", row.pid);
        json.field("minutes", row.minutes);
        json.field("first_minute_kb", static_cast<std::int64_t>(row.baselineKb));
        json.field("end_kb", static_cast<std::int64_t>(row.lastKb));
        json.field("growth", row.growth);
        json.field("judged", row.judged);
    });

    json.objects("audit", record.audit.invariants,
                 [&](const AuditInvariant &invariant) { writeInvariant(json, invariant); });
    json.objects("checks", verdicts.checks, [&](const Check &check) {
        json.field("name", check.name);
        json.field("judged", check.judged);
        json.field("holds", check.holds);
        json.field("figure", check.figure);
        json.field("offending", check.offending);
    });
    json.field("notes", results.notes);
    json.endObject();
}

} // namespace bench::chaos
