#pragma once

namespace leader::pg {
class Connection;
}

namespace leaderctl {

// leaderctl status: the roles' table (or, with json, one document), the backlog, the replicas
// taking no early take, the database clock and what extensions the database lacks. Returns the
// exit code. A database without the lease schema throws schema::SchemaError.
int status(leader::pg::Connection &connection, bool json);

} // namespace leaderctl
