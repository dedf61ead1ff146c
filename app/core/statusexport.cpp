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

QJsonValue jsonNumber(const std::optional<double> &value)
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

} // namespace

QByteArray statusToCsv(const StatusSnapshot &snapshot, TimeZoneMode zone)
{
    QStringList lines{QStringLiteral(
            "role,state,holder_id,holder_token,acquired_at,expires_in_seconds,last_tick_ended_at,"
            "last_tick_holder,last_tick_age_seconds,paused_at,paused_by,pause_reason,paused_until,"
            "pause_remaining_seconds,not_before,not_before_in_seconds,observed_at")};
    for (const RoleStatus &row : snapshot.roles) {
        const QStringList fields{row.role,
                                 roleStateText(row.state),
                                 row.holderId,
                                 QString::number(row.token),
                                 TimeRule::iso8601(row.acquiredAt, zone),
                                 number(row.expiresInSeconds),
                                 TimeRule::iso8601(row.lastTickEndedAt, zone),
                                 row.lastTickHolder,
                                 number(row.lastTickAgeSeconds),
                                 TimeRule::iso8601(row.pausedAt, zone),
                                 row.pausedBy,
                                 row.pauseReason,
                                 TimeRule::iso8601(row.pausedUntil, zone),
                                 number(row.pauseRemainingSeconds),
                                 TimeRule::iso8601(row.notBefore, zone),
                                 number(row.notBeforeInSeconds),
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
                {QStringLiteral("last_tick_ended_at"), jsonTime(row.lastTickEndedAt, zone)},
                {QStringLiteral("last_tick_holder"), jsonText(row.lastTickHolder)},
                {QStringLiteral("last_tick_age_seconds"), jsonNumber(row.lastTickAgeSeconds)},
                {QStringLiteral("paused_at"), jsonTime(row.pausedAt, zone)},
                {QStringLiteral("paused_by"), jsonText(row.pausedBy)},
                {QStringLiteral("pause_reason"), jsonText(row.pauseReason)},
                {QStringLiteral("paused_until"), jsonTime(row.pausedUntil, zone)},
                {QStringLiteral("pause_remaining_seconds"), jsonNumber(row.pauseRemainingSeconds)},
                {QStringLiteral("not_before"), jsonTime(row.notBefore, zone)},
                {QStringLiteral("not_before_in_seconds"), jsonNumber(row.notBeforeInSeconds)},
        });
    }
    const QJsonObject document{
            {QStringLiteral("observed_at"), jsonTime(snapshot.databaseTime, zone)},
            {QStringLiteral("roles"), roles}};
    return QJsonDocument(document).toJson(QJsonDocument::Indented);
}

} // namespace leader::console
