#pragma once

#include "core/statustypes.h"
#include "models/agethresholds.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>

namespace leader::console {

// Since when the console judges each role's age, on the database clock. A role counts from the
// first poll that shows it without a completed tick (the console started watching it), and from
// the end of a pause (the last poll that showed it paused, at most one poll early, or the pause's
// own end when it ran out): until its first tick after that, what is judged is the time since
// then, not the age of a tick before the pause. A role seen with a completed tick at its first poll
// has no origin: its age is a fact of the database, however late the console started watching. Fed
// every poll in order; a copy keeps the state as of the polls it saw.
class AgeOrigins final
{
public:
    // Idempotent: observing the same poll again changes nothing.
    void observe(const StatusSnapshot &snapshot);
    void clear();

    // Seconds from the role's origin to the last poll observed, when it has one and has completed
    // no tick since; status must be the role's row of that poll.
    std::optional<double> sinceOrigin(const RoleStatus &status) const;
    // Whether the role's origin is the end of a pause (else the console started watching it).
    bool isUnpause(const QString &role) const;

private:
    struct Origin
    {
        QDateTime at;
        bool unpause = false;
        bool hadTick = false; // else any completed tick is one since the origin
    };

    QHash<QString, Origin> m_origins;
    // The roles paused at the last poll, with their pause's end (invalid: until unpaused).
    QHash<QString, QDateTime> m_paused;
    QSet<QString> m_seen;
    QDateTime m_observedAt;
};

// The level a role's age is shown and logged at: Neutral while it is paused or starting (not run
// since its origin, and less than its warning threshold since: its first expected interval plus
// the grace of one missed tick), Unknown when it never completed a tick, else its age (or, not run
// since its origin, the time since the origin) against its thresholds.
AgeLevel ageLevelOf(const RoleStatus &status, const AgeThresholds &thresholds,
                    const AgeOrigins &origins = {});

// A role at a glance, in rising order of concern: the status table's Health column and the fleet
// overview's worst role. Stale outranks the rest: rows that are not live say nothing for sure.
enum class Health {
    Ok,
    Starting, // not due yet: never ran or just unpaused, within its first interval (no alarm)
    Paused,   // stopped on purpose: its age grows, and that is not an alarm
    Warn,     // late past the warning threshold, or never ran past its first interval
    Alert,    // past the alert threshold
    Stale,    // the console cannot read the database: the rows are the last ones received
};

QString healthName(Health health); // "ok", "starting", "paused", "warn", "alert", "stale"
// Without origins every age is judged as it is, and a role that never ran warns.
Health healthOf(const RoleStatus &status, const AgeThresholds &thresholds, bool stale,
                const AgeOrigins &origins = {});
// The most concerning of the roles (Ok for none). A role starting counts as ok: a database
// freshly migrated, its roles not run yet, is not a concern.
Health worstHealth(const QList<RoleStatus> &roles, const AgeThresholds &thresholds, bool stale,
                   const AgeOrigins &origins = {});

} // namespace leader::console
