#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace leader::console {

// What leader-console was asked to do, from its command line.
struct ConsoleOptions
{
    enum class Mode { Demo, Database, Profile, Fleet };
    // One database of the fleet: a saved profile's name or a URL.
    struct FleetMember
    {
        bool isProfile = false;
        QString value;
        friend bool operator==(const FleetMember &, const FleetMember &) = default;
    };

    Mode mode = Mode::Demo;
    QString databaseUrl;      // Mode::Database
    QString profileName;      // Mode::Profile
    QList<FleetMember> fleet; // Mode::Fleet: more than one --database/--profile, in their order
    bool readOnly = false;
    QString role; // select this role's row once the first rows arrive (a runbook's or alert's link)
    QString demoDirectory;  // empty: <AppDataLocation>/demo-cluster
    QString screenshotPath; // write a PNG of the window, then quit
    int screenshotAfterSeconds = 0;
    int drillAfterSeconds = 0; // demo: kill the replica leading billing (else any role) this late
    QString drillReportDir;    // demo: run the drill, write its report here, then quit
};

// The parse's outcome: options to run with, or text to print and an exit code (--help, --version,
// a wrong argument).
struct CommandLineResult
{
    std::optional<ConsoleOptions> options;
    QString output; // for stdout (help, version)
    QString error;  // for stderr: one line saying what is wrong and what to do
    int exitCode = 0;
};

CommandLineResult parseCommandLine(const QStringList &arguments);

} // namespace leader::console
