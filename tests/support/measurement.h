#pragma once

#include <QString>

namespace leader::test {

// A figure a test measured (a takeover time, say): logged, and appended to the file named by
// LEADER_TEST_REPORT so that scripts/test.sh can print every figure at the end of the run.
void reportMeasurement(const QString &line);

} // namespace leader::test
