#include "cluster.h"

#include "platform/process.h"
#include "platform/serverdirectory.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

namespace leader::embedded {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char *Superuser = "leader";
constexpr auto ToolTimeout = 10s;
constexpr auto InitdbTimeout = 120s;
constexpr auto StopTimeout = 60s;
constexpr auto PollInterval = 20ms;
constexpr int PortAttempts = 5;
// Postgres binds <socket directory>/.s.PGSQL.<port> and rejects paths of sizeof(sun_path) = 108
// bytes or more; the port takes at most five digits.
constexpr std::size_t MaxSocketDirectoryLength
        = 107 - std::char_traits<char>::length("/.s.PGSQL.65535");

std::string trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

int toInt(std::string_view text)
{
    int value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

// The line of a tool's output or of the server log that says what went wrong: the first error,
// without the log's timestamp prefix, else the last line.
std::string relevantLine(std::string_view text)
{
    struct Marker
    {
        std::string_view text;
        bool dropPrefix;
    };
    static constexpr Marker markers[]
            = {{"FATAL:", true}, {"PANIC:", true}, {"ERROR:", true}, {"error:", false}};
    std::string last;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        line = trimmed(line);
        if (line.empty())
            continue;
        for (const Marker &marker : markers) {
            const auto at = line.find(marker.text);
            if (at == std::string::npos)
                continue;
            std::string found = marker.dropPrefix ? line.substr(at) : line;
            if (const auto gap = found.find(":  "); gap != std::string::npos)
                found.erase(gap + 1, 1);
            return found;
        }
        last = line;
    }
    return last;
}

std::string failureOf(const platform::ProcessResult &result, std::chrono::seconds timeout)
{
    if (result.timedOut)
        return "no answer within " + std::to_string(timeout.count()) + " s";
    const std::string line = relevantLine(result.output);
    return line.empty() ? "exit code " + std::to_string(result.exitCode) : line;
}

std::string percentEncoded(std::string_view text)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string encoded;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
            encoded += c;
        } else {
            encoded += '%';
            encoded += hex[byte >> 4];
            encoded += hex[byte & 0xf];
        }
    }
    return encoded;
}

std::string hexOf(std::string_view bytes)
{
    static constexpr char hex[] = "0123456789abcdef";
    std::string text;
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        text += hex[byte >> 4];
        text += hex[byte & 0xf];
    }
    return text;
}

bool hasInitdb(const fs::path &directory)
{
    std::error_code error;
    const auto status = fs::status(platform::programFile(directory, "initdb"), error);
    return fs::is_regular_file(status)
           && (status.permissions() & (fs::perms::owner_exec | fs::perms::others_exec))
                      != fs::perms::none;
}

// "15" or "9.6" as numbers, so that 10 sorts after 9.6; empty for anything else.
std::vector<int> versionOf(const std::string &name)
{
    std::vector<int> parts;
    std::istringstream in(name);
    for (std::string part; std::getline(in, part, '.');) {
        if (part.empty() || !std::all_of(part.begin(), part.end(), [](unsigned char c) {
                return std::isdigit(c);
            }))
            return {};
        parts.push_back(toInt(part));
    }
    return parts;
}

// The newest <version>/bin holding initdb under root, Debian's layout (/usr/lib/postgresql/15/bin)
// and the one bundles copy.
std::optional<fs::path> newestBinDirUnder(const fs::path &root)
{
    std::error_code error;
    std::vector<std::pair<std::vector<int>, fs::path>> candidates;
    for (const auto &entry : fs::directory_iterator(root, error)) {
        auto version = versionOf(entry.path().filename().string());
        if (!version.empty() && hasInitdb(entry.path() / "bin"))
            candidates.emplace_back(std::move(version), entry.path() / "bin");
    }
    if (candidates.empty())
        return std::nullopt;
    return std::max_element(candidates.begin(), candidates.end())->second;
}

// The newest one under where this system's packages install PostgreSQL.
std::optional<fs::path> installedBinDir()
{
    const fs::path root = platform::postgresInstallRoot();
    if (root.empty())
        return std::nullopt;
    return newestBinDirUnder(root);
}

// The characters for a message: "\" $ ` \\ ,".
std::string spaced(std::string_view characters)
{
    std::string list;
    for (const char c : characters)
        list += (list.empty() ? "" : " ") + std::string(1, c);
    return list;
}

struct PidFile
{
    int pid = 0;
    int port = 0;
    fs::path socketDirectory;
    std::string status;
};

// postmaster.pid: PID, data directory, start time, port, first socket directory, listen address,
// shared memory key, status ("starting", "ready", "stopping", "standby").
std::optional<PidFile> parsePidFile(const std::optional<std::string> &contents)
{
    if (!contents)
        return std::nullopt;
    std::vector<std::string> lines;
    std::istringstream in(*contents);
    for (std::string line; std::getline(in, line);)
        lines.push_back(trimmed(line));
    PidFile file;
    file.pid = lines.empty() ? 0 : toInt(lines[0]);
    if (file.pid <= 0)
        return std::nullopt;
    file.port = lines.size() > 3 ? toInt(lines[3]) : 0;
    if (lines.size() > 4)
        file.socketDirectory = lines[4];
    if (lines.size() > 7)
        file.status = lines[7];
    return file;
}

PGPing ping(const fs::path &socketDirectory, int port)
{
    const std::string host = socketDirectory.string();
    const std::string portText = std::to_string(port);
    const char *keywords[] = {"host", "port", "dbname", "user", "connect_timeout", nullptr};
    const char *values[] = {host.c_str(), portText.c_str(), "postgres", Superuser, "2", nullptr};
    return PQpingParams(keywords, values, 0);
}

// For conditions no event announces (a server answering, a process exiting).
template<typename Condition>
bool waitUntil(Clock::time_point deadline, Condition condition)
{
    for (;;) {
        if (condition())
            return true;
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(PollInterval);
    }
}

// Failures of the OS itself (fork, sockets, the file system) and the server directory's refusals
// reach the caller as ClusterError too.
template<typename Function>
void reportingAsClusterError(Function function)
{
    try {
        function();
    } catch (const std::system_error &error) {
        throw ClusterError(error.what());
    } catch (const platform::DirectoryRefused &refused) {
        throw ClusterError(refused.what());
    }
}

std::chrono::seconds secondsUntil(Clock::time_point deadline)
{
    return std::max(1s, std::chrono::ceil<std::chrono::seconds>(deadline - Clock::now()));
}

} // namespace

struct Cluster::Private
{
    ClusterOptions options;
    fs::path directory;
    fs::path dataDirectory;
    fs::path runDirectory;
    fs::path logFile;
    fs::path passwordFile;
    fs::path binDir;
    // Who runs initdb, pg_ctl and the server when the caller is root; nullopt: the caller.
    std::optional<platform::Account> account;
    std::string password;
    int port = 0;
    // The postmaster this object started or adopted; 0 when there is none.
    int pid = 0;
    fs::path socketDirectory;
    std::optional<platform::ServerDirectory> files; // made by locate()

    void locate();
    std::optional<platform::Account> serverAccount() const;
    bool adopt(Clock::time_point deadline);
    std::optional<std::string> storedPassword() const;
    bool loadPassword();
    void initdb();
    void checkVersion();
    void launch(Clock::time_point deadline);
    void storePassword();
    platform::ProcessResult run(std::vector<std::string> argv,
                                std::chrono::milliseconds timeout) const;
    platform::ProcessResult pgCtl(std::vector<std::string> arguments,
                                  std::chrono::milliseconds timeout) const;
    bool waitGone(int postmaster, std::chrono::milliseconds timeout) const;
    [[noreturn]] void fail(const std::string &what, const std::filesystem::path &path,
                           const std::error_code &error) const;
};

void Cluster::Private::locate()
{
    if (options.directory.empty())
        throw ClusterError("no directory given for the embedded cluster: choose where it keeps "
                           "its data");
    std::error_code error;
    directory = fs::absolute(options.directory, error).lexically_normal();
    if (error)
        fail("cannot resolve", options.directory, error);
    if (!directory.has_filename())
        directory = directory.parent_path();
    if (directory.string().find_first_of(platform::serverPathUnsafeCharacters())
        != std::string::npos)
        throw ClusterError("the cluster directory " + directory.string() + " contains one of "
                           + spaced(platform::serverPathUnsafeCharacters())
                           + " which pg_ctl or libpq cannot pass on: choose another directory");
    dataDirectory = directory / "data";
    runDirectory = directory / "run";
    logFile = directory / "server.log";
    passwordFile = directory / "superuser.password";
    // A fallback socket directory elsewhere (say /tmp) would be shared with other users and
    // found by nobody else; a clear refusal keeps the cluster self-contained.
    if (runDirectory.string().size() > MaxSocketDirectoryLength)
        throw ClusterError("the cluster directory " + directory.string()
                           + " is too long for a Unix socket path (" + runDirectory.string()
                           + " has " + std::to_string(runDirectory.string().size())
                           + " bytes, at most " + std::to_string(MaxSocketDirectoryLength)
                           + "): choose a shorter directory");
    binDir = findBinDir(options.binDir);
    account = platform::isRoot() ? serverAccount() : std::nullopt;
    files.emplace(directory, account);
}

std::optional<platform::Account> Cluster::Private::serverAccount() const
{
    // Never a shared account such as nobody: every other process running as it could reach the
    // server's files.
    const std::string &name = options.serverAccount;
    const std::optional<platform::Account> found = platform::lookupAccount(name);
    if (!found)
        throw ClusterError(
                "run as root, the cluster needs a '" + name
                + "' account for the server (Postgres refuses root): create it with: "
                  "useradd --system --user-group --home-dir "
                + (name == "postgres" ? std::string("/var/lib/postgresql") : "/var/lib/" + name)
                + " --shell /usr/sbin/nologin " + name + ", or run as a regular user");
    if (found->uid == 0)
        throw ClusterError("the server account '" + found->name
                           + "' is root, which Postgres refuses: choose an unprivileged account");
    return found;
}

bool Cluster::Private::adopt(Clock::time_point deadline)
{
    for (;;) {
        const auto pidFile = parsePidFile(files->readInData("postmaster.pid"));
        if (!pidFile)
            return false;
        if (!platform::processAlive(pidFile->pid)) {
            // Left by a killed server. Postgres would clear it itself, but not while the dead
            // postmaster is a zombie its new parent has yet to reap (kill() still finds it).
            std::error_code ignored;
            fs::remove(dataDirectory / "postmaster.pid", ignored);
            return false;
        }
        const fs::path socket
                = pidFile->socketDirectory.empty() ? runDirectory : pidFile->socketDirectory;
        const PGPing answer = pidFile->port > 0 ? ping(socket, pidFile->port) : PQPING_NO_RESPONSE;
        if (answer == PQPING_OK) {
            pid = pidFile->pid;
            port = pidFile->port;
            socketDirectory = socket;
            return true;
        }
        if (answer == PQPING_NO_RESPONSE && pidFile->status == "ready") {
            // A server that was ready never stops answering on its own: this PID belongs to an
            // unrelated process now (PIDs are reused, e.g. after a reboot) and Postgres would
            // refuse to start while it lives. Postgres's shared memory check still stops a second
            // postmaster should a real one be hiding behind a removed socket.
            std::error_code ignored;
            fs::remove(dataDirectory / "postmaster.pid", ignored);
            return false;
        }
        // Starting up or shutting down: wait for it to settle.
        if (Clock::now() >= deadline)
            throw ClusterError("a server (pid " + std::to_string(pidFile->pid) + ") runs in "
                               + dataDirectory.string()
                               + " but does not accept connections: stop it and start again");
        std::this_thread::sleep_for(PollInterval);
    }
}

void Cluster::Private::fail(const std::string &what, const fs::path &path,
                            const std::error_code &error) const
{
    throw ClusterError(platform::DirectoryRefused::unwritable(what, path, error).what());
}

std::optional<std::string> Cluster::Private::storedPassword() const
{
    const std::string stored = trimmed(files->readPassword().value_or(""));
    return stored.empty() ? std::nullopt : std::optional(stored);
}

// The stored password, or a new one written (true) for initdb or storePassword to set.
bool Cluster::Private::loadPassword()
{
    if (const auto stored = storedPassword()) {
        password = *stored;
        return false;
    }
    password = hexOf(platform::randomBytes(16));
    try {
        files->writePassword(password);
    } catch (const std::system_error &failure) {
        fail("cannot write", passwordFile, failure.code());
    }
    return true;
}

platform::ProcessResult Cluster::Private::run(std::vector<std::string> argv,
                                              std::chrono::milliseconds timeout) const
{
    platform::ProcessOptions processOptions;
    processOptions.asAccount = account;
    processOptions.timeout = timeout;
    // Untranslated messages, which relevantLine() and the retry decisions read.
    processOptions.environment = {{"LC_ALL", "C"}};
    // The caller's directory may be closed to the server account (root's home, say).
    processOptions.workingDirectory = "/";
    platform::ProcessResult result = platform::runProcess(argv, processOptions);
    if (!result.error.empty())
        throw ClusterError(result.error);
    return result;
}

platform::ProcessResult Cluster::Private::pgCtl(std::vector<std::string> arguments,
                                                std::chrono::milliseconds timeout) const
{
    arguments.insert(arguments.begin(), {platform::programFile(binDir, "pg_ctl").string(), "-D",
                                         dataDirectory.string()});
    return run(std::move(arguments), timeout);
}

void Cluster::Private::initdb()
{
    const std::string program = platform::programFile(binDir, "initdb").string();
    std::vector<std::string> argv{program, "-D", dataDirectory.string(), "-U", Superuser,
                                  "--pwfile=" + passwordFile.string(), "-E", "UTF8",
                                  // C exists everywhere; the demo has no use for collation.
                                  "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256"};
    if (contains(run({program, "--help"}, ToolTimeout).output, "--no-instructions"))
        argv.push_back("--no-instructions");
    const auto result = run(argv, InitdbTimeout);
    if (!result.succeeded())
        throw ClusterError("initdb failed for " + dataDirectory.string() + ": "
                           + failureOf(result, InitdbTimeout));
}

void Cluster::Private::checkVersion()
{
    const std::string cluster = trimmed(files->readInData("PG_VERSION").value_or(""));
    // "pg_ctl (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)"
    const std::string output
            = run({platform::programFile(binDir, "pg_ctl").string(), "--version"}, ToolTimeout)
                      .output;
    const auto at = output.find(") ");
    if (cluster.empty() || at == std::string::npos)
        return;
    const std::string binaries
            = output.substr(at + 2, output.find_first_of(" \n", at + 2) - at - 2);
    if (binaries == cluster || binaries.starts_with(cluster + "."))
        return;
    throw ClusterError(dataDirectory.string() + " holds a PostgreSQL " + cluster + " cluster but "
                       + binDir.string() + " is PostgreSQL " + binaries
                       + ": set LEADER_PG_BINDIR to a PostgreSQL " + cluster + " bin directory");
}

bool Cluster::Private::waitGone(int postmaster, std::chrono::milliseconds timeout) const
{
    return waitUntil(Clock::now() + timeout,
                     [postmaster] { return !platform::processAlive(postmaster); });
}

void Cluster::Private::launch(Clock::time_point deadline)
{
    for (int portAttempt = 1;;) {
        const int candidate = platform::freeLoopbackPort();
        const auto logStart = files->logSize();
        const auto timeout = secondsUntil(deadline);
        const std::string serverOptions
                = "-c listen_addresses=127.0.0.1 -c port=" + std::to_string(candidate) + " -c "
                  + platform::socketDirectoryOption(runDirectory);
        const auto result = pgCtl({"-l", logFile.string(), "-o", serverOptions, "-w", "-t",
                                   std::to_string(timeout.count()), "start"},
                                  timeout + ToolTimeout);
        const auto pidFile = parsePidFile(files->readInData("postmaster.pid"));
        bool cameUp = false;
        if (result.succeeded() && pidFile) {
            pid = pidFile->pid;
            port = candidate;
            socketDirectory = runDirectory;
            if (waitUntil(deadline, [this] { return ping(socketDirectory, port) == PQPING_OK; }))
                return;
            cameUp = true;
        }
        const std::string log = files->logSince(logStart);
        const std::string line
                = relevantLine(log).empty() ? failureOf(result, timeout) : relevantLine(log);
        if (cameUp || result.timedOut || contains(result.output, "did not start in time")) {
            // Whatever did come up goes down again: start() leaves nothing half-started behind.
            if (pidFile && platform::processAlive(pidFile->pid)) {
                pgCtl({"-m", "immediate", "-w", "stop"}, StopTimeout);
                waitGone(pidFile->pid, ToolTimeout);
            }
            pid = 0;
            throw ClusterError(
                    cameUp ? "PostgreSQL started but did not answer on " + runDirectory.string()
                                     + " within " + std::to_string(options.startTimeout.count())
                                     + " s (see " + logFile.string() + ")"
                           : "PostgreSQL did not accept connections within "
                                     + std::to_string(options.startTimeout.count()) + " s: " + line
                                     + " (see " + logFile.string() + ")");
        }
        if (contains(log, "Address already in use") && portAttempt++ < PortAttempts)
            continue;
        // Processes of a server killed a moment ago still hold its shared memory; they notice the
        // dead postmaster and exit on their own.
        if (contains(log, "pre-existing shared memory block")
            && Clock::now() + PollInterval < deadline) {
            std::this_thread::sleep_for(PollInterval * 5);
            continue;
        }
        throw ClusterError("PostgreSQL did not start: " + line + " (see " + logFile.string() + ")");
    }
}

void Cluster::Private::storePassword()
{
    // A reused cluster whose password file went missing gets a new password, set over the
    // socket (trusted) and sent hashed so it never appears in clear on the wire or in a log.
    const std::string host = socketDirectory.string();
    const std::string portText = std::to_string(port);
    const char *keywords[] = {"host", "port", "dbname", "user", "connect_timeout", nullptr};
    const char *values[] = {host.c_str(), portText.c_str(), "postgres", Superuser, "10", nullptr};
    const std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdbParams(keywords, values, 0),
                                                            &PQfinish);
    std::string problem;
    if (PQstatus(conn.get()) != CONNECTION_OK) {
        problem = PQerrorMessage(conn.get());
    } else {
        const std::unique_ptr<char, decltype(&PQfreemem)> hashed(
                PQencryptPasswordConn(conn.get(), password.c_str(), Superuser, nullptr),
                &PQfreemem);
        const std::string sql = std::string("ALTER ROLE ") + Superuser + " PASSWORD '"
                                + (hashed ? hashed.get() : "") + "'";
        const std::unique_ptr<PGresult, decltype(&PQclear)> result(
                hashed ? PQexec(conn.get(), sql.c_str()) : nullptr, &PQclear);
        if (!result || PQresultStatus(result.get()) != PGRES_COMMAND_OK)
            problem = PQerrorMessage(conn.get());
    }
    if (!problem.empty())
        throw ClusterError("cannot set a new password for " + std::string(Superuser) + ": "
                           + relevantLine(problem));
}

Cluster::Cluster(ClusterOptions options)
    : d(std::make_unique<Private>())
{
    d->options = std::move(options);
}

Cluster::~Cluster()
{
    // The console's "closing the window stops the cluster": an adopted server is stopped too.
    try {
        stop();
    } catch (const std::exception &) {
        // A destructor has nobody to tell; the server keeps running and the next start() adopts it.
    }
}

void Cluster::start()
{
    if (isRunning())
        return;
    d->pid = 0;
    reportingAsClusterError([this] {
        d->locate();
        d->files->open(true);
        if (d->adopt(Clock::now() + d->options.startTimeout)) {
            if (d->loadPassword())
                d->storePassword();
            return;
        }
        const bool reused = fs::exists(d->dataDirectory / "PG_VERSION");
        const bool newPassword = d->loadPassword();
        if (reused)
            d->checkVersion();
        else
            d->initdb();
        // initdb has its own bound; the start timeout is the server's alone.
        d->launch(Clock::now() + d->options.startTimeout);
        if (reused && newPassword)
            d->storePassword();
    });
}

bool Cluster::attach()
{
    if (isRunning())
        return true;
    d->pid = 0;
    bool adopted = false;
    reportingAsClusterError([this, &adopted] {
        d->locate();
        if (!d->files->open(false))
            return;
        adopted = d->adopt(Clock::now() + d->options.startTimeout);
        if (adopted)
            d->password = d->storedPassword().value_or("");
    });
    return adopted;
}

void Cluster::detach()
{
    d->pid = 0;
}

void Cluster::stop()
{
    if (!isRunning()) {
        d->pid = 0;
        return;
    }
    // pg_ctl returns once postmaster.pid is gone, a moment before the process itself; when it
    // fails (say, no permission to signal), there is nothing to wait for.
    const auto stopped = [this](const platform::ProcessResult &result) {
        return result.succeeded() ? d->waitGone(d->pid, ToolTimeout)
                                  : !platform::processAlive(d->pid);
    };
    reportingAsClusterError([&] {
        auto result
                = d->pgCtl({"-m", "fast", "-w", "-t", std::to_string(StopTimeout.count()), "stop"},
                           StopTimeout + ToolTimeout);
        if (stopped(result))
            return;
        result = d->pgCtl({"-m", "immediate", "-w", "stop"}, StopTimeout);
        if (!stopped(result))
            throw ClusterError("PostgreSQL (pid " + std::to_string(d->pid)
                               + ") did not stop: " + failureOf(result, StopTimeout) + " (see "
                               + d->logFile.string() + ")");
    });
    d->pid = 0;
}

bool Cluster::isRunning() const
{
    return d->pid != 0 && platform::processAlive(d->pid);
}

int Cluster::port() const
{
    return d->port;
}

fs::path Cluster::socketDirectory() const
{
    return d->socketDirectory;
}

std::string Cluster::superuser() const
{
    return Superuser;
}

std::string Cluster::password() const
{
    return d->password;
}

std::string Cluster::url(std::string_view database) const
{
    return "postgresql://" + std::string(Superuser) + "@"
           + percentEncoded(d->socketDirectory.string()) + ":" + std::to_string(d->port) + "/"
           + percentEncoded(database);
}

std::string Cluster::tcpUrl(std::string_view database) const
{
    return "postgresql://" + std::string(Superuser) + ":" + percentEncoded(d->password)
           + "@127.0.0.1:" + std::to_string(d->port) + "/" + percentEncoded(database);
}

fs::path Cluster::findBinDir(const fs::path &preferred)
{
    if (!preferred.empty()) {
        if (hasInitdb(preferred))
            return fs::absolute(preferred);
        throw ClusterError("PostgreSQL server binaries not found in " + preferred.string()
                           + " (no initdb): choose the directory holding initdb and pg_ctl, "
                           + std::string(platform::postgresBinDirExample()));
    }
    if (const char *fromEnvironment = std::getenv("LEADER_PG_BINDIR");
        fromEnvironment && *fromEnvironment) {
        if (hasInitdb(fromEnvironment))
            return fs::absolute(fromEnvironment);
        throw ClusterError("LEADER_PG_BINDIR=" + std::string(fromEnvironment)
                           + " holds no initdb: point it at the directory holding initdb and "
                             "pg_ctl, or unset it");
    }
    // A bundle (the AppImage, the MSI) carries its own server beside its executables, and must
    // prefer it to whatever the machine has, or has not.
    if (const fs::path executable = platform::executablePath(); !executable.empty()) {
        if (auto bundled
            = newestBinDirUnder(executable.parent_path().parent_path() / "lib" / "postgresql"))
            return *bundled;
    }
    platform::ProcessOptions quick;
    quick.timeout = ToolTimeout;
    const auto pgConfig = platform::runProcess({"pg_config", "--bindir"}, quick);
    // pg_config may belong to the client package alone (libpq-dev) and point at a directory
    // without the server.
    if (pgConfig.succeeded()) {
        const std::string reported = trimmed(pgConfig.output);
        const fs::path fromPgConfig = reported.substr(reported.find_last_of('\n') + 1);
        if (hasInitdb(fromPgConfig))
            return fromPgConfig;
    }
    if (auto installed = installedBinDir())
        return *installed;
    throw ClusterError(std::string("PostgreSQL server binaries not found (no initdb): ")
                       + std::string(platform::postgresInstallAdvice()));
}

} // namespace leader::embedded
