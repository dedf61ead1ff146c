#pragma once

#include "outcome.h"

#include <chrono>
#include <string_view>

namespace leader::lease {

// What the lease runtime reports as it runs, for whoever measures it (metrics::LeaseMetrics, the
// Prometheus series). Called from the runners' threads: implementations are thread-safe.
class Instruments
{
public:
    virtual ~Instruments() = default;

    virtual void leaseLost(std::string_view role, LossReason reason) = 0;
    virtual void tickFinished(std::string_view role, std::chrono::duration<double> duration) = 0;
    virtual void acquireRoundTrip(std::string_view role, std::chrono::duration<double> duration)
            = 0;
    virtual void renewRoundTrip(std::string_view role, std::chrono::duration<double> duration) = 0;
};

} // namespace leader::lease
