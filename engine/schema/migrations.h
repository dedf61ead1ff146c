#pragma once

#include <span>
#include <string_view>

namespace leader::schema {

// lease: the product schema of ADR-114. demo: the five roles' domain, for the embedded demo and
// the benchmarks only; never applied to an operator's real database.
enum class MigrationSet { Lease, Demo };

struct Migration
{
    int version;
    std::string_view name;
    MigrationSet set;
    std::string_view up;
    std::string_view down;
};

// Every migration compiled into this binary (from migrations/*/NNNN_name.{up,down}.sql), in
// ascending version order.
std::span<const Migration> embeddedMigrations();

} // namespace leader::schema
