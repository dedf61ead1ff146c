#pragma once

namespace leader::console {

// 1, 2, 5 × 10^n at or above value: an age axis's top that does not jitter with every poll, the
// same on the live chart and the drill report's.
double niceCeiling(double value);

} // namespace leader::console
