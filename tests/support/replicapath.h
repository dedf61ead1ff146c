#pragma once

// For a suite that runs leader-replica as a process: include it where LEADER_REPLICA_PATH (the
// build's leader-replica) is defined.

#include <QString>

namespace leader::test {

// The production replica (no --control, no --gate advisory) when the run names it: the
// .production tests of tests/tools/CMakeLists.txt. Empty otherwise.
inline QString productionReplica()
{
    return qEnvironmentVariable("LEADER_TEST_PRODUCTION_REPLICA");
}

// The leader-replica to run: the production one when named, else the build's, which has fault
// injection.
inline QString replicaPath()
{
    const QString production = productionReplica();
    return production.isEmpty() ? QStringLiteral(LEADER_REPLICA_PATH) : production;
}

} // namespace leader::test
