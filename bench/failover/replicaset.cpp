#include "replicaset.h"

#include "host.h"

#include <fstream>

namespace bench::failover {

namespace {

using namespace std::chrono_literals;

// A replica migrates nothing and opens a pool and a listener: seconds at most on a sane host.
constexpr auto StartTimeout = 30s;

} // namespace

ReplicaSet::ReplicaSet(ReplicaSetup setup, int count, EventLog &events)
    : m_setup(std::move(setup))
    , m_events(events)
{
    for (int i = 1; i <= count; ++i)
        m_slots.push_back({.id = m_setup.idPrefix + std::to_string(i)});
}

std::filesystem::path ReplicaSet::controlSocket(int slot) const
{
    return m_setup.directory / (m_slots[slot].id + ".sock");
}

std::filesystem::path ReplicaSet::errorLog(int slot) const
{
    return m_setup.directory / (m_slots[slot].id + ".log");
}

std::vector<std::string> ReplicaSet::arguments(const Slot &slot) const
{
    std::vector<std::string> argv{m_setup.binary.string()};
    if (!m_setup.databaseUrl.empty())
        argv.insert(argv.end(), {"--database", m_setup.databaseUrl});
    if (!m_setup.listenDatabaseUrl.empty())
        argv.insert(argv.end(), {"--listen-database", m_setup.listenDatabaseUrl});
    if (!m_setup.gate.empty())
        argv.insert(argv.end(), {"--gate", m_setup.gate});
    // No --metrics-port: nothing here reads /metrics, and K replicas would need K ports. The
    // control socket is needed by the sever fault, and routes the replica through its link proxy.
    argv.insert(argv.end(),
                {"--roles", m_setup.roles, "--id", slot.id, "--config", m_setup.configFile.string(),
                 "--control", (m_setup.directory / (slot.id + ".sock")).string()});
    // SIGTERM's figure is the immediate stop (released as interrupted), not a drain first.
    argv.insert(argv.end(), {"--drain-on-sigterm", "off"});
    return argv;
}

std::string ReplicaSet::lastLogLine(int slot) const
{
    const std::string last = lastNonEmptyLine(errorLog(slot));
    return m_setup.redact ? m_setup.redact(last) : last;
}

void ReplicaSet::start(int slot)
{
    Slot &entry = m_slots[slot];
    entry.process.reset(); // an exited predecessor: only its reader thread is left to join
    entry.fastWake.reset();
    std::error_code ignored;
    // A killed replica leaves its socket file behind; the new one binds the same path.
    std::filesystem::remove(controlSocket(slot), ignored);
    {
        std::ofstream log(errorLog(slot), std::ios::app);
        log << "---- failover-bench: starting " << entry.id << "\n";
    }
    const std::size_t mark = m_events.size();
    EventLog &events = m_events;
    entry.process = std::make_unique<ReplicaProcess>(
            arguments(entry), errorLog(slot), m_setup.directory / (entry.id + ".jsonl"),
            [&events](int pid, std::string_view line) { events.add(parseEvent(pid, line)); });
    const int pid = entry.process->pid();
    const auto deadline = std::chrono::steady_clock::now() + StartTimeout;
    for (;;) {
        const std::optional<ReplicaEvent> started = m_events.waitFor(
                [pid](const ReplicaEvent &event) {
                    return event.pid == pid && event.process == ProcessEvent::Started;
                },
                std::min(deadline, std::chrono::steady_clock::now() + 100ms), mark);
        if (started) {
            entry.fastWake = started->fastWake;
            return;
        }
        if (const std::optional<ExitStatus> exit = entry.process->exitStatus()) {
            throw ReplicaError("leader-replica " + entry.id + " ended (" + exit->describe()
                               + ") before it was ready: " + lastLogLine(slot) + " [log "
                               + errorLog(slot).string() + "]");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            throw ReplicaError("leader-replica " + entry.id + " printed no started line within "
                               + std::to_string(StartTimeout.count()) + " s [log "
                               + errorLog(slot).string() + "]");
        }
    }
}

void ReplicaSet::startAll()
{
    for (int slot = 0; slot < size(); ++slot)
        start(slot);
}

bool ReplicaSet::running(int slot)
{
    return m_slots[slot].process && m_slots[slot].process->running();
}

std::optional<int> ReplicaSet::slotOfPid(int pid)
{
    for (int slot = 0; slot < size(); ++slot) {
        if (running(slot) && m_slots[slot].process->pid() == pid)
            return slot;
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, std::optional<ExitStatus>>>
ReplicaSet::stopAll(std::chrono::milliseconds timeout)
{
    for (int slot = 0; slot < size(); ++slot) {
        if (running(slot)) {
            m_slots[slot].process->resume();
            m_slots[slot].process->terminate();
        }
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<std::pair<std::string, std::optional<ExitStatus>>> ended;
    for (int slot = 0; slot < size(); ++slot) {
        if (!m_slots[slot].process)
            continue;
        ReplicaProcess &process = *m_slots[slot].process;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
        std::optional<ExitStatus> exit = process.waitForExit(std::max(left, 0ms));
        if (!exit) {
            process.kill();
            process.waitForExit(5s);
        }
        ended.emplace_back(m_slots[slot].id, exit);
    }
    return ended;
}

} // namespace bench::failover
