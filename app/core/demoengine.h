#pragma once

#include "core/demotypes.h"
#include "core/registrytypes.h"
#include "core/statustypes.h"
#include "demo/runtypes.h"
#include "lease/outcome.h"
#include "lease/replicaregistry.h"

namespace leader::console {

// The conversions between core's value types and the engine's, each a switch the compiler checks
// for every value: DemoHost's (core/demotypes.h and demo/runtypes.h) and the poller's (outcomes
// and drains). Core's own: it includes engine headers, so only core's sources can include it.
faults::Fault toEngine(FaultKind kind);
demo::ReplicaState toEngine(ReplicaState state);
ReplicaState fromEngine(demo::ReplicaState state);
EventKind fromEngine(demo::DemoEventKind kind);
lease::Outcome toEngine(TickOutcome outcome);
TickOutcome fromEngine(lease::Outcome outcome);
lease::LossReason toEngine(LossReason reason);
LossReason fromEngine(lease::LossReason reason);
lease::DrainState toEngine(DrainState state);
DrainState fromEngine(lease::DrainState state);

} // namespace leader::console
