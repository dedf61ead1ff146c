// failover-bench: how long a billing takeover takes after each kind of fault, measured on the
// database clock with real leader-replica processes, and whether any stale claim got through.

#include "bench.h"
#include "benchmain.h"
#include "host.h"
#include "options.h"
#include "pg/conninfo.h"
#include "report.h"
#include "secrets.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace {

using namespace bench;
using namespace bench::failover;

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
    const Redact redact = redactorOf(options);
    // --replica-binary as given, else the build tree's beside this program's bench/failover.
    options.replicaBinary
            = findExecutable(options.replicaBinary, "--replica-binary", "leader-replica",
                             "../../tools/leader-replica/leader-replica", argv0);
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
            FailoverBench benchmark(one, workDirectory, redact);
            results = benchmark.run();
        }
        const ReportContext context{
                .options = one,
                .target = leader::pg::describeTarget(one.replicaUrl()),
                .command = command,
                .logDirectory = workDirectory,
        };
        printReport(std::cout, results, context);
        writeJsonFile(one.jsonFile, [&](JsonWriter &json) { writeJson(json, results, context); });
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
    return runReplicaBenchmark(argc, argv, "failover-bench", HelpText, parseOptions, run,
                               keepOnlyWithLogs);
}
