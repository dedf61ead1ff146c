#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace bench {

struct Summary
{
    std::size_t n = 0;
    double p50 = 0;
    double p95 = 0;
    double max = 0;
};

// The nearest-rank percentile of sorted samples: the smallest sample with at least p percent of
// the samples at or below it. No interpolation, so every figure printed is one that was measured.
double nearestRank(const std::vector<double> &sorted, int percentile);

// nullopt for no samples.
std::optional<Summary> summarize(std::vector<double> samples);

} // namespace bench
