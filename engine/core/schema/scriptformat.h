#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leader::schema {

// The migration tools whose file conventions leaderctl migrate --print-sql writes: the extension
// migrations (leader_ext 0176 on) for an application that migrates its database with its own
// tool, like River's `river migrate-get`.
enum class ScriptFormat { Plain, SqlMigrate, GolangMigrate, Goose, Flyway };

std::optional<ScriptFormat> parseScriptFormat(std::string_view name);
// Whether one file carries both directions (sql-migrate, goose) rather than one file each.
bool holdsBothDirections(ScriptFormat format);

struct ScriptFile
{
    std::string name;
    std::string text;
};

// The extension migrations from leader_ext 0176 up to and including `to` (every one when 0), as
// the files the tool takes: names, up and down markers, one statement batch per direction (the
// whole of composeUp / composeDown, inside the transaction that the tool opens or, for plain and
// golang-migrate files, that BEGIN and COMMIT in the file open). Up files first in version order,
// then down files in reverse order, where the format has separate ones.
std::vector<ScriptFile> extensionScripts(ScriptFormat format, int to);

} // namespace leader::schema
