#pragma once

#include "runtypes.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace leader::demo {

// What a DemoRunner reports. Threading contract: the runner calls these from its own threads (the
// replicas' role runners, the takeover watches, the workload, its supervisor) and from the thread
// inside start(), inject(), stopReplicas() or stop(); it serializes them (never two calls at
// once, each in the order its cause happened). Once stopReplicas() or stop() has returned, only
// inject() calls it, on the caller's thread, to say it refused. A call must be quick, must not
// throw and must not call back into the runner.
class DemoListener
{
public:
    virtual ~DemoListener() = default;

    virtual void progress(const std::string &step) = 0; // during start() and the stops
    virtual void event(const DemoEvent &event) = 0;     // a replica's transition, a fault, ...
    virtual void replicasChanged(const std::vector<ReplicaStatus> &replicas) = 0; // throttled
    virtual void takeoverMeasured(const Takeover &takeover) = 0;
};

// Where the demo's database is reached from outside, once started.
struct DemoEndpoint
{
    std::string host; // loopback TCP, with the superuser's password
    int port = 0;
    std::string database;
    std::string user;
    std::string password;
    std::string socketUrl; // the Unix socket: no password, never cut by a fault; safe to print
};

// The embedded demo, one for `leaderctl demo --run` and the console: the private cluster started
// and migrated (startDemoCluster), N replicas ("r1".."rN") running the five roles with the demo
// profile and fault switchboards, the workload, faults injected on request with the takeovers they
// cause measured on the database clock, and a stop bounded by construction. No exception leaves
// it. Not copyable; start(), inject() and the stops are called from one thread at a time.
class DemoRunner final
{
public:
    struct Options
    {
        // The cluster's directory; empty: defaultDemoDirectory().
        std::filesystem::path directory;
        int replicas = 3;
        bool workload = true;
        // DemoEvent::source of what inject() and the takeover watches report.
        std::string faultSource = "faults";
        // How long a takeover after a fault is waited for before it is reported missing.
        std::chrono::milliseconds takeoverDeadline{40000};
    };

    struct StartResult
    {
        std::string error; // empty: started; else one line, no secret
        DemoEndpoint endpoint;
    };

    DemoRunner(Options options, DemoListener &listener);
    ~DemoRunner(); // stop()
    DemoRunner(const DemoRunner &) = delete;
    DemoRunner &operator=(const DemoRunner &) = delete;

    // Blocks until the cluster is up and the replicas and workload started, reporting progress.
    // On failure everything it started is stopped again. Once only.
    StartResult start();
    // Refused (with an event saying why) when the demo is not running, the replica is unknown or
    // not in a state for it, or an argument is missing. Kill, freeze, sever and stop are followed
    // by a watch that reports each role the victim held when its successor acquires it.
    void inject(const FaultRequest &request);
    // Watches ended, the workload stopped, every fault healed (a frozen replica's statements go
    // out and fail their fence or release what is still theirs), the replicas stopped side by side
    // (their running ticks released); the server keeps running for a last look (the auditor)
    // through the endpoint. Bounded by the statement deadlines; idempotent.
    void stopReplicas();
    // stopReplicas(), then the server stopped. Idempotent.
    void stop();

    bool isRunning() const;
    std::vector<ReplicaStatus> replicas() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace leader::demo
