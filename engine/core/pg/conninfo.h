#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

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
    // Called on the statement's thread before each statement (or its connect) starts, and before
    // its deadline is reckoned. Fault injection blocks here to freeze the caller as SIGSTOP would,
    // or throws to stop it as a process death would; empty in production.
    std::function<void()> gate;
    // Its owner's way to end a connect or a statement from another thread: once stop is requested
    // the wait in progress ends within StopCheckEvery, the connection is closed and the call
    // throws a transport error (a statement not yet sent is not sent). Without it a connect to a
    // server that accepts and never answers holds its thread until connect_timeout.
    std::stop_token stop;
};

// How often a wait on the server looks at ConnectOptions::stop.
inline constexpr std::chrono::milliseconds StopCheckEvery{50};

// The URL from a command line, else DATABASE_URL, else empty (the PG* variables).
std::string databaseUrlFrom(const std::string &commandLineValue);

// "user@host:port/dbname", from the URL and the PG* variables, with no password. For messages.
// A multi-host URL names every server in libpq's order: "user@h1:5432,h2:5433/dbname". An
// unreadable one (below) is "an unreadable connection URL" (or "string"): no piece of it.
std::string describeTarget(const std::string &url);

// The first server a URL names, as libpq would reach it (the PG* variables filling the gaps).
struct Endpoint
{
    std::string host; // a name or address; a directory for a Unix-domain socket
    int port = 5432;
    bool unixSocket = false;
};
Endpoint endpointOf(const std::string &url);

// The same connection made to another TCP address (a link proxy in front of the server): the
// address goes in hostaddr and the port replaces the URL's, while host still names the real
// server, so TLS verification and .pgpass lookups are unchanged. Only the first server of a
// multi-host URL is moved; the others stay as they are, in the same order, each with its own
// port. Returns key=value conninfo.
std::string throughAddress(const std::string &url, const std::string &address, int port);

// One key=value conninfo per server a URL names (one for a single-host URL), in libpq's order,
// each naming that server alone and keeping every other keyword (target_session_attrs among
// them). libpq bounds each host of a list by connect_timeout only in its blocking connect: an
// asynchronous connect that must not spend its whole deadline on a silent first host tries these
// one at a time, each with its own share.
std::vector<std::string> serverConninfos(const std::string &url);

// Every message and redaction below reads a connection string the one way libpq reads it
// (PQconninfoParse). A string libpq refuses, or a URL whose text libpq would read other than its
// author meant (a raw '@' after its user info, a raw '/' or ':' in a password turning its pieces
// into a port or a database name), is "unreadable": it is never handed to libpq, never described
// beyond "an unreadable connection URL", and every piece of text that could be its password is
// masked.

// Why url cannot be used as written, in one line quoting no password, with the fix; nullopt when
// libpq reads it as meant.
std::optional<std::string> unreadableReason(const std::string &url);

// Replaces every password found in url (URL userinfo, password=..., PGPASSWORD) inside text; for
// an unreadable url, every piece of its text that could be a password.
std::string redactSecrets(std::string text, const std::string &url);

// url without its password, in the same form (a URL stays a URL), for a child process's command
// line: the password travels in its environment (PGPASSWORD) or a passfile instead. Throws
// std::invalid_argument (no password in the message) for an unreadable url.
std::string withoutPassword(const std::string &url);

// The password url carries (libpq's reading, percent-decoded), empty if none.
std::string passwordOf(const std::string &url);

} // namespace leader::pg
