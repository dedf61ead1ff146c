#pragma once

#include "core/demotypes.h"
#include "core/leasefacts.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace leader::console {

// One fault of the drill and the takeover it caused, measured by the demo on the database clock.
struct DrillFault
{
    QString kind; // "kill", "freeze", "sever"
    Failover takeover;

    double gapFromFaultSeconds() const;
    bool met() const { return takeover.withinBound(); }
};

// The drill's pause: requested (the workstation's clock), committed (the database's), the holder
// stopping its tick and, after the unpause, the role led again (the workstation's clock: both
// are events of replicas on this machine).
struct DrillPause
{
    QString holder;   // replica id
    QString holderId; // hostname:pid:8hex
    QDateTime requestedAt;
    QDateTime pausedAt; // database clock
    QDateTime stoppedAt;
    QString stopEvent; // the holder's event: paused_observed, lost, released
    QDateTime unpauseRequestedAt;
    QDateTime ledAgainAt;
    QString ledAgainBy; // replica id

    double stopSeconds() const;     // requested to stopped
    double ledAgainSeconds() const; // unpause requested to led again
};

// One invariant of the demo auditor (engine/sim/demo/auditor.h).
struct DrillInvariant
{
    QString role;
    QString name;
    bool holds = true;
    qint64 offending = 0;
    QStringList samples;
    bool fencing = false; // nothing claimed under a stale token: the stale claims accepted
};

struct DrillEnvironment
{
    QString consoleVersion;
    QString serverVersion;
    QString hostName;
    QString os;
};

// What a drill measured. Pure data: DrillRunner fills it, drillMarkdown and drillJson render it.
struct DrillResult
{
    QString role = leaseRoleName(LeaseRole::Billing);
    QDateTime startedAt; // UTC
    QDateTime endedAt;
    QList<DrillFault> faults;
    DrillPause pause;
    // Claims the fence refused during the drill (fence_refusals from the first fault on).
    QMap<QString, qint64> refusalsByRole;
    QString auditError; // the auditor could not run: one line
    QList<DrillInvariant> invariants;
    DrillEnvironment environment;

    qint64 refusals() const;
    bool auditPassed() const; // ran, and every invariant holds
    bool boundsMet() const;
    // From the auditor's stale-token invariant; -1 when it did not run.
    qint64 staleClaimsAccepted() const;
    QString summary() const; // the report's first line
};

// ISO 8601 in UTC with milliseconds ("2026-12-03T19:45:06.123Z"); empty when invalid.
QString isoUtc(const QDateTime &time);

// chartFile: the chart's image beside the report (DrillChart), embedded after the table; empty:
// none.
QString drillMarkdown(const DrillResult &result, const QString &chartFile = QString());
QByteArray drillJson(const DrillResult &result);

} // namespace leader::console
