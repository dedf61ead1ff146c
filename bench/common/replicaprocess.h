#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// One child process with its stdout read line by line, and the signals and control-socket
// commands the faults need. The benchmark's only fork, exec, kill, waitpid and socket calls.
namespace bench {

struct ExitStatus
{
    int code = -1;  // the exit code, or -1 when a signal ended it
    int signal = 0; // the signal that ended it, or 0
    std::chrono::steady_clock::time_point observedAt;

    bool clean() const { return signal == 0 && code == 0; }
    std::string describe() const; // "exit code 0", "signal 9 (Killed)"
};

class ReplicaProcess final
{
public:
    // Called on the reader thread for every line the child writes to stdout, without the newline.
    using LineHandler = std::function<void(int pid, std::string_view line)>;

    // Starts argv (argv[0] a path) in its own process group, stdin from /dev/null, stdout to
    // onLine (and copied to stdoutCopy), stderr appended to stderrLog. On Linux it is killed if
    // the benchmark dies without cleaning up. Throws std::system_error when it cannot be run.
    ReplicaProcess(const std::vector<std::string> &argv, const std::filesystem::path &stderrLog,
                   const std::filesystem::path &stdoutCopy, LineHandler onLine);
    // A child still running is resumed, killed and reaped: none outlives the benchmark.
    ~ReplicaProcess();
    ReplicaProcess(const ReplicaProcess &) = delete;
    ReplicaProcess &operator=(const ReplicaProcess &) = delete;

    int pid() const { return m_pid; }

    // The faults. Each does nothing once the child has been reaped (its pid may be reused).
    void kill();      // SIGKILL
    void terminate(); // SIGTERM
    void freeze();    // SIGSTOP
    void resume();    // SIGCONT

    // Reaps the child if it has exited, without waiting.
    std::optional<ExitStatus> exitStatus();
    std::optional<ExitStatus> waitForExit(std::chrono::milliseconds timeout);
    bool running() { return !exitStatus(); }

private:
    void send(int signal);
    void readLines(LineHandler onLine, std::filesystem::path stdoutCopy);

    int m_pid = -1;
    int m_stdout = -1;
    std::optional<ExitStatus> m_exit;
    std::atomic<bool> m_stopReading{false};
    std::thread m_reader;
};

// In a child just forked by the benchmark, before exec: its own process group, killed with the
// benchmark (Linux), default signal dispositions and no blocked signal. parent is the forking pid.
void prepareChild(int parent);

// argv as execv takes it: pointers into words, then a null. Made before fork, since after it the
// child may make only async-signal-safe calls.
std::vector<char *> execArguments(std::vector<std::string> &words);

// The last non-empty line of a log file, or "" when there is none.
std::string lastNonEmptyLine(const std::filesystem::path &file);

// Sends one line to a leader-replica control socket and returns its one-line reply ("ok ..." or
// "error ..."). Throws std::runtime_error when the socket cannot be reached or stays silent.
std::string sendControl(const std::filesystem::path &socket, const std::string &command,
                        std::chrono::milliseconds timeout);

} // namespace bench
