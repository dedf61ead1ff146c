#include "timerule.h"

#include "log/nametable.h"

#include <QSettings>

#include <array>
#include <cstdlib>
#include <utility>

namespace leader::console {

namespace {

constexpr auto SettingsKey = "view/timeZone";

// The settings' names: what is stored and what it is read back from.
constexpr std::array<std::pair<TimeZoneMode, QLatin1StringView>, 2> ModeNames{{
        {TimeZoneMode::Local, QLatin1StringView("local")},
        {TimeZoneMode::Utc, QLatin1StringView("utc")},
}};
static_assert(namesEveryValue(ModeNames));

QString offsetText(int offsetSeconds)
{
    const int minutes = std::abs(offsetSeconds) / 60;
    return QStringLiteral("%1%2:%3")
            .arg(offsetSeconds < 0 ? QLatin1Char('-') : QLatin1Char('+'))
            .arg(minutes / 60, 2, 10, QLatin1Char('0'))
            .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

TimeRule::TimeRule(QObject *parent)
    : QObject(parent)
{}

void TimeRule::setMode(TimeZoneMode mode)
{
    QSettings().setValue(QLatin1String(SettingsKey), modeName(mode));
    if (mode == m_mode)
        return;
    m_mode = mode;
    Q_EMIT changed();
}

void TimeRule::restore()
{
    const TimeZoneMode mode
            = modeFromName(QSettings().value(QLatin1String(SettingsKey)).toString());
    if (mode == m_mode)
        return;
    m_mode = mode;
    Q_EMIT changed();
}

QString TimeRule::modeName(TimeZoneMode mode)
{
    for (const auto &[known, name] : ModeNames) {
        if (known == mode)
            return name;
    }
    Q_UNREACHABLE();
}

TimeZoneMode TimeRule::modeFromName(const QString &name)
{
    for (const auto &[mode, known] : ModeNames) {
        if (name == known)
            return mode;
    }
    return TimeZoneMode::Local;
}

QDateTime TimeRule::inZone(const QDateTime &time, TimeZoneMode mode)
{
    return mode == TimeZoneMode::Utc ? time.toUTC() : time.toLocalTime();
}

QString TimeRule::clock(const QDateTime &time, TimeZoneMode mode, bool milliseconds)
{
    if (!time.isValid())
        return {};
    return inZone(time, mode)
            .toString(milliseconds ? QStringLiteral("HH:mm:ss.zzz") : QStringLiteral("HH:mm:ss"));
}

QString TimeRule::full(const QDateTime &time, TimeZoneMode mode)
{
    if (!time.isValid())
        return {};
    const QDateTime zoned = inZone(time, mode);
    return zoned.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz "))
           + offsetText(zoned.offsetFromUtc());
}

QString TimeRule::iso8601(const QDateTime &time, TimeZoneMode mode)
{
    if (!time.isValid())
        return {};
    // Written out rather than Qt::ISODateWithMs, which writes UTC as "Z": one shape for both.
    const QDateTime zoned = inZone(time, mode);
    return zoned.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz"))
           + offsetText(zoned.offsetFromUtc());
}

QString TimeRule::zoneName(TimeZoneMode mode)
{
    if (mode == TimeZoneMode::Utc)
        return tr("UTC");
    return tr("local UTC%1").arg(offsetText(QDateTime::currentDateTime().offsetFromUtc()));
}

QString TimeRule::header(const QString &title, TimeZoneMode mode)
{
    return QStringLiteral("%1 (%2)").arg(title, zoneName(mode));
}

void TimeRuleBinding::bind(const TimeRule *rule, QObject *context, std::function<void()> onChange)
{
    if (m_rule == rule)
        return;
    QObject::disconnect(m_changed);
    const TimeZoneMode before = zone();
    m_rule = rule;
    if (rule)
        m_changed = QObject::connect(rule, &TimeRule::changed, context, onChange);
    if (zone() != before)
        onChange();
}

} // namespace leader::console
