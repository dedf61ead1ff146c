#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

// The frame of a benchmark's main(): the command line, the passwords, the signals, and the one
// line and exit code each way out has.
namespace bench {

enum ExitCode {
    Ok = 0,
    Error = 1,       // anything that stopped the run
    Usage = 2,       // wrong arguments
    CheckFailed = 5, // a correctness check failed
};

struct Program
{
    std::string name; // "failover-bench": every line on stderr starts with it
    const char *helpText = "";
    // Reads the command line into the benchmark's options; true when it asked for --help. Throws
    // UsageError, or std::invalid_argument for an unreadable URL.
    std::function<bool(int argc, char **argv)> parse;
    // Every database URL of the options: their passwords move to PGPASSWORD before any thread or
    // child starts, and error texts are redacted of them.
    std::function<std::vector<std::string *>()> urls;
    // The run; its exit code. argv0 is argv[0], or the name when there is none.
    std::function<int(const std::string &argv0)> run;
    // What an interrupt left behind, e.g. "the replicas were stopped".
    std::string afterInterrupt;
    // The run's directory, if it has one: removed after an interrupt, since the logs of a run cut
    // short on purpose are of no interest.
    const std::filesystem::path *workDirectory = nullptr;
    // After an error, e.g. saying where the logs are.
    std::function<void()> failed;
};

int runProgram(int argc, char **argv, const Program &program);

// The same for options read by parseOptions, which have help and urls().
template<typename Options>
int runProgram(int argc, char **argv, Options &options, Options (*parseOptions)(int, char **),
               Program program)
{
    program.parse = [&options, parseOptions](int count, char **words) {
        options = parseOptions(count, words);
        return options.help;
    };
    program.urls = [&options] {
        return options.urls();
    };
    return runProgram(argc, argv, program);
}

// main() of a benchmark that runs replicas in a work directory of its own: run makes it and
// notes it in its last argument; failed is told it after an error.
template<typename Options>
int runReplicaBenchmark(int argc, char **argv, const std::string &name, const char *helpText,
                        Options (*parseOptions)(int, char **),
                        int (*run)(Options, const std::string &, std::filesystem::path &),
                        void (*failed)(const std::filesystem::path &))
{
    Options options;
    std::filesystem::path workDirectory;
    return runProgram(
            argc, argv, options, parseOptions,
            {.name = name,
             .helpText = helpText,
             .run = [&](const std::string &argv0) { return run(options, argv0, workDirectory); },
             .afterInterrupt = "the replicas were stopped",
             .workDirectory = &workDirectory,
             .failed =
                     [&] {
                         failed(workDirectory);
                     }});
}

} // namespace bench
