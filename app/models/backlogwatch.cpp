#include "backlogwatch.h"

#include "models/statusmodel.h"

#include <QCoreApplication>
#include <QSet>

namespace leader::console {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("leader::console::BacklogWatch", text);
}

QString healthWords(Health health)
{
    switch (health) {
    case Health::Paused:
        return tr("paused");
    case Health::Warn:
        return tr("starved (its last tick is late)");
    case Health::Alert:
        return tr("stalled (its last tick is past its alert threshold)");
    case Health::Ok:
    case Health::Starting:
    case Health::Stale:
        break;
    }
    return StatusModel::healthText(health);
}

} // namespace

QString backlogGrowthText(const BacklogGrowth &growth)
{
    QString text = tr("%1: %2, and its backlog grew from %3 to %4 %5 over %6")
                           .arg(growth.role, healthWords(growth.health))
                           .arg(growth.from)
                           .arg(growth.to)
                           .arg(growth.what, StatusModel::formatSeconds(growth.overSeconds));
    if (growth.oldestAgeSeconds)
        text += tr(" (oldest %1)").arg(StatusModel::formatSeconds(*growth.oldestAgeSeconds));
    return text;
}

bool BacklogWatch::isUnworked(Health health)
{
    return health == Health::Paused || health == Health::Warn || health == Health::Alert;
}

std::optional<BacklogGrowth> BacklogWatch::observe(const QString &role, Health health,
                                                   const std::optional<RoleBacklog> &backlog,
                                                   const QDateTime &at)
{
    if (!isUnworked(health)) {
        m_spells.remove(role);
        return std::nullopt;
    }
    Spell &spell = m_spells[role];
    if (!backlog || !backlog->pending)
        return std::nullopt;
    const qint64 pending = *backlog->pending;
    if (!spell.baseline) {
        spell.baseline = pending;
        return std::nullopt;
    }
    // The growth predicate (mutation-checked in tst_backlogwatch).
    if (pending <= *spell.baseline) {
        spell.aboveSince = {};
        spell.pollsAbove = 0;
        return std::nullopt;
    }
    if (spell.pollsAbove++ == 0)
        spell.aboveSince = at;
    const double overSeconds = spell.aboveSince.msecsTo(at) / 1000.0;
    if (spell.alerted || spell.pollsAbove < MinPolls || overSeconds < MinSpanSeconds)
        return std::nullopt;
    spell.alerted = true;
    return BacklogGrowth{role,
                         health,
                         backlog->what,
                         *spell.baseline,
                         pending,
                         overSeconds,
                         backlog->oldestAgeSeconds};
}

QList<BacklogGrowth> BacklogWatch::observe(const StatusSnapshot &snapshot,
                                           const AgeThresholds &thresholds,
                                           const AgeOrigins &origins)
{
    const QDateTime at
            = snapshot.databaseTime.isValid() ? snapshot.databaseTime : snapshot.receivedAt;
    QList<BacklogGrowth> grown;
    QSet<QString> seen;
    for (const RoleStatus &row : snapshot.roles) {
        seen.insert(row.role);
        if (auto growth
            = observe(row.role, healthOf(row, thresholds, false, origins), row.backlog, at))
            grown.append(*growth);
    }
    m_spells.removeIf([&seen](const auto &spell) { return !seen.contains(spell.key()); });
    return grown;
}

void BacklogWatch::clear()
{
    m_spells.clear();
}

} // namespace leader::console
