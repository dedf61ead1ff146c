#pragma once

#include <chrono>

namespace leader::lease {

using namespace std::chrono_literals;

// Compiled in, like the tick interval: an operator tunes intervals, never the lease itself.
inline constexpr std::chrono::milliseconds LeaseTTL = 10s;
inline constexpr std::chrono::milliseconds HeartbeatEvery = 3s;
inline constexpr std::chrono::milliseconds StatementTimeout = 2s;
inline constexpr std::chrono::milliseconds AbandonAfter = 6s;
inline constexpr std::chrono::milliseconds MaxPoll = 5s;
// A lost lease waits min(interval, LostCooldownCap) before the role is due again.
inline constexpr std::chrono::milliseconds LostCooldownCap = 60s;
// A handover (extension 0185) prefers its replica for the role's next ACQUIRE this long after the
// later of the handover and the moment the role became due; then anyone may take it. Two polls:
// the preferred replica, listener or not, tries within MaxPoll (pinned by tst_leaseconstants).
inline constexpr std::chrono::milliseconds PreferFor = 2 * MaxPoll;
// A replica refreshes its row of leader_replicas this often (migration 0178); the view calls it
// alive while seen within 35 s, two beats and a margin.
inline constexpr std::chrono::milliseconds ReplicaSeenEvery = 15s;

// The takeover at process death with a repairable marker (docs/lease-runtime.md, amendment
// 2026-12-05). A contender whose wait on a holder's marker lock was granted waits EarlyTakeGrace
// before its early ACQUIRE. A holder that sees its marker session end lands, within
// MarkerRepairWithin, a RENEW that no longer names the ended marker, or cancels its tick, and the
// cancel reaches a statement in flight within pg::StatementCancelCheck: so a live holder either
// keeps its row or has stopped before any contender may take it (pinned by tst_leaseconstants).
inline constexpr std::chrono::milliseconds EarlyTakeGrace = 200ms;
inline constexpr std::chrono::milliseconds MarkerRepairWithin = 100ms;
// A tick whose row names the marker starts a statement only if the marker's listener saw, this
// recently, that its session had not ended: a process that was stopped (SIGSTOP, a VM pause)
// starts nothing after it resumes until the listener has looked.
inline constexpr std::chrono::milliseconds MarkerFreshFor = 150ms;
// The marker session sends an empty query this often, so that a proxy cutting connections idle for
// 2 s or more never cuts it; one unanswered for MarkerUnprovenAfter makes the marker unproven: it
// is named on no row until it answers again, and the session is kept.
inline constexpr std::chrono::milliseconds MarkerPingEvery = 1s;
inline constexpr std::chrono::milliseconds MarkerUnprovenAfter = 2s;
// What the marker session asks of the server's TCP stack: silence ends it only after
// idle + interval * count (and unacknowledged data after the user timeout), longer than a holder
// that cannot renew takes to stop (AbandonAfter + StatementTimeout) plus one ping's gap.
inline constexpr std::chrono::seconds MarkerKeepalivesIdle = 6s;
inline constexpr std::chrono::seconds MarkerKeepalivesInterval = 2s;
inline constexpr int MarkerKeepalivesCount = 3;
inline constexpr std::chrono::milliseconds MarkerSilenceEnds
        = MarkerKeepalivesIdle + MarkerKeepalivesInterval * MarkerKeepalivesCount;
// A marker session that keeps being ended while its server lives on (a reaper, an idle timeout, a
// proxy's cut) makes every repair a race its holder can lose, which costs the tick. After
// MarkerEndsToSuspend such ends within MarkerEndsWindow the replica names no marker for
// MarkerSuspendFor: its leases end at their expiry, the TTL path, which such ends cannot touch.
inline constexpr int MarkerEndsToSuspend = 2;
inline constexpr std::chrono::minutes MarkerEndsWindow{10};
inline constexpr std::chrono::minutes MarkerSuspendFor{60};

} // namespace leader::lease
