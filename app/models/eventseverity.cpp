#include "eventseverity.h"

#include <QCoreApplication>

namespace leader::console {

EventSeverity severityOf(EventKind event)
{
    switch (event) {
    // The lease's per-tick transitions (engine/core/lease/events.cpp) and the poll's view of them
    // (models/statusdiff.cpp); "new holder" is a change the poll could not classify as either.
    case EventKind::Acquired:
    case EventKind::Released:
    case EventKind::Handover:
    case EventKind::State:
    case EventKind::NewHolder:
        return EventSeverity::Routine;
    // Age levels (statusdiff), the alert controller's lines, failures of the poll, of a
    // heartbeat, of a release or of the workload, a takeover the demo waited for in vain, and
    // the history store's problems.
    case EventKind::AgeWarning:
    case EventKind::AgeAlert:
    case EventKind::Alert:
    case EventKind::Error:
    case EventKind::PollFailed:
    case EventKind::LateBeat:
    case EventKind::ReleaseFailed:
    case EventKind::NoTakeover:
    case EventKind::History:
        return EventSeverity::Alert;
    default:
        return EventSeverity::Notable;
    }
}

QString severityName(EventSeverity severity)
{
    switch (severity) {
    case EventSeverity::Routine:
        return QStringLiteral("routine");
    case EventSeverity::Notable:
        return QStringLiteral("notable");
    case EventSeverity::Alert:
        break;
    }
    return QStringLiteral("alert");
}

QString severityText(EventSeverity severity)
{
    const auto tr = [](const char *text) {
        return QCoreApplication::translate("leader::console::EventSeverity", text);
    };
    switch (severity) {
    case EventSeverity::Routine:
        return QStringLiteral("\u25cb ") + tr("routine");
    case EventSeverity::Notable:
        return QStringLiteral("\u25c6 ") + tr("notable");
    case EventSeverity::Alert:
        break;
    }
    return QStringLiteral("\u25b2 ") + tr("alert");
}

} // namespace leader::console
