#include "connection.h"

#include "cancel.h"
#include "error.h"

#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <vector>

namespace leader::pg {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// How long a cancelled statement may take to report its cancellation before the connection is
// dropped instead: a server that does not answer a cancel is as good as unreachable.
constexpr auto CancelGrace = 500ms;

std::string oneLine(const char *message)
{
    std::string line;
    std::string_view rest = message ? message : "";
    while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        std::string_view part = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        while (!part.empty() && (part.front() == ' ' || part.front() == '\t'))
            part.remove_prefix(1);
        while (!part.empty() && (part.back() == ' ' || part.back() == '\r'))
            part.remove_suffix(1);
        if (part.empty())
            continue;
        if (!line.empty())
            line += "; ";
        line += part;
    }
    return line.empty() ? std::string("no message from libpq") : line;
}

std::string field(const PGresult *result, int code)
{
    const char *value = PQresultErrorField(result, code);
    return value ? value : "";
}

std::string describeError(const PGresult *result)
{
    std::string message = field(result, PG_DIAG_MESSAGE_PRIMARY);
    if (message.empty())
        return oneLine(PQresultErrorMessage(result));
    if (const std::string detail = field(result, PG_DIAG_MESSAGE_DETAIL); !detail.empty())
        message += " (" + detail + ")";
    if (const std::string hint = field(result, PG_DIAG_MESSAGE_HINT); !hint.empty())
        message += "; hint: " + hint;
    return oneLine(message.c_str());
}

// Errors after which the session is no use to the next statement: the connection is gone or
// going (class 08, admin or crash shutdown, the server starting or stopping), or the server is no
// longer a primary (a read-only transaction on a demoted server or a standby a multi-host URL
// reached), so that a reconnect lets target_session_attrs pick the primary again.
bool endsSession(std::string_view state)
{
    return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03"
           || state == sqlstate::ReadOnlySqlTransaction;
}

std::chrono::milliseconds remainingUntil(Clock::time_point deadline)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
}

} // namespace

void Connection::Deleter::operator()(pg_conn *conn) const
{
    PQfinish(conn);
}

Connection::Connection(ConnectOptions options)
    : m_options(std::move(options))
{}

Connection::~Connection() = default;
Connection::Connection(Connection &&) noexcept = default;
Connection &Connection::operator=(Connection &&) noexcept = default;

void Connection::open()
{
    open(m_options.connectTimeout);
}

void Connection::open(std::chrono::milliseconds timeout)
{
    openUntil(Clock::now() + timeout);
}

bool Connection::isOpen() const
{
    return m_conn && PQstatus(m_conn.get()) == CONNECTION_OK;
}

void Connection::close()
{
    m_conn.reset();
}

void Connection::openUntil(Clock::time_point deadline)
{
    close();
    // Never handed to libpq: its own messages would quote the pieces of the password.
    if (const std::optional<std::string> reason = unreadableReason(m_options.url))
        failTransport("connect", "cannot connect: " + *reason, false);
    const std::vector<std::string> servers = serverConninfos(m_options.url);
    if (servers.size() <= 1) {
        if (const std::optional<ConnectFailure> failure = openServer(m_options.url, deadline))
            failTransport("connect",
                          "cannot connect to " + describeTarget(m_options.url) + ": "
                                  + failure->reason,
                          failure->deadlineExceeded);
        return;
    }
    // libpq bounds each host of a list by connect_timeout only in its blocking connect; here a
    // silent first host (a dead machine, not a refusing server) would take the statement's whole
    // deadline. So the servers are tried one at a time, each with an equal share of what is left,
    // starting with the one that answered last.
    std::string reasons;
    bool deadlineExceeded = false;
    for (std::size_t tried = 0; tried < servers.size(); ++tried) {
        const std::size_t index = (m_lastServer + tried) % servers.size();
        const auto share = (deadline - Clock::now()) / static_cast<int>(servers.size() - tried);
        const std::optional<ConnectFailure> failure
                = openServer(servers[index], Clock::now() + share);
        if (!failure) {
            m_lastServer = index;
            return;
        }
        reasons += (reasons.empty() ? "" : "; ") + describeTarget(servers[index]) + ": "
                   + failure->reason;
        deadlineExceeded = failure->deadlineExceeded;
    }
    failTransport("connect", "cannot connect to " + describeTarget(m_options.url) + ": " + reasons,
                  deadlineExceeded);
}

std::optional<Connection::ConnectFailure> Connection::openServer(const std::string &conninfo,
                                                                 Clock::time_point deadline)
{
    close();
    const std::string keepalivesIdle = std::to_string(m_options.keepalivesIdleSeconds);
    const std::string keepalivesInterval = std::to_string(m_options.keepalivesIntervalSeconds);
    const std::string keepalivesCount = std::to_string(m_options.keepalivesCount);
    const std::string userTimeout = std::to_string(m_options.tcpUserTimeout.count());
    const std::string connectSeconds = std::to_string(
            std::max<long long>(1, (m_options.connectTimeout.count() + 999) / 1000));
    // Later keywords override earlier ones, so the URL (dbname, expanded) comes last and wins.
    std::vector<const char *> keys{"application_name", "connect_timeout",     "keepalives",
                                   "keepalives_idle",  "keepalives_interval", "keepalives_count",
                                   "tcp_user_timeout"};
    std::vector<const char *> values{m_options.applicationName.c_str(),
                                     connectSeconds.c_str(),
                                     "1",
                                     keepalivesIdle.c_str(),
                                     keepalivesInterval.c_str(),
                                     keepalivesCount.c_str(),
                                     userTimeout.c_str()};
    if (!conninfo.empty()) {
        keys.push_back("dbname");
        values.push_back(conninfo.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);

    const auto failed = [this](std::string reason, bool deadlineExceeded) {
        close();
        return ConnectFailure{std::move(reason), deadlineExceeded};
    };
    m_conn.reset(PQconnectStartParams(keys.data(), values.data(), 1));
    if (!m_conn)
        return failed("out of memory", false);
    if (PQstatus(m_conn.get()) == CONNECTION_BAD)
        return failed(oneLine(PQerrorMessage(m_conn.get())), false);

    PostgresPollingStatusType status = PGRES_POLLING_WRITING;
    while (status != PGRES_POLLING_OK) {
        if (status == PGRES_POLLING_FAILED)
            return failed(oneLine(PQerrorMessage(m_conn.get())), false);
        const auto remaining = remainingUntil(deadline);
        if (remaining <= 0ms
            || waitSocket(status == PGRES_POLLING_READING ? platform::WaitFor::Read
                                                          : platform::WaitFor::Write,
                          remaining, "connect")
                       == platform::WaitResult::TimedOut)
            return failed("no answer within the connect timeout", true);
        status = PQconnectPoll(m_conn.get());
    }
    PQsetnonblocking(m_conn.get(), 1);
    // libpq prints notices to stderr by default; a NOTICE is never an error the engine acts on.
    // But an idle session's unasked ErrorResponse reaches the receiver too, as a notice, and a
    // FATAL one is the server saying why it is about to close the session.
    if (!m_endingByServer)
        m_endingByServer = std::make_unique<ServerEnding>();
    *m_endingByServer = ServerEnding();
    PQsetNoticeReceiver(
            m_conn.get(),
            [](void *ending, const PGresult *notice) {
                // A crash restart says so as a WARNING (57P02, PostgreSQL 14 and later), a
                // shutdown or a termination as a FATAL error: either way the session is ending.
                const char *severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
                const std::string code = field(notice, PG_DIAG_SQLSTATE);
                if (code.starts_with("57P")
                    || (severity
                        && (std::string_view(severity) == "FATAL"
                            || std::string_view(severity) == "PANIC"))) {
                    auto *said = static_cast<ServerEnding *>(ending);
                    said->ending = true;
                    said->sqlstate = code;
                }
            },
            m_endingByServer.get());
    return std::nullopt;
}

Result Connection::exec(std::string_view statement, std::string_view sql,
                        std::span<const Param> params, std::chrono::milliseconds timeout,
                        const StatementWindow &window)
{
    return run(statement, sql, params, false, timeout, window);
}

void Connection::execScript(std::string_view statement, std::string_view sql,
                            std::chrono::milliseconds timeout)
{
    run(statement, sql, {}, true, timeout, {});
}

void Connection::closeIfEndedByServer()
{
    // An idle session has nothing to read unless the server said something unasked: a notice, a
    // notification, or the FATAL error it sends before it closes the session (then end of file).
    // A few reads take it all. The end of file may come later than the error: the server drops
    // the session from pg_stat_activity before it closes the socket, and a busy machine may run
    // the client between the two (tst_leasemanager's terminated backends failed so under
    // ctest -j3). So the error alone ends the session here: parsing the input (PQisBusy, idle)
    // hands it to the notice receiver. What is still open after that is alive.
    constexpr int MaxReads = 8;
    for (int read = 0; read < MaxReads && isOpen(); ++read) {
        if (platform::waitSocket(PQsocket(m_conn.get()), platform::WaitFor::Read,
                                 std::chrono::milliseconds::zero())
            != platform::WaitResult::Ready)
            return;
        if (!PQconsumeInput(m_conn.get()) || PQstatus(m_conn.get()) == CONNECTION_BAD) {
            close();
            return;
        }
        PQisBusy(m_conn.get());
        if (m_endingByServer->ending)
            close();
    }
}

Result Connection::run(std::string_view statement, std::string_view sql,
                       std::span<const Param> params, bool script,
                       std::chrono::milliseconds timeout, const StatementWindow &window)
{
    if (m_options.gate)
        m_options.gate();
    if (m_options.stop.stop_requested())
        throw Error(ErrorKind::NotStarted, {}, std::string(statement),
                    "not sent: its caller is stopping");
    auto deadline = Clock::now() + timeout;
    if (window.endBy)
        deadline = std::min(deadline, *window.endBy);
    const auto checkStart = [&] {
        if (window.beforeSend)
            window.beforeSend();
        if (window.startBy && Clock::now() >= *window.startBy)
            throw Error(ErrorKind::NotStarted, {}, std::string(statement),
                        "not sent: its start deadline had passed");
    };
    checkStart();
    closeIfEndedByServer();
    if (!isOpen()) {
        try {
            openUntil(std::min(deadline, Clock::now() + m_options.connectTimeout));
        } catch (const Error &error) {
            throw Error(ErrorKind::Transport, {}, std::string(statement), error.what(),
                        error.deadlineExceeded());
        }
        checkStart();
    }
    PGconn *conn = m_conn.get();
    const std::string text(sql);
    int sent = 0;
    if (script) {
        sent = PQsendQuery(conn, text.c_str());
    } else {
        std::vector<const char *> values;
        values.reserve(params.size());
        for (const Param &param : params)
            values.push_back(param.value() ? param.value()->c_str() : nullptr);
        sent = PQsendQueryParams(conn, text.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    }
    if (!sent)
        failTransport(statement, oneLine(PQerrorMessage(conn)), false);

    for (int flushed = PQflush(conn); flushed != 0; flushed = PQflush(conn)) {
        if (flushed < 0)
            failTransport(statement, oneLine(PQerrorMessage(conn)), false);
        const auto remaining = remainingUntil(deadline);
        if (remaining <= 0ms
            || waitSocket(platform::WaitFor::Write, remaining, statement)
                       == platform::WaitResult::TimedOut)
            failTransport(statement, "could not send the statement before its deadline", true);
        if (!PQconsumeInput(conn))
            failTransport(statement, oneLine(PQerrorMessage(conn)), false);
    }

    // Set once the deadline passed and a cancel request went out; the server then has CancelGrace
    // to answer, and the cancel must have been delivered before the connection serves again, so a
    // late cancel can never hit the next statement.
    bool cancelRequested = false;
    bool cancelledByCaller = false;
    std::shared_ptr<const std::atomic<bool>> cancelDelivered;
    std::optional<std::pair<std::string, std::string>> serverError; // SQLSTATE, message
    Result last;
    for (;;) {
        while (PQisBusy(conn)) {
            auto remaining = remainingUntil(deadline);
            if (remaining > 0ms) {
                const auto waited = waitSocket(platform::WaitFor::Read, remaining, statement,
                                               cancelRequested ? std::stop_token() : window.cancel);
                if (waited == platform::WaitResult::Failed)
                    failTransport(statement, "waiting for the server failed", false);
                remaining = remainingUntil(deadline);
            }
            if (!cancelRequested && window.cancel.stop_requested()) {
                cancelledByCaller = true;
                remaining = 0ms;
            }
            if (remaining <= 0ms) {
                if (cancelRequested)
                    failTransport(statement,
                                  "no answer within the " + std::to_string(timeout.count())
                                          + " ms deadline, nor to the cancel request; connection"
                                            " dropped",
                                  true);
                cancelRequested = true;
                if (PGcancel *cancel = PQgetCancel(conn))
                    cancelDelivered = CancelRequests::instance().send(cancel);
                deadline = Clock::now() + CancelGrace;
            }
            if (!PQconsumeInput(conn))
                failTransport(statement, oneLine(PQerrorMessage(conn)), false);
        }
        PGresult *raw = PQgetResult(conn);
        if (!raw)
            break;
        const ExecStatusType status = PQresultStatus(raw);
        if ((status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE) && !serverError)
            serverError.emplace(field(raw, PG_DIAG_SQLSTATE), describeError(raw));
        Result result(raw);
        if (status != PGRES_FATAL_ERROR && status != PGRES_BAD_RESPONSE)
            last = std::move(result);
    }
    const bool broken = PQstatus(conn) == CONNECTION_BAD;
    // The cancel's own connection is left to finish before this session is closed or used
    // again: PgBouncer 1.18 crashes (disconnect_client: bad client state) when a client closes
    // while a cancel request for it is being forwarded.
    if (cancelRequested && cancelDelivered && !broken)
        CancelRequests::instance().waitFor(cancelDelivered, Clock::now() + CancelGrace);
    if (cancelRequested && !(cancelDelivered && cancelDelivered->load()))
        close();
    if (!serverError)
        return last;
    if (broken || serverError->first.empty())
        failTransport(statement, serverError->second, false);
    if (endsSession(serverError->first))
        close();
    const bool cancelled = cancelRequested && serverError->first == sqlstate::QueryCanceled;
    if (cancelled && cancelledByCaller)
        throw Error(ErrorKind::Definite, serverError->first, std::string(statement),
                    "cancelled by its caller", false);
    throw Error(ErrorKind::Definite, serverError->first, std::string(statement),
                cancelled ? "exceeded its " + std::to_string(timeout.count())
                                    + " ms deadline and was cancelled"
                          : redactSecrets(serverError->second, m_options.url),
                cancelled);
}

platform::WaitResult Connection::waitSocket(platform::WaitFor direction,
                                            std::chrono::milliseconds timeout,
                                            std::string_view statement,
                                            const std::stop_token &cancel)
{
    const auto deadline = Clock::now() + timeout;
    const std::chrono::milliseconds slice
            = cancel.stop_possible() ? StatementCancelCheck : StopCheckEvery;
    for (;;) {
        if (m_options.stop.stop_requested())
            failTransport(statement, "abandoned: its caller is stopping", false);
        if (cancel.stop_requested())
            return platform::WaitResult::TimedOut;
        const auto remaining = remainingUntil(deadline);
        const bool last = (!m_options.stop.stop_possible() && !cancel.stop_possible())
                          || remaining <= slice;
        const platform::WaitResult result
                = platform::waitSocket(PQsocket(m_conn.get()), direction, last ? remaining : slice);
        if (result != platform::WaitResult::TimedOut || last)
            return result;
    }
}

void Connection::failTransport(std::string_view statement, const std::string &what,
                               bool deadlineExceeded)
{
    close();
    throw Error(ErrorKind::Transport, {}, std::string(statement),
                redactSecrets(what, m_options.url), deadlineExceeded);
}

std::string Connection::target() const
{
    if (!isOpen())
        return describeTarget(m_options.url);
    const char *host = PQhost(m_conn.get());
    return std::string(PQuser(m_conn.get())) + "@" + (host ? host : "") + ":" + PQport(m_conn.get())
           + "/" + PQdb(m_conn.get());
}

std::string Connection::user() const
{
    return isOpen() ? PQuser(m_conn.get()) : std::string();
}

int Connection::serverVersion() const
{
    return isOpen() ? PQserverVersion(m_conn.get()) : 0;
}

std::string Connection::serverEndedWith() const
{
    return m_endingByServer && m_endingByServer->ending ? m_endingByServer->sqlstate
                                                        : std::string();
}

bool Connection::inTransaction() const
{
    return isOpen() && PQtransactionStatus(m_conn.get()) != PQTRANS_IDLE;
}

} // namespace leader::pg
