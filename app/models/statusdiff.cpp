#include "statusdiff.h"

#include "models/agethresholds.h"
#include "models/health.h"

namespace leader::console {

namespace {

const RoleStatus *find(const StatusSnapshot &snapshot, const QString &role)
{
    for (const RoleStatus &status : snapshot.roles) {
        if (status.role == role)
            return &status;
    }
    return nullptr;
}

QString seconds(double value)
{
    return QString::number(value, 'f', 1) + QStringLiteral(" s");
}

// Details are one zone for every reader of the log and its export: UTC, to the second.
QString utc(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'"));
}

// The one to compare a new holder with: whoever leads now, else whoever completed the last tick.
QString lastHolder(const RoleStatus &status)
{
    return status.holderId.isEmpty() ? status.lastTickHolder : status.holderId;
}

const HolderChange *changeFor(const QList<HolderChange> &changes, const QString &role)
{
    for (const HolderChange &change : changes) {
        if (change.role == role)
            return &change;
    }
    return nullptr;
}

EventKind changeEvent(HolderChangeKind kind)
{
    switch (kind) {
    case HolderChangeKind::Handover:
        return EventKind::Handover;
    case HolderChangeKind::Takeover:
        return EventKind::Takeover;
    case HolderChangeKind::Pause:
        return EventKind::AfterPause;
    case HolderChangeKind::Unknown:
        break;
    }
    return EventKind::NewHolder;
}

EventKind ageEvent(AgeLevel level)
{
    switch (level) {
    case AgeLevel::Warning:
        return EventKind::AgeWarning;
    case AgeLevel::Alert:
        return EventKind::AgeAlert;
    default: // only a step into trouble or back to Ok is told
        return EventKind::AgeOk;
    }
}

QString changeDetail(const HolderChange &change)
{
    QString detail = QStringLiteral("%1 -> %2").arg(change.previousHolder, change.newHolder);
    if (change.kind == HolderChangeKind::Takeover && change.gapSeconds) {
        detail += QStringLiteral(", gap %1 from the last heartbeat")
                          .arg(seconds(*change.gapSeconds));
    } else if (change.kind == HolderChangeKind::Handover && change.gapSeconds) {
        detail += QStringLiteral(", %1 after the release").arg(seconds(*change.gapSeconds));
    }
    return detail + QStringLiteral(" (") + change.reason + QLatin1Char(')');
}

} // namespace

QList<EventLogEntry> changesBetween(const StatusSnapshot &before, const StatusSnapshot &after,
                                    const AgeThresholds *thresholds,
                                    const QList<HolderChange> &holderChanges,
                                    const AgeOrigins *origins)
{
    // Observing a poll again changes nothing, so origins as of either snapshot give both states.
    AgeOrigins atAfter = origins ? *origins : AgeOrigins();
    atAfter.observe(before);
    const AgeOrigins atBefore = atAfter;
    atAfter.observe(after);

    QList<EventLogEntry> entries;
    const QDateTime time
            = (after.receivedAt.isValid() ? after.receivedAt : QDateTime::currentDateTimeUtc())
                      .toUTC();
    const QString databaseTime = after.databaseTime.isValid()
                                         ? after.databaseTime.toUTC().toString(Qt::ISODateWithMs)
                                         : QString();
    const auto add = [&](const RoleStatus &status, EventKind event, const QString &detail) {
        entries.append({time, QStringLiteral("poll"), status.role, event, status.token, detail,
                        databaseTime});
    };

    for (const RoleStatus &now : after.roles) {
        const RoleStatus *was = find(before, now.role);
        if (!was)
            continue;

        if (now.state != was->state) {
            if (now.state == RoleState::Paused) {
                const QString until = now.pausedUntil.isValid()
                                              ? QStringLiteral("until ") + utc(now.pausedUntil)
                                              : QStringLiteral("until unpaused");
                add(now, EventKind::Paused,
                    QStringLiteral("by %1, %2: %3").arg(now.pausedBy, until, now.pauseReason));
            } else if (was->state == RoleState::Paused) {
                // Past its end on the database clock, the pause ended by itself: nobody unpaused.
                const bool ended = was->pausedUntil.isValid() && after.databaseTime.isValid()
                                   && after.databaseTime >= was->pausedUntil;
                if (ended)
                    add(now, EventKind::PauseEnded,
                        QStringLiteral("the pause by %1 ended at %2; now %3")
                                .arg(was->pausedBy, utc(was->pausedUntil),
                                     roleStateText(now.state)));
                else
                    add(now, EventKind::Unpaused,
                        QStringLiteral("now ") + roleStateText(now.state));
            } else {
                add(now, EventKind::State,
                    QStringLiteral("%1 -> %2")
                            .arg(roleStateText(was->state), roleStateText(now.state)));
            }
        }

        // A new token with a holder is a new tick's acquisition; the same token is the same tick.
        if (!now.holderId.isEmpty() && (now.token != was->token || now.holderId != was->holderId)) {
            if (const HolderChange *change = changeFor(holderChanges, now.role)) {
                add(now, changeEvent(change->kind), changeDetail(*change));
            } else {
                const QString previous = lastHolder(*was);
                add(now, EventKind::Acquired,
                    previous.isEmpty() || previous == now.holderId
                            ? now.holderId
                            : QStringLiteral("%1 -> %2").arg(previous, now.holderId));
            }
        }

        if (thresholds) {
            const AgeLevel wasLevel = ageLevelOf(*was, *thresholds, atBefore);
            const AgeLevel level = ageLevelOf(now, *thresholds, atAfter);
            // Unknown or Neutral -> Ok is a role's first tick, not news; a step into trouble is,
            // and out of it unless into a pause (the "paused" event says that).
            const bool trouble = level == AgeLevel::Warning || level == AgeLevel::Alert;
            const bool wasTrouble = wasLevel == AgeLevel::Warning || wasLevel == AgeLevel::Alert;
            if (level != wasLevel && (trouble || (level == AgeLevel::Ok && wasTrouble))) {
                const AgeThreshold limits = thresholds->threshold(now.role);
                const double limit
                        = level == AgeLevel::Alert ? limits.alertSeconds : limits.warnSeconds;
                const QString at = QStringLiteral("%1 at %2")
                                           .arg(level == AgeLevel::Ok ? QStringLiteral("warning")
                                                                      : ageLevelName(level),
                                                seconds(limit));
                const QString age = seconds(now.lastTickAgeSeconds.value_or(0));
                const std::optional<double> since = atAfter.sinceOrigin(now);
                add(now, ageEvent(level),
                    since ? QStringLiteral("no tick in %1 since its pause ended, last tick %2 ago "
                                           "(%3)")
                                    .arg(seconds(*since), age, at)
                          : QStringLiteral("last tick %1 ago (%2)").arg(age, at));
            }
        }
    }
    return entries;
}

std::optional<QString> backlogReadLine(const QString &before, const QString &after)
{
    if (after == before)
        return std::nullopt;
    if (after.isEmpty())
        return QStringLiteral("the backlog is read again");
    return after;
}

} // namespace leader::console
