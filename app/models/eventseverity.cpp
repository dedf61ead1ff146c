#include "eventseverity.h"

#include <QCoreApplication>

namespace leader::console {

EventSeverity severityOf(const QString &event)
{
    // The lease's per-tick transitions (engine/lease/events.cpp) and the poll's view of them
    // (core/statusdiff.cpp); "new holder" is a change the poll could not classify as either.
    static const QStringList routine{
            QStringLiteral("acquired"), QStringLiteral("released"),   QStringLiteral("handover"),
            QStringLiteral("state"),    QStringLiteral("new holder"),
    };
    // Age levels (statusdiff), the alert controller's lines, failures of the poll, of a
    // heartbeat, of a release or of the workload, a takeover the demo waited for in vain, and
    // the history store's problems.
    static const QStringList alert{
            QStringLiteral("age warning"),    QStringLiteral("age alert"),
            QStringLiteral("alert"),          QStringLiteral("error"),
            QStringLiteral("poll failed"),    QStringLiteral("late_beat"),
            QStringLiteral("release_failed"), QStringLiteral("no_takeover"),
            QStringLiteral("history"),
    };
    if (routine.contains(event))
        return EventSeverity::Routine;
    if (alert.contains(event))
        return EventSeverity::Alert;
    return EventSeverity::Notable;
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
