#pragma once

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace leader::console {

enum class TimeZoneMode { Local, Utc };

// The one rule for showing times (DESIGN: "time has one rule"): every table, the chart's axis,
// the Holders timeline, the event log and the Failovers list show times in the zone the user
// chose, Local or UTC, named in their headers; exports write ISO 8601 with the offset. Kept in
// QSettings under view/timeZone ("local", "utc"). Models given no rule show local time.
class TimeRule final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TimeRule)

public:
    explicit TimeRule(QObject *parent = nullptr);

    TimeZoneMode mode() const { return m_mode; }
    // Saves to view/timeZone and emits changed() when the mode changed.
    void setMode(TimeZoneMode mode);
    // Reads view/timeZone (Local when absent or unknown); emits changed() when that changed it.
    void restore();

    static QString modeName(TimeZoneMode mode); // "local", "utc"
    static TimeZoneMode modeFromName(const QString &name);

    // The instant in the mode's zone.
    static QDateTime inZone(const QDateTime &time, TimeZoneMode mode);
    // For cells: "HH:mm:ss", with milliseconds "HH:mm:ss.zzz"; empty for an invalid time.
    static QString clock(const QDateTime &time, TimeZoneMode mode, bool milliseconds = false);
    // For tooltips: "2026-01-01 05:30:00.000 +05:30".
    static QString full(const QDateTime &time, TimeZoneMode mode);
    // For exports: "2026-01-01T05:30:00.000+05:30" (UTC: "+00:00"); empty for an invalid time.
    static QString iso8601(const QDateTime &time, TimeZoneMode mode);
    // "UTC", or "local UTC+05:30" (the offset now).
    static QString zoneName(TimeZoneMode mode);
    // "Acquired (UTC)".
    static QString header(const QString &title, TimeZoneMode mode);

Q_SIGNALS:
    void changed();

private:
    TimeZoneMode m_mode = TimeZoneMode::Local;
};

// What a model or view holds of the rule: the rule (not owned; none means local time), the zone
// it gives, and a call when that zone changes.
class TimeRuleBinding final
{
public:
    // Follows rule from now on, on context's thread; onChange runs at each change of zone, and
    // once now when the new rule's zone differs from the old one's.
    void bind(const TimeRule *rule, QObject *context, std::function<void()> onChange);
    TimeZoneMode zone() const { return m_rule ? m_rule->mode() : TimeZoneMode::Local; }

private:
    QPointer<const TimeRule> m_rule;
    QMetaObject::Connection m_changed;
};

} // namespace leader::console
