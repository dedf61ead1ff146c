#include "result.h"

#include <libpq-fe.h>

#include <charconv>
#include <stdexcept>
#include <string>

namespace leader::pg {

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
    return std::stoll(tuples);
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
    const std::string_view value = text(row, column);
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size())
        throw std::invalid_argument("column " + std::string(columnName(column))
                                    + " is not an integer");
    return parsed;
}

double Result::toDouble(int row, int column) const
{
    return std::stod(std::string(text(row, column)));
}

bool Result::toBool(int row, int column) const
{
    return text(row, column) == "t";
}

} // namespace leader::pg
