#include "error.h"

namespace leader::pg {

Error::Error(ErrorKind kind, std::string sqlstate, std::string statement,
             const std::string &message, bool deadlineExceeded)
    : std::runtime_error(message)
    , m_kind(kind)
    , m_sqlstate(std::move(sqlstate))
    , m_statement(std::move(statement))
    , m_deadlineExceeded(deadlineExceeded)
{}

bool mayPass(const Error &error)
{
    const std::string &state = error.sqlstate();
    return error.isTransport() || state.starts_with("08") || state.starts_with("57")
           || state.starts_with("53") || state.starts_with("40")
           || state == sqlstate::ReadOnlySqlTransaction;
}

std::string explain(const Error &error)
{
    const std::string what = error.what();
    const std::string &state = error.sqlstate();
    const auto contains = [&what](const char *text) {
        return what.find(text) != std::string::npos;
    };
    std::string advice;
    if (state == sqlstate::InsufficientPrivilege)
        advice = "the login lacks a privilege: grant it hardcount_app (replicas, pause) or "
                 "hardcount_monitor (read-only status)";
    else if (state == sqlstate::UndefinedTable || state == sqlstate::UndefinedFunction)
        advice = "the lease schema is missing: run leaderctl migrate --database URL";
    else if (state == sqlstate::UndefinedColumn) // not the database name: it was reached
        advice = "the lease schema lacks a column this build uses: run leaderctl migrate "
                 "--database URL";
    else if (contains("password authentication failed") || contains("no password supplied")
             || contains("SASL authentication failed")) // PgBouncer's wording under SCRAM
        advice = "check the user and password (in the URL, PGPASSWORD or ~/.pgpass)";
    else if (state == sqlstate::InvalidCatalogName || contains("does not exist"))
        advice = "check the database name in the URL";
    else if (state == sqlstate::ReadOnlySqlTransaction)
        advice = "the server is read-only (a standby): list every server in the URL with "
                 "target_session_attrs=read-write";
    else if (error.isTransport() && error.deadlineExceeded())
        advice = "the server did not answer in time: check the host, port and network";
    else if (contains("could not translate host name"))
        advice = "check the host name in the URL";
    // A connect failure already says "cannot connect to ...".
    std::string line = error.statement().empty() || error.statement() == "connect"
                               ? what
                               : error.statement() + ": " + what;
    if (!state.empty())
        line += " [SQLSTATE " + state + "]";
    return advice.empty() ? line : line + "; " + advice;
}

} // namespace leader::pg
