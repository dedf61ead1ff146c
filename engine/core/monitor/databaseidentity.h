#pragma once

#include "monitor/statusreader.h"

#include <chrono>
#include <stop_token>
#include <string>

namespace leader::monitor {

// Which database a connection reached, whatever the URL spelled: the console keys what it keeps
// per database (the chart's history) by it, not by the host name, port or profile it was opened
// through.
struct DatabaseIdentity
{
    // pg_control_system()'s system_identifier: the same for localhost and 127.0.0.1, through
    // PgBouncer (the backend's) and on a physical standby of the server. EXECUTE on it is
    // PUBLIC's by default; empty where it was revoked.
    std::string systemIdentifier;
    // The server's address as the session sees it (inet_server_addr, "local" over a Unix socket)
    // and its port setting: what stands in for the identifier where it may not be read.
    std::string serverAddress;
    std::string database; // current_database()
};

// Reads the identity over a short session of its own, like PauseLogReader: timeout bounds the
// connect and each statement, stop ends whichever is in flight within 50 ms. An unprivileged login
// is enough.
Outcome<DatabaseIdentity> readDatabaseIdentity(const std::string &conninfo, std::stop_token stop,
                                               std::chrono::milliseconds timeout);

} // namespace leader::monitor
