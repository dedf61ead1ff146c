#pragma once

namespace leader::pg {
class Connection;
}

// leaderctl's replicas command over lease/replicaregistry: what it prints.
namespace leaderctl {

// Every registered replica: a table, or one JSON object with a "replicas" array. A database
// without the registry (extension 0178) throws schema::SchemaError with extensionNeeded's line.
void replicas(leader::pg::Connection &connection, bool json);

} // namespace leaderctl
