#include "health.h"

#include <algorithm>
#include <utility>

namespace leader::console {

void AgeOrigins::observe(const StatusSnapshot &snapshot)
{
    const QDateTime at
            = (snapshot.databaseTime.isValid() ? snapshot.databaseTime : snapshot.receivedAt)
                      .toUTC();
    if (!at.isValid())
        return;
    const QDateTime previous = std::exchange(m_observedAt, at);
    QHash<QString, QDateTime> paused;
    for (const RoleStatus &status : snapshot.roles) {
        const bool seen = m_seen.contains(status.role);
        m_seen.insert(status.role);
        if (status.state == RoleState::Paused) {
            paused.insert(status.role, status.pausedUntil);
            m_origins.remove(status.role);
            continue;
        }
        if (const auto was = m_paused.constFind(status.role); was != m_paused.cend()) {
            // A pause that ran out ended at its end; one lifted by hand after the last poll that
            // showed it, which is when the rules' judged age counts from too.
            const QDateTime end = was->isValid() && *was < at ? was->toUTC() : previous;
            m_origins.insert(status.role, {end, true, status.lastTickAgeSeconds.has_value()});
        } else if (!seen && !status.lastTickAgeSeconds) {
            m_origins.insert(status.role, {at, false, false});
        }
    }
    m_paused = std::move(paused);
}

void AgeOrigins::clear()
{
    *this = {};
}

std::optional<double> AgeOrigins::sinceOrigin(const RoleStatus &status) const
{
    const auto origin = m_origins.constFind(status.role);
    if (origin == m_origins.cend())
        return std::nullopt;
    const double since = std::max(0.0, origin->at.msecsTo(m_observedAt) / 1000.0);
    // A tick completed since the origin: the role's own age says how it is.
    if (status.lastTickAgeSeconds && (!origin->hadTick || *status.lastTickAgeSeconds < since))
        return std::nullopt;
    return since;
}

bool AgeOrigins::isUnpause(const QString &role) const
{
    return m_origins.value(role).unpause;
}

AgeLevel ageLevelOf(const RoleStatus &status, const AgeThresholds &thresholds,
                    const AgeOrigins &origins)
{
    if (status.state == RoleState::Paused)
        return AgeLevel::Neutral;
    const std::optional<double> since = origins.sinceOrigin(status);
    if (since && *since < thresholds.threshold(status.role).warnSeconds)
        return AgeLevel::Neutral;
    if (!status.lastTickAgeSeconds)
        return AgeLevel::Unknown;
    return thresholds.level(status.role, since ? since : status.lastTickAgeSeconds);
}

QString healthName(Health health)
{
    switch (health) {
    case Health::Ok:
        return QStringLiteral("ok");
    case Health::Starting:
        return QStringLiteral("starting");
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

Health healthOf(const RoleStatus &status, const AgeThresholds &thresholds, bool stale,
                const AgeOrigins &origins)
{
    if (stale)
        return Health::Stale;
    if (status.state == RoleState::Paused)
        return Health::Paused;
    switch (ageLevelOf(status, thresholds, origins)) {
    case AgeLevel::Ok:
        return Health::Ok;
    case AgeLevel::Neutral: // not paused: not due yet
        return Health::Starting;
    case AgeLevel::Warning:
    case AgeLevel::Unknown: // never completed a tick past its first interval: the never-ran case
        return Health::Warn;
    case AgeLevel::Alert:
        return Health::Alert;
    }
    return Health::Warn;
}

Health worstHealth(const QList<RoleStatus> &roles, const AgeThresholds &thresholds, bool stale,
                   const AgeOrigins &origins)
{
    Health worst = stale ? Health::Stale : Health::Ok;
    for (const RoleStatus &status : roles) {
        const Health health = healthOf(status, thresholds, stale, origins);
        worst = std::max(worst, health == Health::Starting ? Health::Ok : health);
    }
    return worst;
}

} // namespace leader::console
