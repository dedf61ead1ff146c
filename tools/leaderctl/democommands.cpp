#include "democommands.h"

#include "database.h"
#include "demo/auditor.h"
#include "demo/bootstrap.h"
#include "demo/demorunner.h"
#include "embedded/cluster.h"
#include "exitcodes.h"
#include "log/json.h"
#include "log/log.h"
#include "migratecommand.h"
#include "pg/connection.h"
#include "platform/control.h"
#include "statuscommand.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

namespace leaderctl {

namespace {

std::string infoText(const leader::demo::InvariantResult &invariant)
{
    std::string text;
    for (const auto &[label, value] : invariant.info) {
        std::string words = label;
        std::replace(words.begin(), words.end(), '_', ' ');
        text += (text.empty() ? "" : ", ") + words + " " + std::to_string(value);
    }
    return text;
}

std::string padded(const std::string &text, std::size_t width)
{
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// What `demo --run` prints: one line an event, a replica's state as it changes. The runner calls
// it from its threads one call at a time, so lines never interleave.
class DemoPrinter final : public leader::demo::DemoListener
{
public:
    void progress(const std::string &step) override
    {
        std::cout << "leaderctl: " << step << "\n" << std::flush;
    }
    void event(const leader::demo::DemoEvent &event) override
    {
        std::string line = leader::log::utcTimestamp(event.time) + "  " + padded(event.source, 8)
                           + " " + padded(event.role.empty() ? "-" : event.role, 16) + " "
                           + std::string(leader::demo::nameOf(event.event));
        if (event.token != 0)
            line += " token " + std::to_string(event.token);
        if (!event.detail.empty())
            line += ": " + event.detail;
        std::cout << line << "\n" << std::flush;
    }
    void replicasChanged(const std::vector<leader::demo::ReplicaStatus> &replicas) override
    {
        for (const leader::demo::ReplicaStatus &replica : replicas) {
            const std::string state
                    = std::string(leader::demo::nameOf(replica.state)) + " as " + replica.holderId;
            if (std::exchange(m_states[replica.id], state) != state)
                std::cout << leader::log::utcTimestamp(std::chrono::system_clock::now()) << "  "
                          << padded(replica.id, 8) << " " << padded("-", 16) << " " << state << "\n"
                          << std::flush;
        }
    }
    // The runner's "takeover" event has already said it in a line.
    void takeoverMeasured(const leader::demo::Takeover &) override {}

private:
    std::map<std::string, std::string> m_states;
};

} // namespace

int demo(const DemoOptions &options)
{
    const std::filesystem::path &directory = options.directory;
    leader::demo::DemoCluster demo = leader::demo::startDemoCluster(
            directory, [](const std::string &step) { std::cout << "leaderctl: " << step << "\n"; });
    leader::embedded::Cluster &cluster = *demo.cluster;
    leader::pg::Connection connection = connect(cluster.url(leader::demo::DemoDatabase));
    printApplied(connection.target(), demo.applied);
    status(connection, false);
    if (options.keepRunning) {
        // The server is pg_ctl's daemon, in a session of its own: it outlives this process once
        // the cluster object no longer stops it on the way out.
        cluster.detach();
        std::string dir;
        if (options.directoryGiven) {
            dir = " --dir '";
            for (const char c : directory.string())
                dir += c == '\'' ? std::string("'\\''") : std::string(1, c);
            dir += "'";
        }
        std::cout << "leaderctl: the cluster keeps running; connect with: psql '"
                  << cluster.url(leader::demo::DemoDatabase)
                  << "'; stop it with: leaderctl demo --stop" << dir << "\n";
        return Ok;
    }
    cluster.stop();
    std::cout << "leaderctl: demo cluster stopped (run with --keep-running to explore it)\n";
    return Ok;
}

int stopDemo(const std::filesystem::path &directory)
{
    leader::embedded::Cluster cluster(leader::embedded::ClusterOptions{.directory = directory});
    if (!cluster.attach()) {
        std::cout << "leaderctl: no demo cluster runs in " << directory.string() << "\n";
        return Ok;
    }
    cluster.stop();
    std::cout << "leaderctl: demo cluster in " << directory.string() << " stopped\n";
    return Ok;
}

int runDemo(const DemoRunOptions &options)
{
    // Before any thread starts, so that SIGINT and SIGTERM reach waitForTermination below.
    leader::platform::blockTerminationSignals();

    DemoPrinter printer;
    leader::demo::DemoRunner runner({.directory = options.directory, .replicas = options.replicas},
                                    printer);
    const leader::demo::DemoRunner::StartResult started = runner.start();
    if (!started.error.empty()) {
        std::cerr << "leaderctl: " << started.error << "\n";
        return Failed;
    }
    std::cout << "leaderctl: the demo runs; look inside with psql '" << started.endpoint.socketUrl
              << "'; Ctrl+C stops it\n"
              << std::flush;

    std::atomic<bool> timedOut = false;
    std::jthread timer;
    if (options.limit)
        timer = std::jthread([&timedOut, limit = *options.limit](std::stop_token stop) {
            std::mutex mutex;
            std::condition_variable_any wake;
            std::unique_lock lock(mutex);
            if (wake.wait_for(lock, stop, limit, [] { return false; }) || stop.stop_requested())
                return;
            timedOut = true;
            leader::platform::requestTermination();
        });
    const std::string signal = leader::platform::waitForTermination();
    timer = {};
    std::cout << "leaderctl: " << (timedOut ? "--seconds " + options.limitText : signal)
              << ": stopping the demo\n"
              << std::flush;

    const auto stopping = std::chrono::steady_clock::now();
    runner.stopReplicas();
    const auto replicasStopped = std::chrono::steady_clock::now();
    // The server stays up for the auditor; every lease is released by now.
    leader::pg::Connection connection = connect(started.endpoint.socketUrl);
    const int audited = audit(connection, false);
    const auto serverStopping = std::chrono::steady_clock::now();
    runner.stop();
    const auto serverStopped = std::chrono::steady_clock::now();
    const auto seconds = [](std::chrono::steady_clock::duration duration) {
        std::ostringstream text;
        text << std::fixed << std::setprecision(2)
             << std::chrono::duration<double>(duration).count();
        return text.str();
    };
    std::cout << "leaderctl: demo stopped in "
              << seconds((replicasStopped - stopping) + (serverStopped - serverStopping))
              << " s (replicas " << seconds(replicasStopped - stopping) << " s)\n";
    return audited;
}

int workload(leader::pg::Connection &connection, const leader::demo::WorkloadOptions &options)
{
    std::cout << "leaderctl: creating up to " << options.count << " tenants at "
              << options.ratePerSecond << "/s for at most "
              << std::chrono::duration<double>(options.duration).count() << " s\n"
              << std::flush;
    const auto started = std::chrono::steady_clock::now();
    leader::demo::Workload workload(connection, options);
    const leader::demo::WorkloadCounts counts = workload.run();
    const double seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "leaderctl: created " << counts.tenants << " tenants, " << counts.subscriptions
              << " subscriptions (" << counts.declining << " with a declining first charge), "
              << counts.webhookEvents << " webhook events and " << counts.emails << " emails in "
              << std::fixed << std::setprecision(1) << seconds << " s ("
              << (counts.end == leader::demo::WorkloadEnd::Count ? "count reached"
                                                                 : "duration reached")
              << ")\n";
    return Ok;
}

int audit(leader::pg::Connection &connection, bool json)
{
    const leader::demo::AuditReport report = leader::demo::audit(connection);
    std::vector<const leader::demo::InvariantResult *> failed;
    for (const leader::demo::InvariantResult &invariant : report.invariants) {
        if (!invariant.holds)
            failed.push_back(&invariant);
    }
    if (json) {
        std::cout << "{\"holds\":" << (failed.empty() ? "true" : "false") << ",\"invariants\":[";
        for (std::size_t i = 0; i < report.invariants.size(); ++i) {
            const leader::demo::InvariantResult &invariant = report.invariants[i];
            std::cout << (i ? "," : "") << "{\"role\":" << leader::log::jsonQuoted(invariant.role)
                      << ",\"name\":" << leader::log::jsonQuoted(invariant.name)
                      << ",\"holds\":" << (invariant.holds ? "true" : "false")
                      << ",\"offending\":" << invariant.offending << ",\"samples\":[";
            for (std::size_t s = 0; s < invariant.samples.size(); ++s)
                std::cout << (s ? "," : "") << leader::log::jsonQuoted(invariant.samples[s]);
            std::cout << "],\"info\":{";
            for (std::size_t n = 0; n < invariant.info.size(); ++n)
                std::cout << (n ? "," : "") << leader::log::jsonQuoted(invariant.info[n].first)
                          << ":" << invariant.info[n].second;
            std::cout << "}}";
        }
        std::cout << "]}\n";
    } else {
        std::string role;
        for (const leader::demo::InvariantResult &invariant : report.invariants) {
            if (invariant.role != role) {
                role = invariant.role;
                std::cout << role << "\n";
            }
            std::cout << "  " << (invariant.holds ? "\u2713 " : "\u2717 ") << invariant.name;
            if (!invariant.holds)
                std::cout << ": " << invariant.offending << " offending";
            if (!invariant.info.empty())
                std::cout << " (" << infoText(invariant) << ")";
            std::cout << "\n";
            for (const std::string &sample : invariant.samples)
                std::cout << "      " << sample << "\n";
            if (invariant.offending > static_cast<std::int64_t>(invariant.samples.size()))
                std::cout << "      ... and "
                          << invariant.offending
                                     - static_cast<std::int64_t>(invariant.samples.size())
                          << " more\n";
        }
        std::cout << "audit: " << report.invariants.size() - failed.size() << " of "
                  << report.invariants.size() << " invariants hold\n";
    }
    if (failed.empty())
        return Ok;
    std::string names;
    for (const leader::demo::InvariantResult *invariant : failed)
        names += (names.empty() ? "" : "; ") + invariant->role + ": " + invariant->name;
    std::cerr << "leaderctl: " << failed.size()
              << (failed.size() == 1 ? " invariant fails: " : " invariants fail: ") << names
              << "\n";
    return InvariantFailed;
}

} // namespace leaderctl
