// scale-bench: N engine replicas × 5 roles against one Postgres through PgBouncer (transaction
// mode, pool 20), hosted many to a process by scale-host. For each N and poll mode: an idle phase
// (roles not due) and a ticks phase (ticks back to back), each measuring statements a second,
// the server's CPU and the statements' round trips; then a host holding leases is SIGKILLed and
// the takeover measured on the database clock, and the events checked for a role led by two
// holders at once. Prints Markdown tables, writes JSON; exits 5 when a correctness check failed.

#include "host.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "replica/profile.h"
#include "report.h"
#include "scalerun.h"
#include "secrets.h"

#include <charconv>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace {

using namespace scalebench;

enum ExitCode {
    Ok = 0,
    Error = 1,
    Usage = 2,
    CheckFailed = 5, // a role led by two holders, or a takeover that never came
};

constexpr const char *HelpText = R"(usage: scale-bench --database URL --replica-database URL
                   --bouncer-admin URL --servers DIR [options]
  --database URL          the owner, straight to Postgres (migrations, resets, observation)
  --replica-database URL  the app login through PgBouncer, as the replicas connect
  --bouncer-admin URL     PgBouncer's admin console (database pgbouncer), for SHOW STATS
  --servers DIR           the servers' directory (data/postmaster.pid, pgbouncer.pid)
  --host-binary PATH      scale-host (default: beside this program)
  --replicas LIST         e.g. 10,100,1000 (default)
  --per-process K         replicas a host process runs at most (default 100; at least 2 hosts)
  --modes LIST            acquire-first,read-first (default: both)
  --idle-warmup S  --idle-window S  --ticks-warmup S  --ticks-window S   (seconds)
  --tick-interval D  --tick-work D  --idle-interval D  --idle-work D  --spread D  (500ms, 4s, 1h)
  --quick                 10 and 100 replicas, short phases
  --json FILE             (default scale.json)
  --launcher TEXT         the command that started this run, for the reproduce line
)";

class UsageError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

int number(const std::string &text, const std::string &option)
{
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value <= 0)
        throw UsageError(option + " wants a positive integer, not " + text);
    return value;
}

std::vector<std::string> split(const std::string &text)
{
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty())
            parts.push_back(part);
    return parts;
}

std::chrono::milliseconds duration(const std::string &text, const std::string &option)
{
    try {
        return leader::replica::parseDuration(text);
    } catch (const std::invalid_argument &) {
        throw UsageError(option + " wants a duration such as 500ms or 4s, not " + text);
    }
}

Options parseOptions(int argc, char **argv)
{
    Options options;
    bool replicasGiven = false;
    bool windowsGiven = false;
    for (int index = 1; index < argc; ++index) {
        const std::string option = argv[index];
        if (option == "--help") {
            options.help = true;
            continue;
        }
        if (option == "--quick") {
            options.quick = true;
            continue;
        }
        if (index + 1 >= argc)
            throw UsageError(option + " needs a value");
        const std::string value = argv[++index];
        if (option == "--database")
            options.databaseUrl = value;
        else if (option == "--replica-database")
            options.replicaDatabaseUrl = value;
        else if (option == "--bouncer-admin")
            options.bouncerAdminUrl = value;
        else if (option == "--servers")
            options.servers = value;
        else if (option == "--host-binary")
            options.hostBinary = value;
        else if (option == "--replicas") {
            options.replicas.clear();
            for (const std::string &part : split(value))
                options.replicas.push_back(number(part, option));
            replicasGiven = true;
        } else if (option == "--per-process")
            options.perProcess = number(value, option);
        else if (option == "--modes") {
            options.modes = split(value);
            for (const std::string &mode : options.modes)
                if (mode != "acquire-first" && mode != "read-first")
                    throw UsageError("--modes takes acquire-first and read-first, not " + mode);
        } else if (option == "--idle-warmup")
            options.idleWarmup = std::chrono::seconds(number(value, option));
        else if (option == "--idle-window") {
            options.idleWindow = std::chrono::seconds(number(value, option));
            windowsGiven = true;
        } else if (option == "--ticks-warmup")
            options.ticksWarmup = std::chrono::seconds(number(value, option));
        else if (option == "--ticks-window") {
            options.ticksWindow = std::chrono::seconds(number(value, option));
            windowsGiven = true;
        } else if (option == "--tick-interval")
            options.tickInterval = duration(value, option);
        else if (option == "--tick-work")
            options.tickWork = duration(value, option);
        else if (option == "--idle-interval")
            options.idleInterval = duration(value, option);
        else if (option == "--idle-work")
            options.idleWork = duration(value, option);
        else if (option == "--spread")
            options.spread = duration(value, option);
        else if (option == "--json")
            options.jsonFile = value;
        else if (option == "--launcher")
            options.launcher = value;
        else
            throw UsageError("unknown option " + option);
    }
    if (options.help)
        return options;
    if (options.databaseUrl.empty() || options.replicaDatabaseUrl.empty()
        || options.bouncerAdminUrl.empty() || options.servers.empty())
        throw UsageError("--database, --replica-database, --bouncer-admin and --servers are "
                         "required");
    if (options.quick) {
        if (!replicasGiven)
            options.replicas = {10, 100};
        if (!windowsGiven) {
            options.idleWarmup = std::chrono::seconds(6);
            options.idleWindow = std::chrono::seconds(6);
            options.ticksWarmup = std::chrono::seconds(5);
            options.ticksWindow = std::chrono::seconds(6);
            options.spread = std::chrono::milliseconds(2000);
        }
    }
    return options;
}

std::string joined(const std::vector<std::string> &parts)
{
    std::string text;
    for (const std::string &part : parts)
        text += (text.empty() ? "" : ",") + part;
    return text;
}

// Every setting spelled out, so a later change of a default does not change what it measures.
std::string reproduceCommand(const Options &options)
{
    std::vector<std::string> replicas;
    for (const int count : options.replicas)
        replicas.push_back(std::to_string(count));
    const auto ms = [](std::chrono::milliseconds value) {
        return std::to_string(value.count()) + "ms";
    };
    const std::string launcher = options.launcher.empty() ? "scale-bench" : options.launcher;
    return launcher + " --replicas " + joined(replicas) + " --per-process "
           + std::to_string(options.perProcess) + " --modes " + joined(options.modes)
           + " --idle-warmup " + std::to_string(options.idleWarmup.count()) + " --idle-window "
           + std::to_string(options.idleWindow.count()) + " --ticks-warmup "
           + std::to_string(options.ticksWarmup.count()) + " --ticks-window "
           + std::to_string(options.ticksWindow.count()) + " --tick-interval "
           + ms(options.tickInterval) + " --tick-work " + ms(options.tickWork) + " --idle-interval "
           + ms(options.idleInterval) + " --idle-work " + ms(options.idleWork) + " --spread "
           + ms(options.spread);
}

std::string redacted(std::string text, const Options &options)
{
    for (const std::string *url :
         {&options.databaseUrl, &options.replicaDatabaseUrl, &options.bouncerAdminUrl})
        text = leader::pg::redactSecrets(std::move(text), *url);
    return text;
}

} // namespace

int main(int argc, char **argv)
{
    Options options;
    try {
        options = parseOptions(argc, argv);
        // Before any thread or child starts: passwords travel in the environment, never argv.
        failoverbench::passwordsToEnvironment(
                {&options.databaseUrl, &options.replicaDatabaseUrl, &options.bouncerAdminUrl});
    } catch (const UsageError &error) {
        std::cerr << "scale-bench: " << error.what() << " (see scale-bench --help)\n";
        return Usage;
    } catch (const std::invalid_argument &error) {
        std::cerr << "scale-bench: " << error.what() << "\n";
        return Usage;
    }
    if (options.help) {
        std::cout << HelpText;
        return Ok;
    }
    failoverbench::installSignalHandlers();
    try {
        if (options.hostBinary.empty())
            options.hostBinary
                    = failoverbench::programDirectory(argc > 0 ? argv[0] : "") / "scale-host";
        if (!failoverbench::isExecutableFile(options.hostBinary))
            throw std::runtime_error(options.hostBinary.string() + " is not an executable file");
        const Results results = runAll(options);
        const std::string command = reproduceCommand(options);
        printReport(std::cout, results, command);
        writeJson(options.jsonFile, results, command);
        std::cout << "results: " << options.jsonFile.string() << std::endl;
        for (const Run &run : results.runs)
            if (!run.failures.empty())
                return CheckFailed;
        return Ok;
    } catch (const failoverbench::Interrupted &) {
        std::cerr << "scale-bench: interrupted; the hosts were stopped\n";
    } catch (const leader::pg::Error &error) {
        std::cerr << "scale-bench: " << leader::pg::explain(error) << "\n";
    } catch (const std::exception &error) {
        std::cerr << "scale-bench: " << redacted(error.what(), options) << "\n";
    }
    return Error;
}
