#pragma once

#include "analysis.h"
#include "events.h"
#include "fleet.h"
#include "leasewatch.h"
#include "options.h"
#include "pg/connection.h"
#include "record.h"
#include "servers.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace bench::chaos {

struct RunResults
{
    RunRecord record;
    Verdicts verdicts;
    std::string startedAt;
    std::string finishedAt;
    std::string system;
    unsigned processors = 0;
    std::string serverVersion;
    std::string replicaConfig; // the --config file every replica ran with
    std::vector<std::string> notes;
};

// One soak: set-up (migrate, reset, workload, fleet), cycles of replica faults then one database
// event until the duration has passed and every fault kind has landed at least once, a
// fault-free settle, the drain of the outboxes, the stop, and the evidence for the checks. What
// stops the run (a server that does not come back, an interrupt) is thrown; correctness is left
// to analyze().
class ChaosBench final
{
public:
    ChaosBench(const Options &options, std::filesystem::path workDirectory, FleetSetup fleetSetup);
    ~ChaosBench();
    ChaosBench(const ChaosBench &) = delete;
    ChaosBench &operator=(const ChaosBench &) = delete;

    RunResults run();

private:
    using Clock = std::chrono::steady_clock;

    void setUp();
    void writeConfig();
    int leaderctl(const std::vector<std::string> &arguments, std::chrono::seconds timeout,
                  std::vector<std::string> *output = nullptr);
    void startWorkload();
    void restartWorkload();
    void stopWorkload();

    void soak();
    Fault draw(std::vector<Fault> &bag, const std::vector<Fault> &kinds);
    void injectReplicaFault(Fault kind);
    void waitForQuiet();
    void databaseEvent(Fault kind);
    void sessionEvent(Fault kind);
    void idleTimeout(SessionEvent &event, Clock::time_point until);
    void reaper(SessionEvent &event, Clock::time_point until);
    void idleProxy(SessionEvent &event, Clock::time_point until);
    void partition(SessionEvent &event, Clock::duration window);
    // SIGTERM and start again every killable replica on route; returns those started.
    std::vector<std::string> restartKillable(Route route);
    void waitUntilReachable(DatabaseEvent &event, const std::string &what);
    void waitForRecovery(double reachableAt);
    void drain();
    void collect();

    // Housekeeping between the steps: the replicas' lines, unexpected exits, due actions, the
    // memory samples and the workload. Every wait runs it.
    void service();
    void pause(Clock::duration duration);
    void consumeEvents();
    void schedule(Clock::duration after, std::function<void()> action);
    void restart(int slot, std::optional<std::size_t> fault, Route route = Route::Usual);
    void endFault(std::size_t fault);
    std::optional<int> pickVictim(Fault kind);
    bool control(int slot, const std::string &command);
    leader::pg::Result query(const char *statement, const char *sql);
    double uniform(double low, double high);
    void progress(const std::string &line) const;

    const Options m_options;
    const std::filesystem::path m_directory;
    const Redact m_redact;
    const bool m_quick;
    leader::pg::Connection m_db;
    bench::EventLog m_events;
    Fleet m_fleet;
    Servers m_servers;
    std::mt19937_64 m_random;
    RunRecord m_record;
    std::vector<std::string> m_notes;
    std::string m_serverVersion;

    struct Pending
    {
        Clock::time_point at;
        std::function<void()> action;
    };
    std::vector<Pending> m_pending;
    std::vector<std::optional<std::size_t>> m_busy; // per slot: the fault in force on it
    std::vector<bool> m_faultActive;                // per m_record.replicaFaults entry
    Clock::time_point m_quietFrom;                  // no fault's effect lingers after it
    bool m_outage = false;                          // a database event is under way
    std::map<Fault, int> m_counts;
    std::vector<Fault> m_sessionKinds; // the session events this run can make
    Clock::time_point m_nextMemorySample;

    // What the replicas' lines said so far, for the waits.
    std::size_t m_consumed = 0;
    std::int64_t m_acquired = 0;
    std::map<std::tuple<int, std::string, std::int64_t>, double> m_openTicks;
    std::map<std::string, double> m_lastCompleted; // role -> the latest completed tick's ACQUIRE
    std::vector<std::tuple<int, std::string, double>> m_failedTicks; // pid, role, acquired
    std::deque<std::pair<int, std::string>> m_recentAcquired; // pid, role: the latest ACQUIREs

    std::unique_ptr<LeaseWatch> m_leaseWatch;
    std::unique_ptr<bench::ReplicaProcess> m_workload;
    Clock::time_point m_workloadUntil;
    int m_workloadRestarts = 0;
};

} // namespace bench::chaos
