#include "stats.h"

#include <algorithm>

namespace bench {

double nearestRank(const std::vector<double> &sorted, int percentile)
{
    if (sorted.empty())
        return 0;
    // ceil(p * n / 100) in integers: 0.95 * 20 in floating point is a hair above 19.
    const std::size_t p = static_cast<std::size_t>(std::clamp(percentile, 0, 100));
    const std::size_t rank = (p * sorted.size() + 99) / 100;
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::optional<Summary> summarize(std::vector<double> samples)
{
    if (samples.empty())
        return std::nullopt;
    std::sort(samples.begin(), samples.end());
    return Summary{.n = samples.size(),
                   .p50 = nearestRank(samples, 50),
                   .p95 = nearestRank(samples, 95),
                   .max = samples.back()};
}

} // namespace bench
