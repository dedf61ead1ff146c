// scale-host: K engine replicas in one process, so that a thousand fit on one machine. Each is a
// real lease::Manager with one scheduler::RoleRunner per role and the replica registry's beat
// (replica::Registrar), sending the real ACQUIRE / RENEW / RELEASE statements; the work of a tick
// is simulated (a wait of --work), the roles' domain work is not run. Prints one JSON line per
// lease transition on stdout; SIGUSR1 writes every statement's round trip to --samples, SIGTERM or
// SIGINT stops the replicas cleanly (ticks released as interrupted) and exits 0.

#include "lease/constants.h"
#include "lease/events.h"
#include "lease/manager.h"
#include "lease/replicaregistry.h"
#include "lease/roles.h"
#include "log/json.h"
#include "log/log.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/process.h"
#include "replica/profile.h"
#include "replica/registrar.h"
#include "scheduler/leaseboard.h"
#include "scheduler/rolerunner.h"
#include "schema/features.h"
#include "statementclock.h"

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using leader::scheduler::PollMode;

struct HostOptions
{
    std::string databaseUrl;
    std::string name = "h1"; // replicas are name-r1, name-r2, ...
    int replicas = 1;
    std::vector<std::string> roles;
    std::chrono::milliseconds interval = 1h;
    std::chrono::milliseconds work = 100ms;
    // The replicas start evenly over this span, as a fleet's processes do, not in lockstep.
    std::chrono::milliseconds spread = 5s;
    PollMode poll = PollMode::AcquireFirst;
    // Read-first: leader_ext.leader_board where the database has it (0188), as a replica reads.
    bool boardFunction = true;
    std::string samples;
};

constexpr const char *Usage
        = "usage: scale-host --database URL --samples FILE [--name NAME] [--replicas K]\n"
          "                  [--roles a,b,...] [--interval DURATION] [--work DURATION]\n"
          "                  [--spread DURATION] [--poll acquire-first|read-first]\n"
          "                  [--board-read function|inline]\n";

int positive(const std::string &text, const std::string &option)
{
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value <= 0)
        throw std::invalid_argument(option + " wants a positive integer, not " + text);
    return value;
}

std::vector<std::string> split(const std::string &text)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        if (end > start)
            parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

HostOptions parse(int argc, char **argv)
{
    HostOptions options;
    for (const std::string_view role : leader::lease::Roles)
        options.roles.emplace_back(role);
    for (int index = 1; index < argc; ++index) {
        const std::string option = argv[index];
        if (index + 1 >= argc)
            throw std::invalid_argument(option + " needs a value");
        const std::string value = argv[++index];
        if (option == "--database")
            options.databaseUrl = value;
        else if (option == "--name")
            options.name = value;
        else if (option == "--replicas")
            options.replicas = positive(value, option);
        else if (option == "--roles")
            options.roles = split(value);
        else if (option == "--interval")
            options.interval = leader::replica::parseDuration(value);
        else if (option == "--work")
            options.work = leader::replica::parseDuration(value);
        else if (option == "--spread")
            options.spread = leader::replica::parseDuration(value);
        else if (option == "--samples")
            options.samples = value;
        else if (option == "--poll" && (value == "acquire-first" || value == "read-first"))
            options.poll = value == "read-first" ? PollMode::ReadFirst : PollMode::AcquireFirst;
        else if (option == "--board-read" && (value == "function" || value == "inline"))
            options.boardFunction = value == "function";
        else
            throw std::invalid_argument("unknown option or value: " + option + " " + value);
    }
    if (options.databaseUrl.empty() || options.samples.empty())
        throw std::invalid_argument("--database and --samples are required");
    return options;
}

// One line at a time from any thread: the driver reads them as they come.
class Output final
{
public:
    void line(const std::string &fields)
    {
        const std::string text = "{\"ts\":"
                                 + leader::log::jsonQuoted(leader::log::utcTimestamp(
                                         std::chrono::system_clock::now()))
                                 + fields + "}\n";
        const std::lock_guard lock(m_mutex);
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    }

private:
    std::mutex m_mutex;
};

std::string transitionFields(const std::string &replica,
                             const leader::lease::TransitionEvent &event)
{
    using leader::log::jsonQuoted;
    std::string fields = ",\"replica\":" + jsonQuoted(replica) + ",\"holder\":"
                         + jsonQuoted(event.holderId) + ",\"role\":" + jsonQuoted(event.role)
                         + ",\"event\":" + jsonQuoted(nameOf(event.kind))
                         + ",\"token\":" + std::to_string(event.token);
    if (event.outcome)
        fields += ",\"outcome\":" + jsonQuoted(nameOf(*event.outcome));
    if (event.reason)
        fields += ",\"reason\":" + jsonQuoted(nameOf(*event.reason));
    if (!event.databaseTime.empty())
        fields += ",\"db_time\":" + jsonQuoted(event.databaseTime);
    return fields;
}

// This machine's clock in seconds since the epoch, to the microsecond (ts has milliseconds).
std::string epochNow()
{
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", std::chrono::duration<double>(now).count());
    return text;
}

// One engine replica without the roles' domain work: the manager, a runner per role (sharing a
// LeaseBoard when reading first), and the registry beat.
class BenchReplica final
{
public:
    BenchReplica(const HostOptions &options, const leader::schema::LeaseFeatures &features,
                 const std::string &id, Output &output)
        : m_id(id)
        , m_manager(
                  {.database = {.url = options.databaseUrl, .applicationName = "scale-host " + id},
                   .heartbeat = {.url = options.databaseUrl,
                                 .applicationName = "scale-host " + id + " heartbeat"},
                   .events = &m_events})
    {
        m_events.subscribe([this, &output](const leader::lease::TransitionEvent &event) {
            output.line(transitionFields(m_id, event));
        });
        if (options.poll == PollMode::ReadFirst) {
            m_board = std::make_unique<leader::scheduler::LeaseBoard>(m_manager.pool(),
                                                                      m_manager.holderId());
            // As Replica::start sets it: the board's statement is the one a replica sends.
            m_board->setHandovers(features.has(leader::schema::Extension::Handover));
            m_board->setBoardFunction(options.boardFunction
                                      && features.has(leader::schema::Extension::BoardRead));
        }
        const std::chrono::milliseconds work = options.work;
        for (const std::string &role : options.roles)
            m_runners.push_back(std::make_unique<leader::scheduler::RoleRunner>(
                    m_manager,
                    leader::scheduler::RoleSchedule{
                            role, options.interval,
                            [this, work, &output](leader::lease::TickContext &tick) {
                                const bool finished = tick.sleepFor(work);
                                // When the tick stopped leading, whatever its RELEASE meets
                                // later: the double-leading check ends the tick here.
                                output.line(
                                        ",\"replica\":" + leader::log::jsonQuoted(m_id)
                                        + ",\"holder\":" + leader::log::jsonQuoted(tick.holderId())
                                        + ",\"role\":" + leader::log::jsonQuoted(tick.role())
                                        + ",\"event\":\"work_ended\",\"token\":"
                                        + std::to_string(tick.token()) + ",\"at\":" + epochNow());
                                if (!finished)
                                    tick.throwIfCancelled();
                            }},
                    m_board.get()));
        m_registrar = std::make_unique<leader::replica::Registrar>(
                m_manager.pool(),
                leader::lease::ReplicaInfo{.holderId = m_manager.holderId(),
                                           .host = leader::platform::hostName(),
                                           .pid = leader::platform::processId(),
                                           .version = LEADER_VERSION,
                                           .roles = options.roles},
                leader::lease::ReplicaSeenEvery);
    }

    void start()
    {
        m_registrar->start();
        for (const auto &runner : m_runners)
            runner->start();
    }
    // Cancels running ticks (released as interrupted) without waiting; finish() joins.
    void beginStop()
    {
        m_registrar->requestStop(true);
        m_manager.shutdown();
    }
    void finish()
    {
        for (const auto &runner : m_runners)
            runner->stop();
        m_registrar->join();
    }

private:
    const std::string m_id;
    leader::lease::EventBus m_events;
    leader::lease::Manager m_manager;
    std::unique_ptr<leader::scheduler::LeaseBoard> m_board;
    std::vector<std::unique_ptr<leader::scheduler::RoleRunner>> m_runners;
    std::unique_ptr<leader::replica::Registrar> m_registrar;
};

// "kind sent_ns milliseconds failed" a line.
void writeSamples(const std::string &path)
{
    const std::string partial = path + ".partial";
    {
        std::ofstream out(partial, std::ios::trunc);
        for (const bench::scale::StatementSample &sample : bench::scale::statementSamples()) {
            const auto sent = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    sample.sentAt.time_since_epoch());
            out << bench::scale::kindName(sample.kind) << ' ' << sent.count() << ' '
                << sample.milliseconds << ' ' << (sample.failed ? 1 : 0) << '\n';
        }
        if (!out)
            throw std::runtime_error("cannot write " + partial);
    }
    // Renamed whole, so the driver never reads half a file.
    if (std::rename(partial.c_str(), path.c_str()) != 0)
        throw std::runtime_error("cannot rename " + partial + " to " + path);
}

int run(const HostOptions &options)
{
    // The signals are taken by sigwait below, on this thread alone: blocked before any thread
    // starts, so every thread inherits the mask.
    sigset_t signals;
    sigemptyset(&signals);
    for (const int signal : {SIGTERM, SIGINT, SIGUSR1})
        sigaddset(&signals, signal);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    // Probed once for the process's replicas, not once by each of them.
    leader::schema::LeaseFeatures features;
    {
        leader::pg::Connection connection(
                {.url = options.databaseUrl, .applicationName = "scale-host " + options.name});
        features = leader::schema::probeFeatures(connection);
    }
    Output output;
    std::vector<std::unique_ptr<BenchReplica>> replicas;
    for (int index = 1; index <= options.replicas; ++index)
        replicas.push_back(std::make_unique<BenchReplica>(
                options, features, options.name + "-r" + std::to_string(index), output));
    // Started on a thread of its own, so a SIGTERM during the spread still stops at once.
    std::atomic<bool> stopping = false;
    std::thread starter([&] {
        const auto step = options.spread / options.replicas;
        const auto begin = std::chrono::steady_clock::now();
        for (std::size_t index = 0; index < replicas.size() && !stopping.load(); ++index) {
            std::this_thread::sleep_until(begin + step * static_cast<int>(index));
            replicas[index]->start();
        }
        output.line(",\"event\":\"ready\",\"pid\":" + std::to_string(leader::platform::processId())
                    + ",\"replicas\":" + std::to_string(replicas.size()));
    });
    for (;;) {
        int signal = 0;
        if (sigwait(&signals, &signal) != 0)
            continue;
        if (signal == SIGUSR1) {
            writeSamples(options.samples);
            output.line(",\"event\":\"samples\",\"pid\":"
                        + std::to_string(leader::platform::processId()));
            continue;
        }
        break;
    }
    stopping.store(true);
    starter.join();
    for (const auto &replica : replicas)
        replica->beginStop();
    for (const auto &replica : replicas)
        replica->finish();
    output.line(",\"event\":\"stopped\",\"pid\":" + std::to_string(leader::platform::processId()));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    HostOptions options;
    try {
        options = parse(argc, argv);
    } catch (const std::exception &error) {
        std::cerr << "scale-host: " << error.what() << "\n" << Usage;
        return 2;
    }
    try {
        return run(options);
    } catch (const leader::pg::Error &error) {
        std::cerr << "scale-host: " << leader::pg::explain(error) << "\n";
    } catch (const std::exception &error) {
        std::cerr << "scale-host: " << error.what() << "\n";
    }
    return 1;
}
