#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bench::chaos {

// Runs argv (argv[0] a path) to its end, stdin from /dev/null, stdout and stderr appended to log
// (no pipe: a server it starts may hold its output open long after it exits), and returns its
// exit code, or -1 when a signal ended it. Throws std::runtime_error when it outlasts timeout
// (it is killed), std::system_error when it cannot be started.
int runToEnd(const std::vector<std::string> &argv, const std::filesystem::path &log,
             std::chrono::seconds timeout);

// The lines of a file from byte offset from on.
std::vector<std::string> linesFrom(const std::filesystem::path &file, std::uintmax_t from);

// The benchmark's own servers, through bench/chaos/servers.sh: every action runs the script to its
// end with its output appended to a log, and returns the lines it printed ("servers: ...").
class Servers final
{
public:
    Servers(std::filesystem::path script, std::filesystem::path directory,
            std::filesystem::path log);

    // restart, crash, bouncer-restart, bouncer-reconnect, cut-replication, promote,
    // rebuild-standby, idle-timeout VALUE, reap SECONDS, partition-cut, partition-heal. Throws
    // std::runtime_error when the action fails or outlasts timeout.
    std::vector<std::string> run(const std::string &action, std::chrono::seconds timeout,
                                 const std::vector<std::string> &arguments = {});

private:
    const std::filesystem::path m_script;
    const std::filesystem::path m_directory;
    const std::filesystem::path m_log;
};

// One attempt on a fresh connection: the server's clock_timestamp() if it took a read-write
// session, nullopt if it could not be reached or is read-only (a standby).
std::optional<double> writableAt(const std::string &url);

} // namespace bench::chaos
