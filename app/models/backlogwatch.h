#pragma once

#include "core/statustypes.h"
#include "models/agethresholds.h"
#include "models/health.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace leader::console {

// A role's backlog that grows while nothing works it off: the alert of issue 36 point 4.
struct BacklogGrowth
{
    QString role;
    Health health = Health::Paused; // Paused, Warn or Alert at the poll that alerted
    QString what;                   // "due subscriptions"
    qint64 from = 0;                // the count at the spell's start
    qint64 to = 0;                  // the count at the poll that alerted
    double overSeconds = 0;         // since the first poll above from
    std::optional<double> oldestAgeSeconds;
};

// "billing: paused, and its backlog grew from 0 to 37 due subscriptions over 45 s (oldest 4 min
// 0 s)": the alert's line.
QString backlogGrowthText(const BacklogGrowth &growth);

// When a role's backlog growing is an alert, judged poll by poll:
// - A spell is an uninterrupted run of polls in which the role's health is Paused, Warn or Alert
//   (healthOf(): stopped on purpose, or late so nothing is taking work off the pile). A poll with
//   any other health (Ok, Starting), or without the role, ends it.
// - The spell's baseline is the pending count of its first poll that has one (a poll whose source
//   failed, or with no source, neither sets, raises nor breaks anything).
// - The backlog has grown when at least MinPolls polls in a row of the spell counted more than
//   the baseline, the first and the last of them at least MinSpanSeconds apart on the database
//   clock: a count that rises once and falls back to the baseline or below is noise, not growth.
// - It alerts once a spell, at the poll that completes the growth; the next alert needs the spell
//   to end and another to begin.
// The time of a poll is its databaseTime (its receivedAt when the database gave none).
class BacklogWatch final
{
public:
    static constexpr int MinPolls = 2;
    static constexpr double MinSpanSeconds = 30;

    // Whether a role in this health is one whose backlog may grow unworked.
    static bool isUnworked(Health health);

    // One poll of one role, in order: the growth to alert on, at most once a spell.
    std::optional<BacklogGrowth> observe(const QString &role, Health health,
                                         const std::optional<RoleBacklog> &backlog,
                                         const QDateTime &at);
    // Every role of a live poll, judged by healthOf() with thresholds and origins (which must
    // have observed this poll already); the roles no longer in the rows are forgotten.
    QList<BacklogGrowth> observe(const StatusSnapshot &snapshot, const AgeThresholds &thresholds,
                                 const AgeOrigins &origins);
    void clear();

private:
    struct Spell
    {
        std::optional<qint64> baseline;
        QDateTime aboveSince; // the first poll of the run above the baseline; invalid: none
        int pollsAbove = 0;
        bool alerted = false;
    };

    QHash<QString, Spell> m_spells; // the roles in a spell now
};

} // namespace leader::console
