#include "result.h"

#include <libpq-fe.h>

#include <charconv>
#include <stdexcept>
#include <string>

namespace leader::pg {

namespace {

// The whole text as a decimal integer, in any locale.
bool parseWhole(std::string_view text, std::int64_t &parsed)
{
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    return error == std::errc() && end == text.data() + text.size();
}

// Enough of a bad value to recognise it in a message, never a whole field.
std::string clipped(std::string_view text)
{
    constexpr std::size_t Shown = 40;
    return text.size() <= Shown ? std::string(text) : std::string(text.substr(0, Shown)) + "...";
}

} // namespace

void Result::Deleter::operator()(pg_result *result) const
{
    PQclear(result);
}

Result::Result(pg_result *result)
    : m_result(result)
{}

int Result::rows() const
{
    return m_result ? PQntuples(m_result.get()) : 0;
}

int Result::columns() const
{
    return m_result ? PQnfields(m_result.get()) : 0;
}

std::int64_t Result::affected() const
{
    if (!m_result)
        return 0;
    const char *tuples = PQcmdTuples(m_result.get());
    if (!tuples || !*tuples)
        return rows();
    std::int64_t parsed = 0;
    if (!parseWhole(tuples, parsed))
        throw std::invalid_argument("the server's row count is not a number: \"" + clipped(tuples)
                                    + "\"");
    return parsed;
}

int Result::column(std::string_view name) const
{
    return m_result ? PQfnumber(m_result.get(), std::string(name).c_str()) : -1;
}

std::string_view Result::columnName(int column) const
{
    const char *name = m_result ? PQfname(m_result.get(), column) : nullptr;
    return name ? std::string_view(name) : std::string_view();
}

bool Result::isNull(int row, int column) const
{
    return !m_result || PQgetisnull(m_result.get(), row, column);
}

std::string_view Result::text(int row, int column) const
{
    if (isNull(row, column))
        return {};
    return {PQgetvalue(m_result.get(), row, column),
            static_cast<std::size_t>(PQgetlength(m_result.get(), row, column))};
}

std::optional<std::string> Result::optionalText(int row, int column) const
{
    if (isNull(row, column))
        return std::nullopt;
    return std::string(text(row, column));
}

std::int64_t Result::toInt64(int row, int column) const
{
    std::int64_t parsed = 0;
    if (!parseWhole(text(row, column), parsed))
        throw notANumber(row, column, "an integer");
    return parsed;
}

double Result::toDouble(int row, int column) const
{
    // from_chars, not std::stod: stod follows LC_NUMERIC, which QCoreApplication sets from the
    // user's environment, and under de_DE.UTF-8 it reads "1796283994.973" as 1796283994.
    const std::string_view value = text(row, column);
    double parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size())
        throw notANumber(row, column, "a number");
    return parsed;
}

std::invalid_argument Result::notANumber(int row, int column, std::string_view expected) const
{
    const std::string what
            = isNull(row, column) ? std::string("NULL") : "\"" + clipped(text(row, column)) + "\"";
    return std::invalid_argument("column " + std::string(columnName(column)) + " (row "
                                 + std::to_string(row) + ") is " + what + ", not "
                                 + std::string(expected));
}

bool Result::toBool(int row, int column) const
{
    return text(row, column) == "t";
}

} // namespace leader::pg
