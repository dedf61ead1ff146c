// chaos-bench: a soak of real leader-replica processes under every fault an operator's month
// brings (process deaths and stops, network cuts, database restarts and crashes, pooler restarts,
// a lossy failover, skewed clocks), judged afterwards on correctness only.

#include "benchmain.h"
#include "chaos.h"
#include "host.h"
#include "options.h"
#include "report.h"
#include "secrets.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace {

using namespace bench;
using namespace bench::chaos;

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

void sayWhereLogsAre(const std::filesystem::path &workDirectory)
{
    if (!workDirectory.empty())
        std::cerr << "chaos-bench: logs are in " << workDirectory.string() << "\n";
}

int run(Options options, const std::string &argv0, std::filesystem::path &workDirectory)
{
    const Redact redact = redactorOf(options);
    // As given, else the build tree's beside this program's bench/chaos, else PATH.
    options.replicaBinary
            = findExecutable(options.replicaBinary, "--replica-binary", "leader-replica",
                             "../../tools/leader-replica/leader-replica", argv0);
    options.leaderctl = findExecutable(options.leaderctl, "--leaderctl", "leaderctl",
                                       "../../tools/leaderctl/leaderctl", argv0);
    if (options.serversScript.empty())
        options.serversScript = CHAOS_SERVERS_SCRIPT;
    const std::filesystem::path faketime = findFaketime(options.faketimeLibrary);
    std::filesystem::path ip;
    if (!options.netns.empty()) {
        const std::optional<std::filesystem::path> found = findInPath("ip");
        if (!found)
            throw std::runtime_error("--netns needs ip (iproute2) in PATH");
        ip = *found;
    }
    workDirectory = makePrivateDirectory("chaos-bench");
    RunResults results;
    {
        // Destroyed before the report: every replica is stopped by then, on any path out.
        ChaosBench benchmark(options, workDirectory,
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
                                        .redact = redact});
        results = benchmark.run();
    }
    const ReportContext context{
            .options = options,
            .command = reproduceCommand(options, argv0),
            .logDirectory = workDirectory,
    };
    printReport(std::cout, results, context);
    writeJsonFile(options.jsonFile, [&](JsonWriter &json) { writeJson(json, results, context); });
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
    return runReplicaBenchmark(argc, argv, "chaos-bench", HelpText, parseOptions, run,
                               sayWhereLogsAre);
}
