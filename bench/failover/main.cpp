// failover-bench: how long a billing takeover takes after each kind of fault, measured on the
// database clock with real leader-replica processes, and whether any stale claim got through.

#include "bench.h"
#include "host.h"
#include "options.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "report.h"
#include "secrets.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

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

// Each design of --design in turn, on the same servers; with both, the table of the two.
int run(Options options, const std::string &argv0, std::filesystem::path &workDirectory)
{
    options.replicaBinary = findReplicaBinary(options, argv0);
    const std::string command = reproduceCommand(options, argv0);
    std::vector<RunResults> runs;
    bool failed = false;
    for (const Design design : options.designs) {
        Options one = options;
        one.design = design;
        one.jsonFile = jsonFileFor(options, design);
        workDirectory = makePrivateDirectory("failover-bench");
        RunResults results;
        {
            // Destroyed before the report: every replica is stopped by then, on any path out.
            FailoverBench bench(one, workDirectory);
            results = bench.run();
        }
        const ReportContext context{
                .options = one,
                .target = leader::pg::describeTarget(one.replicaUrl()),
                .command = command,
                .logDirectory = workDirectory,
        };
        printReport(std::cout, results, context);
        writeJson(one.jsonFile, results, context);
        std::cout << "results: " << one.jsonFile.string() << std::endl;
        if (!results.failures.empty()) {
            failed = true;
        } else {
            std::error_code ignored;
            std::filesystem::remove_all(workDirectory, ignored);
        }
        workDirectory.clear();
        runs.push_back(std::move(results));
    }
    if (runs.size() == 2) {
        std::filesystem::path table = options.jsonFile;
        table.replace_extension();
        table += "-comparison.md";
        std::ostringstream markdown;
        printComparison(markdown, runs[0], runs[1]);
        std::cout << "\nboth designs, same servers, same run:\n" << markdown.str();
        std::ofstream file(table, std::ios::trunc);
        if (!(file << markdown.str()) || !file.flush())
            throw std::runtime_error("cannot write " + table.string());
        std::cout << "table: " << table.string() << std::endl;
    }
    return failed ? CheckFailed : Ok;
}

} // namespace

int main(int argc, char **argv)
{
    Options options;
    try {
        options = parseOptions(argc, argv);
        // Before any thread or child starts: passwords travel in the environment, never argv.
        passwordsToEnvironment(
                {&options.databaseUrl, &options.replicaDatabaseUrl, &options.listenDatabaseUrl});
    } catch (const UsageError &error) {
        std::cerr << "failover-bench: " << error.what() << " (see failover-bench --help)\n";
        return Usage;
    } catch (const std::invalid_argument &error) {
        std::cerr << "failover-bench: " << error.what() << "\n";
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
