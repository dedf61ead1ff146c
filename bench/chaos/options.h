#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bench::chaos {

// A full run: the soak the targets are stated for.
constexpr std::chrono::seconds FullDuration{30 * 60};
// --quick: long enough for one round of every fault, as CI runs it.
constexpr std::chrono::seconds QuickDuration{240};

struct Options
{
    std::string databaseUrl;        // the owner, on every node: setup, workload, probes, audit
    std::string replicaDatabaseUrl; // the app login on every node: the direct replicas
    std::string bouncerDatabaseUrl; // the app login through PgBouncer
    // The idle-cutting proxy's ports, each with the node port it forwards to, and the app login on
    // every node through them; empty: that event is skipped.
    std::vector<std::pair<int, int>> proxyPorts;
    std::string proxyDatabaseUrl;
    // The network namespace r1 runs in, the app login on every node through its link's host end,
    // and r1's own address there; empty: r1 runs on loopback and the partition is skipped.
    std::string netns;
    std::string netnsDatabaseUrl;
    std::string netnsAddress;
    std::filesystem::path serversDirectory; // made by bench/chaos/servers.sh start
    std::filesystem::path serversScript;    // empty: the source tree's bench/chaos/servers.sh
    int replicas = 4;
    std::chrono::seconds duration = FullDuration;
    bool quick = false;
    std::uint64_t seed = 0;
    std::filesystem::path replicaBinary;   // empty: the build tree's, then PATH
    std::filesystem::path leaderctl;       // empty: the build tree's, then PATH
    std::filesystem::path faketimeLibrary; // empty: Debian's libfaketimeMT
    std::filesystem::path jsonFile = "chaos-results.json";
    // The command that reproduces a run when the servers come from a wrapper script: the run's
    // settings are appended to it. Empty: this program's own command line.
    std::string launcher;
    bool help = false;

    std::vector<std::string *> urls()
    {
        return {&databaseUrl, &replicaDatabaseUrl, &bouncerDatabaseUrl, &proxyDatabaseUrl,
                &netnsDatabaseUrl};
    }
};

// Throws UsageError. A seed is drawn when --seed is not given.
Options parseOptions(int argc, char **argv);

extern const char *const HelpText;

// The command that repeats this run with every setting spelled out, passwords replaced by ***.
std::string reproduceCommand(const Options &options, const std::string &program);

} // namespace bench::chaos
