#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

// The host around the benchmark: its description, temporary files, executables on PATH and the
// interrupt flag. With replicaprocess.cpp, the only place the benchmark makes POSIX calls.
namespace bench {

// SIGINT or SIGTERM arrived: thrown from the waits so every replica is stopped on the way out.
class Interrupted final : public std::runtime_error
{
public:
    Interrupted()
        : std::runtime_error("interrupted")
    {}
};

// SIGINT and SIGTERM set a flag instead of ending the process; SIGPIPE is ignored, so a replica
// that dies mid-reply on its control socket is an error, not the end of the benchmark.
void installSignalHandlers();
bool interruptRequested();
void throwIfInterrupted();
// Sleeps, waking early and throwing Interrupted when a signal asked to stop.
void sleepFor(std::chrono::milliseconds duration);

// What `uname -a` shows: system, node, release, version, machine.
std::string systemDescription();
unsigned processorCount();

// A new directory only this user may enter, e.g. /tmp/failover-bench.Ab12Cd.
std::filesystem::path makePrivateDirectory(const std::string &prefix);

bool isExecutableFile(const std::filesystem::path &path);
std::optional<std::filesystem::path> findInPath(const std::string &name);
// The directory holding this program: from argv[0] when it names a path, else /proc/self/exe.
std::filesystem::path programDirectory(const std::string &argv0);
// The tool given with option (a bare name is looked up in PATH), else the build tree's one at
// relative beside this program's directory, else name in PATH. Throws std::runtime_error.
std::filesystem::path findExecutable(const std::filesystem::path &given, const std::string &option,
                                     const std::string &name, const std::string &relative,
                                     const std::string &argv0);

} // namespace bench
