#include "registrytypes.h"

#include "core/demoengine.h"

namespace leader::console {

lease::DrainState toEngine(DrainState state)
{
    switch (state) {
    case DrainState::Draining:
        return lease::DrainState::Draining;
    case DrainState::Drained:
        return lease::DrainState::Drained;
    }
    Q_UNREACHABLE();
}

DrainState fromEngine(lease::DrainState state)
{
    switch (state) {
    case lease::DrainState::Draining:
        return DrainState::Draining;
    case lease::DrainState::Drained:
        return DrainState::Drained;
    }
    Q_UNREACHABLE();
}

QString drainStateName(DrainState state)
{
    return QLatin1StringView(lease::nameOf(toEngine(state)));
}

} // namespace leader::console
