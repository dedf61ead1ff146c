#include "report.h"

#include "jsonwriter.h"
#include "text.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace bench::scale {

namespace {

std::string percent(double share)
{
    return fixed(share * 100.0, 1) + " %";
}

const Latency &latency(const Phase &phase, StatementKind kind)
{
    return phase.latency[static_cast<int>(kind)];
}

double perSecond(const Phase &phase, StatementKind kind)
{
    return phase.perSecond[static_cast<int>(kind)];
}

// Fewer samples than this and the p99 is the window's worst one or two: the max is what to read.
constexpr std::size_t FewSamples = 100;

// p50 / p99 / max, with the p99 left out where the samples are too few to have one.
std::string tail(const Latency &latency)
{
    if (latency.count == 0)
        return "–";
    return fixed(latency.p50, 2) + " / "
           + (latency.count < FewSamples ? std::string("– (n < 100)") : fixed(latency.p99, 2))
           + " / " + fixed(latency.max, 2);
}

std::string p50p99(const Latency &latency)
{
    if (latency.count == 0)
        return "–";
    return fixed(latency.p50, 2) + " / " + fixed(latency.p99, 2);
}

double clientTotal(const Phase &phase)
{
    double total = 0;
    for (const double value : phase.perSecond)
        total += value;
    return total;
}

std::string takeoverText(const Run &run)
{
    if (run.takeovers.empty())
        return "no victim";
    std::string text;
    for (const Takeover &takeover : run.takeovers) {
        if (!text.empty())
            text += "; ";
        text += takeover.role + " "
                + (takeover.came ? fixed(takeover.afterKill, 2) + " s (expiry + "
                                           + fixed(takeover.afterExpiry, 3) + " s)"
                                 : std::string("never"));
    }
    return text;
}

void phaseRow(std::ostream &out, const Run &run, const Phase &phase)
{
    const double replicas = run.replicas;
    out << "| " << run.mode << " | " << phase.name << " | "
        << p50p99(latency(phase, StatementKind::Acquire)) << " | "
        << p50p99(latency(phase, StatementKind::Renew)) << " | "
        << fixed(phase.bouncerQueriesPerSecond, 1) << " | "
        << fixed(phase.bouncerQueriesPerSecond / replicas, 3) << " | "
        << fixed(perSecond(phase, StatementKind::Acquire) / replicas, 3) << " | "
        << fixed(perSecond(phase, StatementKind::Read) / replicas, 3) << " | "
        << fixed((perSecond(phase, StatementKind::Renew) + perSecond(phase, StatementKind::Release))
                         / replicas,
                 3)
        << " | " << fixed(perSecond(phase, StatementKind::Registry) / replicas, 3) << " | "
        << percent(phase.serverCpu) << " | " << percent(phase.bouncerCpu) << " | "
        << percent(phase.hostsCpu) << " | " << phase.ticksLed << " |\n";
}

void writeLatency(JsonWriter &json, const Latency &latency)
{
    json.beginObject()
            .field("count", static_cast<std::uint64_t>(latency.count))
            .field("failed", static_cast<std::uint64_t>(latency.failed))
            .field("p50_ms", latency.p50)
            .field("p99_ms", latency.p99)
            .field("max_ms", latency.max)
            .endObject();
}

void writePhase(JsonWriter &json, const Phase &phase, int replicas)
{
    json.beginObject()
            .field("name", phase.name)
            .field("seconds", phase.seconds)
            .field("bouncer_queries_per_second", phase.bouncerQueriesPerSecond)
            .field("bouncer_queries_per_replica_second", phase.bouncerQueriesPerSecond / replicas)
            .field("server_xacts_per_second", phase.serverXactsPerSecond)
            .field("client_statements_per_second", clientTotal(phase))
            .field("server_cpu_cores", phase.serverCpu)
            .field("bouncer_cpu_cores", phase.bouncerCpu)
            .field("hosts_cpu_cores", phase.hostsCpu)
            .field("ticks_led", phase.ticksLed)
            .field("bouncer_most_waiting", phase.bouncerMostWaiting)
            .field("bouncer_longest_wait_ms", phase.bouncerLongestWaitMs);
    json.field("server_wait_samples", phase.serverWaitSamples);
    json.field("queue_spells", phase.queueSpells);
    json.key("server_waits").beginObject();
    for (const auto &[wait, seen] : phase.serverWaits)
        json.field(wait, seen);
    json.endObject();
    json.key("server_statements").beginArray();
    for (const ServerStatement &statement : phase.serverStatements)
        json.beginObject()
                .field("text", statement.text)
                .field("calls_per_second", statement.callsPerSecond)
                .field("mean_plan_ms", statement.meanPlanMs)
                .field("mean_exec_ms", statement.meanExecMs)
                .field("max_exec_ms", statement.maxExecMs)
                .field("share", statement.share)
                .endObject();
    json.endArray();
    json.key("statements").beginObject();
    for (int index = 0; index < StatementKinds; ++index) {
        json.key(std::string(kindName(static_cast<StatementKind>(index)))).beginObject();
        json.field("per_second", phase.perSecond[index])
                .field("per_replica_second", phase.perSecond[index] / replicas);
        json.key("latency");
        writeLatency(json, phase.latency[index]);
        json.endObject();
    }
    json.endObject().endObject();
}

} // namespace

void printReport(std::ostream &out, const Results &results, const std::string &command)
{
    out << "\n## scale-bench: " << results.system << ", " << results.processors
        << " processors; PostgreSQL " << results.serverVersion << ", PgBouncer "
        << results.bouncerVersion << " (transaction mode, pool 20)\n";
    // The figures that judge a run, first: the ticks phase's tail with its sample count, the idle
    // cost, and correctness. A p99 of fewer than 100 samples is not shown: read the max.
    out << "\n### Summary (ticks phase)\n\n"
        << "| replicas | poll | ticks checked | ACQUIRE n | ACQUIRE p50 / p99 / max ms | "
           "RENEW p99 ms | idle stmt/s per replica | server CPU (ticks) | PgBouncer most "
           "waiting / longest wait ms | double-led |\n"
        << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Run &run : results.runs) {
        const Latency &acquire = latency(run.ticks, StatementKind::Acquire);
        out << "| " << run.replicas << " | " << run.mode << " | " << run.leadIntervals << " | "
            << acquire.count << " | " << tail(acquire) << " | "
            << fixed(latency(run.ticks, StatementKind::Renew).p99, 2) << " | "
            << fixed(run.idle.bouncerQueriesPerSecond / run.replicas, 3) << " | "
            << percent(run.ticks.serverCpu) << " | " << run.ticks.bouncerMostWaiting << " / "
            << fixed(run.ticks.bouncerLongestWaitMs, 1) << " | " << run.doubleLed << " |\n";
    }
    std::string last;
    for (const Run &run : results.runs) {
        if (std::to_string(run.replicas) != last) {
            last = std::to_string(run.replicas);
            out << "\n### " << run.replicas << " replicas × 5 roles (" << run.processes
                << " host processes)\n\n"
                << "| poll | phase | ACQUIRE p50 / p99 ms | RENEW p50 / p99 ms | stmt/s | "
                   "stmt/s per replica | ACQUIRE | read | RENEW+RELEASE | registry | "
                   "server CPU | PgBouncer CPU | hosts CPU | ticks |\n"
                << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        }
        phaseRow(out, run, run.idle);
        phaseRow(out, run, run.ticks);
    }
    for (const Run &run : results.runs) {
        if (run.ticks.serverStatements.empty())
            continue;
        out << "\n### Server time by statement: " << run.replicas << " replicas, " << run.mode
            << ", ticks phase (pg_stat_statements)\n\n"
            << "| statement | calls/s | plan ms (mean) | exec ms (mean / max) | share |\n"
            << "|---|---|---|---|---|\n";
        for (const ServerStatement &statement : run.ticks.serverStatements)
            out << "| `" << statement.text << "` | " << fixed(statement.callsPerSecond, 1) << " | "
                << fixed(statement.meanPlanMs, 3) << " | " << fixed(statement.meanExecMs, 3)
                << " / " << fixed(statement.maxExecMs, 2) << " | " << percent(statement.share)
                << " |\n";
    }
    for (const Run &run : results.runs) {
        if (run.ticks.serverWaitSamples == 0 || run.ticks.serverWaits.empty())
            continue;
        out << "\n### The pool's server sessions: " << run.replicas << " replicas, " << run.mode
            << ", ticks phase (pg_stat_activity, " << run.ticks.serverWaitSamples
            << " samples)\n\n| state: wait | sessions on average |\n|---|---|\n";
        for (const auto &[wait, seen] : run.ticks.serverWaits)
            out << "| " << wait << " | "
                << fixed(static_cast<double>(seen) / run.ticks.serverWaitSamples, 2) << " |\n";
    }
    for (const Run &run : results.runs) {
        if (run.ticks.queueSpells.empty())
            continue;
        out << "\n### PgBouncer's queue at 20 clients or more: " << run.replicas << " replicas, "
            << run.mode << ", ticks phase\n\n";
        constexpr std::size_t Shown = 20;
        for (std::size_t index = 0; index < run.ticks.queueSpells.size() && index < Shown; ++index)
            out << "- " << run.ticks.queueSpells[index] << "\n";
        if (run.ticks.queueSpells.size() > Shown)
            out << "- … " << run.ticks.queueSpells.size() - Shown << " more samples (JSON)\n";
    }
    for (const Run &run : results.runs) {
        if (!run.poolStall)
            continue;
        const PoolStall &stall = *run.poolStall;
        out << "\n### PgBouncer stopped for " << fixed(stall.seconds, 0)
            << " s under the idle fleet: " << run.replicas << " replicas, " << run.mode << "\n\n"
            << "| most clients waiting after | drained after (under 20 waiting for 2 s) |\n"
               "|---|---|\n"
            << "| " << stall.mostWaiting << " | "
            << (stall.drainedAfter ? fixed(*stall.drainedAfter, 1) + " s" : "not within 30 s")
            << " |\n";
    }
    out << "\n### Correctness and takeover\n\n"
        << "| replicas | poll | ticks checked | double-led | database cross-check | killed host "
           "| takeover after SIGKILL (database clock) |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const Run &run : results.runs)
        out << "| " << run.replicas << " | " << run.mode << " | " << run.leadIntervals << " | "
            << run.doubleLed << " | "
            << (run.databaseMismatches.empty()
                        ? std::string("agrees")
                        : std::to_string(run.databaseMismatches.size()) + " mismatches")
            << " | " << run.victimReplicas << " replicas | " << takeoverText(run) << " |\n";
    out << "\n### Growth (ticks phase unless said)\n\n"
        << "| replicas | poll | idle stmt/s per replica | idle server CPU | ticks stmt/s | "
           "ticks server CPU | ACQUIRE p99 ms | RENEW p99 ms |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    for (const Run &run : results.runs)
        out << "| " << run.replicas << " | " << run.mode << " | "
            << fixed(run.idle.bouncerQueriesPerSecond / run.replicas, 3) << " | "
            << percent(run.idle.serverCpu) << " | " << fixed(run.ticks.bouncerQueriesPerSecond, 1)
            << " | " << percent(run.ticks.serverCpu) << " | "
            << fixed(latency(run.ticks, StatementKind::Acquire).p99, 2) << " | "
            << fixed(latency(run.ticks, StatementKind::Renew).p99, 2) << " |\n";
    for (const Run &run : results.runs) {
        for (const std::string &overlap : run.overlaps)
            out << "double-led (" << run.replicas << ", " << run.mode << "): " << overlap << "\n";
        for (const std::string &mismatch : run.databaseMismatches)
            out << "database (" << run.replicas << ", " << run.mode << "): " << mismatch << "\n";
        for (const std::string &failure : run.failures)
            out << "FAILED (" << run.replicas << ", " << run.mode << "): " << failure << "\n";
    }
    out << "\nreproduce: " << command << "\n";
}

void writeJson(JsonWriter &json, const Results &results, const std::string &command)
{
    json.beginObject()
            .field("benchmark", "scale")
            .field("started_at", results.startedAt)
            .field("finished_at", results.finishedAt)
            .field("system", results.system)
            .field("processors", results.processors)
            .field("server_version", results.serverVersion)
            .field("bouncer_version", results.bouncerVersion)
            .field("command", command);
    json.key("runs").beginArray();
    for (const Run &run : results.runs) {
        json.beginObject()
                .field("replicas", run.replicas)
                .field("poll", run.mode)
                .field("processes", run.processes);
        json.key("idle");
        writePhase(json, run.idle, run.replicas);
        json.key("ticks");
        writePhase(json, run.ticks, run.replicas);
        if (run.poolStall) {
            json.key("pool_stall")
                    .beginObject()
                    .field("seconds", run.poolStall->seconds)
                    .field("most_waiting", run.poolStall->mostWaiting)
                    .field("drained_after_s", run.poolStall->drainedAfter)
                    .endObject();
        }
        json.field("victim_pid", run.victimPid).field("victim_replicas", run.victimReplicas);
        json.key("takeovers").beginArray();
        for (const Takeover &takeover : run.takeovers)
            json.beginObject()
                    .field("role", takeover.role)
                    .field("victim_token", takeover.victimToken)
                    .field("came", takeover.came)
                    .field("new_holder", takeover.newHolder)
                    .field("after_kill_s", takeover.afterKill)
                    .field("after_expiry_s", takeover.afterExpiry)
                    .endObject();
        json.endArray();
        json.field("ticks_checked", run.leadIntervals).field("double_led", run.doubleLed);
        json.field("overlaps", run.overlaps);
        json.field("database_mismatches", run.databaseMismatches);
        json.field("failures", run.failures).endObject();
    }
    json.endArray().endObject();
}

} // namespace bench::scale
