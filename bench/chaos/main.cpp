// chaos-bench: a soak of real leader-replica processes under every fault an operator's month
// brings (process deaths and stops, network cuts, database restarts and crashes, pooler restarts,
// a lossy failover, skewed clocks), judged afterwards on correctness only.

#include "chaos.h"
#include "host.h"
#include "options.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "report.h"
#include "secrets.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace {

using namespace chaosbench;

enum ExitCode {
    Ok = 0,
    Error = 1,       // anything that stopped the run
    Usage = 2,       // wrong arguments
    CheckFailed = 5, // a correctness check failed
};

std::string redacted(std::string text, const Options &options)
{
    for (const std::string *url :
         {&options.databaseUrl, &options.replicaDatabaseUrl, &options.bouncerDatabaseUrl,
          &options.proxyDatabaseUrl, &options.netnsDatabaseUrl})
        text = leader::pg::redactSecrets(std::move(text), *url);
    return text;
}

// PATH as given (a bare name looked up in PATH), else the build tree's one at relative beside
// this program's bench/chaos, else PATH.
std::filesystem::path findTool(const std::filesystem::path &given, const std::string &name,
                               const std::string &relative, const std::string &argv0)
{
    if (!given.empty()) {
        if (given.string().find('/') == std::string::npos) {
            if (const std::optional<std::filesystem::path> found
                = failoverbench::findInPath(given.string()))
                return std::filesystem::absolute(*found);
        }
        if (!failoverbench::isExecutableFile(given))
            throw std::runtime_error(given.string() + " is not an executable file");
        return std::filesystem::absolute(given);
    }
    const std::filesystem::path beside = failoverbench::programDirectory(argv0) / relative;
    if (failoverbench::isExecutableFile(beside))
        return std::filesystem::absolute(beside).lexically_normal();
    if (const std::optional<std::filesystem::path> found = failoverbench::findInPath(name))
        return std::filesystem::absolute(*found);
    throw std::runtime_error(name + " not found (looked at " + beside.string()
                             + " and in PATH); build it or name it on the command line");
}

// --faketime-library, else Debian's multi-threaded libfaketime for this machine's architecture.
std::filesystem::path findFaketime(const std::filesystem::path &given)
{
    std::error_code error;
    if (!given.empty()) {
        if (!std::filesystem::is_regular_file(given, error))
            throw std::runtime_error("--faketime-library " + given.string() + " is not a file");
        return given;
    }
    for (const auto &entry : std::filesystem::directory_iterator("/usr/lib", error)) {
        const std::filesystem::path library = entry.path() / "faketime/libfaketimeMT.so.1";
        if (std::filesystem::is_regular_file(library, error))
            return library;
    }
    throw std::runtime_error("libfaketimeMT.so.1 not found under /usr/lib/*/faketime: install "
                             "faketime (scripts/setup-deps.sh) or give --faketime-library");
}

int run(Options options, const std::string &argv0, std::filesystem::path &workDirectory)
{
    options.replicaBinary = findTool(options.replicaBinary, "leader-replica",
                                     "../../tools/leader-replica/leader-replica", argv0);
    options.leaderctl
            = findTool(options.leaderctl, "leaderctl", "../../tools/leaderctl/leaderctl", argv0);
    if (options.serversScript.empty())
        options.serversScript = CHAOS_SERVERS_SCRIPT;
    const std::filesystem::path faketime = findFaketime(options.faketimeLibrary);
    std::filesystem::path ip;
    if (!options.netns.empty()) {
        const std::optional<std::filesystem::path> found = failoverbench::findInPath("ip");
        if (!found)
            throw std::runtime_error("--netns needs ip (iproute2) in PATH");
        ip = *found;
    }
    workDirectory = failoverbench::makePrivateDirectory("chaos-bench");
    RunResults results;
    {
        // Destroyed before the report: every replica is stopped by then, on any path out.
        ChaosBench bench(options, workDirectory,
                         FleetSetup{.binary = options.replicaBinary,
                                    .faketimeLibrary = faketime,
                                    .directUrl = options.replicaDatabaseUrl,
                                    .bouncerUrl = options.bouncerDatabaseUrl,
                                    .proxyUrl = options.proxyDatabaseUrl,
                                    .ipBinary = ip,
                                    .netns = options.netns,
                                    .isolatedUrl = options.netnsDatabaseUrl,
                                    .isolatedAddress = options.netnsAddress,
                                    .configFile = workDirectory / "replica.conf",
                                    .directory = workDirectory,
                                    .redact = [&options](std::string text) {
                                        return redacted(std::move(text), options);
                                    }});
        results = bench.run();
    }
    const ReportContext context{
            .options = options,
            .command = reproduceCommand(options, argv0),
            .logDirectory = workDirectory,
    };
    printReport(std::cout, results, context);
    writeJson(options.jsonFile, results, context);
    std::cout << "results: " << options.jsonFile.string() << std::endl;
    if (anyFailed(results.verdicts))
        return CheckFailed;
    std::error_code ignored;
    std::filesystem::remove_all(workDirectory, ignored);
    return Ok;
}

} // namespace

int main(int argc, char **argv)
{
    Options options;
    try {
        options = parseOptions(argc, argv);
        // Before any thread or child starts: passwords travel in the environment, never argv.
        failoverbench::passwordsToEnvironment(
                {&options.databaseUrl, &options.replicaDatabaseUrl, &options.bouncerDatabaseUrl,
                 &options.proxyDatabaseUrl, &options.netnsDatabaseUrl});
    } catch (const UsageError &error) {
        std::cerr << "chaos-bench: " << error.what() << " (see chaos-bench --help)\n";
        return Usage;
    } catch (const std::invalid_argument &error) {
        std::cerr << "chaos-bench: " << error.what() << "\n";
        return Usage;
    }
    if (options.help) {
        std::cout << HelpText;
        return Ok;
    }
    failoverbench::installSignalHandlers();
    std::filesystem::path workDirectory;
    try {
        return run(options, argc > 0 ? argv[0] : "chaos-bench", workDirectory);
    } catch (const failoverbench::Interrupted &) {
        std::cerr << "chaos-bench: interrupted; the replicas were stopped\n";
        std::error_code ignored;
        std::filesystem::remove_all(workDirectory, ignored);
        return Error;
    } catch (const leader::pg::Error &error) {
        std::cerr << "chaos-bench: " << leader::pg::explain(error) << "\n";
    } catch (const std::exception &error) {
        std::cerr << "chaos-bench: " << redacted(error.what(), options) << "\n";
    }
    if (!workDirectory.empty())
        std::cerr << "chaos-bench: logs are in " << workDirectory.string() << "\n";
    return Error;
}
