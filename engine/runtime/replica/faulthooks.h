#pragma once

#include "pg/conninfo.h"

#include <optional>
#include <string>
#include <string_view>

namespace leader::replica {

// What a fault injector does to a replica: the demo's and leader-replica --control's switchboard
// (sim/faults) is one. A production replica has none, and carries no fault code.
class FaultHooks
{
public:
    virtual ~FaultHooks() = default;

    // The options every connection of the replica opens with (a gate, a link proxy).
    virtual pg::ConnectOptions route(pg::ConnectOptions options) = 0;
    // Disarms and returns the role's armed panic step, if any: asked at the start of each tick.
    virtual std::optional<std::string> takePanic(std::string_view role) = 0;
    // Re-arms a panic a tick never reached.
    virtual void armPanic(std::string role, std::string step) = 0;
    // The process dies: nothing more may reach the database.
    virtual void kill() = 0;
};

} // namespace leader::replica
