#include "host.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/utsname.h>
#include <unistd.h>

namespace bench {

namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler stores to it");

extern "C" void onInterrupt(int)
{
    g_interrupted.store(true);
}

} // namespace

void installSignalHandlers()
{
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
}

bool interruptRequested()
{
    return g_interrupted.load();
}

void throwIfInterrupted()
{
    if (interruptRequested())
        throw Interrupted();
}

void sleepFor(std::chrono::milliseconds duration)
{
    using namespace std::chrono_literals;
    const auto until = std::chrono::steady_clock::now() + duration;
    for (;;) {
        throwIfInterrupted();
        const auto now = std::chrono::steady_clock::now();
        if (now >= until)
            return;
        std::this_thread::sleep_for(
                std::min<std::chrono::steady_clock::duration>(until - now, 50ms));
    }
}

std::string systemDescription()
{
    utsname name = {};
    if (uname(&name) != 0)
        return "unknown";
    return std::string(name.sysname) + " " + name.nodename + " " + name.release + " " + name.version
           + " " + name.machine;
}

unsigned processorCount()
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : std::thread::hardware_concurrency();
}

std::filesystem::path makePrivateDirectory(const std::string &prefix)
{
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern
            = (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / (prefix + ".XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
        throw std::system_error(errno, std::generic_category(),
                                "cannot create a directory " + pattern);
    return buffer.data();
}

bool isExecutableFile(const std::filesystem::path &path)
{
    std::error_code error;
    return std::filesystem::is_regular_file(path, error) && access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> findInPath(const std::string &name)
{
    const char *path = std::getenv("PATH");
    const std::string directories = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= directories.size()) {
        const std::size_t colon = std::min(directories.find(':', start), directories.size());
        const std::string directory = directories.substr(start, colon - start);
        const std::filesystem::path candidate
                = std::filesystem::path(directory.empty() ? "." : directory) / name;
        if (isExecutableFile(candidate))
            return candidate;
        start = colon + 1;
    }
    return std::nullopt;
}

std::filesystem::path programDirectory(const std::string &argv0)
{
    if (argv0.find('/') != std::string::npos)
        return std::filesystem::path(argv0).parent_path();
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : self.parent_path();
}

std::filesystem::path findExecutable(const std::filesystem::path &given, const std::string &option,
                                     const std::string &name, const std::string &relative,
                                     const std::string &argv0)
{
    if (!given.empty()) {
        if (given.string().find('/') == std::string::npos) {
            if (const std::optional<std::filesystem::path> found = findInPath(given.string()))
                return std::filesystem::absolute(*found);
        }
        if (!isExecutableFile(given))
            throw std::runtime_error(option + " " + given.string() + " is not an executable file");
        return std::filesystem::absolute(given);
    }
    const std::filesystem::path beside = programDirectory(argv0) / relative;
    if (isExecutableFile(beside))
        return std::filesystem::absolute(beside).lexically_normal();
    if (const std::optional<std::filesystem::path> found = findInPath(name))
        return std::filesystem::absolute(*found);
    throw std::runtime_error(name + " not found (looked at " + beside.string()
                             + " and in PATH); build it or give " + option + " PATH");
}

} // namespace bench
