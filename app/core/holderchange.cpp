#include "holderchange.h"

#include "lease/constants.h"

#include <QCoreApplication>

#include <cmath>

namespace leader::console {

namespace {

constexpr qint64 LeaseTtlMs = std::chrono::milliseconds(lease::LeaseTTL).count();
// A quiet stretch polled at 1 s for over an hour: past this the oldest polls go, and coverage
// from before them is no longer claimed.
constexpr size_t MaxQuietPolls = 4096;

QString tr(const char *text)
{
    return QCoreApplication::translate("leader::console::HolderChange", text);
}

qint64 msOf(const QDateTime &time)
{
    return time.toMSecsSinceEpoch();
}

QDateTime utcAt(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

} // namespace

QString holderChangeKindName(HolderChangeKind kind)
{
    switch (kind) {
    case HolderChangeKind::Handover:
        return QStringLiteral("rotation");
    case HolderChangeKind::Takeover:
        return QStringLiteral("takeover");
    case HolderChangeKind::Pause:
        return QStringLiteral("pause");
    case HolderChangeKind::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

QList<HolderChange> HolderChangeTracker::append(const StatusSnapshot &snapshot)
{
    QList<HolderChange> changes;
    if (!snapshot.databaseTime.isValid())
        return changes;
    const qint64 nowMs = msOf(snapshot.databaseTime);
    if (m_latestMs && nowMs < *m_latestMs)
        return changes;
    m_latestMs = nowMs;

    for (const RoleStatus &status : snapshot.roles) {
        Track &track = m_tracks[status.role];
        if (status.holderId.isEmpty()) {
            if (track.held) {
                track.pauseSeen = track.pauseSeen || status.state == RoleState::Paused;
                if (track.quietPolls.size() >= MaxQuietPolls)
                    track.quietPolls.erase(track.quietPolls.begin());
                track.quietPolls.push_back(nowMs);
            }
            continue;
        }
        const bool sameTick
                = track.held && status.holderId == track.holder && status.token == track.token;
        if (track.held && !sameTick && status.holderId != track.holder)
            changes.append(classify(track, status));
        track.held = true;
        track.holder = status.holderId;
        track.token = status.token;
        track.acquiredMs = status.acquiredAt.isValid() ? msOf(status.acquiredAt) : nowMs;
        track.seenMs = nowMs;
        track.expiresMs = nowMs + std::llround(status.expiresInSeconds.value_or(0) * 1000.0);
        track.lastTickEndedAt = status.lastTickEndedAt;
        track.notBefore = status.notBefore;
        track.pauseSeen = false;
        track.quietPolls.clear();
    }
    return changes;
}

void HolderChangeTracker::clear()
{
    m_tracks.clear();
    m_latestMs.reset();
}

bool HolderChangeTracker::covered(const Track &track, qint64 fromMs, qint64 toMs)
{
    // The quiet polls were trimmed past fromMs: what happened then is no longer known.
    if (track.quietPolls.size() >= MaxQuietPolls && track.quietPolls.front() > fromMs)
        return false;
    qint64 previous = fromMs;
    for (const qint64 poll : track.quietPolls) {
        if (poll <= fromMs)
            continue;
        if (poll >= toMs)
            break;
        if (poll - previous >= LeaseTtlMs)
            return false;
        previous = poll;
    }
    return toMs - previous < LeaseTtlMs;
}

HolderChange HolderChangeTracker::classify(const Track &track, const RoleStatus &now)
{
    HolderChange change;
    change.role = now.role;
    change.previousHolder = track.holder;
    change.previousToken = track.token;
    change.newHolder = now.holderId;
    change.newToken = now.token;
    change.acquiredAt = now.acquiredAt.isValid() ? now.acquiredAt.toUTC() : utcAt(track.seenMs);
    const qint64 acquiredMs = msOf(change.acquiredAt);
    const auto released = [&](const QDateTime &at) {
        change.kind = HolderChangeKind::Handover;
        change.releasedAt = at.toUTC();
        change.gapSeconds = std::max<qint64>(0, acquiredMs - msOf(at)) / 1000.0;
    };

    if (track.pauseSeen) {
        change.kind = HolderChangeKind::Pause;
        change.reason = tr("a pause ended the previous tick");
        return change;
    }
    const bool completed = now.lastTickEndedAt.isValid()
                           && msOf(now.lastTickEndedAt) >= track.acquiredMs
                           && now.lastTickEndedAt != track.lastTickEndedAt;
    // The row says so itself (migration 0179): taken before its expiry because the previous
    // holder's session had ended, which a release would not have needed.
    if (now.tookOver == TookOver::SessionEnded && track.expiresMs > 0) {
        change.kind = HolderChangeKind::Takeover;
        change.lastHeartbeatAt = utcAt(track.expiresMs - LeaseTtlMs);
        change.gapSeconds = std::max<qint64>(0, acquiredMs - msOf(change.lastHeartbeatAt)) / 1000.0;
        change.reason = tr("the previous holder's session ended: its process died");
        return change;
    }
    if (acquiredMs < track.expiresMs) {
        change.kind = HolderChangeKind::Handover;
        if (completed && now.lastTickHolder == track.holder)
            released(now.lastTickEndedAt);
        change.reason = tr("acquired before the previous lease would have run out: released");
        return change;
    }
    if (completed) {
        if (!covered(track, msOf(now.lastTickEndedAt), acquiredMs)) {
            change.reason = tr("polls a lease apart or more after the last completed tick");
            return change;
        }
        released(now.lastTickEndedAt);
        if (now.lastTickHolder != track.holder) {
            // A tick nobody polled ran in between; it is the one that handed over.
            change.previousHolder = now.lastTickHolder;
            change.previousToken = 0;
        }
        change.reason = tr("the previous tick completed and nothing expired since");
        return change;
    }
    if (!covered(track, track.seenMs, acquiredMs)) {
        change.reason = tr("polls a lease apart or more since the previous holder was seen");
        return change;
    }
    if (now.notBefore.isValid() && now.notBefore != track.notBefore) {
        change.kind = HolderChangeKind::Handover;
        change.reason = tr("released after a failed or lost tick (cooldown until not_before)");
        return change;
    }
    change.kind = HolderChangeKind::Takeover;
    change.lastHeartbeatAt = utcAt(track.expiresMs - LeaseTtlMs);
    change.gapSeconds = (acquiredMs - msOf(change.lastHeartbeatAt)) / 1000.0;
    change.reason = tr("the previous lease expired unreleased");
    return change;
}

std::optional<Failover> takeoverFrom(const HolderChange &change)
{
    if (change.kind != HolderChangeKind::Takeover)
        return std::nullopt;
    Failover failover;
    failover.role = change.role;
    // Before a lease's length since the last heartbeat: taken at the holder's death, not expiry.
    failover.fault = change.gapSeconds.value_or(0) * 1000.0 < LeaseTtlMs
                             ? QStringLiteral("holder died (database)")
                             : QStringLiteral("expiry (database)");
    // Not hosted here: the holder ids are all the rows say of the replicas.
    failover.victim = change.previousHolder;
    failover.victimHolder = change.previousHolder;
    failover.victimToken = change.previousToken;
    failover.successor = change.newHolder;
    failover.successorHolder = change.newHolder;
    failover.successorToken = change.newToken;
    failover.lastHeartbeatAt = change.lastHeartbeatAt;
    failover.acquiredAt = change.acquiredAt;
    failover.gapSeconds = change.gapSeconds.value_or(0);
    return failover;
}

} // namespace leader::console
