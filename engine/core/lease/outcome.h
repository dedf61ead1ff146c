#pragma once

#include "log/nametable.h"

#include <array>
#include <optional>
#include <string_view>

namespace leader::lease {

// How a tick ended: what RELEASE is told, and what the Released event reports.
enum class Outcome {
    Completed,   // work returned: stamps last_tick_ended_at and last_tick_holder
    Interrupted, // a shutdown cancelled the tick: no stamp, no added wait
    Failed,      // the work threw: no stamp, not_before = now() + interval
    Lost,        // the lease was lost: no stamp, not_before = now() + min(interval, 60 s)
};

// Why a lease was lost mid-tick.
enum class LossReason {
    TakenOver,        // RENEW found another token in the row
    Released,         // RENEW found the row released
    Paused,           // RENEW found the role paused
    HeartbeatTimeout, // no RENEW was acknowledged within AbandonAfter
    MarkerLost,       // the row named a marker that ended and was not repaired in time
    Panicked,         // the work threw: only the lease_lost metric says it (the outcome is Failed)
};

// The one name table of each: what RELEASE sends, what the event lines, logs and metric labels
// print, and what readers of those lines parse.
inline constexpr std::array<Named<Outcome>, 4> OutcomeNames{{
        {Outcome::Completed, "completed"},
        {Outcome::Interrupted, "interrupted"},
        {Outcome::Failed, "failed"},
        {Outcome::Lost, "lost"},
}};
static_assert(namesEveryValue(OutcomeNames));

inline constexpr std::array<Named<LossReason>, 6> LossReasonNames{{
        {LossReason::TakenOver, "taken_over"},
        {LossReason::Released, "released"},
        {LossReason::Paused, "paused"},
        {LossReason::HeartbeatTimeout, "heartbeat_timeout"},
        {LossReason::MarkerLost, "marker_lost"},
        {LossReason::Panicked, "panicked"},
}};
static_assert(namesEveryValue(LossReasonNames));

constexpr std::string_view nameOf(Outcome outcome)
{
    return nameIn<Outcome>(OutcomeNames, outcome);
}

constexpr std::optional<Outcome> outcomeFromName(std::string_view name)
{
    return valueIn<Outcome>(OutcomeNames, name);
}

constexpr std::string_view nameOf(LossReason reason)
{
    return nameIn<LossReason>(LossReasonNames, reason);
}

constexpr std::optional<LossReason> lossReasonFromName(std::string_view name)
{
    return valueIn<LossReason>(LossReasonNames, name);
}

} // namespace leader::lease
