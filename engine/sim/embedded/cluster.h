#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace leader::embedded {

// A one-line, user-facing reason the cluster cannot be created, started or stopped.
class ClusterError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct ClusterOptions
{
    // Holds data/ (the data directory), run/ (the Unix socket), server.log and the superuser's
    // generated password. Created if missing (0700, every parent opened without following a
    // symbolic link), reused if it exists and is private: owned by the caller (as root, by the
    // server's account), writable by nobody else, no link in its path or in it, the password
    // file 0600, the socket directory 0700; anything else is refused with the fix.
    std::filesystem::path directory;
    // Where initdb and pg_ctl live; empty: LEADER_PG_BINDIR, then a server bundled with the
    // executable (the newest <exe>/../lib/postgresql/*/bin), then `pg_config --bindir`, then the
    // newest /usr/lib/postgresql/*/bin (on Windows %ProgramFiles%\PostgreSQL\*\bin).
    std::filesystem::path binDir;
    // The account the server runs as when the caller is root (Postgres refuses root). When it
    // does not exist the cluster refuses to start and says how to create it; it never falls back
    // to a shared account such as nobody. Never used on Windows, where initdb and pg_ctl drop
    // administrative rights themselves and the server runs as the caller.
    std::string serverAccount = "postgres";
    std::chrono::seconds startTimeout{30};
};

// A private PostgreSQL cluster: loopback TCP on a free port, its Unix socket inside its own
// directory, trust on that socket (the directory is private), scram-sha-256 on TCP.
class Cluster final
{
public:
    explicit Cluster(ClusterOptions options);
    ~Cluster(); // stops the server if this object started or adopted it
    Cluster(const Cluster &) = delete;
    Cluster &operator=(const Cluster &) = delete;

    // initdb on first use, then start; a server this directory already runs is adopted, and a
    // stale postmaster.pid left by a killed run is cleared. Returns once it accepts connections.
    void start();
    // Adopts the server this directory already runs, creating and starting nothing; false when
    // none runs there. Then stop() stops it (leaderctl demo --stop).
    bool attach();
    // Leaves the server running when this object goes (leaderctl demo --keep-running); a later
    // start() or attach() on the directory adopts it.
    void detach();
    // Fast shutdown, waiting until the server is gone. No-op when not running.
    void stop();
    bool isRunning() const;

    int port() const;
    std::filesystem::path socketDirectory() const;
    std::string superuser() const;
    std::string password() const;
    // postgresql URL over the Unix socket (no password needed).
    std::string url(std::string_view database = "postgres") const;
    // postgresql URL over loopback TCP, with the superuser's password.
    std::string tcpUrl(std::string_view database = "postgres") const;

    // The directory holding initdb and pg_ctl, found as described for ClusterOptions::binDir.
    static std::filesystem::path findBinDir(const std::filesystem::path &preferred = {});

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace leader::embedded
