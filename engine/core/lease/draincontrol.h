#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace leader::pg {
class Connection;
struct StatementWindow;
} // namespace leader::pg

// Draining a replica (extension 0183, issue 36): the operator's side (leaderctl drain and undrain,
// the console's Replicas tab) and the replica's own drain beat. A replica is named by its
// leader-replica --id, so a drain outlives the process until it is undrained. Every instant is the
// database's (ISO 8601, UTC, milliseconds).
namespace leader::lease {

// A drain the database refused because it would leave these roles with no eligible replica (a
// live, undrained replica running the role, which is not paused); --force drains anyway.
class DrainRefused final : public std::runtime_error
{
public:
    DrainRefused(const std::string &message, std::vector<std::string> roles)
        : std::runtime_error(message)
        , m_roles(std::move(roles))
    {}
    const std::vector<std::string> &roles() const { return m_roles; }

private:
    std::vector<std::string> m_roles;
};

struct DrainRecord
{
    std::string name;
    std::string drainedAt;
    std::string drainedBy;
    std::string reason;
    // false: the replica was drained already and these are that drain's fields.
    bool byThisCall = false;
    // Roles left with no eligible replica by this forced drain; empty otherwise.
    std::vector<std::string> orphaned;
};

// leader_ext.leader_drain in one transaction with the reading of its record. Throws DrainRefused
// (force false and a role would be left with no eligible replica), pg::Error (an unknown replica:
// 22023; a missing privilege: 42501; a missing function: 42883).
DrainRecord drainReplica(pg::Connection &connection, std::string_view name, std::string_view by,
                         std::string_view reason, bool force);
// false: it was not drained. Throws pg::Error (an unknown replica: 22023).
bool undrainReplica(pg::Connection &connection, std::string_view name, std::string_view by,
                    std::string_view reason);
// The drain predicate, read only (the monitor role may ask): the roles draining name would leave
// with no eligible replica. Throws pg::Error.
std::vector<std::string> drainOrphans(pg::Connection &connection, std::string_view name);

// A holder of a role outside the replica registry (extension 0189): a replica that speaks only
// the ADR, or another tool's ACQUIRE. It takes no drain and no hand-over request, and may run the
// role whatever the registry says.
struct OutsideHolder
{
    std::string role;
    std::string holder;
    double lastSeenAgeSeconds = 0; // since its last ACQUIRE or RELEASE of the role
    bool holdsNow = false;
    double heldForSeconds = 0;             // while it holds: since its ACQUIRE
    std::optional<double> lastTickSeconds; // its last tick of the role that was seen to end
};
// Those seen in the last hour, of one role (empty: every role) or of the roles a replica named
// name runs (byReplica); most recently seen first. Throws pg::Error (42P01 before 0189).
std::vector<OutsideHolder> outsideHolders(pg::Connection &connection, std::string_view role = {});
std::vector<OutsideHolder> outsideHoldersOfReplica(pg::Connection &connection,
                                                   std::string_view name);

// What the registry says of a replica's drain, over its live rows (a gone one runs nothing).
struct DrainProgress
{
    bool known = false;               // some row, live or gone, has this name
    bool flagged = false;             // drained in the database
    bool drained = false;             // flagged, and every live row reports it runs no tick
    std::vector<std::string> running; // roles a live row still runs
};
DrainProgress drainProgress(pg::Connection &connection, std::string_view name);

// The replica's drain beat (leader_replica_drain_beat): reports whether it drains on its own
// (local, at SIGTERM) and, while it drains, the roles it still runs (nullopt: it does not drain
// yet); returns whether its name is drained in the database. Throws pg::Error.
bool drainBeat(pg::Connection &connection, std::string_view holderId, bool local,
               const std::optional<std::vector<std::string>> &running,
               std::chrono::milliseconds timeout);

} // namespace leader::lease
