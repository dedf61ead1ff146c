#include "platform/process.h"

#include "platform/sockets.h"
#include "win32.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cwchar>
#include <memory>
#include <system_error>
#include <vector>

// After windows.h, which they assume.
#include <aclapi.h>
#include <bcrypt.h>

namespace leader::platform {

namespace {

using Clock = std::chrono::steady_clock;
using win32::Handle;

constexpr std::size_t MaxOutput = 1 << 20;

[[noreturn]] void notOnWindows(const std::string &what)
{
    throw std::system_error(std::make_error_code(std::errc::function_not_supported),
                            what + ": Windows runs every program as the caller's account");
}

// Windows passes one command line; the child's C runtime splits it (CommandLineToArgvW's rules):
// 2n backslashes before a quote are n backslashes, 2n+1 are n and a literal quote.
void appendQuoted(std::wstring &line, std::wstring_view argument)
{
    if (!argument.empty() && argument.find_first_of(L" \t\n\v\"") == std::wstring_view::npos) {
        line += argument;
        return;
    }
    line += L'"';
    std::size_t backslashes = 0;
    for (const wchar_t c : argument) {
        if (c == L'\\') {
            ++backslashes;
            continue;
        }
        line.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
        backslashes = 0;
        line += c;
    }
    line.append(backslashes * 2, L'\\');
    line += L'"';
}

std::wstring commandLine(const std::vector<std::string> &argv)
{
    std::wstring line;
    for (const std::string &argument : argv) {
        if (!line.empty())
            line += L' ';
        appendQuoted(line, win32::wide(argument));
    }
    return line;
}

// CreateProcess would look for a bare name in its own directory and the current one first; this
// looks in PATH alone, as exec does on Linux, adding ".exe" to a name without an extension.
std::wstring findExecutable(const std::string &program)
{
    std::wstring name = win32::wide(program);
    if (name.find_first_of(L"\\/:") != std::wstring::npos) {
        if (!std::filesystem::path(name).has_extension())
            name += L".exe";
        return name;
    }
    const DWORD size = ::GetEnvironmentVariableW(L"PATH", nullptr, 0);
    if (size == 0)
        return {};
    std::wstring path(size, L'\0');
    path.resize(::GetEnvironmentVariableW(L"PATH", path.data(), size));
    std::wstring found(MAX_PATH, L'\0');
    for (;;) {
        const DWORD length = ::SearchPathW(path.c_str(), name.c_str(), L".exe",
                                           static_cast<DWORD>(found.size()), found.data(), nullptr);
        if (length == 0)
            return {};
        if (length < found.size()) {
            found.resize(length);
            return found;
        }
        found.resize(length);
    }
}

bool sameName(std::wstring_view a, std::wstring_view b)
{
    return ::CompareStringOrdinal(a.data(), static_cast<int>(a.size()), b.data(),
                                  static_cast<int>(b.size()), TRUE)
           == CSTR_EQUAL;
}

// "NAME=value"; entries such as "=C:=C:\dir" (the drives' directories) start with '='.
std::wstring_view nameOf(std::wstring_view entry)
{
    return entry.substr(0, entry.find(L'=', 1));
}

// The caller's environment with options' variables replacing those of the same name (names are
// case-insensitive on Windows), as the sorted block CreateProcess expects.
std::wstring environmentBlock(const ProcessOptions &options)
{
    std::vector<std::wstring> changes;
    for (const auto &[name, value] : options.environment)
        changes.push_back(win32::wide(name) + L"=" + win32::wide(value));

    std::vector<std::wstring> entries;
    const std::unique_ptr<wchar_t, decltype(&::FreeEnvironmentStringsW)> inherited(
            ::GetEnvironmentStringsW(), &::FreeEnvironmentStringsW);
    for (const wchar_t *entry = inherited.get(); entry && *entry; entry += wcslen(entry) + 1) {
        const std::wstring_view name = nameOf(entry);
        const bool replaced = std::any_of(changes.begin(), changes.end(), [name](const auto &c) {
            return sameName(nameOf(c), name);
        });
        if (!replaced)
            entries.emplace_back(entry);
    }
    entries.insert(entries.end(), changes.begin(), changes.end());
    std::stable_sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        const std::wstring_view left = nameOf(a);
        const std::wstring_view right = nameOf(b);
        return ::CompareStringOrdinal(left.data(), static_cast<int>(left.size()), right.data(),
                                      static_cast<int>(right.size()), TRUE)
               == CSTR_LESS_THAN;
    });
    std::wstring block;
    for (const std::wstring &entry : entries) {
        block += entry;
        block += L'\0';
    }
    if (block.empty())
        block += L'\0';
    block += L'\0';
    return block;
}

// The pipe a child writes its stdout and stderr to. Anonymous pipes cannot be read with
// overlapped I/O, which lets one wait cover the child's exit and its output: this is a named pipe
// of a unique name, private to this account, with one instance that this process connects at once.
struct OutputPipe
{
    Handle read;  // this process's, overlapped
    Handle write; // the child's, inheritable
};

OutputPipe outputPipe()
{
    static std::atomic<unsigned> serial{0};
    const std::wstring name = L"\\\\.\\pipe\\leader-output-"
                              + std::to_wstring(::GetCurrentProcessId()) + L"-"
                              + std::to_wstring(serial++);
    win32::PrivateSecurity security;
    OutputPipe pipe;
    pipe.read.reset(::CreateNamedPipeW(
            name.c_str(),
            PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 0,
            65536, 0, security.attributes()));
    if (!pipe.read.valid())
        win32::throwLastError("output pipe");
    SECURITY_ATTRIBUTES inheritable{sizeof inheritable, nullptr, TRUE};
    pipe.write.reset(::CreateFileW(name.c_str(), GENERIC_WRITE, 0, &inheritable, OPEN_EXISTING,
                                   FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!pipe.write.valid())
        win32::throwLastError("output pipe");
    return pipe;
}

// Collects a child's output with overlapped reads, one pending at a time, signalled on event().
class OutputReader final
{
public:
    OutputReader(Handle pipe, std::string &output)
        : m_pipe(std::move(pipe))
        , m_event(::CreateEventW(nullptr, TRUE, FALSE, nullptr))
        , m_output(output)
    {
        if (!m_event.valid())
            win32::throwLastError("CreateEvent");
        issue();
    }
    ~OutputReader() { cancel(); }
    OutputReader(const OutputReader &) = delete;
    OutputReader &operator=(const OutputReader &) = delete;

    bool open() const { return m_pending; }
    HANDLE event() const { return m_event.get(); }

    // The pending read completed (event() is set): takes its bytes and starts the next.
    void collect()
    {
        DWORD bytes = 0;
        m_pending = false;
        if (!::GetOverlappedResult(m_pipe.get(), &m_overlapped, &bytes, FALSE))
            return; // ERROR_BROKEN_PIPE: every writer closed its end
        if (m_output.size() < MaxOutput)
            m_output.append(m_buffer.data(), bytes);
        issue();
    }

    // After the child exited: everything it wrote is in the pipe already, and a read still
    // pending has nothing left to wait for but a descendant that inherited the pipe (a daemon,
    // which may hold it forever). Takes what is there and stops.
    void drain()
    {
        while (m_pending && ::WaitForSingleObject(m_event.get(), 0) == WAIT_OBJECT_0)
            collect();
        cancel();
    }

    void cancel()
    {
        if (!m_pending)
            return;
        DWORD bytes = 0;
        ::CancelIoEx(m_pipe.get(), &m_overlapped);
        // The buffer the read fills must outlive it.
        ::GetOverlappedResult(m_pipe.get(), &m_overlapped, &bytes, TRUE);
        m_pending = false;
    }

private:
    // A read that completes at once still sets the event, so collect() takes every result.
    void issue()
    {
        m_overlapped = OVERLAPPED{};
        m_overlapped.hEvent = m_event.get();
        m_pending = ::ReadFile(m_pipe.get(), m_buffer.data(), static_cast<DWORD>(m_buffer.size()),
                               nullptr, &m_overlapped)
                    || ::GetLastError() == ERROR_IO_PENDING;
    }

    Handle m_pipe;
    Handle m_event;
    std::string &m_output;
    OVERLAPPED m_overlapped{};
    std::array<char, 4096> m_buffer{};
    bool m_pending = false;
};

// Only the handles the child needs are inherited, whatever else this process holds inheritable
// at that moment (another thread's child's pipe, say).
class InheritedHandles final
{
public:
    explicit InheritedHandles(std::array<HANDLE, 2> handles)
        : m_handles(handles)
    {
        SIZE_T size = 0;
        ::InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
        m_storage.resize(size);
        m_list = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(m_storage.data());
        if (!::InitializeProcThreadAttributeList(m_list, 1, 0, &size))
            win32::throwLastError("InitializeProcThreadAttributeList");
        if (!::UpdateProcThreadAttribute(m_list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
                                         m_handles.data(), sizeof(HANDLE) * m_handles.size(),
                                         nullptr, nullptr)) {
            ::DeleteProcThreadAttributeList(m_list);
            win32::throwLastError("UpdateProcThreadAttribute");
        }
    }
    ~InheritedHandles() { ::DeleteProcThreadAttributeList(m_list); }
    InheritedHandles(const InheritedHandles &) = delete;
    InheritedHandles &operator=(const InheritedHandles &) = delete;

    LPPROC_THREAD_ATTRIBUTE_LIST list() const { return m_list; }

private:
    std::array<HANDLE, 2> m_handles;
    std::vector<unsigned char> m_storage;
    LPPROC_THREAD_ATTRIBUTE_LIST m_list = nullptr;
};

// An NTSTATUS error status (a crash, or TerminateProcess with one) is how a process ends
// abnormally on Windows, as by a signal on Linux.
int exitCodeOf(DWORD status)
{
    return status >= 0xC0000000 ? -1 : static_cast<int>(status);
}

DWORD millisecondsUntil(Clock::time_point deadline)
{
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<DWORD>(std::clamp<std::chrono::milliseconds::rep>(left.count(), 0, MAXLONG));
}

} // namespace

std::optional<Account> lookupAccount(const std::string &)
{
    return std::nullopt;
}

std::optional<Account> ownerOf(const std::filesystem::path &)
{
    return std::nullopt;
}

bool isRoot()
{
    // An administrator is not root here: initdb and pg_ctl drop administrative rights for the
    // server themselves, so nothing ever switches accounts.
    return false;
}

std::filesystem::path programFile(const std::filesystem::path &directory, std::string_view name)
{
    return directory / (std::string(name) + ".exe");
}

std::string hostName()
{
    std::array<wchar_t, 256> name{};
    DWORD size = static_cast<DWORD>(name.size());
    if (!::GetComputerNameExW(ComputerNameDnsHostname, name.data(), &size) || size == 0)
        return "unknown";
    return win32::utf8(std::wstring_view(name.data(), size));
}

int processId()
{
    return static_cast<int>(::GetCurrentProcessId());
}

std::filesystem::path executablePath()
{
    std::wstring module(MAX_PATH, L'\0');
    for (;;) {
        const DWORD length
                = ::GetModuleFileNameW(nullptr, module.data(), static_cast<DWORD>(module.size()));
        if (length == 0)
            return {};
        if (length < module.size()) {
            module.resize(length);
            break;
        }
        module.resize(module.size() * 2);
    }
    // Symbolic links and junctions resolved, as /proc/self/exe is on Linux.
    const Handle file(::CreateFileW(module.c_str(), 0,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!file.valid())
        return module;
    std::wstring resolved(module.size() + 64, L'\0');
    DWORD length = ::GetFinalPathNameByHandleW(
            file.get(), resolved.data(), static_cast<DWORD>(resolved.size()), VOLUME_NAME_DOS);
    if (length >= resolved.size()) {
        resolved.resize(length);
        length = ::GetFinalPathNameByHandleW(file.get(), resolved.data(),
                                             static_cast<DWORD>(resolved.size()), VOLUME_NAME_DOS);
    }
    if (length == 0 || length >= resolved.size())
        return module;
    resolved.resize(length);
    // GetFinalPathNameByHandle answers in the \\?\ form, which some programs do not take.
    if (resolved.starts_with(L"\\\\?\\UNC\\"))
        return L"\\\\" + resolved.substr(8);
    if (resolved.starts_with(L"\\\\?\\"))
        return resolved.substr(4);
    return resolved;
}

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options)
{
    ProcessResult result;
    if (argv.empty()) {
        result.error = "no program to run";
        return result;
    }
    if (options.asAccount) {
        result.error = "cannot switch to account '" + options.asAccount->name + "' to run "
                       + argv[0] + ": Windows runs every program as the caller's account";
        return result;
    }
    const std::wstring program = findExecutable(argv[0]);
    if (program.empty()) {
        result.error = "cannot run " + argv[0] + ": not found in PATH";
        return result;
    }
    std::wstring line = commandLine(argv);
    std::wstring environment = environmentBlock(options);
    const std::wstring directory = options.workingDirectory.wstring();

    SECURITY_ATTRIBUTES inheritable{sizeof inheritable, nullptr, TRUE};
    Handle input(::CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                               &inheritable, OPEN_EXISTING, 0, nullptr));
    if (!input.valid())
        win32::throwLastError("open NUL");
    OutputPipe output = outputPipe();
    const InheritedHandles inherited({input.get(), output.write.get()});

    STARTUPINFOEXW startup{};
    startup.StartupInfo.cb = sizeof startup;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = input.get();
    startup.StartupInfo.hStdOutput = output.write.get();
    startup.StartupInfo.hStdError = output.write.get();
    startup.lpAttributeList = inherited.list();
    // Suspended until it is in its job. No window: the child gets a console of its own that
    // nobody sees, shared by what it starts (pg_ctl's server), so no console window flashes up
    // under the console app, and Ctrl+C in the caller's console does not reach them.
    const DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED | CREATE_NO_WINDOW
                        | EXTENDED_STARTUPINFO_PRESENT;
    PROCESS_INFORMATION started{};
    if (!::CreateProcessW(program.c_str(), line.data(), nullptr, nullptr, TRUE, flags,
                          environment.data(), directory.empty() ? nullptr : directory.c_str(),
                          &startup.StartupInfo, &started)) {
        const DWORD error = ::GetLastError();
        std::error_code ignored;
        result.error = !directory.empty() && !std::filesystem::is_directory(directory, ignored)
                               ? "cannot enter " + options.workingDirectory.string() + " to run "
                                         + argv[0] + ": " + win32::errorText(ERROR_DIRECTORY)
                               : "cannot run " + argv[0] + ": " + win32::errorText(error);
        return result;
    }
    const Handle process(started.hProcess);
    const Handle thread(started.hThread);
    // The job plays the process group's part: at the timeout it ends the child with every
    // process the child started. No kill-on-close: a server the child started outlives it, as a
    // daemon outlives its session on Linux. Should the job be refused, the child alone is ended.
    const Handle job(::CreateJobObjectW(nullptr, nullptr));
    const bool inJob = job.valid() && ::AssignProcessToJobObject(job.get(), process.get());
    ::ResumeThread(thread.get());
    input.reset();
    output.write.reset();

    OutputReader reader(std::move(output.read), result.output);
    const auto deadline = Clock::now() + options.timeout;
    for (;;) {
        if (Clock::now() >= deadline) {
            if (inJob)
                ::TerminateJobObject(job.get(), win32::KilledExitCode);
            ::TerminateProcess(process.get(), win32::KilledExitCode);
            ::WaitForSingleObject(process.get(), INFINITE);
            result.timedOut = true;
            return result;
        }
        const std::array<HANDLE, 2> waits{process.get(), reader.event()};
        const DWORD waited = ::WaitForMultipleObjects(reader.open() ? 2 : 1, waits.data(), FALSE,
                                                      millisecondsUntil(deadline));
        if (waited == WAIT_OBJECT_0) {
            reader.drain();
            break;
        }
        if (waited == WAIT_OBJECT_0 + 1)
            reader.collect();
        else if (waited == WAIT_FAILED)
            win32::throwLastError("WaitForMultipleObjects");
    }
    DWORD status = 0;
    ::GetExitCodeProcess(process.get(), &status);
    result.exitCode = exitCodeOf(status);
    return result;
}

bool processAlive(int pid)
{
    if (pid <= 0)
        return false;
    const Handle process(::OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
                                       static_cast<DWORD>(pid)));
    // Another account's process is there all the same, as kill() says with EPERM.
    if (!process.valid())
        return ::GetLastError() == ERROR_ACCESS_DENIED;
    // A process that exited stays openable while anyone holds a handle to it, as a zombie does.
    return ::WaitForSingleObject(process.get(), 0) == WAIT_TIMEOUT;
}

bool killProcess(int pid)
{
    if (pid <= 0)
        return false;
    const Handle process(
            ::OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, static_cast<DWORD>(pid)));
    // A process that has exited is no longer there to end, though a handle still names it.
    return process.valid() && ::WaitForSingleObject(process.get(), 0) == WAIT_TIMEOUT
           && ::TerminateProcess(process.get(), win32::KilledExitCode);
}

int freeLoopbackPort()
{
    return localPort(listenLoopback(0));
}

void chownTree(const std::filesystem::path &path, const Account &account)
{
    notOnWindows("cannot give " + path.string() + " to " + account.name);
}

bool canTraverse(const Account &account, const std::filesystem::path &directory)
{
    notOnWindows("cannot check " + directory.string() + " for " + account.name);
}

void writePrivateFile(const std::filesystem::path &path, std::string_view contents)
{
    win32::PrivateSecurity security;
    // Not following a link planted at path, as O_NOFOLLOW on Linux.
    const Handle file(::CreateFileW(path.c_str(), GENERIC_WRITE | WRITE_DAC, 0,
                                    security.attributes(), CREATE_ALWAYS,
                                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!file.valid())
        win32::throwLastError("cannot write " + path.string());
    // A file that existed keeps its own descriptor through CREATE_ALWAYS: it gets the private one.
    if (const DWORD error
        = ::SetSecurityInfo(file.get(), SE_FILE_OBJECT,
                            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
                            nullptr, nullptr, security.dacl(), nullptr);
        error != ERROR_SUCCESS)
        win32::throwError(error, "cannot write " + path.string());
    while (!contents.empty()) {
        DWORD written = 0;
        const auto chunk = static_cast<DWORD>(std::min<std::size_t>(contents.size(), 1 << 20));
        if (!::WriteFile(file.get(), contents.data(), chunk, &written, nullptr))
            win32::throwLastError("cannot write " + path.string());
        contents.remove_prefix(written);
    }
}

std::string randomBytes(std::size_t n)
{
    std::string bytes(n, '\0');
    std::size_t filled = 0;
    while (filled < n) {
        const auto chunk = static_cast<ULONG>(std::min<std::size_t>(n - filled, 1 << 20));
        const NTSTATUS status
                = ::BCryptGenRandom(nullptr, reinterpret_cast<PUCHAR>(bytes.data() + filled), chunk,
                                    BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (status < 0)
            win32::throwError(static_cast<DWORD>(status), "BCryptGenRandom");
        filled += chunk;
    }
    return bytes;
}

} // namespace leader::platform
