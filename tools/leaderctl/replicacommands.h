#pragma once

namespace leader::pg {
class Connection;
}

// leaderctl's replicas command over lease/replicaregistry: what it prints.
namespace leaderctl {

// Every registered replica: a table, or one JSON object with a "replicas" array. A database
// without the registry (before migration 0178) prints one line saying so and is not an error.
void replicas(leader::pg::Connection &connection, bool json);

} // namespace leaderctl
