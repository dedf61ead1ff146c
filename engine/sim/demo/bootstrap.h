#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace leader::embedded {
class Cluster;
}

namespace leader::demo {

// The demo's database on its private cluster.
inline constexpr const char *DemoDatabase = "leader_demo";

// Where the demo keeps its cluster unless told otherwise, the one directory `leaderctl demo` and
// the console share: $XDG_DATA_HOME (else ~/.local/share)/leader-console/demo-cluster, and as root
// /var/lib/leader-console/demo-cluster, since the server's account cannot reach /root.
std::filesystem::path defaultDemoDirectory();

// The demo's bootstrap, the one both `leaderctl demo` and the console's embedded demo run: the
// private cluster in directory started (created on first use), database leader_demo created if
// missing, and the lease and demo migrations applied. progress hears each step in a few words.
// Throws std::exception (pg::Error, schema::SchemaError, or the cluster's own) with what failed;
// a cluster that started is stopped again before the exception leaves.
struct DemoCluster
{
    std::unique_ptr<embedded::Cluster> cluster;
    std::vector<int> applied; // the migrations this run applied, in order; empty: up to date
};
DemoCluster startDemoCluster(const std::filesystem::path &directory,
                             const std::function<void(const std::string &)> &progress = {});

} // namespace leader::demo
