// leader-replica: one replica as a process — the five roles against a database, Prometheus
// /metrics, a local control socket for fault injection, one JSON line per transition on stdout.
// SIGTERM or SIGINT first drains (--drain-on-sigterm, up to --drain-timeout: running ticks end as
// they would, no new one starts; a second signal ends the drain at once), then cancels what still
// runs, releases it as interrupted and exits 0.

#include "eventjson.h"
#include "lease/roles.h"
#include "lease/textbounds.h"
#include "log/log.h"
#include "metricsserver.h"
#include "pg/cancel.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "platform/control.h"
#include "platform/process.h"
#include "replica/replica.h"
#include "schema/migrator.h"

// Fault injection (--control, --gate advisory) is the benchmarks' and the tests'; a build without
// it (LEADER_REPLICA_FAULTS=OFF) links leader_core and leader_roles only.
#if LEADER_REPLICA_FAULTS
#include "baseline/advisoryreplica.h"
#include "faults/fault.h"
#include "faults/switchboard.h"
#endif

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace {

using namespace std::chrono_literals;
using leader::tools::MetricsServer;

enum ExitCode {
    Ok = 0,
    Failed = 1,        // anything else: a port in use, a control socket that cannot be made
    Usage = 2,         // wrong arguments or a wrong --config file
    SchemaProblem = 3, // the lease or demo migrations are missing
    Unreachable = 4,   // cannot connect, or the login was refused
};

// A build without fault injection leaves --control and --gate out of its help (and so of its man
// page): it refuses them.
constexpr const char *HelpText
        = R"(Usage: leader-replica [OPTIONS]

Runs one replica: the named roles (default all five) against the database, each tick claimed,
renewed, fenced and released per ADR-114. One JSON line per transition on stdout; logs on stderr.

Options:
  --database URL          postgresql:// URL or key=value conninfo; default DATABASE_URL, then the
                          standard PG* variables. May be PgBouncer in transaction mode, or a
                          multi-host URL (postgresql://h1,h2/db?target_session_attrs=read-write)
                          that follows a promotion.
)"
#if LEADER_REPLICA_FAULTS
          R"(                          Not with --control: faults need one server.
)"
#endif
          R"(  --listen-database URL   a direct (session) connection for the fast wake, when --database is a
                          transaction pooler; without it the replica LISTENs on --database and
                          falls back to polling if notifications do not arrive
  --roles LIST            comma-separated: billing,dunning,webhook_outbox,email_outbox,
                          webhook_delivery (default all)
  --id NAME               this replica's name in events and logs (default replica-PID)
  --config FILE           role intervals and simulated work, lines of role.key = value with keys
                          interval, min_tick, item_latency (500ms, 3s, 2m, 1h) and batch; without
                          it the demo profile: a billing tick of about 30 s each minute, outbox
                          ticks of about 1 s. A line early_take = on|off sets --early-take
  --early-take on|off     on (default): straight to Postgres (or with --listen-database) this
                          replica's leases name its marker session, so a contender takes them
                          about 0.2 s after its process dies, and it takes those of the dead
                          holders it sees; off: neither, every lease ends at its expiry (the TTL
                          path). Wins over the --config line; the database's per-role switch,
                          leader_leases.early_take, also turns it off
  --metrics-port N        serve Prometheus text on http://127.0.0.1:N/metrics (not in the
                          Windows build, which has no HTTP server library)
  --metrics-listen ADDR   the address to serve it on instead of 127.0.0.1 (loopback only): a
                          host address for a Prometheus on another machine, or 0.0.0.0 / :: for
                          every interface. --metrics-address is its old name
)"
#if LEADER_REPLICA_FAULTS
          R"(  --control PATH          a Unix socket (on Windows a named pipe named after PATH) taking one
                          command per connection, and routes the replica's database traffic
                          through its fault switchboard. PATH must not exist (a dead replica's
                          socket, which nobody answers on, is replaced). Commands:
                            sever SECONDS | heal | slow MS | freeze SECONDS | kill |
                            panic ROLE STEP | stop | status
  --gate lease|advisory   how each tick is gated (default lease). advisory is the design ADR-114
                          replaced, for the failover benchmark's baseline only: per role a pinned
                          session taking pg_try_advisory_lock(7654000N) each role interval, and
                          each tick logging unfenced claims in claim_log (min_tick and
                          item_latency shape it; no domain rows are touched), then
                          pg_advisory_unlock. No lease rows, no fence, no pause; not with
                          --metrics-port or --listen-database
)"
#endif
          R"(  --drain-on-sigterm on|off
                          on (default): at SIGTERM or SIGINT the replica first drains: it starts
                          no new tick and lets the running ones end as they would (completed,
                          released) for up to --drain-timeout, then stops; a tick still running
                          then is interrupted as before; a second SIGTERM or SIGINT ends the
                          drain at once. off: it stops at once (the failover and chaos
                          benchmarks measure that stop)
  --drain-timeout D       how long that drain may take: 25s (default), 500ms, 2m
  --help, --version

A replica drained with leaderctl drain ID (extension 0183) starts no new tick until leaderctl
undrain ID, across restarts.

Events (stdout): {"ts":"…Z","replica":…,"holder":…,"role":…,"event":…,"token":…} with event
acquired, released (outcome), release_failed, lost (reason), paused_observed, late_beat; also
started, fault, draining (running roles), drained, undrained and stopped.

Exit codes: 0 stopped cleanly; 1 failed; 2 wrong arguments or config; 3 the lease or demo
migrations are missing (leaderctl migrate --demo applies both); 4 cannot connect.
)";

class UsageError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct Arguments
{
    std::map<std::string, std::string> options;
    bool help = false;
    bool version = false;

    std::string option(const std::string &name) const
    {
        const auto it = options.find(name);
        return it == options.end() ? std::string() : it->second;
    }
};

Arguments parse(int argc, char **argv)
{
    static const std::vector<std::string> valued{
            "--database",     "--listen-database", "--roles",
            "--id",           "--config",          "--metrics-port",
            "--control",      "--metrics-listen",  "--metrics-address",
            "--gate",         "--early-take",      "--drain-on-sigterm",
            "--drain-timeout"};
    Arguments arguments;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            arguments.help = true;
            continue;
        }
        if (arg == "--version") {
            arguments.version = true;
            continue;
        }
        std::string value;
        const std::size_t equals = arg.find('=');
        const bool inlineValue = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inlineValue) {
            value = arg.substr(equals + 1);
            arg = arg.substr(0, equals);
        }
        if (std::find(valued.begin(), valued.end(), arg) == valued.end())
            throw UsageError(arg.rfind("--", 0) == 0 ? "unknown option " + arg
                                                     : "unexpected argument " + arg);
        if (!inlineValue) {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            value = argv[++i];
        }
        arguments.options[arg] = value;
    }
    return arguments;
}

std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty())
            items.push_back(item);
    return items;
}

int parsePort(const std::string &text)
{
    int port = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (error != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535)
        throw UsageError("--metrics-port wants a port number from 1 to 65535, not \"" + text
                         + "\"");
    return port;
}

// Where /metrics listens: --metrics-listen (or its old name --metrics-address), else loopback,
// so that the series, which name the roles and their state, reach no other host unasked.
std::string metricsAddressFrom(const Arguments &arguments, bool serving)
{
    const bool listen = arguments.options.contains("--metrics-listen");
    const bool address = arguments.options.contains("--metrics-address");
    if (listen && address)
        throw UsageError("--metrics-address is the old name of --metrics-listen; give one");
    if (listen && !serving) // the old name alone stays as it was: ignored
        throw UsageError("--metrics-listen needs --metrics-port");
    const std::string value = arguments.option(listen ? "--metrics-listen" : "--metrics-address");
    if ((listen || address) && value.empty())
        throw UsageError("--metrics-listen wants an address (127.0.0.1, a host address, 0.0.0.0)");
    return listen || address ? value : "127.0.0.1";
}

// The --config file's text; empty without one.
std::string configText(const Arguments &arguments)
{
    const std::string path = arguments.option("--config");
    if (path.empty())
        return {};
    std::ifstream file(path);
    if (!file)
        throw UsageError("cannot read --config " + path + ": no such file or not readable");
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// --early-take, else the --config line, else on.
bool earlyTakeFrom(const Arguments &arguments)
{
    if (arguments.options.contains("--early-take")) {
        const std::string value = arguments.option("--early-take");
        if (value != "on" && value != "off")
            throw UsageError("--early-take is on or off, not \"" + value + "\"");
        return value == "on";
    }
    try {
        return leader::replica::parseEarlyTake(configText(arguments)).value_or(true);
    } catch (const leader::replica::ProfileError &error) {
        throw UsageError(arguments.option("--config") + ", " + error.what());
    }
}

std::vector<leader::replica::RoleProfile> profilesFrom(const Arguments &arguments)
{
    std::vector<leader::replica::RoleProfile> profiles = leader::replica::demoProfile();
    if (const std::string text = configText(arguments); !text.empty()) {
        try {
            profiles = leader::replica::parseProfile(text, profiles);
        } catch (const leader::replica::ProfileError &error) {
            throw UsageError(arguments.option("--config") + ", " + error.what());
        }
    }
    std::vector<std::string> roles(leader::lease::Roles.begin(), leader::lease::Roles.end());
    if (arguments.options.contains("--roles"))
        roles = splitList(arguments.option("--roles"));
    if (roles.empty())
        throw UsageError("--roles names no role");
    try {
        return leader::replica::selectRoles(profiles, roles);
    } catch (const leader::replica::ProfileError &error) {
        throw UsageError(std::string("--roles: ") + error.what());
    }
}

#if LEADER_REPLICA_FAULTS
// Turns one control command into a switchboard action; returns the reply line.
std::string control(leader::faults::Switchboard &faults, leader::tools::EventWriter &out,
                    const std::string &command)
{
    std::istringstream words(command);
    std::string verb;
    words >> verb;
    // The command's number in milliseconds; unit is how many milliseconds one of it is. NaN and
    // the infinities are refused before any comparison: NaN passes every range check, and its
    // cast to an integer is undefined.
    const auto number = [&](const char *what, double unit) {
        std::string word;
        words >> word;
        double value = -1;
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
        if (error != std::errc() || end != word.data() + word.size() || !std::isfinite(value)
            || value < 0 || value * unit > 24 * 3600 * 1000)
            throw UsageError(verb + " wants " + what + " from 0 to "
                             + std::to_string(24 * 3600 * 1000 / static_cast<long long>(unit))
                             + ", not \"" + word + "\"");
        return std::chrono::milliseconds(static_cast<long long>(value * unit));
    };
    using leader::faults::Fault;
    const std::string unknown = "error unknown command \"" + verb
                                + "\"; commands: sever S, heal, slow MS, freeze S, kill, "
                                  "panic ROLE STEP, stop, status";
    try {
        if (verb == "status")
            return "ok " + faults.describe();
        const std::optional<Fault> fault = leader::faults::faultFromName(verb);
        if (!fault)
            return unknown;
        switch (*fault) {
        case Fault::Sever:
            faults.sever(number("a number of seconds", 1000));
            break;
        case Fault::Freeze:
            faults.freeze(number("a number of seconds", 1000));
            break;
        case Fault::Slow:
            faults.slow(number("a latency in milliseconds", 1));
            break;
        case Fault::Heal:
            faults.heal();
            break;
        case Fault::Panic: {
            std::string role, step;
            words >> role;
            std::getline(words >> std::ws, step);
            if (!leader::lease::isKnownRole(role))
                throw UsageError("panic wants ROLE STEP, ROLE one of billing, dunning, "
                                 "webhook_outbox, email_outbox, webhook_delivery");
            faults.armPanic(role, step);
            break;
        }
        case Fault::Kill:
            out.fault(command);
            leader::platform::killThisProcess();
            break;
        case Fault::Stop:
            leader::platform::requestTermination();
            break;
        default: // the socket takes the faults one process can do to itself, and status
            return unknown;
        }
    } catch (const std::exception &error) {
        return std::string("error ") + error.what();
    }
    out.fault(command);
    return "ok " + faults.describe();
}

#endif

void stopOnSignal(const std::string &id, leader::tools::EventWriter &out,
                  const std::function<void()> &stopEverything,
                  const std::function<void()> &drainFirst = {},
                  const std::function<void()> &cutDrainShort = {});

// --drain-on-sigterm and --drain-timeout: how long a SIGTERM drains first; nullopt: it does not.
std::optional<std::chrono::milliseconds> sigtermDrainFrom(const Arguments &arguments)
{
    const std::string on = arguments.options.contains("--drain-on-sigterm")
                                   ? arguments.option("--drain-on-sigterm")
                                   : "on";
    if (on != "on" && on != "off")
        throw UsageError("--drain-on-sigterm is on or off, not \"" + on + "\"");
    std::chrono::milliseconds bound = 25s;
    if (arguments.options.contains("--drain-timeout")) {
        const std::string text = arguments.option("--drain-timeout");
        long long amount = -1;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
        const std::string_view unit(end, text.data() + text.size() - end);
        if (error != std::errc() || amount < 0 || (unit != "ms" && unit != "s" && unit != "m"))
            throw UsageError("--drain-timeout takes a whole number and a unit (ms, s, m), e.g. "
                             "25s, not \""
                             + text + "\"");
        bound = unit == "ms"  ? std::chrono::milliseconds(amount)
                : unit == "s" ? std::chrono::milliseconds(std::chrono::seconds(amount))
                              : std::chrono::milliseconds(std::chrono::minutes(amount));
        if (on == "off")
            throw UsageError("--drain-timeout goes with --drain-on-sigterm on");
    }
    if (on == "off")
        return std::nullopt;
    return bound;
}

#if LEADER_REPLICA_FAULTS
int runAdvisory(const Arguments &arguments, const std::string &url, const std::string &id);

// The control socket at path, none when it is empty, serving the replica's fault switchboard.
// Returns the exit code, said on stderr, when it cannot be opened.
std::optional<int> openControl(std::unique_ptr<leader::platform::ControlServer> &server,
                               const std::string &path, leader::faults::Switchboard *faults,
                               leader::tools::EventWriter &out)
{
    if (path.empty())
        return std::nullopt;
    server = std::make_unique<leader::platform::ControlServer>(
            path,
            [faults, &out](const std::string &command) { return control(*faults, out, command); });
    try {
        server->start();
    } catch (const std::exception &error) {
        std::cerr << "leader-replica: cannot open the control socket: " << error.what() << "\n";
        return Failed;
    }
    return std::nullopt;
}

#endif

// Starts a replica of either gate; returns the exit code, said on stderr, when it refused.
std::optional<int> startOrExitCode(const std::function<void()> &start, const std::string &url)
{
    try {
        start();
    } catch (const leader::schema::SchemaError &error) {
        std::cerr << "leader-replica: " << leader::pg::redactSecrets(error.what(), url) << "\n";
        return SchemaProblem;
    } catch (const leader::pg::Error &error) {
        std::cerr << "leader-replica: " << leader::pg::explain(error) << "\n";
        return error.isTransport() || error.sqlstate() == leader::pg::sqlstate::InvalidPassword
                               || error.sqlstate() == leader::pg::sqlstate::InvalidAuthorization
                       ? Unreachable
                       : Failed;
    }
    return std::nullopt;
}

int run(const Arguments &arguments)
{
    const std::string url = leader::pg::databaseUrlFrom(arguments.option("--database"));
    const std::string id = arguments.options.contains("--id")
                                   ? arguments.option("--id")
                                   : "replica-" + std::to_string(leader::platform::processId());
    // The registry's bound (leader_ext 0190): a longer name's beats would be refused.
    if (const auto message = leader::lease::tooLong("--id", id, leader::lease::MaxReplicaName))
        throw UsageError(*message);
    const std::string controlPath = arguments.option("--control");
    const std::string gate
            = arguments.options.contains("--gate") ? arguments.option("--gate") : "lease";
#if !LEADER_REPLICA_FAULTS
    if (!controlPath.empty() || gate == "advisory")
        throw UsageError("this leader-replica is built without fault injection "
                         "(LEADER_REPLICA_FAULTS=OFF): no --control, no --gate advisory");
#endif
    // The link proxy fronts the first server only, and while that server is down it accepts and
    // then closes each connection, which makes libpq give up instead of trying the next host: a
    // replica with faults routed would never follow a promotion.
    if (!controlPath.empty() && leader::pg::serverConninfos(url).size() > 1)
        throw UsageError("--control needs a --database naming one server: the fault link proxy "
                         "fronts one, and would keep this replica from following a failover to "
                         "the others");
#if LEADER_REPLICA_FAULTS
    if (gate == "advisory")
        return runAdvisory(arguments, url, id);
#endif
    if (gate != "lease")
        throw UsageError("--gate is lease or advisory, not \"" + gate + "\"");
    std::optional<int> metricsPort;
#if !LEADER_REPLICA_METRICS
    if (arguments.options.contains("--metrics-port"))
        throw UsageError("this leader-replica is built without /metrics (the Windows build has no "
                         "HTTP server library): leave out --metrics-port");
#endif
    if (arguments.options.contains("--metrics-port"))
        metricsPort = parsePort(arguments.option("--metrics-port"));
    const std::string metricsAddress = metricsAddressFrom(arguments, metricsPort.has_value());

    // Outside the aggregate: GCC 12 destroys a member twice when the initializer of a later one
    // throws after a nested designated initializer (a double free on a bad --roles).
    std::vector<leader::replica::RoleProfile> roles = profilesFrom(arguments);
    leader::replica::ReplicaOptions options;
    options.id = id;
    options.database.url = url;
    options.listen.url = arguments.option("--listen-database");
    options.roles = std::move(roles);
#if LEADER_REPLICA_FAULTS
    std::shared_ptr<leader::faults::Switchboard> switchboard;
    if (!controlPath.empty())
        switchboard = std::make_shared<leader::faults::Switchboard>();
    options.faults = switchboard;
#endif
    options.earlyTake = earlyTakeFrom(arguments);
    const std::optional<std::chrono::milliseconds> sigtermDrain = sigtermDrainFrom(arguments);
    leader::replica::Replica replica(std::move(options));
    leader::tools::EventWriter out(std::cout, id, replica.holderId());
    replica.subscribe([&out](const leader::replica::ReplicaEvent &event) {
        out.transition(event.transition);
    });
    replica.onDrainChanged(
            [&out](const leader::replica::DrainStatus &status) { out.drain(status); });

    // The ports and the socket are taken before the replica leads anything, so a port in use
    // fails the start without a tick having run.
    MetricsServer metrics([&replica] { return replica.metricsText(); });
    if (metricsPort && !metrics.bind(metricsAddress, *metricsPort)) {
        std::cerr << "leader-replica: cannot serve metrics on " << metricsAddress << ":"
                  << *metricsPort << " (in use, or not an address of this host)\n";
        return Failed;
    }
#if LEADER_REPLICA_FAULTS
    std::unique_ptr<leader::platform::ControlServer> controlServer;
    if (const std::optional<int> failed
        = openControl(controlServer, controlPath, switchboard.get(), out))
        return *failed;
#endif
    if (const std::optional<int> failed = startOrExitCode([&] { replica.start(); }, url))
        return *failed;
    if (metricsPort)
        metrics.start();
    out.started(replica, leader::pg::describeTarget(url), metricsPort, controlPath);

    stopOnSignal(
            id, out,
            [&] {
#if LEADER_REPLICA_FAULTS
                if (controlServer)
                    controlServer->stop();
#endif
                // Its connections wind down (within MetricsServer::IoTimeout) while the replica
                // stops.
                metrics.stopListening();
                replica.stop();
                metrics.join();
            },
            [&] {
                if (!sigtermDrain)
                    return;
                if (!replica.drainFor(*sigtermDrain))
                    leader::log::write(leader::log::Level::Warning, "replica",
                                       "drain ended before the running ticks did; interrupting "
                                       "them",
                                       "replica=" + id);
            },
            [&] { replica.cutDrainShort(); });
    return Ok;
}

// Waits for SIGTERM or SIGINT, then runs stopEverything and says so on stdout.
void stopOnSignal(const std::string &id, leader::tools::EventWriter &out,
                  const std::function<void()> &stopEverything,
                  const std::function<void()> &drainFirst,
                  const std::function<void()> &cutDrainShort)
{
    const std::string signal = leader::platform::waitForTermination();
    leader::log::write(leader::log::Level::Info, "replica", "stopping",
                       "replica=" + id + " signal=" + signal);
    // The drain has its own bound; the stop's promise below starts after it. A second signal (a
    // second Ctrl+C, an impatient supervisor) ends the drain at once, as its bound would, so the
    // stop's promise holds from then on: no operator is kept waiting 25 s for a replica they
    // want gone now.
    if (drainFirst) {
        std::atomic<bool> drainOver = false;
        std::thread secondSignal([&] {
            const std::string again = leader::platform::waitForTermination();
            if (drainOver.load())
                return;
            leader::log::write(leader::log::Level::Info, "replica",
                               "second signal; the drain ends now",
                               "replica=" + id + " signal=" + again);
            cutDrainShort();
        });
        drainFirst();
        drainOver.store(true);
        // Releases the watcher when no second signal came: the signal sent here is its own.
        leader::platform::requestTermination();
        secondSignal.join();
    }
    // The promise is an exit within 3 s; a statement stuck past its own deadline, or a cancel
    // request stuck on a dead network, must not break it. The lease of a tick not released by
    // then ends at its expiry.
    const auto exitBy = std::chrono::steady_clock::now() + 2800ms;
    std::mutex stopMutex;
    std::condition_variable stopChanged;
    bool stopped = false;
    std::thread watchdog([&] {
        std::unique_lock lock(stopMutex);
        if (stopChanged.wait_until(lock, exitBy, [&] { return stopped; }))
            return;
        leader::log::write(leader::log::Level::Warning, "replica",
                           "stop took too long; exiting, unreleased leases end at their expiry");
        std::cout.flush();
        ::_exit(Ok);
    });
    stopEverything();
    const bool cancelsDone = leader::pg::CancelRequests::instance().waitUntilIdle(exitBy);
    out.stopped(signal);
    if (!cancelsDone) {
        // Their threads would hold up the joins at exit until the TCP timeouts end them.
        leader::log::write(leader::log::Level::Warning, "replica",
                           "cancel requests still in flight on a dead network; exiting anyway");
        std::cout.flush();
        ::_exit(Ok);
    }
    {
        const std::lock_guard lock(stopMutex);
        stopped = true;
    }
    stopChanged.notify_all();
    watchdog.join();
}

#if LEADER_REPLICA_FAULTS
// The baseline of the failover benchmark (--gate advisory): the same control socket and events,
// no lease runtime, no metrics, no fast wake.
int runAdvisory(const Arguments &arguments, const std::string &url, const std::string &id)
{
    for (const char *option : {"--metrics-port", "--metrics-listen", "--metrics-address",
                               "--listen-database", "--early-take"})
        if (arguments.options.contains(option))
            throw UsageError(std::string(option) + " is not for --gate advisory");
    const std::string controlPath = arguments.option("--control");
    std::vector<leader::replica::RoleProfile> roles = profilesFrom(arguments);
    leader::baseline::AdvisoryReplicaOptions options;
    options.id = id;
    options.database.url = url;
    options.roles = std::move(roles);
    options.faults = !controlPath.empty();
    std::unique_ptr<leader::tools::EventWriter> out;
    leader::baseline::AdvisoryReplica replica(
            std::move(options),
            [&out](const leader::lease::TransitionEvent &event) { out->transition(event); });
    out = std::make_unique<leader::tools::EventWriter>(std::cout, id, replica.holderId());
    std::unique_ptr<leader::platform::ControlServer> controlServer;
    if (const std::optional<int> failed
        = openControl(controlServer, controlPath, replica.faults(), *out))
        return *failed;
    if (const std::optional<int> failed = startOrExitCode([&] { replica.start(); }, url))
        return *failed;
    std::vector<std::string> roleNames;
    for (const leader::replica::RoleProfile &profile : replica.roles())
        roleNames.push_back(profile.role);
    out->started(roleNames, false, false, leader::pg::describeTarget(url), std::nullopt,
                 controlPath, "advisory");
    stopOnSignal(id, *out, [&] {
        if (controlServer)
            controlServer->stop();
        replica.stop();
    });
    return Ok;
}
#endif

} // namespace

int main(int argc, char **argv)
{
    leader::platform::blockTerminationSignals();
    Arguments arguments;
    try {
        arguments = parse(argc, argv);
    } catch (const UsageError &error) {
        std::cerr << "leader-replica: " << error.what() << " (see leader-replica --help)\n";
        return Usage;
    }
    if (arguments.help) {
        std::cout << HelpText;
        return Ok;
    }
    if (arguments.version) {
        std::cout << "leader-replica " << LEADER_VERSION << "\n";
        return Ok;
    }
    try {
        return run(arguments);
    } catch (const UsageError &error) {
        std::cerr << "leader-replica: " << error.what() << " (see leader-replica --help)\n";
        return Usage;
    } catch (const std::exception &error) {
        std::cerr << "leader-replica: "
                  << leader::pg::redactSecrets(
                             error.what(),
                             leader::pg::databaseUrlFrom(arguments.option("--database")))
                  << "\n";
        return Failed;
    }
}
