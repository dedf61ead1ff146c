#include "platform/control.h"

#include "win32.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <system_error>

namespace leader::platform {

namespace {

using Clock = std::chrono::steady_clock;
using win32::Handle;

constexpr std::wstring_view PipePrefix = L"\\\\.\\pipe\\";
// The pipe file system's limit on a whole name, prefix included.
constexpr std::size_t MaxPipeName = 256;

std::wstring pipeNameOf(const std::filesystem::path &path)
{
    return controlEndpoint(path).wstring();
}

DWORD millisecondsUntil(Clock::time_point deadline)
{
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<DWORD>(std::clamp<std::chrono::milliseconds::rep>(left.count(), 0, MAXLONG));
}

enum class End { Done, Failed, TimedOut };
struct Outcome
{
    End end = End::Failed;
    DWORD bytes = 0;
};

// One overlapped operation on a pipe handle and its event.
class Operation final
{
public:
    Operation()
        : m_event(::CreateEventW(nullptr, TRUE, FALSE, nullptr))
    {
        if (!m_event.valid())
            win32::throwLastError("CreateEvent");
        m_overlapped.hEvent = m_event.get();
    }

    OVERLAPPED *overlapped() { return &m_overlapped; }

    // Waits for the operation a Win32 call began (started: what the call returned) until it
    // ends, the time is up or stop is set (TimedOut for both); one still pending then is
    // cancelled, and has ended when this returns.
    Outcome finish(HANDLE file, BOOL started, DWORD milliseconds, HANDLE stop = nullptr)
    {
        Outcome outcome;
        if (!started && ::GetLastError() != ERROR_IO_PENDING)
            return outcome;
        const std::array<HANDLE, 2> events{m_event.get(), stop};
        if (::WaitForMultipleObjects(stop ? 2 : 1, events.data(), FALSE, milliseconds)
            != WAIT_OBJECT_0) {
            ::CancelIoEx(file, &m_overlapped);
            // The buffer the operation writes to must outlive it.
            ::GetOverlappedResult(file, &m_overlapped, &outcome.bytes, TRUE);
            return {End::TimedOut, 0};
        }
        if (::GetOverlappedResult(file, &m_overlapped, &outcome.bytes, FALSE))
            outcome.end = End::Done;
        return outcome;
    }

private:
    Handle m_event;
    OVERLAPPED m_overlapped{};
};

// Reads up to a newline or end of stream, at most 4 KiB, until the deadline or stop. False when
// the time ran out (or stop was set) first.
bool readLine(HANDLE pipe, std::string &line, Clock::time_point deadline, HANDLE stop = nullptr)
{
    std::array<char, 512> buffer{};
    while (line.find('\n') == std::string::npos && line.size() < 4096) {
        Operation read;
        const BOOL started = ::ReadFile(pipe, buffer.data(), static_cast<DWORD>(buffer.size()),
                                        nullptr, read.overlapped());
        const Outcome got = read.finish(pipe, started, millisecondsUntil(deadline), stop);
        if (got.end == End::TimedOut)
            return false;
        // The other end closed the pipe (or it broke): whatever came is the line.
        if (got.end == End::Failed)
            break;
        // Zero bytes are a zero-length write, not the end of the stream.
        line.append(buffer.data(), got.bytes);
    }
    if (const auto newline = line.find('\n'); newline != std::string::npos)
        line.resize(newline);
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return true;
}

bool writeAll(HANDLE pipe, const std::string &text, Clock::time_point deadline,
              HANDLE stop = nullptr)
{
    std::size_t sent = 0;
    while (sent < text.size()) {
        Operation write;
        const BOOL started
                = ::WriteFile(pipe, text.data() + sent, static_cast<DWORD>(text.size() - sent),
                              nullptr, write.overlapped());
        const Outcome moved = write.finish(pipe, started, millisecondsUntil(deadline), stop);
        if (moved.end != End::Done)
            return false;
        sent += moved.bytes;
    }
    return true;
}

// Disconnecting a pipe discards what the client has not read yet: the server waits for the
// client to close its end after the reply (a read that fails with a broken pipe), or the deadline.
void awaitHangUp(HANDLE pipe, Clock::time_point deadline, HANDLE stop)
{
    std::array<char, 64> ignored{};
    for (;;) {
        Operation read;
        const BOOL started = ::ReadFile(pipe, ignored.data(), static_cast<DWORD>(ignored.size()),
                                        nullptr, read.overlapped());
        if (read.finish(pipe, started, millisecondsUntil(deadline), stop).end != End::Done)
            return;
    }
}

// The pending console events and requestTermination()'s, as pending signals are on Linux: one of
// each kind at most. Never destroyed: a console event may arrive while the process exits.
struct Termination
{
    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<std::string> pending;
};

Termination &termination()
{
    static Termination *const instance = new Termination;
    return *instance;
}

void post(const std::string &name)
{
    Termination &state = termination();
    {
        const std::lock_guard lock(state.mutex);
        if (std::find(state.pending.begin(), state.pending.end(), name) != state.pending.end())
            return;
        state.pending.push_back(name);
    }
    state.arrived.notify_all();
}

BOOL WINAPI onConsoleEvent(DWORD event)
{
    switch (event) {
    case CTRL_C_EVENT:
        post("SIGINT");
        return TRUE;
    case CTRL_BREAK_EVENT:
        post("SIGBREAK");
        return TRUE;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
        post(event == CTRL_CLOSE_EVENT    ? "CTRL_CLOSE_EVENT"
             : event == CTRL_LOGOFF_EVENT ? "CTRL_LOGOFF_EVENT"
                                          : "CTRL_SHUTDOWN_EVENT");
        // Windows ends the process as soon as this handler returns, and after a few seconds in
        // any case: holding it here gives the process that long to release its leases and exit
        // on its own.
        ::Sleep(INFINITE);
        return TRUE;
    default:
        return FALSE;
    }
}

} // namespace

struct ControlServer::Native
{
    Handle pipe; // the one instance, connected to one client after another
    Handle stop; // set by stop()
};

ControlServer::ControlServer(std::filesystem::path path, Handler handler)
    : m_path(std::move(path))
    , m_handler(std::move(handler))
    , m_native(std::make_unique<Native>())
{}

ControlServer::~ControlServer()
{
    stop();
}

void ControlServer::start()
{
    const std::wstring name = pipeNameOf(m_path);
    win32::PrivateSecurity security;
    // One instance, created first by this process: a pipe of that name already served by another
    // process (a squatter, or a second replica given the same path) fails here instead of sharing
    // the name. Remote clients are refused by the pipe itself, other accounts by its DACL.
    Handle pipe(::CreateNamedPipeW(
            name.c_str(), PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 4096,
            4096, 0, security.attributes()));
    if (!pipe.valid())
        win32::throwLastError("control pipe " + win32::utf8(name));
    Handle stop(::CreateEventW(nullptr, TRUE, FALSE, nullptr));
    if (!stop.valid())
        win32::throwLastError("control pipe stop event");
    m_native->pipe = std::move(pipe);
    m_native->stop = std::move(stop);
    m_thread = std::thread([this] { serve(); });
}

void ControlServer::stop()
{
    if (m_thread.joinable()) {
        ::SetEvent(m_native->stop.get());
        m_thread.join();
    }
    m_native->pipe.reset();
    m_native->stop.reset();
}

void ControlServer::serve()
{
    const HANDLE pipe = m_native->pipe.get();
    const HANDLE stop = m_native->stop.get();
    for (;;) {
        Operation connect;
        const BOOL started = ::ConnectNamedPipe(pipe, connect.overlapped());
        // Connected already: a client opened the pipe between the last disconnect and now.
        if (started || ::GetLastError() != ERROR_PIPE_CONNECTED) {
            const End connected = connect.finish(pipe, started, INFINITE, stop).end;
            if (::WaitForSingleObject(stop, 0) == WAIT_OBJECT_0)
                return;
            // ERROR_NO_DATA: a client that came and went before the connect.
            if (connected != End::Done) {
                ::DisconnectNamedPipe(pipe);
                continue;
            }
        }
        // One client at a time, each with a short deadline, so a silent client cannot hold it.
        const auto deadline = Clock::now() + std::chrono::seconds(2);
        std::string line;
        if (readLine(pipe, line, deadline, stop)
            && writeAll(pipe, m_handler(line) + "\n", deadline, stop))
            awaitHangUp(pipe, deadline, stop);
        ::DisconnectNamedPipe(pipe);
        if (::WaitForSingleObject(stop, 0) == WAIT_OBJECT_0)
            return;
    }
}

std::filesystem::path controlEndpoint(const std::filesystem::path &path)
{
    std::wstring text = path.wstring();
    if (text.size() > PipePrefix.size()
        && ::CompareStringOrdinal(text.c_str(), static_cast<int>(PipePrefix.size()),
                                  PipePrefix.data(), static_cast<int>(PipePrefix.size()), TRUE)
                   == CSTR_EQUAL)
        return path;
    // A pipe name may hold any character but a backslash.
    text = std::filesystem::absolute(path).lexically_normal().wstring();
    std::replace(text.begin(), text.end(), L'\\', L'-');
    std::replace(text.begin(), text.end(), L'/', L'-');
    const std::wstring name = std::wstring(PipePrefix) + L"leader-control-" + text;
    if (name.size() > MaxPipeName)
        throw std::runtime_error("control pipe name too long (at most "
                                 + std::to_string(MaxPipeName)
                                 + " characters): " + win32::utf8(name));
    return name;
}

std::string controlRequest(const std::filesystem::path &path, const std::string &command,
                           std::chrono::milliseconds timeout)
{
    const std::wstring name = pipeNameOf(path);
    const std::string shown = win32::utf8(name);
    const auto deadline = Clock::now() + timeout;
    Handle pipe;
    for (;;) {
        // Identification only: a server cannot act as this client with what it learns.
        pipe.reset(::CreateFileW(
                name.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, nullptr));
        if (pipe.valid())
            break;
        const DWORD error = ::GetLastError();
        // Busy: the server is answering another client.
        if (error == ERROR_PIPE_BUSY && Clock::now() < deadline) {
            ::WaitNamedPipeW(name.c_str(), std::max<DWORD>(1, millisecondsUntil(deadline)));
            continue;
        }
        if (error == ERROR_PIPE_BUSY)
            throw std::runtime_error("the control pipe " + shown + " did not answer");
        throw std::runtime_error("cannot reach the control pipe " + shown + ": "
                                 + win32::errorText(error));
    }
    std::string reply;
    const bool answered = writeAll(pipe.get(), command + "\n", deadline)
                          && readLine(pipe.get(), reply, deadline);
    if (!answered || reply.empty())
        throw std::runtime_error("the control pipe " + shown + " did not answer");
    return reply;
}

void blockTerminationSignals()
{
    ::SetConsoleCtrlHandler(onConsoleEvent, TRUE);
}

std::string waitForTermination()
{
    Termination &state = termination();
    std::unique_lock lock(state.mutex);
    state.arrived.wait(lock, [&state] { return !state.pending.empty(); });
    std::string name = std::move(state.pending.front());
    state.pending.pop_front();
    return name;
}

void requestTermination()
{
    post("SIGTERM");
}

void killThisProcess()
{
    ::TerminateProcess(::GetCurrentProcess(), win32::KilledExitCode);
    std::_Exit(137);
}

} // namespace leader::platform
