#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

// A replica's local control channel and its process signals: a Unix-domain stream socket (on
// Windows a named pipe) that takes one command line and answers one reply line, and the
// termination signals (on Windows the console's control events). With the other files of
// platform/, the only place the engine touches the operating system's own API.
namespace leader::platform {

class ControlServer final
{
public:
    // Gets one command line (no newline); returns the reply line (no newline).
    using Handler = std::function<std::string(const std::string &command)>;

    ControlServer(std::filesystem::path path, Handler handler);
    ~ControlServer();
    ControlServer(const ControlServer &) = delete;
    ControlServer &operator=(const ControlServer &) = delete;

    // Binds path, readable and writable by this account only, and serves on a thread of its own.
    // Whatever exists at path is left alone and refused (std::runtime_error, one line), except a
    // socket file of this account that refuses connections: a killed replica's, replaced. On
    // Windows it creates the pipe controlEndpoint(path) names, with a DACL that admits this
    // account alone and no remote client; a pipe another process serves is not taken over (the
    // path itself is never touched). Throws std::system_error for what the system refuses.
    void start();
    // Stops serving and removes the socket file it bound, if that is still there (a pipe ends
    // with its handle).
    void stop();

private:
    struct Native; // the listening socket and wake-up pipe, or the pipe and its stop event
    void serve();

    const std::filesystem::path m_path;
    const Handler m_handler;
    const std::unique_ptr<Native> m_native;
    std::thread m_thread;
};

// Where the channel for path lives: path itself (the socket file), or on Windows the named pipe
// \\.\pipe\leader-control-<path made absolute, its separators as '-'>; a path that already
// names a pipe is used as it is. The server and its clients derive the same name from the same
// path. Throws std::runtime_error when the name would be too long for the system.
std::filesystem::path controlEndpoint(const std::filesystem::path &path);

// Sends one command line to a control socket and returns the reply line. Throws
// std::runtime_error when the socket cannot be reached or does not answer within timeout.
std::string controlRequest(const std::filesystem::path &path, const std::string &command,
                           std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts afterwards: call it
// first in main, then waitForTermination() takes them. On Windows it installs a console control
// handler that turns Ctrl+C, Ctrl+Break and closing the console (or logging off, shutting down)
// into waitForTermination's returns.
void blockTerminationSignals();
// Waits for SIGTERM or SIGINT; returns its name ("SIGTERM"). On Windows: "SIGINT" for Ctrl+C,
// "SIGBREAK" for Ctrl+Break (the C runtime's names), "CTRL_CLOSE_EVENT", "CTRL_LOGOFF_EVENT" or
// "CTRL_SHUTDOWN_EVENT", and "SIGTERM" after requestTermination().
std::string waitForTermination();
// Asks this process to terminate as SIGTERM would (waitForTermination returns).
void requestTermination();
// Ends this process at once, as SIGKILL does: no destructor, no flush, no RELEASE.
[[noreturn]] void killThisProcess();

} // namespace leader::platform
