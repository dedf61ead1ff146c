#include "migratecommand.h"

#include "pg/connection.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>

namespace leaderctl {

using leader::schema::Migration;
using leader::schema::MigrationSet;

void migrate(leader::pg::Connection &connection, bool withDemo)
{
    const auto announce = [](const Migration &migration, bool up) {
        std::cout << "leaderctl: " << (up ? "applying " : "undoing ")
                  << (migration.set == MigrationSet::Extension ? "leader_ext " : "migration ")
                  << leader::schema::versionLabel(migration.version) << " " << migration.name
                  << "\n";
        for (const std::string &change : leader::schema::outsideChanges(migration, up))
            std::cout << "leaderctl:   outside leader_ext: " << change << "\n";
        std::cout << std::flush;
    };
    leader::schema::Migrator migrator(connection, announce);
    const std::vector<int> applied
            = withDemo ? migrator.migrate(
                      {MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo})
                       : migrator.migrate({MigrationSet::Adr, MigrationSet::Extension});
    if (applied.empty())
        std::cout << "leaderctl: " << connection.target() << " is up to date\n";
    else
        std::cout << "leaderctl: applied " << applied.size() << " migration"
                  << (applied.size() == 1 ? "" : "s") << " to " << connection.target() << "\n";
}

void printSql(const PrintSqlOptions &options)
{
    using leader::schema::holdsBothDirections;
    const std::vector<leader::schema::ScriptFile> files
            = leader::schema::extensionScripts(options.format, options.to);
    if (options.out.empty()) {
        // To standard output, one direction, in the order it is applied: psql -f - can run it.
        for (const leader::schema::ScriptFile &file : files) {
            const bool isDown = file.name.ends_with(".down.sql") || file.name.starts_with("U");
            if (holdsBothDirections(options.format) || isDown == options.down)
                std::cout << "-- file: " << file.name << "\n" << file.text << "\n";
        }
        return;
    }
    std::error_code error;
    std::filesystem::create_directories(options.out, error);
    if (error)
        throw std::runtime_error("cannot create " + options.out.string() + ": " + error.message());
    for (const leader::schema::ScriptFile &file : files) {
        const std::filesystem::path path = options.out / file.name;
        std::ofstream stream(path, std::ios::binary | std::ios::trunc);
        stream << file.text;
        stream.close();
        if (!stream)
            throw std::runtime_error("cannot write " + path.string());
        std::cout << "leaderctl: wrote " << path.string() << "\n";
    }
}

} // namespace leaderctl
