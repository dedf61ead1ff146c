#pragma once

#include "schema/scriptformat.h"

#include <filesystem>
#include <string>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leaderctl {

struct PrintSqlOptions
{
    leader::schema::ScriptFormat format = leader::schema::ScriptFormat::Plain;
    int to = 0; // every extension migration when 0
    bool down = false;
    std::filesystem::path out; // standard output when empty
};

// "applied migration 0174 …" for each of applied, or that target is up to date.
void printApplied(const std::string &target, const std::vector<int> &applied);
// leaderctl migrate: names each migration's changes outside leader_ext before it applies it.
void migrate(leader::pg::Connection &connection, bool withDemo);
// leaderctl migrate --print-sql: needs no database. Throws std::runtime_error with one line when
// DIR cannot be written, or is not safe to write (another's, writable by others, a link, or
// holding a file of the same name already).
void printSql(const PrintSqlOptions &options);

} // namespace leaderctl
