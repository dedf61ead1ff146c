#pragma once

#include "events.h"
#include "record.h"
#include "replicaprocess.h"
#include "secrets.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench::chaos {

// How a process reaches Postgres directly: as its slot says, or through the idle-cutting proxy
// (a direct slot's --database, a PgBouncer slot's --listen-database).
enum class Route { Usual, Proxied };

// A replica did not start. The message names it and quotes the last line of its log.
class StartError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct FleetSetup
{
    std::filesystem::path binary;
    std::filesystem::path faketimeLibrary;
    std::string directUrl;  // the direct replicas' --database, and everyone's --listen-database
    std::string bouncerUrl; // the PgBouncer replicas' --database
    std::string proxyUrl;   // directUrl through the idle-cutting proxy; empty: none
    // The isolated slot's: ip netns exec NETNS runs it, directUrl through the veth's host end
    // is its --database, and it serves /metrics on its own end, isolatedAddress.
    std::filesystem::path ipBinary;
    std::string netns;
    std::string isolatedUrl;
    std::string isolatedAddress;
    std::filesystem::path configFile;
    std::filesystem::path directory; // logs, stdout copies, control sockets
    Redact redact;
};

// K leader-replica slots, each running one process at a time under a stable id: a process the
// benchmark killed is started again in its slot with a new pid (so a new holder id). Every
// process serves /metrics on a loopback port of its own, scraped in the background for its
// panicked count; its resident memory is sampled from /proc. One thread drives the fleet; the
// scraper is internal.
class Fleet final
{
public:
    Fleet(FleetSetup setup, std::vector<SlotSetup> slots, bench::EventLog &events);
    // Stops the scraper; a process still running is killed.
    ~Fleet();
    Fleet(const Fleet &) = delete;
    Fleet &operator=(const Fleet &) = delete;

    int size() const { return static_cast<int>(m_slots.size()); }
    const SlotSetup &setup(int slot) const { return m_slots[slot].setup; }
    std::filesystem::path controlSocket(int slot) const;
    std::filesystem::path errorLog(int slot) const;
    bool running(int slot);
    int pid(int slot) const; // of its current or last process; 0 before the first start

    // Starts the slot's process and waits for its started line. Throws StartError.
    void start(int slot, Route route = Route::Usual);
    // The faults the benchmark deals with signals. kill and terminate mark the end as the
    // benchmark's doing; terminate waits for the exit up to timeout and returns it.
    void kill(int slot);
    std::optional<bench::ExitStatus> terminate(int slot, std::chrono::milliseconds timeout);
    void stop(int slot);
    void resume(int slot);

    // Reaps the processes that have exited and returns the slots whose process ended without
    // the benchmark ending it, once each.
    std::vector<int> reapUnexpected();
    // VmRSS of every running process.
    void sampleMemory();
    // Scrapes the slot's, or every running process's, /metrics now, each bounded by a short
    // timeout.
    void scrape(int slot);
    void scrapeAll();
    // SIGTERM to every running process (thawed first), waiting up to timeout for all.
    void terminateAll(std::chrono::milliseconds timeout);

    std::vector<ProcessLife> lives() const;

private:
    struct Slot
    {
        SlotSetup setup;
        std::unique_ptr<bench::ReplicaProcess> process;
        std::size_t life = 0; // index into m_lives of the current process
        bool reaped = true;
    };
    std::vector<std::string> arguments(const Slot &slot, int metricsPort, Route route) const;
    std::string lastLogLine(int slot) const;
    std::string metricsAddress(const Slot &slot) const;
    void noteExit(Slot &slot, const bench::ExitStatus &exit);
    void scrapeLoop();
    void scrape(int pid, const std::string &address, int port);

    const FleetSetup m_setup;
    bench::EventLog &m_events;
    std::vector<Slot> m_slots;

    mutable std::mutex m_mutex; // m_lives: the scraper writes the panicked counts
    std::vector<ProcessLife> m_lives;
    std::condition_variable m_wake;
    bool m_stopping = false;
    std::thread m_scraper;
};

} // namespace bench::chaos
