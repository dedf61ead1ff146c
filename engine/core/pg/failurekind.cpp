#include "failurekind.h"

#include "error.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>
#include <utility>

namespace leader::pg {

namespace {

bool containsAny(std::string_view text, std::initializer_list<std::string_view> needles)
{
    const auto lower = [](std::string_view from) {
        std::string to(from);
        std::ranges::transform(to, to.begin(), [](unsigned char c) { return std::tolower(c); });
        return to;
    };
    const std::string haystack = lower(text);
    return std::ranges::any_of(needles, [&](std::string_view needle) {
        return haystack.find(lower(needle)) != std::string::npos;
    });
}

bool contains(std::string_view text, std::string_view needle)
{
    return text.find(needle) != std::string_view::npos;
}

} // namespace

FailureKind classify(std::string_view state, std::string_view message, bool transport,
                     bool deadlineExceeded)
{
    // libpq's and PgBouncer's texts for a refused login or connect carry no SQLSTATE.
    if (state == sqlstate::InvalidPassword || state == sqlstate::InvalidAuthorization
        || containsAny(message, {"password authentication failed", "no password supplied",
                                 "authentication failed", "password is required"}))
        return FailureKind::Authentication;
    if (state == sqlstate::InvalidCatalogName
        || (contains(message, "database \"") && contains(message, "does not exist"))
        || contains(message, "no such database"))
        return FailureKind::DatabaseMissing;
    if (containsAny(message,
                    {"Connection refused", "could not translate host name", "timeout expired",
                     "No such file or directory", "Network is unreachable", "No route to host",
                     "could not connect", "Connection timed out", "within the connect timeout"}))
        return FailureKind::Unreachable;
    if (deadlineExceeded)
        return FailureKind::Timeout;
    if (transport || closedByServer(state, message))
        return FailureKind::Closed;
    if (state == sqlstate::UndefinedTable || state == sqlstate::UndefinedFunction
        || state == sqlstate::UndefinedColumn)
        return FailureKind::Schema;
    if (state == sqlstate::InsufficientPrivilege)
        return FailureKind::Privilege;
    if (state == sqlstate::ObjectNotInPrerequisiteState)
        return FailureKind::Refused;
    return FailureKind::Other;
}

bool closedByServer(std::string_view state, std::string_view message)
{
    return state.starts_with("57P") || state.starts_with("08")
           || containsAny(message, {"server closed the connection", "terminating connection",
                                    "no connection to the server", "connection to server was lost",
                                    "SSL connection has been closed", "server conn crashed",
                                    "Connection reset", "Broken pipe"});
}

bool announcesServerEnd(std::string_view state)
{
    return state == "57P01" || state == "57P02" || state == "57P03";
}

bool serverNotAccepting(std::string_view message)
{
    for (const std::string_view reason :
         {"the database system is shutting down", "the database system is starting up",
          "the database system is in recovery mode",
          "the database system is not yet accepting connections",
          "the database system is not accepting connections", "Connection refused",
          "No such file or directory"})
        if (message.find(reason) != std::string_view::npos)
            return true;
    return false;
}

std::string_view sqlstateMeaning(std::string_view state)
{
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 15> Meanings{{
            {sqlstate::InsufficientPrivilege, "insufficient privilege"},
            {sqlstate::InvalidParameterValue, "invalid parameter value"},
            {"P0001", "raised by a function"},
            {sqlstate::UndefinedFunction, "undefined function"},
            {sqlstate::UndefinedTable, "undefined table"},
            {sqlstate::UndefinedColumn, "undefined column"},
            {sqlstate::InvalidCatalogName, "database does not exist"},
            {sqlstate::InvalidPassword, "invalid password"},
            {sqlstate::InvalidAuthorization, "invalid authorization"},
            {"53300", "too many connections"},
            {"57P01", "administrator shutdown"},
            {"57P02", "crash shutdown"},
            {"57P03", "cannot connect now"},
            {sqlstate::QueryCanceled, "query cancelled"},
            {sqlstate::ReadOnlySqlTransaction, "read-only transaction"},
    }};
    for (const auto &[code, meaning] : Meanings)
        if (state == code)
            return meaning;
    return state.starts_with("08") ? "connection exception" : "";
}

} // namespace leader::pg
