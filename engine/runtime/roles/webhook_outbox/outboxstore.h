#pragma once

#include <cstdint>
#include <vector>

namespace leader::lease {
class TickContext;
}

namespace leader::roles::webhook {

// webhook.ProcessBatch: the webhook_outbox role's fenced claim. In one statement, and so in one
// snapshot and one transaction, it takes undispatched events for this tick's token, creates each
// one's delivery and marks it dispatched. Returns the ids of the events it dispatched; nothing,
// and writes nothing, under a superseded token.
std::vector<std::int64_t> processBatch(lease::TickContext &context, int limit);

} // namespace leader::roles::webhook
