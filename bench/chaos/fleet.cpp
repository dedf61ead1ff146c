#include "fleet.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <httplib.h>
#include <sstream>
#include <system_error>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace bench::chaos {

namespace {

using namespace std::chrono_literals;
using bench::ExitStatus;

// A replica migrates nothing and opens a pool and a listener: seconds at most on a sane host.
constexpr auto StartTimeout = 30s;
constexpr auto ScrapeEvery = 3s;
// Once past its start-up, a replica's memory is what the soak should keep flat.
constexpr double RssBaselineAge = 60;

// A loopback port nobody listens on now. The replica binds it a moment later; on a loopback
// interface of our own, losing that race is not a real risk.
int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw std::system_error(errno, std::generic_category(), "socket");
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
                       && ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0;
    const int error = errno;
    ::close(fd);
    if (!bound)
        throw std::system_error(error, std::generic_category(), "bind 127.0.0.1:0");
    return ntohs(address.sin_port);
}

std::optional<long> residentKb(int pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) != 0)
            continue;
        std::istringstream fields(line.substr(6));
        long kb = 0;
        if (fields >> kb)
            return kb;
    }
    return std::nullopt;
}

// The sum over roles of hardcount_leader_lease_lost_total{reason="panicked"}.
std::optional<double> panickedTotal(const std::string &exposition)
{
    std::optional<double> total;
    std::istringstream lines(exposition);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("hardcount_leader_lease_lost_total{", 0) != 0
            || line.find("reason=\"panicked\"") == std::string::npos)
            continue;
        const std::size_t space = line.rfind(' ');
        double value = 0;
        const auto [end, error]
                = std::from_chars(line.data() + space + 1, line.data() + line.size(), value);
        if (space == std::string::npos || error != std::errc())
            continue;
        total = total.value_or(0) + value;
    }
    return total;
}

} // namespace

Fleet::Fleet(FleetSetup setup, std::vector<SlotSetup> slots, bench::EventLog &events)
    : m_setup(std::move(setup))
    , m_events(events)
{
    for (SlotSetup &slot : slots)
        m_slots.push_back({.setup = std::move(slot)});
    m_scraper = std::thread(&Fleet::scrapeLoop, this);
}

Fleet::~Fleet()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_scraper.join();
}

std::filesystem::path Fleet::controlSocket(int slot) const
{
    return m_setup.directory / (m_slots[slot].setup.id + ".sock");
}

std::filesystem::path Fleet::errorLog(int slot) const
{
    return m_setup.directory / (m_slots[slot].setup.id + ".log");
}

bool Fleet::running(int slot)
{
    Slot &entry = m_slots[slot];
    return entry.process && !entry.reaped && entry.process->running();
}

int Fleet::pid(int slot) const
{
    return m_slots[slot].process ? m_slots[slot].process->pid() : 0;
}

std::vector<std::string> Fleet::arguments(const Slot &slot, int metricsPort, Route route) const
{
    std::vector<std::string> argv;
    // ip netns exec runs the rest in place, as env does: the pid stays the replica's.
    if (slot.setup.isolated)
        argv = {m_setup.ipBinary.string(), "netns", "exec", m_setup.netns};
    if (slot.setup.skewSeconds != 0) {
        // env execs the replica in place: same pid, so signals and the holder id stay its own.
        // Only the wall clock moves; the monotonic clock the leases are timed by does not.
        const std::string skew = (slot.setup.skewSeconds > 0 ? "+" : "-")
                                 + std::to_string(std::abs(slot.setup.skewSeconds));
        argv.insert(argv.end(), {"/usr/bin/env", "LD_PRELOAD=" + m_setup.faketimeLibrary.string(),
                                 "FAKETIME=" + skew, "FAKETIME_DONT_FAKE_MONOTONIC=1"});
    }
    argv.push_back(m_setup.binary.string());
    const bool direct = slot.setup.path == Path::Direct;
    const std::string &directUrl = slot.setup.isolated       ? m_setup.isolatedUrl
                                   : route == Route::Proxied ? m_setup.proxyUrl
                                                             : m_setup.directUrl;
    argv.insert(argv.end(),
                {"--database", direct ? directUrl : m_setup.bouncerUrl, "--id", slot.setup.id,
                 "--config", m_setup.configFile.string(), "--metrics-port",
                 std::to_string(metricsPort), "--metrics-address", metricsAddress(slot),
                 // Its SIGTERM faults check the immediate stop, not a drain first.
                 "--drain-on-sigterm", "off"});
    if (!direct)
        argv.insert(argv.end(), {"--listen-database", directUrl});
    if (slot.setup.control)
        argv.insert(argv.end(),
                    {"--control", (m_setup.directory / (slot.setup.id + ".sock")).string()});
    return argv;
}

std::string Fleet::lastLogLine(int slot) const
{
    const std::string last = bench::lastNonEmptyLine(errorLog(slot));
    return m_setup.redact ? m_setup.redact(last) : last;
}

void Fleet::noteExit(Slot &slot, const ExitStatus &exit)
{
    const std::lock_guard lock(m_mutex);
    ProcessLife &life = m_lives[slot.life];
    life.endedAt = wallClock();
    life.exit = exit;
    slot.reaped = true;
}

std::string Fleet::metricsAddress(const Slot &slot) const
{
    return slot.setup.isolated ? m_setup.isolatedAddress : "127.0.0.1";
}

void Fleet::start(int slot, Route route)
{
    Slot &entry = m_slots[slot];
    if (entry.process && !entry.reaped) {
        // A predecessor the benchmark killed: reaped first, so its end is on record.
        std::optional<ExitStatus> exit = entry.process->waitForExit(5s);
        if (!exit) {
            entry.process->kill();
            exit = entry.process->waitForExit(5s);
        }
        noteExit(entry, exit.value_or(ExitStatus{}));
    }
    entry.process.reset(); // only its reader thread was left to join
    std::error_code ignored;
    // A killed replica leaves its socket file behind; the new one binds the same path.
    std::filesystem::remove(controlSocket(slot), ignored);
    {
        std::ofstream log(errorLog(slot), std::ios::app);
        log << "---- chaos-bench: starting " << entry.setup.id << "\n";
    }
    const int metricsPort = freeLoopbackPort();
    const std::size_t mark = m_events.size();
    bench::EventLog &events = m_events;
    entry.process = std::make_unique<bench::ReplicaProcess>(
            arguments(entry, metricsPort, route), errorLog(slot),
            m_setup.directory / (entry.setup.id + ".jsonl"),
            [&events](int pid, std::string_view line) {
                bench::ReplicaEvent event = bench::parseEvent(pid, line);
                event.receivedAt = wallClock();
                events.add(std::move(event));
            });
    const int pid = entry.process->pid();
    {
        const std::lock_guard lock(m_mutex);
        entry.life = m_lives.size();
        entry.reaped = false;
        m_lives.push_back({.replica = entry.setup.id,
                           .pid = pid,
                           .metricsAddress = metricsAddress(entry),
                           .metricsPort = metricsPort,
                           .proxied = route == Route::Proxied,
                           .startedAt = wallClock()});
    }
    const auto deadline = std::chrono::steady_clock::now() + StartTimeout;
    for (;;) {
        const std::optional<bench::ReplicaEvent> started = m_events.waitFor(
                [pid](const bench::ReplicaEvent &event) {
                    return event.pid == pid && event.process == ProcessEvent::Started;
                },
                std::min(deadline, std::chrono::steady_clock::now() + 100ms), mark);
        if (started) {
            const std::lock_guard lock(m_mutex);
            m_lives[entry.life].holder = started->holder;
            return;
        }
        if (const std::optional<ExitStatus> exit = entry.process->exitStatus()) {
            noteExit(entry, *exit);
            throw StartError(entry.setup.id + " ended (" + exit->describe()
                             + ") before it was ready: " + lastLogLine(slot));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            {
                const std::lock_guard lock(m_mutex);
                m_lives[entry.life].endedBy = "SIGKILL";
            }
            entry.process->kill();
            noteExit(entry, entry.process->waitForExit(5s).value_or(ExitStatus{}));
            throw StartError(entry.setup.id + " printed no started line within "
                             + std::to_string(StartTimeout.count()) + " s: " + lastLogLine(slot));
        }
    }
}

void Fleet::kill(int slot)
{
    if (!running(slot))
        return;
    {
        const std::lock_guard lock(m_mutex);
        m_lives[m_slots[slot].life].endedBy = "SIGKILL";
    }
    m_slots[slot].process->kill();
}

std::optional<ExitStatus> Fleet::terminate(int slot, std::chrono::milliseconds timeout)
{
    if (!running(slot))
        return std::nullopt;
    Slot &entry = m_slots[slot];
    {
        const std::lock_guard lock(m_mutex);
        m_lives[entry.life].endedBy = "SIGTERM";
    }
    const auto sent = std::chrono::steady_clock::now();
    entry.process->terminate();
    const std::optional<ExitStatus> exit = entry.process->waitForExit(timeout);
    if (exit) {
        noteExit(entry, *exit);
        const std::lock_guard lock(m_mutex);
        m_lives[entry.life].sigtermToExit
                = std::chrono::duration<double>(exit->observedAt - sent).count();
    }
    return exit;
}

void Fleet::stop(int slot)
{
    if (running(slot))
        m_slots[slot].process->freeze();
}

void Fleet::resume(int slot)
{
    if (running(slot))
        m_slots[slot].process->resume();
}

std::vector<int> Fleet::reapUnexpected()
{
    std::vector<int> unexpected;
    for (int slot = 0; slot < size(); ++slot) {
        Slot &entry = m_slots[slot];
        if (!entry.process || entry.reaped)
            continue;
        const std::optional<ExitStatus> exit = entry.process->exitStatus();
        if (!exit)
            continue;
        noteExit(entry, *exit);
        const std::lock_guard lock(m_mutex);
        if (m_lives[entry.life].endedBy.empty())
            unexpected.push_back(slot);
    }
    return unexpected;
}

void Fleet::sampleMemory()
{
    const double now = wallClock();
    for (Slot &entry : m_slots) {
        if (!entry.process || entry.reaped)
            continue;
        const std::optional<long> kb = residentKb(entry.process->pid());
        if (!kb)
            continue;
        const std::lock_guard lock(m_mutex);
        ProcessLife &life = m_lives[entry.life];
        if (!life.rssBaselineKb && now - life.startedAt >= RssBaselineAge)
            life.rssBaselineKb = kb;
        life.rssLastKb = kb;
        life.rssLastAt = now;
    }
}

void Fleet::scrape(int pid, const std::string &address, int port)
{
    httplib::Client client(address, port);
    // A stopped or frozen replica accepts the connection and never answers: short bounds.
    client.set_connection_timeout(1s);
    client.set_read_timeout(2s);
    const httplib::Result response = client.Get("/metrics");
    if (!response || response->status != 200)
        return;
    const std::optional<double> panicked = panickedTotal(response->body);
    if (!panicked)
        return;
    const std::lock_guard lock(m_mutex);
    for (ProcessLife &life : m_lives) {
        if (life.pid == pid && life.metricsPort == port && !life.endedAt)
            life.panickedMetric = panicked;
    }
}

void Fleet::scrape(int slot)
{
    ProcessLife life;
    {
        const std::lock_guard lock(m_mutex);
        if (!m_slots[slot].process || m_slots[slot].reaped)
            return;
        life = m_lives[m_slots[slot].life];
    }
    scrape(life.pid, life.metricsAddress, life.metricsPort);
}

void Fleet::scrapeAll()
{
    std::vector<ProcessLife> targets;
    {
        const std::lock_guard lock(m_mutex);
        for (const ProcessLife &life : m_lives) {
            if (!life.endedAt && !life.holder.empty())
                targets.push_back(life);
        }
    }
    for (const ProcessLife &life : targets)
        scrape(life.pid, life.metricsAddress, life.metricsPort);
}

void Fleet::scrapeLoop()
{
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_for(lock, ScrapeEvery, [this] { return m_stopping; }))
                return;
        }
        scrapeAll();
    }
}

void Fleet::terminateAll(std::chrono::milliseconds timeout)
{
    std::vector<std::pair<int, std::chrono::steady_clock::time_point>> sent;
    for (int slot = 0; slot < size(); ++slot) {
        if (!running(slot))
            continue;
        {
            const std::lock_guard lock(m_mutex);
            m_lives[m_slots[slot].life].endedBy = "SIGTERM";
        }
        m_slots[slot].process->resume();
        m_slots[slot].process->terminate();
        sent.emplace_back(slot, std::chrono::steady_clock::now());
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (const auto &[slot, at] : sent) {
        Slot &entry = m_slots[slot];
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
        std::optional<ExitStatus> exit = entry.process->waitForExit(std::max(left, 0ms));
        if (exit) {
            noteExit(entry, *exit);
            const std::lock_guard lock(m_mutex);
            m_lives[entry.life].sigtermToExit
                    = std::chrono::duration<double>(exit->observedAt - at).count();
            continue;
        }
        entry.process->kill();
        noteExit(entry, entry.process->waitForExit(5s).value_or(ExitStatus{}));
    }
}

std::vector<ProcessLife> Fleet::lives() const
{
    const std::lock_guard lock(m_mutex);
    return m_lives;
}

} // namespace bench::chaos
