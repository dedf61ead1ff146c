#include "servers.h"

#include "pg/connection.h"
#include "pg/error.h"
#include "replicaprocess.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bench::chaos {

using namespace std::chrono_literals;

int runToEnd(const std::vector<std::string> &argv, const std::filesystem::path &log,
             std::chrono::seconds timeout)
{
    const int output = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (output < 0)
        throw std::system_error(errno, std::generic_category(), log.string());
    std::vector<std::string> words = argv;
    const std::vector<char *> args = bench::execArguments(words);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(output);
        throw std::system_error(error, std::generic_category(), "fork");
    }
    if (pid == 0) {
        bench::prepareChild(parent);
        const int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull < 0 || ::dup2(devNull, STDIN_FILENO) < 0 || ::dup2(output, STDOUT_FILENO) < 0
            || ::dup2(output, STDERR_FILENO) < 0)
            ::_exit(127);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(output);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    for (;;) {
        const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
        if (reaped == pid)
            break;
        if (reaped < 0 && errno != EINTR)
            throw std::system_error(errno, std::generic_category(), "waitpid");
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            throw std::runtime_error(argv.front() + " took longer than "
                                     + std::to_string(timeout.count()) + " s [log " + log.string()
                                     + "]");
        }
        std::this_thread::sleep_for(20ms);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> linesFrom(const std::filesystem::path &file, std::uintmax_t from)
{
    std::ifstream in(file);
    in.seekg(static_cast<std::streamoff>(from));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

Servers::Servers(std::filesystem::path script, std::filesystem::path directory,
                 std::filesystem::path log)
    : m_script(std::move(script))
    , m_directory(std::move(directory))
    , m_log(std::move(log))
{}

std::vector<std::string> Servers::run(const std::string &action, std::chrono::seconds timeout,
                                      const std::vector<std::string> &arguments)
{
    std::error_code ignored;
    const std::uintmax_t before = std::filesystem::exists(m_log, ignored)
                                          ? std::filesystem::file_size(m_log, ignored)
                                          : 0;
    std::vector<std::string> argv{"/bin/bash", m_script.string(), action, m_directory.string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const int code = runToEnd(argv, m_log, timeout);
    std::vector<std::string> said;
    std::string last;
    for (const std::string &line : linesFrom(m_log, before)) {
        if (line.rfind("servers: ", 0) == 0)
            said.push_back(line.substr(9));
        if (!line.empty())
            last = line;
    }
    if (code != 0)
        throw std::runtime_error("servers.sh " + action + " failed ("
                                 + (code < 0 ? std::string("killed by a signal")
                                             : "exit code " + std::to_string(code))
                                 + "): " + last + " [log " + m_log.string() + "]");
    return said;
}

std::optional<double> writableAt(const std::string &url)
{
    try {
        leader::pg::Connection connection(
                {.url = url, .applicationName = "chaos-bench probe", .connectTimeout = 2000ms});
        const leader::pg::Result result = connection.exec(
                "probe",
                "SELECT extract(epoch FROM clock_timestamp())::float8, pg_is_in_recovery()", {},
                2000ms);
        if (result.toBool(0, 1))
            return std::nullopt;
        return result.toDouble(0, 0);
    } catch (const leader::pg::Error &) {
        return std::nullopt;
    }
}

} // namespace bench::chaos
