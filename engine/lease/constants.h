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
// A replica refreshes its row of leader_replicas this often (migration 0178); the view calls it
// alive while seen within 35 s, two beats and a margin.
inline constexpr std::chrono::milliseconds ReplicaSeenEvery = 15s;

} // namespace leader::lease
