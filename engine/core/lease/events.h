#pragma once

#include "log/nametable.h"
#include "outcome.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leader::lease {

enum class EventKind {
    Acquired,       // ACQUIRE returned a row: this holder leads the role for one tick
    Released,       // RELEASE ran; outcome says how the tick ended
    ReleaseFailed,  // RELEASE failed: the lease ends at its expiry instead
    Lost,           // the lease was lost mid-tick; reason says how
    LateBeat,       // a RENEW failed or timed out: a missed beat, not yet a loss
    PausedObserved, // the holder found its role paused (RENEW returned no row)
};

// The one name table: what the event lines and the demo's log print, and what their readers parse.
inline constexpr std::array<Named<EventKind>, 6> EventKindNames{{
        {EventKind::Acquired, "acquired"},
        {EventKind::Released, "released"},
        {EventKind::ReleaseFailed, "release_failed"},
        {EventKind::Lost, "lost"},
        {EventKind::LateBeat, "late_beat"},
        {EventKind::PausedObserved, "paused_observed"},
}};
static_assert(namesEveryValue(EventKindNames));

constexpr std::string_view nameOf(EventKind kind)
{
    return nameIn<EventKind>(EventKindNames, kind);
}

constexpr std::optional<EventKind> eventKindFromName(std::string_view name)
{
    return valueIn<EventKind>(EventKindNames, name);
}

// One transition of one role on one replica. Logs, the console and the benchmarks all read this
// one stream.
struct TransitionEvent
{
    EventKind kind;
    std::string role;
    std::int64_t token = 0;
    std::string holderId;
    std::optional<Outcome> outcome;   // Released, ReleaseFailed
    std::optional<LossReason> reason; // Lost, PausedObserved; Released and ReleaseFailed when lost
    std::string detail;               // LateBeat, ReleaseFailed: the error, one line, no secret
    std::chrono::steady_clock::time_point monotonic = std::chrono::steady_clock::now();
    std::chrono::system_clock::time_point wall = std::chrono::system_clock::now();
    std::string databaseTime; // the statement's now(), as the database printed it, when known
};

// Thread-safe fan-out of transition events to every subscriber, on the publishing thread.
// Subscribers must be quick and must not publish from inside their callback.
class EventBus final
{
public:
    using Subscriber = std::function<void(const TransitionEvent &)>;

    // Returns an id for unsubscribe().
    int subscribe(Subscriber subscriber);
    void unsubscribe(int id);
    void publish(const TransitionEvent &event) const;

private:
    mutable std::mutex m_mutex;
    std::vector<std::pair<int, Subscriber>> m_subscribers;
    int m_nextId = 1;
};

} // namespace leader::lease
