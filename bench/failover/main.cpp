// failover-bench: how long a billing takeover takes after each kind of fault, measured on the
// database clock with real leader-replica processes, and whether any stale claim got through.

#include "bench.h"
#include "host.h"
#include "options.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "report.h"

#include <filesystem>
#include <iostream>

namespace {

using namespace failoverbench;

enum ExitCode {
    Ok = 0,
    Error = 1,       // anything that stopped the run
    Usage = 2,       // wrong arguments
    CheckFailed = 5, // a correctness check failed: auditor, stale claim, takeover, clean stop
};

std::string redacted(std::string text, const Options &options)
{
    for (const std::string *url :
         {&options.databaseUrl, &options.replicaDatabaseUrl, &options.listenDatabaseUrl})
        text = leader::pg::redactSecrets(std::move(text), *url);
    return text;
}

// --replica-binary as given (a bare name is looked up in PATH), else the build tree's
// tools/leader-replica beside this program's bench/failover, else PATH.
std::filesystem::path findReplicaBinary(const Options &options, const std::string &argv0)
{
    const std::filesystem::path given = options.replicaBinary;
    if (!given.empty()) {
        if (given.string().find('/') == std::string::npos) {
            if (const std::optional<std::filesystem::path> found = findInPath(given.string()))
                return std::filesystem::absolute(*found);
        }
        if (!isExecutableFile(given))
            throw std::runtime_error("--replica-binary " + given.string()
                                     + " is not an executable file");
        return std::filesystem::absolute(given);
    }
    const std::filesystem::path beside
            = programDirectory(argv0) / "../../tools/leader-replica/leader-replica";
    if (isExecutableFile(beside))
        return std::filesystem::absolute(beside).lexically_normal();
    if (const std::optional<std::filesystem::path> found = findInPath("leader-replica"))
        return std::filesystem::absolute(*found);
    throw std::runtime_error("leader-replica not found (looked at " + beside.string()
                             + " and in PATH); build it or give --replica-binary PATH");
}

// Keeps the directory when a replica wrote a log there (it says what went wrong), else removes it.
void keepOnlyWithLogs(const std::filesystem::path &directory)
{
    if (directory.empty())
        return;
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(directory, error)) {
        if (entry.path().extension() == ".log") {
            std::cerr << "failover-bench: replica logs are in " << directory.string() << "\n";
            return;
        }
    }
    std::filesystem::remove_all(directory, error);
}

int run(Options options, const std::string &argv0, std::filesystem::path &workDirectory)
{
    options.replicaBinary = findReplicaBinary(options, argv0);
    workDirectory = makePrivateDirectory("failover-bench");
    RunResults results;
    {
        // Destroyed before the report: every replica is stopped by then, on any path out.
        FailoverBench bench(options, workDirectory);
        results = bench.run();
    }
    const ReportContext context{
            .options = options,
            .target = leader::pg::describeTarget(options.replicaUrl()),
            .command = reproduceCommand(options, argv0),
            .logDirectory = workDirectory,
    };
    printReport(std::cout, results, context);
    writeJson(options.jsonFile, results, context);
    std::cout << "results: " << options.jsonFile.string() << std::endl;
    if (!results.failures.empty())
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
    } catch (const UsageError &error) {
        std::cerr << "failover-bench: " << error.what() << " (see failover-bench --help)\n";
        return Usage;
    }
    if (options.help) {
        std::cout << HelpText;
        return Ok;
    }
    installSignalHandlers();
    std::filesystem::path workDirectory;
    try {
        return run(options, argc > 0 ? argv[0] : "failover-bench", workDirectory);
    } catch (const Interrupted &) {
        // Asked for: the logs of a run cut short on purpose are of no interest.
        std::cerr << "failover-bench: interrupted; the replicas were stopped\n";
        std::error_code ignored;
        std::filesystem::remove_all(workDirectory, ignored);
        return Error;
    } catch (const leader::pg::Error &error) {
        std::cerr << "failover-bench: " << leader::pg::explain(error) << "\n";
    } catch (const std::exception &error) {
        std::cerr << "failover-bench: " << redacted(error.what(), options) << "\n";
    }
    keepOnlyWithLogs(workDirectory);
    return Error;
}
