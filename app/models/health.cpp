#include "health.h"

#include <algorithm>

namespace leader::console {

QString healthName(Health health)
{
    switch (health) {
    case Health::Ok:
        return QStringLiteral("ok");
    case Health::Paused:
        return QStringLiteral("paused");
    case Health::Warn:
        return QStringLiteral("warn");
    case Health::Alert:
        return QStringLiteral("alert");
    case Health::Stale:
        return QStringLiteral("stale");
    }
    return {};
}

Health healthOf(const RoleStatus &status, const AgeThresholds &thresholds, bool stale)
{
    if (stale)
        return Health::Stale;
    if (status.state == RoleState::Paused)
        return Health::Paused;
    switch (thresholds.level(status.role, status.lastTickAgeSeconds)) {
    case AgeLevel::Ok:
        return Health::Ok;
    case AgeLevel::Warning:
    case AgeLevel::Unknown: // never completed a tick: the never-ran alert's case
        return Health::Warn;
    case AgeLevel::Alert:
        return Health::Alert;
    }
    return Health::Warn;
}

Health worstHealth(const QList<RoleStatus> &roles, const AgeThresholds &thresholds, bool stale)
{
    Health worst = stale ? Health::Stale : Health::Ok;
    for (const RoleStatus &status : roles)
        worst = std::max(worst, healthOf(status, thresholds, stale));
    return worst;
}

} // namespace leader::console
