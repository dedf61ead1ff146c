#pragma once

#include <span>
#include <string_view>

namespace leader::schema {

// adr: ADR-114's own 0174 and 0175, which the application's migration tool applies to its database
// (leaderctl applies them only where leader_leases does not exist yet). extension: this project's
// additions, whose tables, functions and views live in the schema leader_ext (ExtensionSchema),
// tracked by leader_ext.migrations. demo: the five roles' domain, for the embedded demo and the
// benchmarks only; never applied to an operator's real database.
enum class MigrationSet { Adr, Extension, Demo };

inline constexpr std::string_view ExtensionSchema = "leader_ext";

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
// The extensions' down scripts as leaderctl installed them before leader_ext existed (in the lease
// schema, tracked in its schema_migrations), in ascending version order, up empty: frozen, to move
// such an install into leader_ext.
std::span<const Migration> legacyExtensionDowns();

} // namespace leader::schema
