#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct pg_result;

namespace leader::pg {

// One statement's rows, owned. Values are read as text (the engine sends and receives text format).
class Result final
{
public:
    Result() = default;
    explicit Result(pg_result *result);

    int rows() const;
    int columns() const;
    // Rows changed by an INSERT/UPDATE/DELETE, or returned by a SELECT.
    std::int64_t affected() const;
    int column(std::string_view name) const; // -1 when absent
    std::string_view columnName(int column) const;

    bool isNull(int row, int column) const;
    std::string_view text(int row, int column) const;
    std::optional<std::string> optionalText(int row, int column) const;
    // Locale-independent (std::from_chars): the text must be the whole number, as the server
    // prints it. Throws std::invalid_argument naming the column, the row and the text otherwise
    // (also for NULL): bad data, not a statement error.
    std::int64_t toInt64(int row, int column) const;
    double toDouble(int row, int column) const;
    bool toBool(int row, int column) const;

private:
    std::invalid_argument notANumber(int row, int column, std::string_view expected) const;

    struct Deleter
    {
        void operator()(pg_result *result) const;
    };
    std::unique_ptr<pg_result, Deleter> m_result;
};

} // namespace leader::pg
