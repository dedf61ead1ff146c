#pragma once

#include <chrono>
#include <string>

namespace leader::pg {

// How to reach a database. An empty url lets libpq take the standard PG* variables (PGHOST,
// PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...); anything in url wins over them.
struct ConnectOptions
{
    std::string url; // postgresql://... or key=value conninfo
    std::string applicationName = "leader-console";
    std::chrono::milliseconds connectTimeout{5000};
    // A silent peer is declared dead after about idle + interval * count seconds of keepalives, and
    // unacknowledged writes fail after tcpUserTimeout: both well inside the lease TTL.
    int keepalivesIdleSeconds = 5;
    int keepalivesIntervalSeconds = 2;
    int keepalivesCount = 2;
    std::chrono::milliseconds tcpUserTimeout{8000};
};

// The URL from a command line, else DATABASE_URL, else empty (the PG* variables).
std::string databaseUrlFrom(const std::string &commandLineValue);

// "user@host:port/dbname", from the URL and the PG* variables, with no password. For messages.
std::string describeTarget(const std::string &url);

// Replaces every password found in url (URL userinfo, password=..., PGPASSWORD) inside text.
std::string redactSecrets(std::string text, const std::string &url);

} // namespace leader::pg
