#pragma once

#include "roles/billing/billingstore.h"
#include "roles/executor.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace leader::lease {
class TickContext;
}

namespace leader::roles::dunning {

// How long a declined attempt waits before its retry.
inline constexpr std::chrono::seconds RetryEvery{30};

// A due run as ListDueRuns read it: attemptCount is what UpdateRunIfActive must prove.
struct DueRun
{
    std::int64_t id;
    std::int64_t invoiceId;
    std::int64_t tenantId;
    std::int64_t amountCents;
    int attemptCount;
};

enum class RunStatus { Active, Recovered, Exhausted };

struct Transition
{
    bool applied = false;
    RunStatus status = RunStatus::Active; // when applied
};

// A declined billing charge opens the invoice's run (once per invoice), with that charge as
// its attempt 1, so the retries continue the key sequence.
void openRun(Executor executor, std::int64_t invoiceId, std::int64_t token);

// dunning.ListDueRuns: the role's fenced claim. Active runs whose retry is due, oldest first,
// each logged in claim_log; nothing under a superseded token.
std::vector<DueRun> listDueRuns(lease::TickContext &context, int limit);

// One transaction: UpdateRunIfActive (the run is still active at the attempt count it was
// listed with) with its dunning_attempts row, then, only when it applied, the dunning.* event,
// the email and the invoice's settlement. Whatever throws after the update rolls it all back,
// so the run is as it was listed (a retry that throws is rewound).
Transition recordAttempt(Executor executor, const DueRun &run, billing::ChargeOutcome outcome,
                         std::int64_t token);

} // namespace leader::roles::dunning
