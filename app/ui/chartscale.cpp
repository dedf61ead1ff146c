#include "chartscale.h"

#include <cmath>
#include <initializer_list>

namespace leader::console {

double niceCeiling(double value)
{
    if (value <= 1.0)
        return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10.0 * magnitude;
}

} // namespace leader::console
