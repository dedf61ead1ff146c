#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

// A replica's local control channel and its process signals: a Unix-domain stream socket that
// takes one command line and answers one reply line, and the termination signals. With the other
// files of platform/, the only place the engine touches POSIX, so a Windows build fills in only
// these (a named pipe, console control events).
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

    // Binds path, readable and writable by this account only (a stale socket file is replaced),
    // and serves on a thread of its own. Throws std::system_error.
    void start();
    // Stops serving and removes the socket file.
    void stop();

private:
    void serve();

    const std::filesystem::path m_path;
    const Handler m_handler;
    int m_listener = -1;
    int m_wakeRead = -1;
    int m_wakeWrite = -1;
    std::thread m_thread;
};

// Sends one command line to a control socket and returns the reply line. Throws
// std::runtime_error when the socket cannot be reached or does not answer within timeout.
std::string controlRequest(const std::filesystem::path &path, const std::string &command,
                           std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts afterwards: call it
// first in main, then waitForTermination() takes them.
void blockTerminationSignals();
// Waits for SIGTERM or SIGINT; returns its name ("SIGTERM").
std::string waitForTermination();
// Asks this process to terminate as SIGTERM would (waitForTermination returns).
void requestTermination();
// Ends this process at once, as SIGKILL does: no destructor, no flush, no RELEASE.
[[noreturn]] void killThisProcess();

} // namespace leader::platform
