#include "drillreport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace leader::console {

namespace {

// ADR-114: a pause makes the holder's next RENEW return no row, at most one heartbeat (3 s) later.
constexpr double PauseBoundSeconds = 3.0;

double secondsBetween(const QDateTime &from, const QDateTime &to)
{
    if (!from.isValid() || !to.isValid())
        return 0;
    return double(from.msecsTo(to)) / 1000.0;
}

// Locale-proof: QString::number always writes a point.
QString seconds(double value)
{
    return QString::number(value, 'f', 2) + QStringLiteral(" s");
}

QString bound(double value)
{
    return QString::number(value, 'g', 3) + QStringLiteral(" s");
}

QString claims(qint64 count)
{
    return count == 1 ? QStringLiteral("1 claim") : QStringLiteral("%1 claims").arg(count);
}

QJsonValue timeValue(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(isoUtc(time)) : QJsonValue();
}

QJsonValue secondsValue(double value)
{
    return std::round(value * 1000.0) / 1000.0;
}

QString verdict(const DrillResult &result)
{
    if (!result.auditError.isEmpty() || result.invariants.isEmpty())
        return QStringLiteral("not run");
    return result.auditPassed() ? QStringLiteral("pass") : QStringLiteral("fail");
}

bool pauseMeasured(const DrillPause &pause)
{
    return pause.requestedAt.isValid() && pause.stoppedAt.isValid();
}

QString cell(const QString &text)
{
    QString escaped = text;
    return escaped.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

} // namespace

double DrillFault::gapFromFaultSeconds() const
{
    return secondsBetween(takeover.faultAt, takeover.acquiredAt);
}

double DrillPause::stopSeconds() const
{
    return secondsBetween(requestedAt, stoppedAt);
}

double DrillPause::ledAgainSeconds() const
{
    return secondsBetween(unpauseRequestedAt, ledAgainAt);
}

qint64 DrillResult::refusals() const
{
    qint64 total = 0;
    for (const qint64 count : refusalsByRole)
        total += count;
    return total;
}

bool DrillResult::auditPassed() const
{
    return auditError.isEmpty() && !invariants.isEmpty()
           && std::all_of(invariants.cbegin(), invariants.cend(),
                          [](const DrillInvariant &invariant) { return invariant.holds; });
}

bool DrillResult::boundsMet() const
{
    return std::all_of(faults.cbegin(), faults.cend(),
                       [](const DrillFault &fault) { return fault.met(); });
}

qint64 DrillResult::staleClaimsAccepted() const
{
    for (const DrillInvariant &invariant : invariants) {
        if (invariant.fencing)
            return invariant.offending;
    }
    return -1;
}

QString DrillResult::summary() const
{
    const qsizetype faultCount = faults.size() + (pause.requestedAt.isValid() ? 1 : 0);
    QString line = QStringLiteral("%1 faults on %2: ").arg(faultCount).arg(role);
    const qsizetype met = std::count_if(faults.cbegin(), faults.cend(),
                                        [](const DrillFault &fault) { return fault.met(); });
    double worst = 0;
    for (const DrillFault &fault : faults)
        worst = std::max(worst, fault.takeover.gapSeconds);
    if (met == faults.size())
        line += QStringLiteral("%1 takeovers within ADR-114's %2 bound (worst %3 after the last "
                               "heartbeat)")
                        .arg(faults.size())
                        .arg(bound(RunningElsewhereBoundSeconds), seconds(worst));
    else
        line += QStringLiteral("%1 of %2 takeovers within ADR-114's %3 bound, %4 MISSED (worst "
                               "%5 after the last heartbeat)")
                        .arg(met)
                        .arg(faults.size())
                        .arg(bound(RunningElsewhereBoundSeconds))
                        .arg(faults.size() - met)
                        .arg(seconds(worst));
    if (pauseMeasured(pause))
        line += QStringLiteral(", pause stopped the holder in %1")
                        .arg(seconds(pause.stopSeconds()));
    const qint64 stale = staleClaimsAccepted();
    line += QStringLiteral("; %1 accepted from a replaced leader (%2 refused by the fence)")
                    .arg(stale < 0 ? QStringLiteral("unknown claims") : claims(stale))
                    .arg(refusals());
    line += QStringLiteral("; auditor: %1").arg(verdict(*this));
    return line;
}

QString isoUtc(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QString drillMarkdown(const DrillResult &result, const QString &chartFile)
{
    QString text = result.summary() + QStringLiteral("\n\n");
    text += QStringLiteral("## Failover drill on %1, %2\n\n")
                    .arg(result.role, isoUtc(result.startedAt));
    text += QStringLiteral(
            "| # | Fault | Victim → successor | Fault at | Last heartbeat | Acquired | Gap from "
            "heartbeat | Gap from fault | Bound | Met |\n"
            "|---|---|---|---|---|---|---:|---:|---:|---|\n");
    int row = 0;
    for (const DrillFault &fault : result.faults) {
        const Failover &takeover = fault.takeover;
        text += QStringLiteral("| %1 | %2 | %3 → %4 | %5 | %6 | %7 | %8 | %9 | %10 | %11 |\n")
                        .arg(++row)
                        .arg(cell(takeover.fault), cell(takeover.victim), cell(takeover.successor),
                             isoUtc(takeover.faultAt), isoUtc(takeover.lastHeartbeatAt),
                             isoUtc(takeover.acquiredAt), seconds(takeover.gapSeconds),
                             seconds(fault.gapFromFaultSeconds()),
                             bound(RunningElsewhereBoundSeconds))
                        .arg(fault.met() ? QStringLiteral("yes") : QStringLiteral("**MISSED**"));
    }
    const DrillPause &pause = result.pause;
    if (pause.requestedAt.isValid()) {
        const bool stopped = pauseMeasured(pause);
        text += QStringLiteral("| %1 | pause %2 | %3 stopped | %4 | — | — | — | %5 | %6 | %7 |\n")
                        .arg(++row)
                        .arg(result.role, cell(pause.holder), isoUtc(pause.requestedAt),
                             stopped ? seconds(pause.stopSeconds()) : QStringLiteral("—"),
                             bound(PauseBoundSeconds))
                        .arg(!stopped ? QStringLiteral("**NO**")
                             : pause.stopSeconds() <= PauseBoundSeconds
                                     ? QStringLiteral("yes")
                                     : QStringLiteral("**MISSED**"));
    }

    if (!chartFile.isEmpty()) {
        // The alt text says what the image shows for a reader who cannot see it.
        const QString clock = QStringLiteral("HH:mm:ss");
        text += QStringLiteral("\n![Each role's last tick age and who held %3, from %1 to %2 "
                               "UTC; the faults, takeovers and the pause numbered as in the table "
                               "above](%4)\n")
                        .arg(result.startedAt.toUTC().toString(clock),
                             result.endedAt.toUTC().toString(clock), result.role, chartFile);
    }
    text += QStringLiteral("\n### Details\n\n");
    row = 0;
    for (const DrillFault &fault : result.faults) {
        const Failover &takeover = fault.takeover;
        text += QStringLiteral("- **%1. %2**: `%3` (token %4) led %5; `%6` (token %7) acquired it "
                               "%8 after the last heartbeat, %9 after the fault.\n")
                        .arg(++row)
                        .arg(takeover.fault, takeover.victimHolder)
                        .arg(takeover.victimToken)
                        .arg(result.role, takeover.successorHolder)
                        .arg(takeover.successorToken)
                        .arg(seconds(takeover.gapSeconds), seconds(fault.gapFromFaultSeconds()));
    }
    if (pause.requestedAt.isValid()) {
        text += QStringLiteral("- **%1. pause %2**: requested at %3, committed at %4 (database "
                               "clock); ")
                        .arg(++row)
                        .arg(result.role, isoUtc(pause.requestedAt), isoUtc(pause.pausedAt));
        if (pauseMeasured(pause))
            text += QStringLiteral("the holder %1 (`%2`) stopped its tick (%3) at %4, %5 after the "
                                   "request.")
                            .arg(pause.holder, pause.holderId, pause.stopEvent,
                                 isoUtc(pause.stoppedAt), seconds(pause.stopSeconds()));
        else
            text += QStringLiteral("the holder %1 was not seen to stop.").arg(pause.holder);
        if (pause.ledAgainAt.isValid())
            text += QStringLiteral(" Unpaused at %1; %2 led %3 again %4 later.")
                            .arg(isoUtc(pause.unpauseRequestedAt), pause.ledAgainBy, result.role,
                                 seconds(pause.ledAgainSeconds()));
        text += QLatin1Char('\n');
    }
    QStringList perRole;
    for (auto it = result.refusalsByRole.cbegin(); it != result.refusalsByRole.cend(); ++it)
        perRole.append(QStringLiteral("%1 %2").arg(it.key()).arg(it.value()));
    text += QStringLiteral("- **Fence**: %1 refused by the fence during the drill%2")
                    .arg(claims(result.refusals()))
                    .arg(perRole.isEmpty() ? QString()
                                           : QStringLiteral(" (%1)").arg(perRole.join(u", ")));
    if (const qint64 stale = result.staleClaimsAccepted(); stale >= 0)
        text += QStringLiteral("; the auditor found %1 accepted under a stale token")
                        .arg(claims(stale));
    text += QStringLiteral(".\n");
    if (!result.auditError.isEmpty()) {
        text += QStringLiteral("- **Auditor**: not run: %1\n").arg(result.auditError);
    } else {
        const qsizetype holding
                = std::count_if(result.invariants.cbegin(), result.invariants.cend(),
                                [](const DrillInvariant &invariant) { return invariant.holds; });
        text += QStringLiteral("- **Auditor**: %1, %2 of %3 invariants hold.\n")
                        .arg(verdict(result))
                        .arg(holding)
                        .arg(result.invariants.size());
        for (const DrillInvariant &invariant : result.invariants) {
            if (invariant.holds)
                continue;
            text += QStringLiteral("  - FAILS: %1: %2 (%3 offending)\n")
                            .arg(invariant.role, invariant.name)
                            .arg(invariant.offending);
            for (const QString &sample : invariant.samples)
                text += QStringLiteral("    - %1\n").arg(sample);
        }
    }

    text += QStringLiteral(
                    "\n### How it was measured\n\n"
                    "The console's drill broke the replica holding %1 on its embedded demo (three "
                    "replicas, one PostgreSQL; lease TTL 10 s, heartbeat 3 s), one fault at a "
                    "time, each as soon as the previous takeover was seen: a kill (no release), a "
                    "freeze and a severed link each a little longer than the TTL, then a pause and "
                    "an unpause. Takeover times are the database's clock: the last heartbeat is "
                    "the victim's last `expires_at` minus the TTL, the takeover the successor's "
                    "`acquired_at`, the fault the database's `now()` when it was injected. "
                    "ADR-114 bounds a takeover at 10 s after the last heartbeat to be acquirable "
                    "and %2 to be running elsewhere; the pause, at one heartbeat (%3). The pause "
                    "is timed on the workstation's clock, on which the replicas run. Fence "
                    "refusals are the rows of `fence_refusals` from the first fault on; the "
                    "auditor is the invariant check of `leaderctl audit`.\n")
                    .arg(result.role, bound(RunningElsewhereBoundSeconds),
                         bound(PauseBoundSeconds));

    const DrillEnvironment &environment = result.environment;
    text += QStringLiteral("\n### Environment\n\n"
                           "- Leader Console %1, PostgreSQL %2\n"
                           "- Host %3, %4\n"
                           "- Drill from %5 to %6\n")
                    .arg(environment.consoleVersion, environment.serverVersion,
                         environment.hostName, environment.os, isoUtc(result.startedAt),
                         isoUtc(result.endedAt));
    return text;
}

QByteArray drillJson(const DrillResult &result)
{
    QJsonArray faults;
    for (const DrillFault &fault : result.faults) {
        const Failover &takeover = fault.takeover;
        faults.append(QJsonObject{
                {QStringLiteral("fault"), takeover.fault},
                {QStringLiteral("kind"), fault.kind},
                {QStringLiteral("victim"), takeover.victim},
                {QStringLiteral("victim_holder"), takeover.victimHolder},
                {QStringLiteral("victim_token"), takeover.victimToken},
                {QStringLiteral("successor"), takeover.successor},
                {QStringLiteral("successor_holder"), takeover.successorHolder},
                {QStringLiteral("successor_token"), takeover.successorToken},
                {QStringLiteral("fault_at"), timeValue(takeover.faultAt)},
                {QStringLiteral("last_heartbeat_at"), timeValue(takeover.lastHeartbeatAt)},
                {QStringLiteral("acquired_at"), timeValue(takeover.acquiredAt)},
                {QStringLiteral("gap_from_last_heartbeat_s"), secondsValue(takeover.gapSeconds)},
                {QStringLiteral("gap_from_fault_s"), secondsValue(fault.gapFromFaultSeconds())},
                {QStringLiteral("bound_s"), RunningElsewhereBoundSeconds},
                {QStringLiteral("met"), fault.met()},
        });
    }
    const DrillPause &pause = result.pause;
    QJsonObject pauseObject{
            {QStringLiteral("holder"), pause.holder},
            {QStringLiteral("holder_id"), pause.holderId},
            {QStringLiteral("requested_at"), timeValue(pause.requestedAt)},
            {QStringLiteral("paused_at"), timeValue(pause.pausedAt)},
            {QStringLiteral("stopped_at"), timeValue(pause.stoppedAt)},
            {QStringLiteral("stop_event"), pause.stopEvent},
            {QStringLiteral("stop_s"),
             pauseMeasured(pause) ? secondsValue(pause.stopSeconds()) : QJsonValue()},
            {QStringLiteral("bound_s"), PauseBoundSeconds},
            {QStringLiteral("met"),
             pauseMeasured(pause) && pause.stopSeconds() <= PauseBoundSeconds},
            {QStringLiteral("unpause_requested_at"), timeValue(pause.unpauseRequestedAt)},
            {QStringLiteral("led_again_at"), timeValue(pause.ledAgainAt)},
            {QStringLiteral("led_again_by"), pause.ledAgainBy},
            {QStringLiteral("led_again_s"),
             pause.ledAgainAt.isValid() ? secondsValue(pause.ledAgainSeconds()) : QJsonValue()},
    };
    QJsonObject byRole;
    for (auto it = result.refusalsByRole.cbegin(); it != result.refusalsByRole.cend(); ++it)
        byRole.insert(it.key(), it.value());
    QJsonArray invariants;
    QJsonArray findings;
    for (const DrillInvariant &invariant : result.invariants) {
        const QJsonObject object{
                {QStringLiteral("role"), invariant.role},
                {QStringLiteral("name"), invariant.name},
                {QStringLiteral("holds"), invariant.holds},
                {QStringLiteral("offending"), invariant.offending},
                {QStringLiteral("samples"), QJsonArray::fromStringList(invariant.samples)},
        };
        invariants.append(object);
        if (!invariant.holds)
            findings.append(object);
    }
    const qint64 stale = result.staleClaimsAccepted();
    const QJsonObject root{
            {QStringLiteral("role"), result.role},
            {QStringLiteral("summary"), result.summary()},
            {QStringLiteral("started_at"), timeValue(result.startedAt)},
            {QStringLiteral("ended_at"), timeValue(result.endedAt)},
            {QStringLiteral("acquirable_bound_s"), AcquirableBoundSeconds},
            {QStringLiteral("bound_s"), RunningElsewhereBoundSeconds},
            {QStringLiteral("faults"), faults},
            {QStringLiteral("pause"), pauseObject},
            {QStringLiteral("fence_refusals"),
             QJsonObject{{QStringLiteral("total"), result.refusals()},
                         {QStringLiteral("by_role"), byRole}}},
            {QStringLiteral("stale_claims_accepted"), stale < 0 ? QJsonValue() : QJsonValue(stale)},
            {QStringLiteral("auditor"), QJsonObject{{QStringLiteral("verdict"), verdict(result)},
                                                    {QStringLiteral("error"), result.auditError},
                                                    {QStringLiteral("findings"), findings},
                                                    {QStringLiteral("invariants"), invariants}}},
            {QStringLiteral("environment"),
             QJsonObject{{QStringLiteral("console_version"), result.environment.consoleVersion},
                         {QStringLiteral("server_version"), result.environment.serverVersion},
                         {QStringLiteral("host_name"), result.environment.hostName},
                         {QStringLiteral("os"), result.environment.os}}},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace leader::console
