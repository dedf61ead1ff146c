#pragma once

#include "core/demotypes.h"
#include "core/statustypes.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace leader::console {

// How a role came to a new holder, as the leader_status rows prove it. Ticks are tick-scoped, so a
// new holder is normally a rotation; only a lease that ran out unreleased makes a takeover.
enum class HolderChangeKind {
    Handover, // the previous tick was released (completed, or ended early by its holder)
    Takeover, // the previous holder's lease expired unreleased, or its process died (its session
              // ended, migration 0179), and the new holder claimed it
    Pause,    // an operator's pause ended the previous tick
    Unknown,  // the polls missed too much to tell
};

// "rotation", "takeover", "pause", "unknown". Not "handover": that is an operator's request to
// move a role now (extension 0185, the event kind "hand over"), and the two met in one log.
QString holderChangeKindName(HolderChangeKind kind);

struct HolderChange
{
    HolderChangeKind kind = HolderChangeKind::Unknown;
    QString role;
    QString previousHolder;   // the last holder the rows name before the new one
    qint64 previousToken = 0; // 0 when its tick was never polled (only its completion was seen)
    QString newHolder;
    qint64 newToken = 0;
    QDateTime acquiredAt;      // the new holder's acquired_at (database clock)
    QDateTime releasedAt;      // Handover: the completion stamp, when the tick completed
    QDateTime lastHeartbeatAt; // Takeover: the previous holder's last expires_at minus the TTL
    // Takeover: acquiredAt - lastHeartbeatAt. Handover: acquiredAt - releasedAt, when known.
    std::optional<double> gapSeconds;
    QString reason; // one line: what in the rows decided it

    friend bool operator==(const HolderChange &, const HolderChange &) = default;
};

// Classifies each role's holder changes from consecutive polls of leader_status. What the rows
// prove, with T the last poll that saw the previous holder A and E its expires_at then
// (observed_at + expires_in_seconds):
//   - a pause was polled in between: Pause;
//   - the new holder acquired before E: A's lease was cleared before it ran out, so released
//     (ACQUIRE refuses a lease that has not expired): Handover, whatever the polls missed;
//   - a tick completed after A's started (last_tick_ended_at moved): Handover from its holder,
//     if no lease could have run out unseen between that completion and the new acquisition;
//   - else, if no lease could have run out unseen since T: a new cooldown (not_before) means a
//     failed or lost tick was released: Handover; no such mark means A's lease expired at E:
//     Takeover, its last heartbeat E - TTL, the gap to the new acquired_at;
//   - otherwise Unknown.
// "Could have run out unseen": a lease the view shows for at least the TTL, so polls less than a
// TTL apart see every lease that expires. A clean stop's release (outcome interrupted) leaves no
// mark in the row; it reads as a takeover only if the next holder acquired after E.
// A new token held by the same holder is that holder's next tick, not a change.
class HolderChangeTracker final
{
public:
    // Snapshots older than the latest database time are ignored; polls within one millisecond
    // of each other are distinct polls.
    QList<HolderChange> append(const StatusSnapshot &snapshot);
    void clear();

private:
    struct Track
    {
        bool held = false; // A below was seen
        QString holder;
        qint64 token = 0;
        qint64 acquiredMs = 0;
        qint64 seenMs = 0;    // T
        qint64 expiresMs = 0; // E
        QDateTime lastTickEndedAt;
        QDateTime notBefore;
        bool pauseSeen = false;
        std::vector<qint64> quietPolls; // polls since T that saw nobody hold the role
    };

    static HolderChange classify(const Track &track, const RoleStatus &now);
    static bool covered(const Track &track, qint64 fromMs, qint64 toMs);

    QHash<QString, Track> m_tracks;
    std::optional<qint64> m_latestMs;
};

// A takeover as the Failovers list shows it ("expiry (database)"): the previous holder's last
// heartbeat to the new holder's acquired_at. nullopt for any other kind of change.
std::optional<Failover> takeoverFrom(const HolderChange &change);

} // namespace leader::console
