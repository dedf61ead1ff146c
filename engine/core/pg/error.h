#pragma once

#include <stdexcept>
#include <string>

namespace leader::pg {

// Whether the server answered. A definite error means the statement did not take effect (autocommit
// rolls it back); a transport error means the connection broke or stayed silent past the deadline,
// so the statement may or may not have committed; not started means it was never sent: its start
// deadline (StatementWindow::startBy) had passed, or the fault gate stands for a dead process.
enum class ErrorKind { Definite, Transport, NotStarted };

class Error final : public std::runtime_error
{
public:
    Error(ErrorKind kind, std::string sqlstate, std::string statement, const std::string &message,
          bool deadlineExceeded = false);

    ErrorKind kind() const { return m_kind; }
    bool isTransport() const { return m_kind == ErrorKind::Transport; }
    bool notStarted() const { return m_kind == ErrorKind::NotStarted; }
    // Five-character SQLSTATE from the server; empty for a transport failure.
    const std::string &sqlstate() const { return m_sqlstate; }
    // The statement's name as the engine knows it ("acquire", "migrate 0174"), never its
    // parameters.
    const std::string &statement() const { return m_statement; }
    bool deadlineExceeded() const { return m_deadlineExceeded; }

private:
    ErrorKind m_kind;
    std::string m_sqlstate;
    std::string m_statement;
    bool m_deadlineExceeded;
};

// The error as one line for an operator: what went wrong and, for the usual causes (privilege,
// missing schema, credentials, unreachable server), what to do about it. Never holds a password.
std::string explain(const Error &error);

// Whether the error may pass when tried again on a fresh connection: the connection or the server
// was gone, busy, starting, stopping, no longer the primary, or too slow. A refused privilege or a
// missing table stays refused.
bool mayPass(const Error &error);

namespace sqlstate {
inline constexpr const char *InsufficientPrivilege = "42501";
inline constexpr const char *UndefinedTable = "42P01";
inline constexpr const char *UndefinedFunction = "42883";
inline constexpr const char *UndefinedColumn = "42703";
inline constexpr const char *CheckViolation = "23514";
inline constexpr const char *UniqueViolation = "23505";
inline constexpr const char *InvalidParameterValue = "22023";
// A request the state refuses (a drain orphaning roles, a hand-over of a role not held).
inline constexpr const char *ObjectNotInPrerequisiteState = "55000";
inline constexpr const char *QueryCanceled = "57014";
inline constexpr const char *InvalidPassword = "28P01";
inline constexpr const char *InvalidAuthorization = "28000";
inline constexpr const char *InvalidCatalogName = "3D000";
// A write on a standby, or on a primary since demoted: the session must be dropped so the next
// connect lets a multi-host URL's target_session_attrs find the primary.
inline constexpr const char *ReadOnlySqlTransaction = "25006";
} // namespace sqlstate

} // namespace leader::pg
