#pragma once

#include "events.h"
#include "replicaprocess.h"
#include "secrets.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench::failover {

// A replica did not start, or stopped when it should not have. The message names it and quotes
// the last line of its log, passwords removed.
class ReplicaError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct ReplicaSetup
{
    std::filesystem::path binary;
    std::string databaseUrl;       // empty: the replicas take DATABASE_URL or the PG* variables
    std::string listenDatabaseUrl; // empty: not passed
    std::string roles;             // for --roles
    std::filesystem::path configFile;
    std::filesystem::path directory; // logs, stdout copies and control sockets
    std::string idPrefix = "r";      // ids are r1, r2, ...
    std::string gate;                // for --gate; empty: not passed (lease)
    Redact redact;                   // removes passwords from log lines
};

// K leader-replica processes with stable ids: a replica killed or stopped by a fault is started
// again under the same id (with a new pid, hence a new holder id).
class ReplicaSet final
{
public:
    ReplicaSet(ReplicaSetup setup, int count, EventLog &events);

    int size() const { return static_cast<int>(m_slots.size()); }
    const std::string &id(int slot) const { return m_slots[slot].id; }
    ReplicaProcess &process(int slot) { return *m_slots[slot].process; }
    std::filesystem::path controlSocket(int slot) const;
    std::filesystem::path errorLog(int slot) const;
    // The fast_wake its last started line reported.
    std::optional<bool> fastWake(int slot) const { return m_slots[slot].fastWake; }

    // Starts the slot (again, if it ran before and has exited) and waits for its started line.
    // Throws ReplicaError.
    void start(int slot);
    void startAll();
    bool running(int slot);
    // The slot whose running child has pid.
    std::optional<int> slotOfPid(int pid);
    // SIGTERM to every running child (thawed first), then waits for each up to timeout; a child
    // still running then is killed. Returns each replica's id and how it ended.
    std::vector<std::pair<std::string, std::optional<ExitStatus>>>
    stopAll(std::chrono::milliseconds timeout);

private:
    struct Slot
    {
        std::string id;
        std::unique_ptr<ReplicaProcess> process;
        std::optional<bool> fastWake;
    };
    std::vector<std::string> arguments(const Slot &slot) const;
    std::string lastLogLine(int slot) const;

    const ReplicaSetup m_setup;
    EventLog &m_events;
    std::vector<Slot> m_slots;
};

} // namespace bench::failover
