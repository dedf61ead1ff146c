#include "report.h"

#include "events.h"
#include "jsonwriter.h"
#include "stats.h"
#include "text.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace bench::failover {

namespace {

std::string heading(const RunResults &results, const ReportContext &context)
{
    const Options &options = context.options;
    const std::string label
            = options.label.empty() ? "replicas on " + context.target : options.label;
    const std::string wake = results.design == Design::Advisory
                                     ? "advisory lock gate: try-lock every 1 s"
                             : results.fastWake == "on"  ? "fast wake on"
                             : results.fastWake == "off" ? "fast wake off: polling"
                                                         : "fast wake " + results.fastWake;
    return "failover-bench [" + std::string(designName(results.design))
           + "]: " + std::to_string(options.replicas) + " replicas, "
           + std::to_string(options.trials) + " trials per fault, " + label + " (" + wake + ")";
}

std::string clockName(MetricClock clock)
{
    switch (clock) {
    case MetricClock::Database:
        return "database";
    case MetricClock::ReplicaWallVsDatabase:
        return "replica wall clock vs database";
    case MetricClock::Monotonic:
        return "benchmark monotonic";
    }
    return "?";
}

std::string triple(const std::optional<Summary> &summary)
{
    if (!summary)
        return "\u2014";
    char text[96];
    std::snprintf(text, sizeof text, "%.3f / %.3f / %.3f s (n %zu)", summary->p50, summary->p95,
                  summary->max, summary->n);
    return text;
}

const FaultResults *findFault(const RunResults &results, Fault fault)
{
    for (const FaultResults &candidate : results.faults) {
        if (candidate.fault == fault)
            return &candidate;
    }
    return nullptr;
}

std::optional<Summary> summaryOf(const FaultResults *fault, std::string_view metric)
{
    return fault ? summarize(fault->samples(metric)) : std::nullopt;
}

} // namespace

void printComparison(std::ostream &out, const RunResults &lease, const RunResults &advisory)
{
    out << "| fault | metric | lease p50 / p95 / max | advisory p50 / p95 / max | ratio "
           "advisory \u00f7 lease (p50, max) |\n"
        << "| --- | --- | --- | --- | --- |\n";
    std::vector<Fault> faults;
    for (const RunResults *run : {&lease, &advisory})
        for (const FaultResults &fault : run->faults)
            if (std::find(faults.begin(), faults.end(), fault.fault) == faults.end())
                faults.push_back(fault.fault);
    for (const Fault fault : faults) {
        const FaultResults *ofLease = findFault(lease, fault);
        const FaultResults *ofAdvisory = findFault(advisory, fault);
        const std::string name(nameOf(fault));
        std::vector<MetricInfo> metrics = metricsFor(fault, Design::Lease);
        for (const MetricInfo &metric : metricsFor(fault, Design::Advisory))
            if (std::none_of(metrics.begin(), metrics.end(),
                             [&](const MetricInfo &m) { return m.key == metric.key; }))
                metrics.push_back(metric);
        for (const MetricInfo &metric : metrics) {
            const std::optional<Summary> l = summaryOf(ofLease, metric.key);
            const std::optional<Summary> a = summaryOf(ofAdvisory, metric.key);
            std::string advisoryCell = triple(a);
            if (ofAdvisory && !ofAdvisory->notExpressible.empty())
                advisoryCell = "not expressible";
            std::string ratio = "\u2014";
            if (l && a && l->p50 > 0 && l->max > 0) {
                char text[64];
                std::snprintf(text, sizeof text, "\u00d7%.2f, \u00d7%.2f", a->p50 / l->p50,
                              a->max / l->max);
                ratio = text;
            }
            out << "| " << name << " | " << metric.label << " | " << triple(l) << " | "
                << advisoryCell << " | " << ratio << " |\n";
        }
        if (ofAdvisory && !ofAdvisory->notExpressible.empty())
            continue;
        const auto count = [](const FaultResults *results, auto value) {
            return results ? std::to_string(value(*results)) + "/"
                                     + std::to_string(results->trials.size())
                           : std::string("\u2014");
        };
        out << "| " << name << " | no takeover within 60 s | "
            << count(ofLease, [](const FaultResults &f) { return f.withoutTakeover(); }) << " | "
            << count(ofAdvisory, [](const FaultResults &f) { return f.withoutTakeover(); })
            << " | |\n";
        if (fault == Fault::SigStop || fault == Fault::Freeze || fault == Fault::Sever) {
            out << "| " << name << " | the victim once it ran again | "
                << (ofLease ? "gave its tick up "
                                      + count(ofLease,
                                              [](const FaultResults &f) {
                                                  return f.abandonedByClient();
                                              })
                            : std::string("\u2014"))
                << " | "
                << (ofAdvisory ? "went on claiming: "
                                         + std::to_string(ofAdvisory->victimClaimsAfterResume())
                                         + " claims"
                               : std::string("\u2014"))
                << " | |\n";
        }
        if (fault == Fault::Sever && ofAdvisory) {
            std::int64_t held = 0;
            for (const TrialResult &trial : ofAdvisory->trials)
                held += trial.lockHeldAtHeal.value_or(false) ? 1 : 0;
            out << "| sever | lock still held at the heal (pg_locks) | \u2014 | " << held << "/"
                << ofAdvisory->trials.size() << " | |\n";
        }
        out << "| " << name << " | stale claims accepted (lease: refused by the fence) | "
            << (ofLease ? std::to_string(ofLease->staleAccepted()) + " (refused "
                                  + std::to_string(ofLease->staleRefused()) + ")"
                        : std::string("\u2014"))
            << " | "
            << (ofAdvisory ? std::to_string(ofAdvisory->staleAccepted()) + " (no fence)"
                           : std::string("\u2014"))
            << " | |\n";
    }
    const auto overlapping = [](const RunResults &run) {
        return run.overlappingTicks ? std::to_string(*run.overlappingTicks) : std::string("?");
    };
    out << "| whole run | ticks begun before an earlier tick's last claim | " << overlapping(lease)
        << " | " << overlapping(advisory) << " | |\n";
}

void printReport(std::ostream &out, const RunResults &results, const ReportContext &context)
{
    out << heading(results, context) << "\n";
    out << padRight("fault", 10) << padRight("metric", 30) << padLeft("n", 3) << "  "
        << padLeft("p50", 9) << "  " << padLeft("p95", 9) << "  " << padLeft("max", 9) << "\n";
    for (const FaultResults &fault : results.faults) {
        if (!fault.notExpressible.empty())
            out << padRight(std::string(nameOf(fault.fault)), 10)
                << "not expressible: " << fault.notExpressible << "\n";
        for (const MetricInfo &metric : metricsFor(fault.fault, results.design)) {
            out << padRight(std::string(nameOf(fault.fault)), 10)
                << padRight(std::string(metric.label), 30)
                << summaryColumns(summarize(fault.samples(metric.key)), 9, 3) << "\n";
        }
    }
    // The instants are drawn over the whole tick (targetTickAge): each one beside its figure.
    for (const FaultResults &fault : results.faults) {
        if (fault.fault != Fault::SigKill && fault.fault != Fault::SigTerm)
            continue;
        std::vector<std::pair<double, double>> landed;
        for (const TrialResult &trial : fault.trials) {
            if (const auto it = trial.metrics.find("fault_to_running"); it != trial.metrics.end())
                landed.emplace_back(trial.tickAgeAtFault, it->second);
        }
        if (landed.empty())
            continue;
        std::sort(landed.begin(), landed.end());
        out << nameOf(fault.fault)
            << ": fault \u2192 running elsewhere, by the fault's instant in the victim's tick";
        for (std::size_t i = 0; i < landed.size(); ++i) {
            char text[48];
            std::snprintf(text, sizeof text, "at %.1f s: %.3f s", landed[i].first,
                          landed[i].second);
            out << (i % 5 == 0 ? "\n  " : "; ") << text;
        }
        out << "\n";
    }
    out << "clocks: the database's, except SIGTERM \u2192 exit (this host's monotonic clock) and\n"
           "        pause \u2192 tick cancelled (the replica's wall clock against paused_at; the\n"
           "        replicas run on this host, so it is the database's clock if the database "
           "does)\n";

    std::string stale;
    for (const FaultResults &fault : results.faults) {
        if (!fault.notExpressible.empty())
            continue;
        if (results.design == Design::Advisory) {
            std::int64_t heldAtHeal = 0;
            for (const TrialResult &trial : fault.trials)
                heldAtHeal += trial.lockHeldAtHeal.value_or(false) ? 1 : 0;
            stale += (stale.empty() ? "" : "; ") + std::string(nameOf(fault.fault))
                     + " accepted (no fence) " + std::to_string(fault.staleAccepted());
            // Only a stopped, frozen or cut-off victim runs again; a dead one does not.
            if (fault.fault != Fault::SigKill && fault.fault != Fault::SigTerm)
                stale += ", victim's claims after it ran again "
                         + std::to_string(fault.victimClaimsAfterResume());
            stale += ", no takeover " + std::to_string(fault.withoutTakeover()) + "/"
                     + std::to_string(fault.trials.size());
            if (fault.fault == Fault::Sever)
                stale += ", lock still held at the heal " + std::to_string(heldAtHeal) + "/"
                         + std::to_string(fault.trials.size());
            continue;
        }
        stale += (stale.empty() ? "" : "; ") + std::string(nameOf(fault.fault)) + " accepted "
                 + std::to_string(fault.staleAccepted()) + ", refused by fence "
                 + std::to_string(fault.staleRefused()) + ", tick given up by the client "
                 + std::to_string(fault.abandonedByClient()) + "/"
                 + std::to_string(fault.trials.size());
    }
    out << "stale claims after resume: " << (stale.empty() ? "no trials" : stale) << "\n";
    out << "server keepalives: " << results.serverKeepalives << "\n";
    out << "billing ticks that began before an earlier tick's last claim (two leaders at once): "
        << (results.overlappingTicks ? std::to_string(*results.overlappingTicks) : "?") << "\n";

    std::string audit;
    if (results.design == Design::Advisory) {
        audit = "auditor: not run (the advisory claims do no domain work)";
    } else if (results.audit) {
        std::size_t failing = 0;
        for (const auto &invariant : results.audit->invariants)
            failing += invariant.holds ? 0 : 1;
        audit = "auditor: " + std::to_string(results.audit->invariants.size()) + " invariants, "
                + (failing == 0 ? std::string("all hold") : std::to_string(failing) + " fail");
    } else {
        audit = "auditor: not run";
    }
    if (results.design == Design::Lease)
        audit += "; duplicate invoices "
                 + (results.duplicateInvoices ? std::to_string(*results.duplicateInvoices) : "?")
                 + "; double charges "
                 + (results.doubleCharges ? std::to_string(*results.doubleCharges) : "?");
    out << audit << "\n";
    if (results.audit) {
        for (const auto &invariant : results.audit->invariants) {
            if (invariant.holds)
                continue;
            out << "  \u2717 " << invariant.role << ": " << invariant.name << ": "
                << invariant.offending << " offending\n";
            for (const std::string &sample : invariant.samples)
                out << "      " << sample << "\n";
        }
    }
    if (!results.completed)
        out << "the run was cut short: see the failures\n";
    for (const std::string &failure : results.failures)
        out << "FAILED: " << failure << "\n";
    for (const std::string &note : results.notes)
        out << "note: " << note << "\n";
    for (const FaultResults &fault : results.faults) {
        for (const TrialResult &trial : fault.trials) {
            for (const std::string &note : trial.notes)
                out << "note: " << nameOf(fault.fault) << " " << trial.number << ": " << note
                    << "\n";
        }
    }
    if (!results.failures.empty())
        out << "replica logs: " << context.logDirectory.string() << "\n";
    out << "reproduce: " << context.command << "\n";
}

void writeJson(JsonWriter &json, const RunResults &results, const ReportContext &context)
{
    const Options &options = context.options;
    json.beginObject();
    json.field("benchmark", "failover");
    json.field("label", options.label);
    json.field("design", std::string(designName(results.design)));
    json.field("command", context.command);
    json.field("started_at", results.startedAt);
    json.field("finished_at", results.finishedAt);
    json.field("completed", results.completed);
    writeMachine(json, results);
    json.key("settings").beginObject();
    json.field("replicas", options.replicas);
    json.field("trials", options.trials);
    json.key("faults").beginArray();
    for (const Fault fault : options.faults)
        json.value(std::string(nameOf(fault)));
    json.endArray();
    json.field("stop_seconds", options.stopSeconds);
    json.field("sever_seconds", options.severSeconds);
    json.field("replica_target", context.target);
    json.field("listen_database", !options.listenDatabaseUrl.empty());
    json.field("fast_wake", results.fastWake);
    json.field("seed", options.seed);
    json.field("subscriptions", results.subscriptions);
    json.field("billing_config", "interval 1s, min_tick 30s, item_latency 100ms, batch 1");
    json.field("server_keepalives", results.serverKeepalives);
    json.endObject();

    json.key("faults").beginObject();
    for (const FaultResults &fault : results.faults) {
        json.key(std::string(nameOf(fault.fault))).beginObject();
        if (!fault.notExpressible.empty())
            json.field("not_expressible", fault.notExpressible);
        json.key("summary").beginObject();
        for (const MetricInfo &metric : metricsFor(fault.fault, results.design)) {
            const std::vector<double> samples = fault.samples(metric.key);
            json.key(std::string(metric.key)).beginObject();
            json.field("label", std::string(metric.label));
            json.field("clock", clockName(metric.clock));
            writeSamples(json, samples);
            json.endObject();
        }
        json.endObject();
        json.key("stale_claims").beginObject();
        json.field("accepted", fault.staleAccepted());
        json.field("refused_by_fence", fault.staleRefused());
        json.field("abandoned_by_client", fault.abandonedByClient());
        json.field("victim_claims_after_resume", fault.victimClaimsAfterResume());
        json.field("without_takeover", fault.withoutTakeover());
        json.endObject();
        json.objects("trials", fault.trials, [&](const TrialResult &trial) {
            json.field("trial", trial.number);
            json.field("victim", trial.victim);
            json.field("victim_token", trial.victimToken);
            json.field("target_tick_age", trial.targetTickAge);
            json.field("tick_age_at_fault", trial.tickAgeAtFault);
            json.field("fault_at", trial.faultAt > 0 ? formatTimestamp(trial.faultAt) : "");
            json.field("took_over", trial.tookOver);
            json.field("successor", trial.successor);
            json.field("successor_token", trial.successorToken);
            json.field("successor_acquired_at", formatTimestamp(trial.successorAcquiredAt));
            json.field("metrics", trial.metrics);
            json.field("stale_accepted", trial.staleAccepted);
            json.field("stale_refused", trial.staleRefused);
            json.field("victim_claims_after_resume", trial.victimClaimsAfterResume);
            json.field("lock_held_at_heal", trial.lockHeldAtHeal);
            json.field("notes", trial.notes);
            json.field("failures", trial.failures);
        });
        json.endObject();
    }
    json.endObject();

    json.key("audit");
    if (results.audit) {
        json.beginObject();
        json.field("holds", results.audit->allHold());
        json.objects("invariants", results.audit->invariants, [&](const auto &invariant) {
            writeInvariant(json, invariant);
            json.field("samples", invariant.samples);
            json.field("info", invariant.info);
        });
        json.endObject();
    } else {
        json.null();
    }
    json.field("duplicate_invoices", results.duplicateInvoices);
    json.field("double_charges", results.doubleCharges);
    json.field("overlapping_ticks", results.overlappingTicks);
    json.field("failures", results.failures);
    json.field("notes", results.notes);
    json.endObject();
}

} // namespace bench::failover
