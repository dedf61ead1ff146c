#include "agethresholds.h"

#include "core/leasefacts.h"

#include <QSettings>

#include <algorithm>

namespace leader::console {

namespace {

constexpr double FallbackIntervalSeconds = 60;

} // namespace

QString ageLevelName(AgeLevel level)
{
    switch (level) {
    case AgeLevel::Ok:
        return QStringLiteral("ok");
    case AgeLevel::Warning:
        return QStringLiteral("warning");
    case AgeLevel::Alert:
        return QStringLiteral("alert");
    case AgeLevel::Neutral:
        return QStringLiteral("neutral");
    case AgeLevel::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

AgeThresholds AgeThresholds::defaults()
{
    AgeThresholds thresholds;
    thresholds.setRoleIntervals(defaultRoleIntervals());
    return thresholds;
}

// A healthy role's last_tick_age saw-tooths between ~0 and one interval plus a tick's work. One
// missed tick, plus a takeover after a dead leader (lease TTL 10 s, abandon 6 s), stays under
// 2 x interval + 15 s: past that something is wrong but may heal (warning). Past
// 4 x interval + 30 s three ticks or two takeovers in a row failed: a stall (alert). The constant
// terms keep the 2 s roles from flapping on one slow poll or a failover.
AgeThreshold AgeThresholds::forInterval(double intervalSeconds)
{
    const double interval = std::max(0.0, intervalSeconds);
    return {2 * interval + 15, 4 * interval + 30};
}

void AgeThresholds::setRoleInterval(const QString &role, double intervalSeconds)
{
    m_intervals.insert(role, intervalSeconds);
    m_thresholds.insert(role, forInterval(intervalSeconds));
}

void AgeThresholds::setRoleIntervals(const QHash<QString, double> &intervalSeconds)
{
    for (auto it = intervalSeconds.cbegin(); it != intervalSeconds.cend(); ++it)
        setRoleInterval(it.key(), it.value());
}

AgeThreshold AgeThresholds::threshold(const QString &role) const
{
    if (const auto it = m_thresholds.constFind(role); it != m_thresholds.cend())
        return *it;
    double longest = 0;
    for (const double interval : m_intervals)
        longest = std::max(longest, interval);
    return forInterval(longest > 0 ? longest : FallbackIntervalSeconds);
}

void AgeThresholds::setThreshold(const QString &role, AgeThreshold threshold)
{
    m_thresholds.insert(role, threshold);
}

QStringList AgeThresholds::roles() const
{
    QStringList roles = m_thresholds.keys();
    for (auto it = m_intervals.cbegin(); it != m_intervals.cend(); ++it) {
        if (!roles.contains(it.key()))
            roles.append(it.key());
    }
    std::sort(roles.begin(), roles.end());
    return roles;
}

AgeLevel AgeThresholds::level(const QString &role, std::optional<double> ageSeconds) const
{
    if (!ageSeconds)
        return AgeLevel::Unknown;
    const AgeThreshold limits = threshold(role);
    if (*ageSeconds >= limits.alertSeconds)
        return AgeLevel::Alert;
    if (*ageSeconds >= limits.warnSeconds)
        return AgeLevel::Warning;
    return AgeLevel::Ok;
}

void AgeThresholds::load(QSettings &settings)
{
    settings.beginGroup(QStringLiteral("thresholds"));
    QStringList roles = settings.childGroups();
    for (const QString &role : leaseRoles()) {
        if (!roles.contains(role))
            roles.append(role);
    }
    for (const QString &role : std::as_const(roles)) {
        settings.beginGroup(role);
        bool ok = false;
        const double interval = settings.value(QStringLiteral("interval")).toDouble(&ok);
        if (ok && interval > 0)
            setRoleInterval(role, interval);
        AgeThreshold limits = threshold(role);
        bool warnOk = false;
        bool alertOk = false;
        const double warn = settings.value(QStringLiteral("warn")).toDouble(&warnOk);
        const double alert = settings.value(QStringLiteral("alert")).toDouble(&alertOk);
        // A pair that does not order (warn < alert) would colour nothing amber: ignore it.
        if (warnOk && alertOk && warn > 0 && alert > warn)
            limits = {warn, alert};
        if (ok || (warnOk && alertOk))
            setThreshold(role, limits);
        settings.endGroup();
    }
    settings.endGroup();
}

void AgeThresholds::save(QSettings &settings) const
{
    settings.beginGroup(QStringLiteral("thresholds"));
    settings.remove(QString()); // the group only: roles dropped since the last save go too
    for (const QString &role : roles()) {
        settings.beginGroup(role);
        if (const auto it = m_intervals.constFind(role); it != m_intervals.cend())
            settings.setValue(QStringLiteral("interval"), *it);
        const AgeThreshold limits = threshold(role);
        settings.setValue(QStringLiteral("warn"), limits.warnSeconds);
        settings.setValue(QStringLiteral("alert"), limits.alertSeconds);
        settings.endGroup();
    }
    settings.endGroup();
}

} // namespace leader::console
