#include "statusexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace leader::console {

namespace {

QString number(const std::optional<double> &value)
{
    return value ? QString::number(*value, 'f', 3) : QString();
}

QString count(const std::optional<qint64> &value)
{
    return value ? QString::number(*value) : QString();
}

QJsonValue jsonNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QJsonValue jsonBool(const std::optional<bool> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QJsonValue jsonTime(const QDateTime &time, TimeZoneMode zone)
{
    return time.isValid() ? QJsonValue(TimeRule::iso8601(time, zone)) : QJsonValue();
}

QJsonValue jsonText(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
QString csvField(const QString &field)
{
    if (!field.contains(QLatin1Char(',')) && !field.contains(QLatin1Char('"'))
        && !field.contains(QLatin1Char('\n')) && !field.contains(QLatin1Char('\r')))
        return field;
    QString quoted = field;
    quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

// One of the last hour's counts; empty on a schema without migration 0184, so that it is not 0.
std::optional<qint64> lastHour(const RoleStatus &row, int TickCounts::*outcome)
{
    return row.lastHour ? std::optional<qint64>((*row.lastHour).*outcome) : std::nullopt;
}

// The engine's names, as leaderctl status prints them; empty when none.
QString lastOutcomeText(const RoleStatus &row)
{
    return row.lastOutcome ? tickOutcomeName(*row.lastOutcome) : QString();
}

QString lastLossReasonText(const RoleStatus &row)
{
    return row.lastLossReason ? lossReasonName(*row.lastLossReason) : QString();
}

QString boolText(const std::optional<bool> &value)
{
    return value ? QString::fromLatin1(*value ? "true" : "false") : QString();
}

// leaderctl status --json's backlog object: null without a source (or migration 0186), pending
// null when the source failed.
QJsonValue jsonBacklog(const std::optional<RoleBacklog> &backlog)
{
    if (!backlog)
        return QJsonValue();
    return QJsonObject{
            {QStringLiteral("what"), jsonText(backlog->what)},
            {QStringLiteral("pending"), jsonNumber(backlog->pending)},
            {QStringLiteral("oldest_pending_age_seconds"), jsonNumber(backlog->oldestAgeSeconds)},
            {QStringLiteral("error"), jsonText(backlog->error)},
    };
}

} // namespace

QByteArray statusToCsv(const StatusSnapshot &snapshot, TimeZoneMode zone)
{
    QStringList lines{QStringLiteral(
            "role,state,holder_id,holder_token,acquired_at,expires_in_seconds,took_over,early_take,"
            "holder_outside,last_tick_ended_at,last_tick_holder,last_tick_age_seconds,"
            "last_outcome,last_loss_reason,last_duration_s,last_ended_at,last_holder,"
            "last_failed_step,last_error,completed_last_hour,lost_last_hour,failed_last_hour,"
            "interrupted_last_hour,counts_ours_only,paused_at,paused_by,pause_reason,paused_until,"
            "pause_remaining_seconds,not_before,not_before_in_seconds,backlog_what,"
            "backlog_pending,backlog_oldest_pending_age_seconds,backlog_error,observed_at")};
    for (const RoleStatus &row : snapshot.roles) {
        const RoleBacklog backlog = row.backlog.value_or(RoleBacklog{});
        // A table has no document to say once that the backlog could not be read: each row says
        // why its count is missing.
        const QString backlogError
                = snapshot.backlogError.isEmpty() ? backlog.error : snapshot.backlogError;
        const QStringList fields{row.role,
                                 roleStateText(row.state),
                                 row.holderId,
                                 QString::number(row.token),
                                 TimeRule::iso8601(row.acquiredAt, zone),
                                 number(row.expiresInSeconds),
                                 tookOverServerText(row.tookOver),
                                 boolText(row.earlyTake),
                                 boolText(row.holderOutside),
                                 TimeRule::iso8601(row.lastTickEndedAt, zone),
                                 row.lastTickHolder,
                                 number(row.lastTickAgeSeconds),
                                 lastOutcomeText(row),
                                 lastLossReasonText(row),
                                 number(row.lastDurationSeconds),
                                 TimeRule::iso8601(row.lastEndedAt, zone),
                                 row.lastHolder,
                                 row.lastFailedStep,
                                 row.lastError,
                                 count(lastHour(row, &TickCounts::completed)),
                                 count(lastHour(row, &TickCounts::lost)),
                                 count(lastHour(row, &TickCounts::failed)),
                                 count(lastHour(row, &TickCounts::interrupted)),
                                 boolText(row.countsOursOnly),
                                 TimeRule::iso8601(row.pausedAt, zone),
                                 row.pausedBy,
                                 row.pauseReason,
                                 TimeRule::iso8601(row.pausedUntil, zone),
                                 number(row.pauseRemainingSeconds),
                                 TimeRule::iso8601(row.notBefore, zone),
                                 number(row.notBeforeInSeconds),
                                 backlog.what,
                                 count(backlog.pending),
                                 number(backlog.oldestAgeSeconds),
                                 backlogError,
                                 TimeRule::iso8601(snapshot.databaseTime, zone)};
        QStringList quoted;
        for (const QString &field : fields)
            quoted.append(csvField(field));
        lines.append(quoted.join(QLatin1Char(',')));
    }
    return (lines.join(QLatin1String("\r\n")) + QLatin1String("\r\n")).toUtf8();
}

QByteArray statusToJson(const StatusSnapshot &snapshot, TimeZoneMode zone)
{
    QJsonArray roles;
    for (const RoleStatus &row : snapshot.roles) {
        roles.append(QJsonObject{
                {QStringLiteral("role"), row.role},
                {QStringLiteral("state"), roleStateText(row.state)},
                {QStringLiteral("holder_id"), jsonText(row.holderId)},
                // Tokens are epoch milliseconds plus increments: exact in a double for millennia.
                {QStringLiteral("holder_token"), double(row.token)},
                {QStringLiteral("acquired_at"), jsonTime(row.acquiredAt, zone)},
                {QStringLiteral("expires_in_seconds"), jsonNumber(row.expiresInSeconds)},
                {QStringLiteral("took_over"), jsonText(tookOverServerText(row.tookOver))},
                {QStringLiteral("early_take"), jsonBool(row.earlyTake)},
                // Extension 0189, keyed as leaderctl status --json keys them; null without it.
                {QStringLiteral("holder_outside"), jsonBool(row.holderOutside)},
                {QStringLiteral("last_tick_ended_at"), jsonTime(row.lastTickEndedAt, zone)},
                {QStringLiteral("last_tick_holder"), jsonText(row.lastTickHolder)},
                {QStringLiteral("last_tick_age_seconds"), jsonNumber(row.lastTickAgeSeconds)},
                // Keyed as leaderctl status --json keys them (last_duration_s, the *_last_hour
                // counts, backlog), so that one jq script reads both.
                {QStringLiteral("last_outcome"), jsonText(lastOutcomeText(row))},
                {QStringLiteral("last_loss_reason"), jsonText(lastLossReasonText(row))},
                {QStringLiteral("last_duration_s"), jsonNumber(row.lastDurationSeconds)},
                {QStringLiteral("last_ended_at"), jsonTime(row.lastEndedAt, zone)},
                {QStringLiteral("last_holder"), jsonText(row.lastHolder)},
                {QStringLiteral("last_failed_step"), jsonText(row.lastFailedStep)},
                {QStringLiteral("last_error"), jsonText(row.lastError)},
                {QStringLiteral("completed_last_hour"),
                 jsonNumber(lastHour(row, &TickCounts::completed))},
                {QStringLiteral("lost_last_hour"), jsonNumber(lastHour(row, &TickCounts::lost))},
                {QStringLiteral("failed_last_hour"),
                 jsonNumber(lastHour(row, &TickCounts::failed))},
                {QStringLiteral("interrupted_last_hour"),
                 jsonNumber(lastHour(row, &TickCounts::interrupted))},
                {QStringLiteral("counts_ours_only"), jsonBool(row.countsOursOnly)},
                {QStringLiteral("paused_at"), jsonTime(row.pausedAt, zone)},
                {QStringLiteral("paused_by"), jsonText(row.pausedBy)},
                {QStringLiteral("pause_reason"), jsonText(row.pauseReason)},
                {QStringLiteral("paused_until"), jsonTime(row.pausedUntil, zone)},
                {QStringLiteral("pause_remaining_seconds"), jsonNumber(row.pauseRemainingSeconds)},
                {QStringLiteral("not_before"), jsonTime(row.notBefore, zone)},
                {QStringLiteral("not_before_in_seconds"), jsonNumber(row.notBeforeInSeconds)},
                {QStringLiteral("backlog"), jsonBacklog(row.backlog)},
        });
    }
    const QJsonObject document{
            {QStringLiteral("observed_at"), jsonTime(snapshot.databaseTime, zone)},
            {QStringLiteral("roles"), roles},
            {QStringLiteral("backlog_error"), jsonText(snapshot.backlogError)}};
    return QJsonDocument(document).toJson(QJsonDocument::Indented);
}

} // namespace leader::console
