#pragma once

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

struct OutcomeName
{
    Outcome outcome;
    std::string_view name;
};

struct LossReasonName
{
    LossReason reason;
    std::string_view name;
};

// The one name table of each: what RELEASE sends, what the event lines, logs and metric labels
// print, and what readers of those lines parse.
inline constexpr std::array<OutcomeName, 4> OutcomeNames{{
        {Outcome::Completed, "completed"},
        {Outcome::Interrupted, "interrupted"},
        {Outcome::Failed, "failed"},
        {Outcome::Lost, "lost"},
}};

inline constexpr std::array<LossReasonName, 6> LossReasonNames{{
        {LossReason::TakenOver, "taken_over"},
        {LossReason::Released, "released"},
        {LossReason::Paused, "paused"},
        {LossReason::HeartbeatTimeout, "heartbeat_timeout"},
        {LossReason::MarkerLost, "marker_lost"},
        {LossReason::Panicked, "panicked"},
}};

constexpr std::string_view nameOf(Outcome outcome)
{
    for (const OutcomeName &entry : OutcomeNames)
        if (entry.outcome == outcome)
            return entry.name;
    return "?";
}

constexpr std::optional<Outcome> outcomeFromName(std::string_view name)
{
    for (const OutcomeName &entry : OutcomeNames)
        if (entry.name == name)
            return entry.outcome;
    return std::nullopt;
}

constexpr std::string_view nameOf(LossReason reason)
{
    for (const LossReasonName &entry : LossReasonNames)
        if (entry.reason == reason)
            return entry.name;
    return "?";
}

constexpr std::optional<LossReason> lossReasonFromName(std::string_view name)
{
    for (const LossReasonName &entry : LossReasonNames)
        if (entry.name == name)
            return entry.reason;
    return std::nullopt;
}

} // namespace leader::lease
