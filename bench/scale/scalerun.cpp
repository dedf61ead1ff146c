#include "scalerun.h"

#include "events.h"
#include "host.h"
#include "lease/constants.h"
#include "lease/roles.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "replicaprocess.h"
#include "schema/migrator.h"
#include "stats.h"
#include "text.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <unistd.h>

namespace bench::scale {

namespace {

using namespace std::chrono_literals;
using bench::EventLog;
using bench::ReplicaEvent;
using bench::ReplicaProcess;
using Clock = std::chrono::steady_clock;
using leader::lease::EventKind;

constexpr auto StatementTimeout = 10s;
constexpr auto StopDeadline = 60s;
constexpr double LeaseTtlSeconds = std::chrono::duration<double>(leader::lease::LeaseTTL).count();
constexpr double MaxPollSeconds = std::chrono::duration<double>(leader::lease::MaxPoll).count();
// After a stall of the pool, how long its queue may take to drain: a fleet that retries no harder
// than it polls drains it in a few seconds; one that retries harder never does.
constexpr auto StallDrainAllowance = 30s;
// A queue this long or longer is a spell (the report lists such samples).
constexpr int QueueSpellAt = 20;

void progress(const std::string &line)
{
    std::cerr << "scale-bench: " << line << std::endl;
}

double wallNow()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
}

std::string durationText(std::chrono::milliseconds duration)
{
    return std::to_string(duration.count()) + "ms";
}

// A whole number as /proc and PgBouncer print it; 0 when it is not one.
long long integer(std::string_view text)
{
    long long value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

// utime + stime (and, with children, cutime + cstime: the reaped children's) of one process, in
// seconds; 0 once it is gone.
double processCpu(int pid, bool withReapedChildren, int *parent = nullptr)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    // The command name is in parentheses and may hold spaces: the fields follow the last ')'.
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream fields(text.substr(close + 2));
    std::vector<std::string> values;
    for (std::string field; fields >> field;)
        values.push_back(field);
    if (values.size() < 15)
        return 0;
    // values[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
    const auto number = [&](int field) {
        return static_cast<double>(integer(values[field - 3]));
    };
    if (parent)
        *parent = static_cast<int>(number(4));
    double ticks = number(14) + number(15);
    if (withReapedChildren)
        ticks += number(16) + number(17);
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The postmaster and every process it started: backends, the pooler's 20 server sessions
// among them, and the background workers.
double serverCpu(int postmaster)
{
    double total = processCpu(postmaster, true);
    for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        int parent = 0;
        const double cpu = processCpu(std::stoi(name), false, &parent);
        if (parent == postmaster)
            total += cpu;
    }
    return total;
}

int pidFromFile(const std::filesystem::path &file)
{
    std::ifstream in(file);
    int pid = 0;
    in >> pid;
    if (pid <= 0)
        throw std::runtime_error("no pid in " + file.string());
    return pid;
}

struct ResultDeleter
{
    void operator()(PGresult *result) const { PQclear(result); }
};
using ResultHandle = std::unique_ptr<PGresult, ResultDeleter>;

// The statements PgBouncer has passed on for one database so far (SHOW STATS total_query_count).
// Its admin console speaks the simple query protocol only: PQexec on the connection's handle.
double bouncerQueries(leader::pg::Connection &admin, const std::string &database)
{
    if (!admin.isOpen())
        admin.open();
    const ResultHandle result(PQexec(admin.handle(), "SHOW STATS"));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        throw std::runtime_error(std::string("PgBouncer SHOW STATS: ")
                                 + PQresultErrorMessage(result.get()));
    const int nameColumn = PQfnumber(result.get(), "database");
    const int queryColumn = PQfnumber(result.get(), "total_query_count");
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        if (database == PQgetvalue(result.get(), row, nameColumn))
            return static_cast<double>(integer(PQgetvalue(result.get(), row, queryColumn)));
    }
    return 0;
}

// The clients waiting for a server connection now, and the longest of their waits so far
// (SHOW POOLS cl_waiting, maxwait + maxwait_us), for one database's pools.
std::pair<int, double> bouncerWaiting(leader::pg::Connection &admin, const std::string &database)
{
    if (!admin.isOpen())
        admin.open();
    const ResultHandle result(PQexec(admin.handle(), "SHOW POOLS"));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        throw std::runtime_error(std::string("PgBouncer SHOW POOLS: ")
                                 + PQresultErrorMessage(result.get()));
    const int nameColumn = PQfnumber(result.get(), "database");
    const int waitingColumn = PQfnumber(result.get(), "cl_waiting");
    const int secondsColumn = PQfnumber(result.get(), "maxwait");
    const int microsColumn = PQfnumber(result.get(), "maxwait_us");
    int waiting = 0;
    double longestMs = 0;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        if (database != PQgetvalue(result.get(), row, nameColumn))
            continue;
        waiting += static_cast<int>(integer(PQgetvalue(result.get(), row, waitingColumn)));
        longestMs = std::max(
                longestMs,
                static_cast<double>(integer(PQgetvalue(result.get(), row, secondsColumn))) * 1000.0
                        + static_cast<double>(integer(PQgetvalue(result.get(), row, microsColumn)))
                                  / 1000.0);
    }
    return {waiting, longestMs};
}

// The machine's CPU time so far, busy and total, in clock ticks over every core (/proc/stat).
std::pair<double, double> machineCpu()
{
    std::ifstream stat("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    const double busy = user + nice + system + irq + softirq + steal;
    return {busy, busy + idle + iowait};
}

struct Snapshot
{
    Clock::time_point at;
    double bouncerQueries = 0;
    double serverXacts = 0;
    double serverCpu = 0;
    double bouncerCpu = 0;
    double hostsCpu = 0;
};

// The holder id is hostname:pid:8hex; the pid is read from the right.
int holderPid(const std::string &holder)
{
    const std::size_t last = holder.rfind(':');
    if (last == std::string::npos || last == 0)
        return 0;
    const std::size_t before = holder.rfind(':', last - 1);
    const std::size_t start = before == std::string::npos ? 0 : before + 1;
    int pid = 0;
    std::from_chars(holder.data() + start, holder.data() + last, pid);
    return pid;
}

Latency latencyOf(std::vector<double> samples, std::size_t failed)
{
    Latency latency{.count = samples.size(), .failed = failed};
    if (samples.empty())
        return latency;
    std::sort(samples.begin(), samples.end());
    latency.p50 = bench::nearestRank(samples, 50);
    latency.p99 = bench::nearestRank(samples, 99);
    latency.max = samples.back();
    return latency;
}

// "kind sent_ns milliseconds failed" lines, as scale-host writes them.
void readSamples(const std::filesystem::path &file, Clock::time_point from, Clock::time_point to,
                 std::array<std::vector<double>, StatementKinds> &samples,
                 std::array<std::size_t, StatementKinds> &failed)
{
    std::ifstream in(file);
    std::string kind;
    long long sentNs = 0;
    double milliseconds = 0;
    int fail = 0;
    while (in >> kind >> sentNs >> milliseconds >> fail) {
        const Clock::time_point sent{std::chrono::nanoseconds(sentNs)};
        if (sent < from || sent >= to)
            continue;
        for (int index = 0; index < StatementKinds; ++index) {
            if (kindName(static_cast<StatementKind>(index)) != kind)
                continue;
            samples[index].push_back(milliseconds);
            failed[index] += fail ? 1 : 0;
        }
    }
}

// The benchmark's host processes of one phase.
class Fleet final
{
public:
    Fleet(const Options &options, EventLog &events, std::filesystem::path directory)
        : m_options(options)
        , m_events(events)
        , m_directory(std::move(directory))
    {}
    ~Fleet() { stop(); }
    Fleet(const Fleet &) = delete;
    Fleet &operator=(const Fleet &) = delete;

    void start(int replicas, const std::string &mode, const std::string &phase,
               std::chrono::milliseconds interval, std::chrono::milliseconds work)
    {
        const int processes
                = std::max(2, (replicas + m_options.perProcess - 1) / m_options.perProcess);
        const std::size_t from = m_events.size();
        for (int index = 0; index < processes; ++index) {
            // Spread evenly; the first processes take the remainder.
            const int count = replicas / processes + (index < replicas % processes ? 1 : 0);
            const std::string name = phase + "-h" + std::to_string(index + 1);
            const std::filesystem::path samples = m_directory / (name + ".samples");
            std::vector<std::string> argv{m_options.hostBinary.string(),
                                          "--database",
                                          m_options.replicaDatabaseUrl,
                                          "--name",
                                          name,
                                          "--replicas",
                                          std::to_string(count),
                                          "--interval",
                                          durationText(interval),
                                          "--work",
                                          durationText(work),
                                          "--spread",
                                          durationText(m_options.spread),
                                          "--poll",
                                          mode,
                                          "--board-read",
                                          m_options.boardRead,
                                          "--samples",
                                          samples.string()};
            auto process = std::make_unique<ReplicaProcess>(
                    argv, m_directory / (name + ".log"), m_directory / (name + ".out"),
                    [this](int pid, std::string_view line) {
                        m_events.add(bench::parseEvent(pid, line));
                    });
            m_hosts.push_back({std::move(process), samples, count});
        }
        // Ready once every host has started all of its replicas.
        const auto deadline = Clock::now() + m_options.spread + 60s;
        for (const Host &host : m_hosts) {
            const int pid = host.process->pid();
            if (!m_events.waitFor(
                        [pid](const ReplicaEvent &event) {
                            return event.pid == pid && event.process == ProcessEvent::Ready;
                        },
                        deadline, from))
                throw std::runtime_error("host " + std::to_string(pid)
                                         + " did not start its replicas; see "
                                         + m_directory.string());
        }
    }

    int processes() const { return static_cast<int>(m_hosts.size()); }

    double cpu() const
    {
        double total = 0;
        for (const Host &host : m_hosts)
            if (!host.killed)
                total += processCpu(host.process->pid(), false);
        return total;
    }

    // Asks every live host for its statement samples and collects those sent in [from, to).
    void collect(Clock::time_point from, Clock::time_point to, Phase &phase)
    {
        const std::size_t mark = m_events.size();
        for (const Host &host : m_hosts)
            if (!host.killed)
                ::kill(host.process->pid(), SIGUSR1);
        std::array<std::vector<double>, StatementKinds> samples;
        std::array<std::size_t, StatementKinds> failed{};
        const auto deadline = Clock::now() + 60s;
        for (const Host &host : m_hosts) {
            if (host.killed)
                continue;
            const int pid = host.process->pid();
            if (!m_events.waitFor(
                        [pid](const ReplicaEvent &event) {
                            return event.pid == pid && event.process == ProcessEvent::Samples;
                        },
                        deadline, mark))
                throw std::runtime_error("host " + std::to_string(pid) + " wrote no samples");
            readSamples(host.samples, from, to, samples, failed);
        }
        const double seconds = std::chrono::duration<double>(to - from).count();
        for (int index = 0; index < StatementKinds; ++index) {
            phase.perSecond[index] = static_cast<double>(samples[index].size()) / seconds;
            phase.latency[index] = latencyOf(std::move(samples[index]), failed[index]);
        }
    }

    // The host whose pid is given, if it is one of these.
    bool kill(int pid, int &replicas)
    {
        for (Host &host : m_hosts) {
            if (host.process->pid() != pid || host.killed)
                continue;
            host.process->kill();
            host.killed = true;
            replicas = host.replicas;
            return true;
        }
        return false;
    }

    bool hosts(int pid) const
    {
        return std::any_of(m_hosts.begin(), m_hosts.end(), [pid](const Host &host) {
            return host.process->pid() == pid && !host.killed;
        });
    }

    // SIGTERM to every live host, then waits for each to exit: the ticks are released.
    void stop()
    {
        for (Host &host : m_hosts)
            if (!host.killed)
                host.process->terminate();
        for (Host &host : m_hosts) {
            if (host.killed)
                continue;
            if (!host.process->waitForExit(StopDeadline))
                progress("host " + std::to_string(host.process->pid())
                         + " did not stop within 60 s; killed");
        }
        m_hosts.clear();
    }

private:
    struct Host
    {
        std::unique_ptr<ReplicaProcess> process;
        std::filesystem::path samples;
        int replicas = 0;
        bool killed = false;
    };

    const Options &m_options;
    EventLog &m_events;
    const std::filesystem::path m_directory;
    std::vector<Host> m_hosts;
};

// SIGSTOP for its lifetime, SIGCONT at its end, whatever ends it: a PgBouncer left stopped would
// hang the servers' stop.
class StoppedProcess final
{
public:
    explicit StoppedProcess(int pid)
        : m_pid(pid)
    {
        if (::kill(m_pid, SIGSTOP) != 0)
            throw std::runtime_error("cannot stop process " + std::to_string(m_pid));
    }
    ~StoppedProcess() { ::kill(m_pid, SIGCONT); }
    StoppedProcess(const StoppedProcess &) = delete;
    StoppedProcess &operator=(const StoppedProcess &) = delete;

private:
    int m_pid;
};

class Bench final
{
public:
    Bench(const Options &options, std::filesystem::path directory)
        : m_options(options)
        , m_directory(std::move(directory))
        , m_db({.url = options.databaseUrl, .applicationName = "scale-bench"})
        , m_admin({.url = options.bouncerAdminUrl, .applicationName = "scale-bench"})
        , m_postmaster(pidFromFile(options.servers / "data" / "postmaster.pid"))
        , m_bouncer(pidFromFile(options.servers / "pgbouncer.pid"))
    {}

    void setUp(Results &results)
    {
        m_db.open();
        results.serverVersion = std::string(
                m_db.exec("version", "SHOW server_version", {}, StatementTimeout).text(0, 0));
        m_database = std::string(
                m_db.exec("database", "SELECT current_database()", {}, StatementTimeout)
                        .text(0, 0));
        using leader::schema::MigrationSet;
        for (const int version :
             leader::schema::Migrator(m_db).migrate({MigrationSet::Adr, MigrationSet::Extension}))
            progress("applied migration " + std::to_string(version));
        m_statementStats = m_db.exec("pg_stat_statements",
                                     "SELECT to_regclass('pg_stat_statements') IS NOT NULL", {},
                                     StatementTimeout)
                                   .text(0, 0)
                           == "t";
        if (!m_statementStats)
            progress("no pg_stat_statements in this database: no server time by statement");
        m_admin.open();
        const ResultHandle version(PQexec(m_admin.handle(), "SHOW VERSION"));
        if (PQresultStatus(version.get()) == PGRES_TUPLES_OK && PQntuples(version.get()) > 0)
            results.bouncerVersion = PQgetvalue(version.get(), 0, 0);
    }

    Run run(int replicas, const std::string &mode)
    {
        Run run{.replicas = replicas, .mode = mode};
        m_events = std::make_unique<EventLog>();
        reset();
        {
            Fleet fleet(m_options, *m_events, m_directory);
            progress(std::to_string(replicas) + " replicas, " + mode + ": idle phase");
            fleet.start(replicas, mode, "idle", m_options.idleInterval, m_options.idleWork);
            run.processes = fleet.processes();
            run.idle = measure(fleet, "idle", m_options.idleWarmup, m_options.idleWindow);
            if (m_options.poolStall.count() > 0
                && replicas
                           == *std::max_element(m_options.replicas.begin(),
                                                m_options.replicas.end()))
                run.poolStall = stallPool(replicas, mode);
        }
        reset();
        {
            Fleet fleet(m_options, *m_events, m_directory);
            progress(std::to_string(replicas) + " replicas, " + mode + ": ticks phase");
            fleet.start(replicas, mode, "ticks", m_options.tickInterval, m_options.tickWork);
            run.ticks = measure(fleet, "ticks", m_options.ticksWarmup, m_options.ticksWindow);
            takeover(fleet, run);
        }
        checkDoubleLeading(run);
        checkDatabase(run);
        if (run.doubleLed > 0)
            run.failures.push_back(std::to_string(run.doubleLed) + " roles led by two holders");
        for (const Takeover &takeover : run.takeovers)
            if (!takeover.came)
                run.failures.push_back("no takeover of " + takeover.role + " after the kill");
        if (run.takeovers.empty())
            run.failures.push_back("no host process held a lease to kill");
        if (run.poolStall && !run.poolStall->drainedAfter)
            run.failures.push_back(
                    "PgBouncer's queue had not drained "
                    + std::to_string(std::chrono::seconds(StallDrainAllowance).count())
                    + " s after a " + fixed(run.poolStall->seconds, 0) + " s stall (up to "
                    + std::to_string(run.poolStall->mostWaiting)
                    + " clients waiting): the fleet retries harder than the pool drains");
        return run;
    }

private:
    void reset()
    {
        // Every column a tick leaves behind, so each phase starts with every role due.
        m_db.exec("reset leases",
                  "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, "
                  "expires_at = NULL, last_tick_ended_at = NULL, last_tick_holder = NULL, "
                  "paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL, "
                  "not_before = NULL",
                  {}, StatementTimeout);
        m_db.exec("reset registry", "DELETE FROM leader_ext.leader_replicas", {}, StatementTimeout);
    }

    // PgBouncer stopped under the fleet, as a pooler stalls (a host frozen by its hypervisor, a
    // CPU-starved container, a SIGSTOPped process): every statement in flight times out, and what
    // the replicas then send decides whether the queue drains or grows without end.
    PoolStall stallPool(int replicas, const std::string &mode)
    {
        PoolStall stall{.seconds = std::chrono::duration<double>(m_options.poolStall).count()};
        progress(std::to_string(replicas) + " replicas, " + mode + ": PgBouncer stopped for "
                 + std::to_string(m_options.poolStall.count()) + " s");
        {
            const StoppedProcess stopped(m_bouncer);
            bench::sleepFor(m_options.poolStall);
        }
        const auto resumed = Clock::now();
        int quietSamples = 0;
        Clock::time_point quietSince;
        while (Clock::now() - resumed < StallDrainAllowance) {
            const int waiting = bouncerWaiting(m_admin, m_database).first;
            stall.mostWaiting = std::max(stall.mostWaiting, waiting);
            if (waiting >= QueueSpellAt) {
                quietSamples = 0;
            } else if (++quietSamples == 1) {
                quietSince = Clock::now();
            } else if (quietSamples == 4) {
                stall.drainedAfter = std::chrono::duration<double>(quietSince - resumed).count();
                break;
            }
            bench::sleepFor(500ms);
        }
        progress(stall.drainedAfter ? "PgBouncer's queue drained " + fixed(*stall.drainedAfter, 1)
                                              + " s after it ran again (up to "
                                              + std::to_string(stall.mostWaiting) + " waiting)"
                                    : "PgBouncer's queue did not drain");
        return stall;
    }

    Snapshot snapshot(const Fleet &fleet)
    {
        Snapshot snap{.at = Clock::now()};
        snap.bouncerQueries = bouncerQueries(m_admin, m_database);
        snap.serverXacts = m_db.exec("xacts",
                                     "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                     "WHERE datname = current_database()",
                                     {}, StatementTimeout)
                                   .toDouble(0, 0);
        snap.serverCpu = serverCpu(m_postmaster);
        snap.bouncerCpu = processCpu(m_bouncer, false);
        snap.hostsCpu = fleet.cpu();
        return snap;
    }

    Phase measure(Fleet &fleet, const std::string &name, std::chrono::seconds warmup,
                  std::chrono::seconds window)
    {
        bench::sleepFor(warmup);
        if (m_statementStats)
            m_db.exec("reset statements", "SELECT pg_stat_statements_reset()", {},
                      StatementTimeout);
        const Snapshot begin = snapshot(fleet);
        const std::size_t eventsFrom = m_events->size();
        Phase phase{.name = name};
        auto machine = machineCpu();
        for (const auto until = begin.at + window; Clock::now() < until;) {
            const auto [waiting, longestMs] = bouncerWaiting(m_admin, m_database);
            phase.bouncerMostWaiting = std::max(phase.bouncerMostWaiting, waiting);
            phase.bouncerLongestWaitMs = std::max(phase.bouncerLongestWaitMs, longestMs);
            const auto cpuNow = machineCpu();
            const double busy = (cpuNow.first - machine.first)
                                / std::max(1.0, cpuNow.second - machine.second)
                                * bench::processorCount() * 100.0;
            machine = cpuNow;
            if (waiting >= QueueSpellAt)
                phase.queueSpells.push_back(
                        "t+"
                        + fixed(std::chrono::duration<double>(Clock::now() - begin.at).count(), 1)
                        + " s: " + std::to_string(waiting) + " waiting (longest "
                        + fixed(longestMs, 0) + " ms), machine CPU " + fixed(busy, 0)
                        + " %, the pool running: " + activeStatements());
            sampleServerWaits(phase);
            bench::sleepFor(std::min<std::chrono::milliseconds>(
                    500ms,
                    std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now())));
        }
        const Snapshot end = snapshot(fleet);
        phase.seconds = std::chrono::duration<double>(end.at - begin.at).count();
        phase.bouncerQueriesPerSecond = (end.bouncerQueries - begin.bouncerQueries) / phase.seconds;
        phase.serverXactsPerSecond = (end.serverXacts - begin.serverXacts) / phase.seconds;
        phase.serverCpu = (end.serverCpu - begin.serverCpu) / phase.seconds;
        phase.bouncerCpu = (end.bouncerCpu - begin.bouncerCpu) / phase.seconds;
        phase.hostsCpu = (end.hostsCpu - begin.hostsCpu) / phase.seconds;
        for (const ReplicaEvent &event : m_events->since(eventsFrom))
            phase.ticksLed += event.transition == EventKind::Acquired ? 1 : 0;
        fleet.collect(begin.at, end.at, phase);
        if (m_statementStats)
            phase.serverStatements = serverStatements(phase.seconds);
        return phase;
    }

    // What the replicas' server sessions (PgBouncer's pool) are doing now: running on a CPU, or
    // waiting, and on what. Idle sessions are not counted.
    void sampleServerWaits(Phase &phase)
    {
        const leader::pg::Result rows = m_db.exec(
                "server waits",
                "SELECT state || ': ' || coalesce(wait_event_type || '/' || wait_event, 'CPU'),"
                "       count(*)"
                "  FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                "   AND backend_type = 'client backend' AND state <> 'idle'"
                " GROUP BY 1",
                {}, StatementTimeout);
        for (int row = 0; row < rows.rows(); ++row)
            phase.serverWaits[std::string(rows.text(row, 0))]
                    += static_cast<int>(rows.toInt64(row, 1));
        ++phase.serverWaitSamples;
    }

    // The statements the pool's server sessions are running now, by kind.
    std::string activeStatements()
    {
        const leader::pg::Result rows = m_db.exec(
                "active statements",
                "SELECT CASE WHEN query LIKE 'SELECT s.role%'"
                "              OR query LIKE '%leader_ext.leader_board(%' THEN 'read'"
                "            WHEN query LIKE '%leader_replica_seen%' THEN 'registry beat'"
                "            WHEN query LIKE 'WITH claimed%' THEN 'ACQUIRE'"
                "            ELSE left(query, 30) END, count(*)"
                "  FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                "   AND backend_type = 'client backend' AND state = 'active'"
                " GROUP BY 1 ORDER BY 2 DESC",
                {}, StatementTimeout);
        std::string text;
        for (int row = 0; row < rows.rows(); ++row)
            text += (text.empty() ? "" : ", ") + std::string(rows.text(row, 1)) + " "
                    + std::string(rows.text(row, 0));
        return text.empty() ? "nothing" : text;
    }

    // The replicas' statements (hardcount_app's logins) by the server time they took.
    std::vector<ServerStatement> serverStatements(double seconds)
    {
        const leader::pg::Result rows = m_db.exec(
                "server statements",
                "WITH s AS (SELECT * FROM pg_stat_statements s"
                "            WHERE s.dbid = (SELECT oid FROM pg_database"
                "                             WHERE datname = current_database())"
                "              AND s.userid <> current_user::regrole)"
                " SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100), calls,"
                "        total_plan_time / greatest(calls, 1), mean_exec_time, max_exec_time,"
                "        (total_plan_time + total_exec_time)"
                "          / nullif((SELECT sum(total_plan_time + total_exec_time) FROM s), 0)"
                "   FROM s ORDER BY total_plan_time + total_exec_time DESC LIMIT 6",
                {}, StatementTimeout);
        std::vector<ServerStatement> statements;
        for (int row = 0; row < rows.rows(); ++row)
            statements.push_back({.text = std::string(rows.text(row, 0)),
                                  .callsPerSecond = rows.toDouble(row, 1) / seconds,
                                  .meanPlanMs = rows.toDouble(row, 2),
                                  .meanExecMs = rows.toDouble(row, 3),
                                  .maxExecMs = rows.toDouble(row, 4),
                                  .share = rows.isNull(row, 5) ? 0 : rows.toDouble(row, 5)});
        return statements;
    }

    struct Held
    {
        std::string role;
        std::int64_t token = 0;
        std::string holder;
        double expiresAt = 0;
    };

    std::vector<Held> heldRows(const std::string &condition)
    {
        const leader::pg::Result rows = m_db.exec(
                "held",
                "SELECT role, holder_token, holder_id, extract(epoch FROM expires_at)::float8 "
                "FROM leader_leases WHERE holder_id IS NOT NULL AND expires_at > now() "
                        + condition,
                {}, StatementTimeout);
        std::vector<Held> held;
        for (int row = 0; row < rows.rows(); ++row)
            held.push_back({std::string(rows.text(row, 0)), rows.toInt64(row, 1),
                            std::string(rows.text(row, 2)), rows.toDouble(row, 3)});
        return held;
    }

    // SIGKILLs the host process holding the most roles mid-tick (at least a second of work left)
    // and measures each of its roles' takeover on the database clock.
    void takeover(Fleet &fleet, Run &run)
    {
        const double workLeft = std::chrono::duration<double>(m_options.tickWork).count() - 1.0;
        std::map<int, int> byPid;
        for (int attempt = 0; attempt < 100 && byPid.empty(); ++attempt) {
            const std::string fresh = "AND acquired_at > now() - interval '"
                                      + std::to_string(std::max(0.0, workLeft)) + " seconds'";
            for (const Held &held : heldRows(fresh))
                if (fleet.hosts(holderPid(held.holder)))
                    ++byPid[holderPid(held.holder)];
            if (byPid.empty())
                bench::sleepFor(100ms);
        }
        if (byPid.empty())
            return;
        const int victim = std::max_element(byPid.begin(), byPid.end(), [](auto a, auto b) {
                               return a.second < b.second;
                           })->first;
        fleet.kill(victim, run.victimReplicas);
        run.victimPid = victim;
        m_killedPid = victim;
        m_killedAt = wallNow();
        const double killedDb
                = m_db.exec("clock", "SELECT extract(epoch FROM clock_timestamp())::float8", {},
                            StatementTimeout)
                          .toDouble(0, 0);
        // A RENEW already on its way when the process died still lands: read the rows after it.
        bench::sleepFor(500ms);
        std::vector<Held> victims;
        for (const Held &held : heldRows(""))
            if (holderPid(held.holder) == victim)
                victims.push_back(held);
        progress("killed host " + std::to_string(victim) + " (" + std::to_string(run.victimReplicas)
                 + " replicas) holding " + std::to_string(victims.size()) + " roles");
        const auto deadline
                = Clock::now()
                  + std::chrono::seconds(static_cast<int>(LeaseTtlSeconds + MaxPollSeconds + 15));
        for (const Held &held : victims) {
            Takeover result{.role = held.role, .victimToken = held.token};
            const std::optional<ReplicaEvent> next = m_events->waitFor(
                    [&held](const ReplicaEvent &event) {
                        return event.transition == EventKind::Acquired && event.role == held.role
                               && event.token.value_or(0) > held.token;
                    },
                    deadline);
            if (next && next->dbTimeEpoch) {
                result.came = true;
                result.newHolder = next->holder;
                result.afterKill = *next->dbTimeEpoch - killedDb;
                result.afterExpiry = *next->dbTimeEpoch - held.expiresAt;
            }
            run.takeovers.push_back(result);
        }
    }

    // Every tick as an interval, from its ACQUIRE's now() (the database clock) to the end of its
    // work as the host saw it (this machine's clock, the same one on loopback), or to the kill of
    // its process; two intervals of one role by different holders that overlap are a double lead.
    // The work's end, not the RELEASE: a RELEASE that waits out an overloaded pooler lands after
    // the lease has expired and another holder has begun, which is a handover, not two leaders.
    // ACQUIRE's now() is its transaction's start: an ACQUIRE that started while the row was held
    // and reached it only after the RELEASE (a slow statement on a busy machine; seen once in CI,
    // 1.4 ms) is stamped before that RELEASE, though it took a released row. So when the
    // predecessor's lease could not have expired yet (granted less than a TTL before; no replica
    // here has a marker session, so nothing else frees a held row), the tick starts no earlier
    // than the predecessor's RELEASE's now(). A RELEASE sent while the work still ran, or a
    // takeover at expiry of a holder still working, still shows as an overlap.
    void checkDoubleLeading(Run &run)
    {
        struct Lead
        {
            std::string holder;
            std::int64_t token = 0;
            double from = 0;
            double to = 0;
            bool ended = false;
            std::optional<double> releasedAt;
        };
        std::map<std::pair<std::string, std::int64_t>, Lead> leads;
        std::map<std::pair<std::string, std::int64_t>, int> acquiredTwice;
        for (const ReplicaEvent &event : m_events->since(0)) {
            if (!event.token || event.role.empty())
                continue;
            const auto key = std::make_pair(event.role, *event.token);
            if (event.transition == EventKind::Acquired && event.dbTimeEpoch) {
                if (++acquiredTwice[key] > 1)
                    run.databaseMismatches.push_back("token " + std::to_string(*event.token)
                                                     + " of " + event.role + " acquired twice");
                leads[key] = {event.holder, *event.token, *event.dbTimeEpoch, 0, false};
            } else if (event.process == ProcessEvent::WorkEnded && leads.contains(key)) {
                const std::string at = bench::jsonField(event.line, "at").value_or("");
                Lead &lead = leads[key];
                lead.ended = std::from_chars(at.data(), at.data() + at.size(), lead.to).ec
                             == std::errc();
            } else if (event.transition == EventKind::Released && event.dbTimeEpoch
                       && leads.contains(key)) {
                leads[key].releasedAt = *event.dbTimeEpoch;
            }
        }
        std::map<std::string, std::vector<Lead>> byRole;
        for (auto &[key, lead] : leads) {
            if (!lead.ended) {
                // Killed mid-tick: it led until its process died. Otherwise it never ended.
                lead.to = holderPid(lead.holder) == m_killedPid ? m_killedAt : 1e18;
            }
            byRole[key.first].push_back(lead);
        }
        run.leadIntervals = static_cast<int>(leads.size());
        for (auto &[role, list] : byRole) {
            // In the order the row was granted: the fencing token's.
            std::sort(list.begin(), list.end(),
                      [](const Lead &a, const Lead &b) { return a.token < b.token; });
            for (std::size_t index = 1; index < list.size(); ++index) {
                const Lead &before = list[index - 1];
                const Lead &after = list[index];
                const bool heldAtAcquire = after.from - before.from < LeaseTtlSeconds;
                const double grantedFrom = heldAtAcquire && before.releasedAt
                                                   ? std::max(after.from, *before.releasedAt)
                                                   : after.from;
                if (grantedFrom < before.to && after.holder != before.holder) {
                    ++run.doubleLed;
                    run.overlaps.push_back(role + ": token " + std::to_string(after.token)
                                           + " acquired " + std::to_string(before.to - grantedFrom)
                                           + " s before token " + std::to_string(before.token)
                                           + " ended");
                }
            }
        }
    }

    void checkDatabase(Run &run)
    {
        std::map<std::string, std::int64_t> lastAcquired;
        for (const ReplicaEvent &event : m_events->since(0))
            if (event.transition == EventKind::Acquired && event.token)
                lastAcquired[event.role] = std::max(lastAcquired[event.role], *event.token);
        const leader::pg::Result rows = m_db.exec(
                "tokens", "SELECT role, holder_token FROM leader_leases", {}, StatementTimeout);
        for (int row = 0; row < rows.rows(); ++row) {
            const std::string role(rows.text(row, 0));
            const std::int64_t token = rows.toInt64(row, 1);
            if (lastAcquired.contains(role) && lastAcquired[role] != token)
                run.databaseMismatches.push_back(role + ": the row's token " + std::to_string(token)
                                                 + ", the events' last "
                                                 + std::to_string(lastAcquired[role]));
        }
    }

    const Options &m_options;
    const std::filesystem::path m_directory;
    leader::pg::Connection m_db;
    leader::pg::Connection m_admin;
    const int m_postmaster;
    const int m_bouncer;
    bool m_statementStats = false;
    std::string m_database;
    std::unique_ptr<EventLog> m_events;
    int m_killedPid = 0;
    double m_killedAt = 0;
};

} // namespace

Results runAll(const Options &options)
{
    Results results;
    results.startedAt = bench::formatTimestamp(wallNow());
    results.system = bench::systemDescription();
    results.processors = bench::processorCount();
    const std::filesystem::path directory = bench::makePrivateDirectory("scale-bench");
    Bench bench(options, directory);
    bench.setUp(results);
    for (const int replicas : options.replicas)
        for (const std::string &mode : options.modes)
            if (mode == "acquire-first" ? replicas <= options.acquireFirstMax
                                        : replicas >= options.readFirstMin)
                results.runs.push_back(bench.run(replicas, mode));
    results.finishedAt = bench::formatTimestamp(wallNow());
    // The hosts' logs say what went wrong: kept when a check failed.
    if (std::any_of(results.runs.begin(), results.runs.end(),
                    [](const Run &run) { return !run.failures.empty(); })) {
        progress("the hosts' logs are in " + directory.string());
        return results;
    }
    if (options.keepSamples) {
        progress("the hosts' samples and logs are in " + directory.string());
        return results;
    }
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
    return results;
}

} // namespace bench::scale
