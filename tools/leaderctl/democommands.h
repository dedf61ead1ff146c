#pragma once

#include "demo/workload.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace leader::pg {
class Connection;
}

// leaderctl's demo commands: the embedded demo cluster (demo, demo --stop, demo --run) and the
// commands over the demo's schema (workload, audit): what they print and their exit codes.
namespace leaderctl {

struct DemoOptions
{
    std::filesystem::path directory;
    bool directoryGiven = false; // --dir: the stop command printed names it
    bool keepRunning = false;
};

// leaderctl demo: the cluster started and migrated, the status printed, the cluster stopped
// unless keepRunning. A failing cluster throws embedded::ClusterError.
int demo(const DemoOptions &options);
// leaderctl demo --stop.
int stopDemo(const std::filesystem::path &directory);

struct DemoRunOptions
{
    std::filesystem::path directory;
    int replicas = 3;
    std::optional<std::chrono::milliseconds> limit; // --seconds; none: until SIGINT or SIGTERM
    std::string limitText;                          // --seconds as given
};

// leaderctl demo --run: the replicas run until a signal or the limit, then the audit; its exit
// code.
int runDemo(const DemoRunOptions &options);

int workload(leader::pg::Connection &connection, const leader::demo::WorkloadOptions &options);
// The demo's invariants, as a list or with json one document; InvariantFailed when one fails.
int audit(leader::pg::Connection &connection, bool json);

} // namespace leaderctl
