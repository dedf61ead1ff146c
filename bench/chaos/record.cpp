#include "record.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>

namespace bench::chaos {

double wallClock()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
}

bool isDatabaseFault(Fault kind)
{
    return std::ranges::find(DatabaseFaultKinds, kind) != std::end(DatabaseFaultKinds);
}

bool isSessionEvent(Fault kind)
{
    return std::ranges::find(SessionEventKinds, kind) != std::end(SessionEventKinds);
}

std::string SlotSetup::describe() const
{
    std::string text = id + (path == Path::Direct ? " (direct" : " (PgBouncer");
    if (control)
        text += ", switchboard";
    if (skewSeconds != 0)
        text += std::string(", clock ") + (skewSeconds > 0 ? "+" : "\u2212")
                + std::to_string(std::abs(skewSeconds) / 3600) + " h";
    if (isolated)
        text += ", own network namespace";
    if (!killable)
        text += ", never killed";
    return text + ")";
}

} // namespace bench::chaos
