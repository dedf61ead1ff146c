#pragma once

#include "core/demotypes.h"

#include <QString>

namespace leader::console {

// How much an event of the log matters to the operator on call.
// Routine: what a healthy system does every tick (a role acquired, released, handed over, a
// state flip); the default view folds it into one counting line per role.
// Notable: what changes the system or was done to it (takeovers, pauses and their end, drill
// faults, lost leases, connections); Alert: what needs someone now (age warnings and alerts,
// errors, failed polls and heartbeats, a takeover that did not come).
enum class EventSeverity { Routine, Notable, Alert };

// From the event's kind (its Event column), the same for the demo's replicas, the poll and the
// console's own lines; a kind not named as routine or alert is notable, so nothing new is hidden.
EventSeverity severityOf(EventKind event);
inline EventSeverity severityOf(const EventLogEntry &entry)
{
    return severityOf(entry.event);
}

// "routine", "notable", "alert": what exports write, not translated.
QString severityName(EventSeverity severity);
// What the log shows: a shape and the word, so it does not rest on colour ("▲ alert").
QString severityText(EventSeverity severity);

} // namespace leader::console
