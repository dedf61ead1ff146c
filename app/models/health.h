#pragma once

#include "core/statustypes.h"
#include "models/agethresholds.h"

#include <QList>
#include <QString>

namespace leader::console {

// A role at a glance, in rising order of concern: the status table's Health column and the fleet
// overview's worst role. Stale outranks the rest: rows that are not live say nothing for sure.
enum class Health {
    Ok,
    Paused, // stopped on purpose: its age grows, and that is not an alarm
    Warn,   // last tick past the warning threshold, or no tick completed yet
    Alert,  // past the alert threshold
    Stale,  // the console cannot read the database: the rows are the last ones received
};

QString healthName(Health health); // "ok", "paused", "warn", "alert", "stale"
Health healthOf(const RoleStatus &status, const AgeThresholds &thresholds, bool stale);
// The most concerning of the roles (Ok for none).
Health worstHealth(const QList<RoleStatus> &roles, const AgeThresholds &thresholds, bool stale);

} // namespace leader::console
