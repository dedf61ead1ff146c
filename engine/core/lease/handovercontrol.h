#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leader::pg {
class Connection;
} // namespace leader::pg

// Handing a role over now (extension 0185, issue 36; docs/handover.md): the operator's side
// (leaderctl handover). The holder ends its tick at its next safe point and the named replica, if
// any, is preferred for the role's next ACQUIRE. Instants are the database's.
namespace leader::lease {

struct HandoverRecord
{
    std::int64_t token = 0; // the holder_token when asked: a later ACQUIRE has a greater one
    std::string at;         // ISO 8601, UTC, milliseconds
    std::string fromHolder; // the holder asked to stop; empty: the role was not held
    std::string toHolder;   // the preferred holder id; empty: any but fromHolder
};

// leader_ext.leader_handover. Throws pg::Error: a refusal (an unknown role or replica: 22023; a
// role not held without a target, paused, or a target not live, drained, not running the role or
// holding it already: 55000), a missing privilege (42501) or function (42883).
HandoverRecord handOver(pg::Connection &connection, std::string_view role, std::string_view by,
                        std::string_view reason, const std::optional<std::string> &toReplica);

// The successor of a handover: a holder other than the one asked (the preferred one, when there
// is one) that acquired the role after it.
struct HandoverSuccessor
{
    std::string holder;
    double secondsAfter = 0; // from the handover to its ACQUIRE, database clock
};
// nullopt while no such holder holds the role.
std::optional<HandoverSuccessor> handoverSuccessor(pg::Connection &connection,
                                                   std::string_view role,
                                                   const HandoverRecord &handover);

} // namespace leader::lease
