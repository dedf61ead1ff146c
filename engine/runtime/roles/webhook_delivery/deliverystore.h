#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace leader::lease {
class TickContext;
}

namespace leader::roles::webhook {

struct PendingDelivery
{
    std::int64_t id;
    std::int64_t eventId;
    int attempts; // as listed: the mark proves it
    // The simulated endpoint refuses this many POSTs of the event before it accepts one (the
    // event payload's "simulate_failures"; 0 by default).
    int refusals;
};

// A claim that outlives this without being marked (its leader died mid-POST) is taken again.
inline constexpr std::chrono::seconds ReclaimAfter{30};
// A refused POST is retried after RetryBase * 2^attempts; the MaxAttempts-th refusal is final.
inline constexpr std::chrono::milliseconds RetryBase{2000};
inline constexpr int MaxAttempts = 5;

// ErrStaleDeliveryMark: the mark found the delivery no longer as this tick listed it (another
// claim took it, or another marker landed first). The loser writes nothing more.
class StaleDeliveryMark final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// webhook.ListPendingDeliveries: the webhook_delivery role's fenced claim. Takes due pending
// deliveries (and ones whose claim went stale) for this tick's token; nothing under a superseded
// token.
std::vector<PendingDelivery> listPendingDeliveries(lease::TickContext &context, int limit);

// The simulated POST. Returns whether the endpoint accepted it; an accepted POST is recorded as
// an external effect keyed evt_<event id>, a refused one had no effect at the receiver.
bool post(lease::TickContext &context, const PendingDelivery &delivery, std::int64_t token);

// Row CAS on the listed claim and attempts count. Throw StaleDeliveryMark on 0 rows.
void markDelivered(lease::TickContext &context, const PendingDelivery &delivery,
                   std::int64_t token);
// Counts the refused attempt and schedules the next, or marks the delivery dead after
// MaxAttempts.
void markFailed(lease::TickContext &context, const PendingDelivery &delivery, std::int64_t token);

} // namespace leader::roles::webhook
