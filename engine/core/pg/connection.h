#pragma once

#include "conninfo.h"
#include "platform/socketwait.h"
#include "result.h"

#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>

struct pg_conn;

namespace leader::pg {

// One text-format statement parameter; nullptr is SQL NULL.
class Param final
{
public:
    Param(std::nullptr_t) {}
    Param(std::string_view value)
        : m_value(std::string(value))
    {}
    Param(const char *value)
        : m_value(std::string(value))
    {}
    Param(const std::string &value)
        : m_value(value)
    {}
    template<std::integral T>
    Param(T value)
        : m_value(std::to_string(value))
    {}
    Param(bool) = delete;

    const std::optional<std::string> &value() const { return m_value; }

private:
    std::optional<std::string> m_value;
};

// When a statement may start and by when it must end, on the monotonic clock, besides its timeout.
// A lease holder's statements must not start after its abandon instant, however long the fault gate
// or a reconnect took before them (Error::notStarted() then).
struct StatementWindow
{
    std::optional<std::chrono::steady_clock::time_point> startBy;
    std::optional<std::chrono::steady_clock::time_point> endBy;
    // Called after the fault gate and after any reconnect, just before the statement is sent: it
    // may wait, and it throws to keep the statement from starting (a lease holder's tick that was
    // cancelled meanwhile, or whose marker is being repaired).
    std::function<void()> beforeSend;
    // Once requested, a statement in flight is cancelled on the server as at its deadline (checked
    // every StatementCancelCheck), and fails with SQLSTATE 57014.
    std::stop_token cancel;
};

// How often a statement in flight looks at StatementWindow::cancel.
inline constexpr std::chrono::milliseconds StatementCancelCheck{10};

// A libpq connection that sends every statement through the asynchronous API under a client-side
// deadline, cancels it when the deadline passes, and uses unnamed statements only, so it works
// unchanged through a transaction pooler. A broken connection is reopened by the next statement,
// inside that statement's deadline; so is one the server closed while it sat idle (a restart, a
// failover, a pooler restart), which is found before the statement is sent rather than by its
// failure. A connection whose session the server ended or made read-only (SQLSTATE class 08,
// 57P01-57P03, 25006) is closed after the error, so the next statement reconnects and a multi-host
// URL's target_session_attrs picks the new primary. Not thread-safe: one thread uses a connection
// at a time.
class Connection final
{
public:
    explicit Connection(ConnectOptions options);
    ~Connection();
    Connection(Connection &&) noexcept;
    Connection &operator=(Connection &&) noexcept;
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    // Opens now rather than at the first statement; throws Error (Transport, "connect").
    void open();
    void open(std::chrono::milliseconds timeout);
    bool isOpen() const;
    void close();

    // One statement with $n parameters (extended protocol, unnamed). Throws Error.
    Result exec(std::string_view statement, std::string_view sql, std::span<const Param> params,
                std::chrono::milliseconds timeout, const StatementWindow &window = {});
    Result exec(std::string_view statement, std::string_view sql,
                std::initializer_list<Param> params, std::chrono::milliseconds timeout,
                const StatementWindow &window = {})
    {
        return exec(statement, sql, std::span<const Param>(params.begin(), params.size()), timeout,
                    window);
    }
    // Several statements without parameters (simple protocol), e.g. a migration file.
    void execScript(std::string_view statement, std::string_view sql,
                    std::chrono::milliseconds timeout);

    const ConnectOptions &options() const { return m_options; }
    std::string target() const; // user@host:port/db, never a password
    std::string user() const;   // the session's login role
    int serverVersion() const;  // e.g. 150018
    bool inTransaction() const;
    // The SQLSTATE of the FATAL error the server sent unasked since this session was opened (it
    // was ending the session: 57P01 a shutdown or pg_terminate_backend, 57P05 an idle timeout,
    // ...); empty when none came. Read before the next statement reconnects.
    std::string serverEndedWith() const;
    pg_conn *handle() const { return m_conn.get(); }

private:
    using Clock = std::chrono::steady_clock;
    struct ConnectFailure
    {
        std::string reason; // libpq's, one line
        bool deadlineExceeded = false;
    };
    void openUntil(Clock::time_point deadline);
    std::optional<ConnectFailure> openServer(const std::string &conninfo,
                                             Clock::time_point deadline);
    void closeIfEndedByServer();
    // platform::waitSocket on this connection's socket, in slices that look at the stop token;
    // throws a transport error for statement once stop is requested.
    platform::WaitResult waitSocket(platform::WaitFor direction, std::chrono::milliseconds timeout,
                                    std::string_view statement, const std::stop_token &cancel = {});
    Result run(std::string_view statement, std::string_view sql, std::span<const Param> params,
               bool script, std::chrono::milliseconds timeout, const StatementWindow &window);
    [[noreturn]] void failTransport(std::string_view statement, const std::string &what,
                                    bool deadlineExceeded);

    struct Deleter
    {
        void operator()(pg_conn *conn) const;
    };
    ConnectOptions m_options;
    // Set by the session's notice receiver when the server sent a FATAL error unasked: it is
    // ending the session, though its end of file may not have arrived. On the heap so that its
    // address, the receiver's argument, survives a move of this object; declared before m_conn so
    // that it outlives the session.
    struct ServerEnding
    {
        bool ending = false;
        std::string sqlstate;
    };
    std::unique_ptr<ServerEnding> m_endingByServer;
    std::unique_ptr<pg_conn, Deleter> m_conn;
    std::size_t m_lastServer = 0; // of a multi-host URL: the one tried first next time
};

} // namespace leader::pg
