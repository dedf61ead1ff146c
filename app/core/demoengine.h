#pragma once

#include "core/demotypes.h"
#include "demo/runtypes.h"

namespace leader::console {

// DemoHost's conversions between core/demotypes.h and the engine's demo/runtypes.h. Core's own:
// it includes an engine header, so only core's sources can include it.
faults::Fault toEngine(FaultKind kind);
demo::ReplicaState toEngine(ReplicaState state);
ReplicaState fromEngine(demo::ReplicaState state);
EventKind fromEngine(demo::DemoEventKind kind);

} // namespace leader::console
