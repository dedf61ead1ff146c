#include "scriptformat.h"

#include "features.h"
#include "migrator.h"

#include <algorithm>

namespace leader::schema {

namespace {

std::string baseName(const Migration &migration)
{
    return versionLabel(migration.version) + "_" + std::string(migration.name);
}

// BEGIN and COMMIT for tools that run a file as it is (psql, golang-migrate's postgres driver):
// the advisory lock is transaction-scoped, and the file must apply whole or not at all.
std::string inTransaction(const std::string &body)
{
    return "BEGIN;\n" + body + "COMMIT;\n";
}

std::string header(const Migration &migration, bool up)
{
    std::string text = "-- leader_ext " + versionLabel(migration.version) + " "
                       + std::string(migration.name) + (up ? " (up)" : " (down)")
                       + ", written by leaderctl migrate --print-sql. Do not edit: leaderctl "
                         "migrate writes the same SQL.\n";
    const std::vector<std::string> changes = outsideChanges(migration, up);
    for (const std::string &change : changes)
        text += "-- changes outside leader_ext: " + change + "\n";
    return text;
}

// sql-migrate and goose split a file at semicolons unless a statement block says otherwise; one
// block per direction keeps dollar-quoted bodies whole and sends the direction as one batch.
std::string bothDirections(const Migration &migration, std::string_view tool)
{
    const std::string prefix = "-- +" + std::string(tool) + " ";
    return header(migration, true) + prefix + "Up\n" + prefix + "StatementBegin\n"
           + composeUp(migration) + prefix + "StatementEnd\n\n" + prefix + "Down\n" + prefix
           + "StatementBegin\n" + composeDown(migration) + prefix + "StatementEnd\n";
}

} // namespace

std::optional<ScriptFormat> parseScriptFormat(std::string_view name)
{
    if (name == "plain")
        return ScriptFormat::Plain;
    if (name == "sql-migrate")
        return ScriptFormat::SqlMigrate;
    if (name == "golang-migrate")
        return ScriptFormat::GolangMigrate;
    if (name == "goose")
        return ScriptFormat::Goose;
    if (name == "flyway")
        return ScriptFormat::Flyway;
    return std::nullopt;
}

bool holdsBothDirections(ScriptFormat format)
{
    return format == ScriptFormat::SqlMigrate || format == ScriptFormat::Goose;
}

std::vector<ScriptFile> extensionScripts(ScriptFormat format, int to)
{
    std::vector<const Migration *> migrations;
    for (const Migration &migration : embeddedMigrations()) {
        if (migration.set == MigrationSet::Extension && (to == 0 || migration.version <= to))
            migrations.push_back(&migration);
    }
    std::vector<ScriptFile> ups;
    std::vector<ScriptFile> downs;
    for (const Migration *migration : migrations) {
        const std::string base = baseName(*migration);
        const std::string version = versionLabel(migration->version);
        const std::string name(migration->name);
        switch (format) {
        case ScriptFormat::Plain:
        case ScriptFormat::GolangMigrate:
            ups.push_back({base + ".up.sql",
                           header(*migration, true) + inTransaction(composeUp(*migration))});
            downs.push_back({base + ".down.sql",
                             header(*migration, false) + inTransaction(composeDown(*migration))});
            break;
        case ScriptFormat::SqlMigrate:
            ups.push_back({base + ".sql", bothDirections(*migration, "migrate")});
            break;
        case ScriptFormat::Goose:
            ups.push_back({base + ".sql", bothDirections(*migration, "goose")});
            break;
        case ScriptFormat::Flyway:
            // Flyway runs each file in a transaction of its own; U files are its undo migrations.
            ups.push_back({"V" + version + "__" + name + ".sql",
                           header(*migration, true) + composeUp(*migration)});
            downs.push_back({"U" + version + "__" + name + ".sql",
                             header(*migration, false) + composeDown(*migration)});
            break;
        }
    }
    std::reverse(downs.begin(), downs.end());
    ups.insert(ups.end(), downs.begin(), downs.end());
    return ups;
}

} // namespace leader::schema
