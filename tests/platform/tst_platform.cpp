// The platform seam (engine/core/platform/*.h) against the system it runs on: processes, the
// control channel, sockets and waiting. Plain C++ with a small harness of its own, no Qt and no
// libpq, so that the Windows cross build links it and runs it under Wine (scripts/windows-cross.sh)
// while CTest runs it on Linux: one test for both implementations. The program is its own child:
// `tst_platform child <mode> ...` is what the process cases run.
#include "platform/control.h"
#include "platform/process.h"
#include "platform/sockets.h"
#include "platform/socketwait.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <source_location>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifdef _WIN32
#include <windows.h>
// After windows.h, which they assume.
#include <aclapi.h>
#include <sddl.h>
#include <shellapi.h>
#else
#include <unistd.h>
#endif

namespace {

namespace fs = std::filesystem;
namespace platform = leader::platform;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Generous bounds: under Wine a process takes a good deal longer to start than on either system.
constexpr auto Slack = 5s;

// ---- The harness -------------------------------------------------------------------------------

std::vector<std::string> *failures = nullptr;

void check(bool condition, const std::string &what,
           std::source_location at = std::source_location::current())
{
    if (!condition)
        failures->push_back("line " + std::to_string(at.line()) + ": " + what);
}

// A check the rest of the case depends on.
void require(bool condition, const std::string &what,
             std::source_location at = std::source_location::current())
{
    if (!condition)
        throw std::runtime_error("line " + std::to_string(at.line()) + ": " + what);
}

void note(const std::string &text)
{
    std::cout << "      note: " << text << "\n";
}

long long millisecondsSince(Clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// ---- Shared fixtures ---------------------------------------------------------------------------

fs::path self;
fs::path scratch;

std::string inQuotes(const std::string &text)
{
    return "\"" + text + "\"";
}

// The child's output as lines, without the carriage returns of Windows text mode.
std::vector<std::string> linesOf(const std::string &output)
{
    std::vector<std::string> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

platform::ProcessResult runChild(std::vector<std::string> arguments,
                                 platform::ProcessOptions options = {})
{
    arguments.insert(arguments.begin(), {self.string(), "child"});
    return platform::runProcess(arguments, options);
}

// The pid a child wrote to file, waiting for it at most timeout; 0 if it never came.
int awaitPid(const fs::path &file, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        std::ifstream in(file);
        int pid = 0;
        if (in >> pid && pid > 0)
            return pid;
        std::this_thread::sleep_for(20ms);
    }
    return 0;
}

bool awaitGone(int pid, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    while (platform::processAlive(pid)) {
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(20ms);
    }
    return true;
}

struct Pair
{
    platform::Socket client;
    platform::Socket server;
};

// Polls one socket for one direction until it is ready or the timeout passes.
platform::PollItem pollOne(const platform::Socket &socket, bool read,
                           std::chrono::milliseconds timeout)
{
    platform::PollItem item{.handle = socket.handle(), .wantRead = read, .wantWrite = !read};
    platform::pollSockets(std::span(&item, 1), timeout);
    return item;
}

Pair connectedPair()
{
    const platform::Socket listener = platform::listenLoopback(0);
    const auto addresses
            = platform::TcpAddress::resolve("127.0.0.1", platform::localPort(listener));
    Pair pair;
    pair.client = platform::startConnect(addresses.front());
    require(pair.client.isOpen(), "startConnect to a listening loopback port");
    require(pollOne(pair.client, false, 10s).writable, "the connect ends within 10 s");
    require(platform::connectSucceeded(pair.client), "the connect succeeded");
    require(pollOne(listener, true, 10s).readable, "the listener has the connection pending");
    pair.server = platform::acceptConnection(listener);
    require(pair.server.isOpen(), "acceptConnection returns it");
    return pair;
}

std::string receiveAll(const platform::Socket &socket, std::size_t expected)
{
    std::string received;
    const auto deadline = Clock::now() + 10s;
    while (received.size() < expected && Clock::now() < deadline) {
        if (!pollOne(socket, true, 1s).readable)
            continue;
        std::array<char, 256> buffer{};
        const auto result = platform::receiveSome(socket, buffer);
        if (result.status != platform::Transfer::Moved)
            break;
        received.append(buffer.data(), result.bytes);
    }
    return received;
}

#ifdef _WIN32
bool underWine()
{
    return ::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "wine_get_version") != nullptr;
}

std::wstring sidText(PSID sid)
{
    wchar_t *text = nullptr;
    if (!::ConvertSidToStringSidW(sid, &text))
        return L"?";
    std::wstring result = text;
    ::LocalFree(text);
    return result;
}

std::wstring currentUser()
{
    HANDLE token = nullptr;
    ::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &token);
    DWORD size = 0;
    ::GetTokenInformation(token, TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> buffer(size);
    ::GetTokenInformation(token, TokenUser, buffer.data(), size, &size);
    ::CloseHandle(token);
    return sidText(reinterpret_cast<TOKEN_USER *>(buffer.data())->User.Sid);
}

std::string narrow(const std::wstring &text)
{
    return fs::path(text).string();
}

// Reads an object's owner and DACL back from the system and checks they admit the current user
// alone: a protected DACL of one ACE allowing that user's SID, nothing for Everyone (S-1-1-0),
// Anonymous (S-1-5-7), Network (S-1-5-2), Authenticated Users (S-1-5-11) or any group.
void checkPrivate(PSECURITY_DESCRIPTOR descriptor, PSID owner, PACL dacl, const std::string &what)
{
    const std::wstring user = currentUser();
    check(owner && sidText(owner) == user,
          what + ": owned by the current user " + narrow(user)
                  + " (owner: " + narrow(owner ? sidText(owner) : L"none") + ")");
    SECURITY_DESCRIPTOR_CONTROL control = 0;
    DWORD revision = 0;
    ::GetSecurityDescriptorControl(descriptor, &control, &revision);
    check(control & SE_DACL_PROTECTED, what + ": the DACL is protected from inheritance");
    require(dacl != nullptr, what + ": has a DACL (a null DACL would admit everyone)");
    check(dacl->AceCount == 1,
          what + ": exactly one ACE (found " + std::to_string(dacl->AceCount) + ")");
    for (DWORD i = 0; i < dacl->AceCount; ++i) {
        void *ace = nullptr;
        require(::GetAce(dacl, i, &ace), what + ": ACE readable");
        const auto *header = static_cast<ACE_HEADER *>(ace);
        require(header->AceType == ACCESS_ALLOWED_ACE_TYPE, what + ": an allowing ACE");
        auto *allowed = static_cast<ACCESS_ALLOWED_ACE *>(ace);
        const std::wstring sid = sidText(reinterpret_cast<PSID>(&allowed->SidStart));
        check(sid == user, what + ": the ACE is for the current user, not " + narrow(sid));
        std::cout << "      " << what << ": ACE " << i << " allows " << narrow(sid) << " mask 0x"
                  << std::hex << allowed->Mask << std::dec << "\n";
    }
}

// Opens the pipe as this process would with a token that lacks the current user's SID, as
// another account's token does: the user SID made deny-only, impersonated by one thread.
DWORD openAsAnotherToken(const std::wstring &pipe)
{
    HANDLE process = nullptr;
    ::OpenProcessToken(::GetCurrentProcess(), TOKEN_ALL_ACCESS, &process);
    DWORD size = 0;
    ::GetTokenInformation(process, TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> buffer(size);
    ::GetTokenInformation(process, TokenUser, buffer.data(), size, &size);
    SID_AND_ATTRIBUTES disabled{reinterpret_cast<TOKEN_USER *>(buffer.data())->User.Sid, 0};
    HANDLE restricted = nullptr;
    HANDLE impersonation = nullptr;
    const bool made
            = ::CreateRestrictedToken(process, 0, 1, &disabled, 0, nullptr, 0, nullptr, &restricted)
              && ::DuplicateTokenEx(restricted, TOKEN_IMPERSONATE | TOKEN_QUERY, nullptr,
                                    SecurityImpersonation, TokenImpersonation, &impersonation);
    ::CloseHandle(process);
    if (restricted)
        ::CloseHandle(restricted);
    require(made, "a restricted token can be made");
    DWORD error = ERROR_SUCCESS;
    std::thread other([&] {
        if (!::SetThreadToken(nullptr, impersonation)) {
            error = ::GetLastError();
            return;
        }
        const HANDLE client = ::CreateFileW(pipe.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr,
                                            OPEN_EXISTING, 0, nullptr);
        error = client == INVALID_HANDLE_VALUE ? ::GetLastError() : ERROR_SUCCESS;
        if (client != INVALID_HANDLE_VALUE)
            ::CloseHandle(client);
        ::RevertToSelf();
    });
    other.join();
    ::CloseHandle(impersonation);
    return error;
}
#endif

// ---- The child ---------------------------------------------------------------------------------

// The arguments as the child received them, in UTF-8 (on Windows from the UTF-16 command line:
// the C runtime's argv is in the ANSI code page).
std::vector<std::string> argumentsOf([[maybe_unused]] int argc, [[maybe_unused]] char **argv)
{
#ifdef _WIN32
    int count = 0;
    wchar_t **wide = ::CommandLineToArgvW(::GetCommandLineW(), &count);
    std::vector<std::string> arguments;
    for (int i = 0; i < count; ++i) {
        const int length
                = ::WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
        std::string text(static_cast<std::size_t>(std::max(length, 1)) - 1, '\0');
        ::WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, text.data(), length, nullptr, nullptr);
        arguments.push_back(text);
    }
    ::LocalFree(wide);
    return arguments;
#else
    return std::vector<std::string>(argv, argv + argc);
#endif
}

void writePid(const fs::path &file)
{
    const fs::path partial = file.string() + ".partial";
    std::ofstream(partial) << platform::processId() << "\n";
    fs::rename(partial, file);
}

// Starts `tst_platform child sleep 60000 pidFile` as a plain child of this process, outside the
// seam: the grandchild a timeout must end with its parent.
void startGrandchild(const fs::path &pidFile)
{
#ifdef _WIN32
    std::wstring line
            = L"\"" + self.wstring() + L"\" child sleep 60000 \"" + pidFile.wstring() + L"\"";
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION started{};
    if (::CreateProcessW(self.c_str(), line.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr,
                         &startup, &started)) {
        ::CloseHandle(started.hThread);
        ::CloseHandle(started.hProcess);
    }
#else
    if (::fork() == 0) {
        ::execl(self.c_str(), self.c_str(), "child", "sleep", "60000", pidFile.c_str(), nullptr);
        ::_exit(127);
    }
#endif
}

int child(const std::vector<std::string> &arguments)
{
    const std::string mode = arguments.size() > 2 ? arguments[2] : "";
    if (mode == "args") {
        for (std::size_t i = 3; i < arguments.size(); ++i)
            std::cout << "[" << arguments[i] << "]\n";
        return 0;
    }
    if (mode == "exit" && arguments.size() > 4) {
        std::cout << arguments[4] << std::endl;
        std::cerr << "and on stderr" << std::endl;
        return std::atoi(arguments[3].c_str());
    }
    if (mode == "env" && arguments.size() > 3) {
        const char *value = std::getenv(arguments[3].c_str());
        std::cout << (value ? value : "(unset)") << "\n";
        return 0;
    }
    if (mode == "cwd") {
        std::cout << fs::current_path().string() << "\n";
        return 0;
    }
    if (mode == "sleep" && arguments.size() > 3) {
        if (arguments.size() > 4)
            writePid(arguments[4]);
        std::cout << "sleeping" << std::endl;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(arguments[3].c_str())));
        return 0;
    }
    if (mode == "spawn" && arguments.size() > 3) {
        startGrandchild(arguments[3]);
        std::this_thread::sleep_for(60s);
        return 0;
    }
    if (mode == "kill-self") {
        std::cout << "before the kill" << std::endl;
        platform::killThisProcess();
    }
    std::cerr << "tst_platform: unknown child mode '" << mode << "'\n";
    return 2;
}

// ---- The cases ---------------------------------------------------------------------------------

void executableAndProgramFiles()
{
    check(self.is_absolute(), "executablePath() is absolute: " + self.string());
    check(fs::is_regular_file(self), "executablePath() names a file: " + self.string());
    check(self.stem() == "tst_platform", "executablePath() is this program: " + self.string());
    const fs::path initdb = platform::programFile(scratch, "initdb");
    check(initdb.parent_path() == scratch, "programFile() stays in its directory");
#ifdef _WIN32
    check(initdb.filename() == "initdb.exe", "programFile() adds .exe: " + initdb.string());
#else
    check(initdb.filename() == "initdb", "programFile() is the bare name: " + initdb.string());
#endif
}

void hostNameAndProcessId()
{
    const std::string host = platform::hostName();
    check(!host.empty() && host != "unknown", "hostName() answers: " + host);
    check(platform::processId() > 0, "processId() is positive");
    check(platform::processAlive(platform::processId()), "processAlive() sees this process");
    check(!platform::processAlive(0) && !platform::processAlive(-1), "no process 0 or -1");
    std::cout << "      host " << host << ", pid " << platform::processId() << "\n";
}

void runOutputAndExitCode()
{
    const auto result = runChild({"exit", "3", "on stdout"});
    check(result.error.empty(), "the child started: " + result.error);
    check(result.exitCode == 3, "exit code 3, got " + std::to_string(result.exitCode));
    check(!result.timedOut, "not timed out");
    const auto lines = linesOf(result.output);
    check(std::find(lines.begin(), lines.end(), "on stdout") != lines.end(),
          "stdout collected: " + inQuotes(result.output));
    check(std::find(lines.begin(), lines.end(), "and on stderr") != lines.end(),
          "stderr collected with it: " + inQuotes(result.output));
    check(runChild({"exit", "0", "fine"}).succeeded(), "exit code 0 is success");
}

void runArguments()
{
    // What Windows' command-line quoting must carry through: spaces, empty arguments, quotes,
    // backslashes before a quote and at the end, tabs and non-ASCII text.
    const std::vector<std::string> arguments{"plain",
                                             "two words",
                                             "",
                                             "quote\"inside",
                                             "back\\slash",
                                             "trailing\\",
                                             "\\\\\"mixed",
                                             "tab\there",
                                             "C:\\Program Files\\x\\",
                                             "gr\xc3\xbc\xc3\x9f dich"};
    std::vector<std::string> argv{"args"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto result = runChild(argv);
    require(result.succeeded(), "the child ran: " + result.error + inQuotes(result.output));
    const auto lines = linesOf(result.output);
    check(lines.size() == arguments.size(), std::to_string(arguments.size())
                                                    + " arguments arrive, got "
                                                    + std::to_string(lines.size()));
    for (std::size_t i = 0; i < std::min(lines.size(), arguments.size()); ++i)
        check(lines[i] == "[" + arguments[i] + "]", "argument " + std::to_string(i) + " "
                                                            + inQuotes(arguments[i])
                                                            + " arrived as " + lines[i]);
}

void runEnvironmentAndDirectory()
{
    platform::ProcessOptions options;
    options.environment = {{"LEADER_PLATFORM_TEST", "value with spaces"}};
    auto result = runChild({"env", "LEADER_PLATFORM_TEST"}, options);
    check(linesOf(result.output) == std::vector<std::string>{"value with spaces"},
          "an added variable reaches the child: " + inQuotes(result.output));

    // Replacing, not adding a second: the caller's PATH is there, and one value arrives.
    options.environment = {{"PATH", "replaced"}};
    result = runChild({"env", "PATH"}, options);
    check(linesOf(result.output) == std::vector<std::string>{"replaced"},
          "a variable of the same name is replaced: " + inQuotes(result.output));
    result = runChild({"env", "PATH"});
    check(!result.output.empty() && linesOf(result.output).front() != "(unset)",
          "the caller's PATH is passed on");

    platform::ProcessOptions inScratch;
    inScratch.workingDirectory = scratch;
    result = runChild({"cwd"}, inScratch);
    const auto lines = linesOf(result.output);
    std::error_code error;
    check(!lines.empty() && fs::equivalent(lines.front(), scratch, error),
          "the working directory is " + scratch.string() + ": " + inQuotes(result.output));

    platform::ProcessOptions root;
    root.workingDirectory = "/";
    check(runChild({"cwd"}, root).succeeded(), "\"/\" works as a working directory");
}

#ifndef _WIN32
// Issue 31, finding 3: a child (initdb, pg_ctl, the server, maybe as another account, which reads
// it in /proc/PID/environ) gets the allow-list of the caller's environment and nothing else.
// Checked to fail with environmentFor passing the caller's whole environment on.
void runEnvironmentIsAllowListed()
{
    const std::vector<std::pair<std::string, std::string>> secrets{
            {"PGPASSWORD", "marker-pgpassword-31"},
            {"AWS_SECRET_ACCESS_KEY", "marker-aws-31"},
            {"LEADER_PLATFORM_ANYTHING", "marker-anything-31"}};
    const std::vector<std::pair<std::string, std::string>> allowed{
            {"TZ", "Europe/Berlin"}, {"LANG", "C.UTF-8"}, {"LC_MESSAGES", "C"}};
    std::vector<std::pair<std::string, std::optional<std::string>>> before;
    for (const auto &[name, value] : allowed) {
        const char *old = std::getenv(name.c_str());
        before.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    }
    for (const auto &[name, value] : secrets)
        ::setenv(name.c_str(), value.c_str(), 1);
    for (const auto &[name, value] : allowed)
        ::setenv(name.c_str(), value.c_str(), 1);
    const auto environmentOf = [](const platform::ProcessOptions &options) {
        const auto result = platform::runProcess({"/usr/bin/env"}, options);
        require(result.succeeded(), "env ran: " + result.error + inQuotes(result.output));
        return linesOf(result.output);
    };
    const auto has = [](const std::vector<std::string> &lines, const std::string &line) {
        return std::find(lines.begin(), lines.end(), line) != lines.end();
    };
    const auto checkNoSecret = [&](const std::vector<std::string> &lines, const std::string &as) {
        for (const std::string &line : lines) {
            check(line.find("marker-") == std::string::npos,
                  "a secret of the caller's reaches the child " + as + ": " + line);
        }
    };

    platform::ProcessOptions asCaller;
    asCaller.environment = {{"LEADER_ADDED", "added"}};
    const auto lines = environmentOf(asCaller);
    checkNoSecret(lines, "as the caller");
    for (const auto &[name, value] : allowed)
        check(has(lines, name + "=" + value), name + " is passed on");
    check(has(lines, std::string("PATH=") + std::getenv("PATH")), "PATH is passed on");
    if (const char *home = std::getenv("HOME"))
        check(has(lines, std::string("HOME=") + home), "the caller's HOME is passed on");
    check(has(lines, "LEADER_ADDED=added"), "what the caller adds arrives");

    // As another account: its own HOME, USER and LOGNAME, none of the caller's secrets.
    if (const auto nobody = platform::lookupAccount("nobody"); platform::isRoot() && nobody) {
        platform::ProcessOptions asNobody;
        asNobody.asAccount = nobody;
        asNobody.workingDirectory = "/";
        const auto theirs = environmentOf(asNobody);
        checkNoSecret(theirs, "as nobody");
        check(has(theirs, "HOME=" + nobody->home.string()), "HOME is the account's");
        check(has(theirs, "USER=nobody") && has(theirs, "LOGNAME=nobody"),
              "USER and LOGNAME are the account's");
        check(has(theirs, "TZ=Europe/Berlin"), "TZ is passed on");
    } else {
        note("not root: the run as another account is not checked");
    }
    for (const auto &[name, value] : secrets)
        ::unsetenv(name.c_str());
    for (const auto &[name, value] : before) {
        if (value)
            ::setenv(name.c_str(), value->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
}
#endif

void runFailures()
{
    auto result = platform::runProcess({"leader-no-such-program"});
    check(result.exitCode == -1 && !result.error.empty(),
          "a program not in PATH is an error: " + result.error);
    check(result.error.find("leader-no-such-program") != std::string::npos,
          "the error names the program");
    result = platform::runProcess({(scratch / "missing" / "program").string()});
    check(result.exitCode == -1 && !result.error.empty(),
          "a missing program path is an error: " + result.error);
    platform::ProcessOptions nowhere;
    nowhere.workingDirectory = scratch / "no-such-directory";
    result = runChild({"exit", "0", "x"}, nowhere);
    check(result.exitCode == -1 && result.error.find("cannot enter") != std::string::npos,
          "a missing working directory is an error: " + result.error);
    check(platform::runProcess({}).error == "no program to run", "an empty argv is an error");
#ifdef _WIN32
    // No account switching on Windows: nobody is root, and asking for another account is an
    // error, not a run as the caller.
    check(!platform::isRoot(), "isRoot() is false");
    check(!platform::lookupAccount("postgres"), "lookupAccount() finds nothing to switch to");
    platform::ProcessOptions asAnother;
    asAnother.asAccount = platform::Account{1, 1, "postgres", "C:\\"};
    result = runChild({"exit", "0", "x"}, asAnother);
    check(result.exitCode == -1 && result.error.find("cannot switch") != std::string::npos,
          "a run as another account is refused: " + result.error);
#endif
}

void deadlineEndsTheChildAndItsChildren()
{
    const fs::path pidFile = scratch / "grandchild.pid";
    platform::ProcessOptions options;
    options.timeout = 3000ms;
    const auto start = Clock::now();
    const auto result = runChild({"spawn", pidFile.string()}, options);
    const auto elapsed = millisecondsSince(start);
    check(result.timedOut, "the deadline passed: timedOut");
    check(result.exitCode == -1,
          "exit code -1 at the deadline, got " + std::to_string(result.exitCode));
    check(elapsed >= 3000, "not before the deadline: " + std::to_string(elapsed) + " ms");
    check(elapsed < 3000 + std::chrono::milliseconds(Slack).count(),
          "soon after the deadline: " + std::to_string(elapsed) + " ms");
    const int grandchild = awaitPid(pidFile, 1s);
    require(grandchild > 0, "the grandchild had started");
    check(awaitGone(grandchild, Slack),
          "the child's own child ended with it (pid " + std::to_string(grandchild) + ")");
    std::cout << "      timed out after " << elapsed << " ms, grandchild " << grandchild
              << " gone\n";
}

void spawnAndKill()
{
    const fs::path pidFile = scratch / "victim.pid";
    platform::ProcessResult result;
    platform::ProcessOptions options;
    options.timeout = 30s;
    std::thread runner([&] { result = runChild({"sleep", "60000", pidFile.string()}, options); });
    const int pid = awaitPid(pidFile, 10s);
    bool killed = false;
    Clock::time_point killedAt;
    if (pid > 0) {
        check(platform::processAlive(pid), "the child runs");
        killedAt = Clock::now();
        killed = platform::killProcess(pid);
    }
    runner.join();
    require(pid > 0, "the child wrote its pid");
    check(killed, "killProcess() ends it");
    const auto afterKill = millisecondsSince(killedAt);
    check(afterKill < std::chrono::milliseconds(Slack).count(),
          "runProcess returns once it is killed: " + std::to_string(afterKill) + " ms");
    check(!result.timedOut && result.exitCode == -1,
          "a killed child is not a timeout, and has exit code -1 (got "
                  + std::to_string(result.exitCode) + ")");
    check(!platform::processAlive(pid), "processAlive() no longer sees it");
    check(!platform::killProcess(pid), "killProcess() on it again finds nothing");
}

void killThisProcess()
{
    const auto result = runChild({"kill-self"});
    check(result.exitCode == -1, "a process that kills itself ends abnormally (exit code "
                                         + std::to_string(result.exitCode) + ")");
    check(result.output.find("before the kill") != std::string::npos,
          "what it wrote first is collected: " + inQuotes(result.output));
}

void randomBytesAndPrivateFiles()
{
    const std::string a = platform::randomBytes(32);
    const std::string b = platform::randomBytes(32);
    check(a.size() == 32 && b.size() == 32 && a != b, "randomBytes() gives fresh bytes");

    // A new file, and one that existed with wider permissions: both end up private.
    const fs::path fresh = scratch / "fresh.txt";
    const fs::path existing = scratch / "existing.txt";
    std::ofstream(existing) << "old, longer contents\n";
#ifndef _WIN32
    fs::permissions(existing, fs::perms::all);
#endif
    for (const fs::path &file : {fresh, existing}) {
        platform::writePrivateFile(file, "secret\n");
        std::ifstream in(file, std::ios::binary);
        const std::string contents((std::istreambuf_iterator<char>(in)), {});
        check(contents == "secret\n", file.filename().string()
                                              + ": the contents are written, "
                                                "replacing any old ones: "
                                              + inQuotes(contents));
#ifdef _WIN32
        if (underWine())
            continue;
        PSECURITY_DESCRIPTOR descriptor = nullptr;
        PSID owner = nullptr;
        PACL dacl = nullptr;
        const DWORD read
                = ::GetNamedSecurityInfoW(file.c_str(), SE_FILE_OBJECT,
                                          OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                          &owner, nullptr, &dacl, nullptr, &descriptor);
        require(read == ERROR_SUCCESS, "the file's security can be read back");
        checkPrivate(descriptor, owner, dacl, file.filename().string());
        ::LocalFree(descriptor);
#else
        check(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write),
              file.filename().string() + ": mode 0600");
#endif
    }
#ifdef _WIN32
    if (underWine())
        note("NOT SHOWN under Wine: the private files' DACL. Wine makes up a file's DACL from "
             "its Unix mode bits and keeps none that CreateFile or SetSecurityInfo gives it");
#endif
}

void socketsConnectTransferAndClose()
{
    check(!platform::TcpAddress::resolve("localhost", 5432).empty(), "localhost resolves");
    bool threw = false;
    try {
        platform::TcpAddress::resolve("name.that.does.not.resolve.invalid", 1);
    } catch (const std::runtime_error &) {
        threw = true;
    }
    check(threw, "an unknown host throws std::runtime_error");

    Pair pair = connectedPair();
    const std::string hello = "hello from the client";
    const auto sent = platform::sendSome(pair.client, std::span(hello.data(), hello.size()));
    check(sent.status == platform::Transfer::Moved && sent.bytes == hello.size(),
          "sendSome() moves the bytes");
    check(receiveAll(pair.server, hello.size()) == hello, "the server receives them");
    std::array<char, 16> buffer{};
    check(platform::receiveSome(pair.server, buffer).status == platform::Transfer::WouldBlock,
          "nothing more: WouldBlock, not a wait");

    const std::string reply = "and back";
    platform::sendSome(pair.server, std::span(reply.data(), reply.size()));
    check(receiveAll(pair.client, reply.size()) == reply, "the other way too");

    platform::shutdownWrite(pair.client);
    const auto item = pollOne(pair.server, true, 10s);
    check(item.readable || item.hungUp, "a half-close wakes the reader");
    check(platform::receiveSome(pair.server, buffer).status == platform::Transfer::Closed,
          "and reads as the end of the stream");

    pair.server.close();
    check(!pair.server.isOpen() && pair.server.handle() == -1, "close() leaves no handle");
}

void socketsRefusedConnect()
{
    int port = 0;
    {
        const platform::Socket listener = platform::listenLoopback(0);
        port = platform::localPort(listener);
    }
    const auto address = platform::TcpAddress::resolve("127.0.0.1", port).front();
    const platform::Socket socket = platform::startConnect(address);
    if (!socket.isOpen()) {
        note("the refused connect failed at once (a closed Socket)");
        return;
    }
    // Windows retries a refused SYN for about two seconds before it gives up.
    const auto start = Clock::now();
    const auto item = pollOne(socket, false, 10s);
    check(item.writable || item.hungUp, "the failed connect wakes the poll");
    check(!platform::connectSucceeded(socket), "connectSucceeded() says it failed");
    std::cout << "      refused after " << millisecondsSince(start) << " ms\n";
}

void wakerAndPollDeadlines()
{
    platform::Waker waker;
    platform::PollItem item{.handle = waker.handle(), .wantRead = true};
    auto start = Clock::now();
    platform::pollSockets(std::span(&item, 1), 300ms);
    auto elapsed = millisecondsSince(start);
    check(!item.readable, "nothing ready before a wake");
    check(elapsed >= 250 && elapsed < 3000,
          "the poll keeps its deadline: " + std::to_string(elapsed) + " ms for 300");

    std::thread waking([&waker] {
        std::this_thread::sleep_for(100ms);
        waker.wake();
    });
    start = Clock::now();
    platform::pollSockets(std::span(&item, 1), 10s);
    elapsed = millisecondsSince(start);
    waking.join();
    check(item.readable, "wake() from another thread ends the poll");
    check(elapsed < 3000, "at once: " + std::to_string(elapsed) + " ms");
    waker.wake();
    waker.drain();
    platform::pollSockets(std::span(&item, 1), 0ms);
    check(!item.readable, "drain() takes every wake-up");

    platform::PollItem closed{.handle = -1, .wantRead = true};
    start = Clock::now();
    platform::pollSockets(std::span(&closed, 1), 200ms);
    check(!closed.readable && millisecondsSince(start) >= 150,
          "an item without a socket is skipped, and the deadline kept");
}

void waitSocketDeadlines()
{
    Pair pair = connectedPair();
    auto start = Clock::now();
    check(platform::waitSocket(pair.server.handle(), platform::WaitFor::Read, 300ms)
                  == platform::WaitResult::TimedOut,
          "nothing to read: TimedOut");
    const auto elapsed = millisecondsSince(start);
    check(elapsed >= 250 && elapsed < 3000,
          "after the timeout: " + std::to_string(elapsed) + " ms");
    check(platform::waitSocket(pair.client.handle(), platform::WaitFor::Write, 1s)
                  == platform::WaitResult::Ready,
          "a connected socket is writable");
    const char byte = 'x';
    platform::sendSome(pair.client, std::span(&byte, 1));
    start = Clock::now();
    check(platform::waitSocket(pair.server.handle(), platform::WaitFor::Read, 10s)
                  == platform::WaitResult::Ready,
          "data makes it readable");
    check(millisecondsSince(start) < 3000, "at once");
}

fs::path controlPath()
{
    return scratch / "control.sock";
}

void controlRoundTrip()
{
    platform::ControlServer server(controlPath(),
                                   [](const std::string &command) { return "ok " + command; });
    server.start();
    check(platform::controlRequest(controlPath(), "status") == "ok status", "one round trip");
    check(platform::controlRequest(controlPath(), "sever 5\r") == "ok sever 5",
          "one line: the newline and a carriage return are not part of it");
    const std::string longCommand(3000, 'x');
    check(platform::controlRequest(controlPath(), longCommand) == "ok " + longCommand,
          "a 3000-byte command");

    // Clients at once: the server answers one at a time, the others wait their turn.
    std::atomic<int> answered = 0;
    std::vector<std::thread> clients;
    for (int i = 0; i < 4; ++i) {
        clients.emplace_back([&answered, i] {
            for (int j = 0; j < 5; ++j) {
                const std::string command = "c" + std::to_string(i) + "-" + std::to_string(j);
                try {
                    if (platform::controlRequest(controlPath(), command) == "ok " + command)
                        ++answered;
                } catch (const std::exception &) {
                }
            }
        });
    }
    for (std::thread &client : clients)
        client.join();
    check(answered == 20,
          "20 requests from 4 threads at once, answered: " + std::to_string(answered.load()));
    std::cout << "      endpoint " << platform::controlEndpoint(controlPath()).string() << "\n";

    server.stop();
    std::string message;
    try {
        platform::controlRequest(controlPath(), "status");
    } catch (const std::runtime_error &error) {
        message = error.what();
    }
    check(message.find("cannot reach the control") != std::string::npos,
          "after stop() there is nobody: " + inQuotes(message));
}

void controlPrivateToThisAccount()
{
    platform::ControlServer server(controlPath(),
                                   [](const std::string &command) { return "ok " + command; });
    server.start();
    const fs::path endpoint = platform::controlEndpoint(controlPath());
#ifdef _WIN32
    check(endpoint.wstring().starts_with(L"\\\\.\\pipe\\leader-control-"),
          "a named pipe: " + endpoint.string());
    // Opening the pipe for its descriptor connects as a client that says nothing: the server
    // gives it up at its deadline, or when it closes.
    const HANDLE pipe
            = ::CreateFileW(endpoint.c_str(), READ_CONTROL, 0, nullptr, OPEN_EXISTING, 0, nullptr);
    require(pipe != INVALID_HANDLE_VALUE, "the pipe opens for READ_CONTROL");
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    PSID owner = nullptr;
    PACL dacl = nullptr;
    const DWORD read = ::GetSecurityInfo(pipe, SE_KERNEL_OBJECT,
                                         OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                         &owner, nullptr, &dacl, nullptr, &descriptor);
    ::CloseHandle(pipe);
    require(read == ERROR_SUCCESS, "the pipe's security can be read back");
    checkPrivate(descriptor, owner, dacl, "the control pipe");
    ::LocalFree(descriptor);

    const DWORD refused = openAsAnotherToken(endpoint.wstring());
    if (refused == ERROR_ACCESS_DENIED) {
        std::cout << "      a token without the user's SID is refused (ERROR_ACCESS_DENIED)\n";
    } else if (underWine()) {
        note("NOT SHOWN under Wine: a client whose token lacks the user's SID opened the pipe "
             "(error "
             + std::to_string(refused)
             + "): Wine does not check a named pipe's DACL "
               "when a client opens it; Windows does");
    } else {
        check(false,
              "a token without the user's SID is refused, got error " + std::to_string(refused));
    }
    note("NOT SHOWN here: PIPE_REJECT_REMOTE_CLIENTS (a client on another machine, over SMB) "
         "needs a second machine");

    // The name cannot be taken from a live server, by a squatter or a second replica.
    platform::ControlServer second(controlPath(), [](const std::string &) { return "intruder"; });
    bool threw = false;
    try {
        second.start();
    } catch (const std::system_error &error) {
        threw = true;
        std::cout << "      a second server is refused: " << error.what() << "\n";
    }
    check(threw, "a second server on the same pipe throws std::system_error");
#else
    const auto permissions = fs::status(endpoint).permissions();
    check((permissions & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none,
          "the socket file is closed to group and others");
#endif
    check(platform::controlRequest(controlPath(), "still") == "ok still",
          "the server still answers its own clients");
    server.stop();
}

void controlDeadlines()
{
    platform::ControlServer server(controlPath(), [](const std::string &command) {
        std::this_thread::sleep_for(3s);
        return "late " + command;
    });
    server.start();
    const auto start = Clock::now();
    std::string message;
    try {
        platform::controlRequest(controlPath(), "status", 500ms);
    } catch (const std::runtime_error &error) {
        message = error.what();
    }
    const auto elapsed = millisecondsSince(start);
    check(message.find("did not answer") != std::string::npos,
          "a server slower than the timeout: " + inQuotes(message));
    check(elapsed >= 450 && elapsed < 2500,
          "the request gives up at its timeout: " + std::to_string(elapsed) + " ms for 500");
    server.stop();
}

void terminationRequest()
{
    platform::requestTermination();
    check(platform::waitForTermination() == "SIGTERM", "requestTermination() is a SIGTERM");
}

struct Case
{
    const char *name;
    void (*run)();
};

constexpr Case cases[] = {
        {"executable path and program files", executableAndProgramFiles},
        {"host name and process id", hostNameAndProcessId},
        {"run: output, stderr and exit code", runOutputAndExitCode},
        {"run: arguments arrive as given", runArguments},
        {"run: environment and working directory", runEnvironmentAndDirectory},
#ifndef _WIN32
        {"run: the caller's environment stays behind but for an allow-list",
         runEnvironmentIsAllowListed},
#endif
        {"run: what cannot start is an error", runFailures},
        {"run: the deadline ends the child and its children", deadlineEndsTheChildAndItsChildren},
        {"spawn a child and kill it", spawnAndKill},
        {"a process that kills itself", killThisProcess},
        {"random bytes and private files", randomBytesAndPrivateFiles},
        {"sockets: connect, transfer, half-close", socketsConnectTransferAndClose},
        {"sockets: a refused connect", socketsRefusedConnect},
        {"sockets: waker and poll deadlines", wakerAndPollDeadlines},
        {"sockets: waitSocket deadlines", waitSocketDeadlines},
        {"control channel: round trips", controlRoundTrip},
        {"control channel: this account only", controlPrivateToThisAccount},
        {"control channel: a slow server and the request's timeout", controlDeadlines},
        {"termination request", terminationRequest},
};

} // namespace

int main(int argc, char **argv)
{
    self = leader::platform::executablePath();
    const std::vector<std::string> arguments = argumentsOf(argc, argv);
    if (arguments.size() > 1 && arguments[1] == "child")
        return child(arguments);

    // As the tools do: SIGTERM is waited for, not delivered.
    platform::blockTerminationSignals();
    scratch = fs::temp_directory_path() / ("tst_platform-" + std::to_string(platform::processId()));
    fs::create_directories(scratch);
    std::cout << "tst_platform: " << std::size(cases) << " cases, executable " << self.string()
              << "\n";
    int failed = 0;
    const auto start = Clock::now();
    for (const Case &test : cases) {
        std::vector<std::string> found;
        failures = &found;
        const auto caseStart = Clock::now();
        try {
            test.run();
        } catch (const std::exception &error) {
            found.push_back(std::string("stopped by an exception: ") + error.what());
        }
        std::cout << (found.empty() ? "PASS  " : "FAIL  ") << test.name << " ("
                  << millisecondsSince(caseStart) << " ms)\n";
        for (const std::string &failure : found)
            std::cout << "      " << failure << "\n";
        failed += found.empty() ? 0 : 1;
        std::cout.flush();
    }
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    std::cout << "tst_platform: " << std::size(cases) - failed << " passed, " << failed
              << " failed (" << millisecondsSince(start) << " ms)\n";
    return failed == 0 ? 0 : 1;
}
