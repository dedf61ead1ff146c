#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leader::demo {

struct AuditOptions
{
    // Work younger than this may still be on its way (a tick in progress, a takeover), so the
    // at-least-once checks leave it out.
    std::chrono::seconds grace{60};
    int sampleLimit = 5; // offending rows shown per invariant
};

struct InvariantResult
{
    std::string role; // one of the five, or "all roles"
    std::string name;
    bool holds = true;
    std::int64_t offending = 0;
    // The fence's own invariant, "no row claimed under a stale token": what reports count as stale
    // claims accepted.
    bool fencing = false;
    std::vector<std::string> samples; // at most AuditOptions::sampleLimit offending rows, as text
    // What was checked, and what is allowed but worth seeing (duplicates of at-least-once effects).
    std::vector<std::pair<std::string, std::int64_t>> info;
};

struct AuditReport
{
    std::vector<InvariantResult> invariants; // grouped by role, in the order of the roles
    bool allHold() const;
};

// Checks the demo domain's correctness invariants (ADR-114: fenced claims, CAS completions,
// idempotency, at-least-once effects), role by role. Each check is one read-only statement, so it
// sees one snapshot and runs through a transaction pooler. Throws pg::Error.
AuditReport audit(pg::Connection &connection, const AuditOptions &options = {});

} // namespace leader::demo
