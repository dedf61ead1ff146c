#pragma once

#include "roles/executor.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace leader::lease {
class TickContext;
}

namespace leader::roles::email {

struct QueuedEmail
{
    std::int64_t id;
    std::string kind;
    std::string recipient;
};

// A claim that outlives this without being marked (its leader died mid-send) is taken again.
inline constexpr std::chrono::seconds ReclaimAfter{30};

// email.claimBatch: the role's fenced claim. Takes queued emails (and ones whose claim went
// stale) for this tick's token; returns nothing under a superseded token.
std::vector<QueuedEmail> claimBatch(lease::TickContext &context, int limit);

// The simulated provider call: the email leaves, recorded as an external effect.
void send(Executor executor, const QueuedEmail &email, std::int64_t token);

// email markCAS: marks the email sent only while this tick's claim still holds it. false: a
// newer claim took it meanwhile (the email may then go out twice: at-least-once, counted).
bool markSent(Executor executor, std::int64_t id, std::int64_t token);

} // namespace leader::roles::email
