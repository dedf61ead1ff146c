#include "commandline.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <algorithm>

namespace leader::console {

namespace {

bool parseSeconds(const QString &text, int *seconds)
{
    bool ok = false;
    const int value
            = text.endsWith(QLatin1Char('s')) ? text.chopped(1).toInt(&ok) : text.toInt(&ok);
    if (!ok || value < 1 || value > 24 * 3600)
        return false;
    *seconds = value;
    return true;
}

} // namespace

CommandLineResult parseCommandLine(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Leader Console: who leads each of Hardcount's singleton roles, how stale each is, and "
            "a pause switch.\nWith no option it runs the embedded demo: a private PostgreSQL "
            "cluster, three replicas and a workload, with a failure panel."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption database(
            QStringList{QStringLiteral("d"), QStringLiteral("database")},
            QStringLiteral("Monitor a real database (postgresql:// URL or key=value conninfo; "
                           "PG* variables fill the gaps). Nothing but leader_status is read and "
                           "nothing but leader_pause/leader_unpause is called. Give --database "
                           "and --profile several times to watch a fleet, one tab each."),
            QStringLiteral("url"));
    const QCommandLineOption profile(QStringList{QStringLiteral("p"), QStringLiteral("profile")},
                                     QStringLiteral("Monitor the database of a saved profile."),
                                     QStringLiteral("name"));
    const QCommandLineOption readOnly(
            QStringLiteral("read-only"),
            QStringLiteral("Hide every write: no pause, no unpause, no failure panel."));
    const QCommandLineOption demoDir(
            QStringLiteral("demo-dir"),
            QStringLiteral("Where the demo keeps its PostgreSQL cluster (default: the user's data "
                           "directory)."),
            QStringLiteral("dir"));
    const QCommandLineOption screenshot(
            QStringLiteral("screenshot"),
            QStringLiteral("Save a PNG of the window after --screenshot-after seconds, then quit."),
            QStringLiteral("file"));
    const QCommandLineOption screenshotAfter(QStringLiteral("screenshot-after"),
                                             QStringLiteral("Seconds before the screenshot "
                                                            "(default 5)."),
                                             QStringLiteral("seconds"), QStringLiteral("5"));
    const QCommandLineOption drill(
            QStringLiteral("drill-after"),
            QStringLiteral("Demo: kill the replica leading billing (else any led role) this many "
                           "seconds after start, as the failure panel's Kill would."),
            QStringLiteral("seconds"));
    const QCommandLineOption drillReport(
            QStringLiteral("drill-report"),
            QStringLiteral("Demo: kill, freeze and sever the replica leading billing and pause "
                           "billing, once each, wait for each takeover, write report.md, "
                           "report.json and chart.png into this directory, then quit (nonzero "
                           "on a failure, a missed bound or a failed audit)."),
            QStringLiteral("dir"));
    const QCommandLineOption role(
            QStringLiteral("role"),
            QStringLiteral("Open with this role selected (a link in a runbook or an alert)."),
            QStringLiteral("name"));
    parser.addOptions({database, profile, readOnly, role, demoDir, screenshot, screenshotAfter,
                       drill, drillReport});

    CommandLineResult result;
    if (!parser.parse(arguments)) {
        result.error = parser.errorText() + QStringLiteral(" (see leader-console --help)");
        result.exitCode = 2;
        return result;
    }
    if (parser.isSet(helpOption)) {
        result.output = parser.helpText();
        return result;
    }
    if (parser.isSet(versionOption)) {
        result.output = QCoreApplication::applicationName() + QLatin1Char(' ')
                        + QCoreApplication::applicationVersion() + QLatin1Char('\n');
        return result;
    }
    auto fail = [&result](const QString &message) {
        result.error = message;
        result.exitCode = 2;
        return result;
    };
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument \"%1\" (see leader-console --help)")
                            .arg(parser.positionalArguments().constFirst()));

    // Each --database and --profile is one database, in the order given; several make a fleet.
    QList<ConsoleOptions::FleetMember> members;
    const QStringList urls = parser.values(database);
    const QStringList profiles = parser.values(profile);
    for (const QString &name : parser.optionNames()) {
        const bool isUrl = database.names().contains(name);
        if (!isUrl && !profile.names().contains(name))
            continue;
        const qsizetype count
                = std::ranges::count(members, !isUrl, &ConsoleOptions::FleetMember::isProfile);
        const QString value = isUrl ? urls.value(count) : profiles.value(count);
        if (isUrl && value.trimmed().isEmpty())
            return fail(QStringLiteral("--database needs a URL, e.g. "
                                       "postgresql://monitor@db.internal/hardcount"));
        const ConsoleOptions::FleetMember member{!isUrl, value};
        if (members.contains(member))
            return fail(QStringLiteral("%1 is given twice: each database opens once")
                                .arg(isUrl ? QStringLiteral("--database") : value));
        members.append(member);
    }

    ConsoleOptions options;
    if (members.size() > 1) {
        options.mode = ConsoleOptions::Mode::Fleet;
        options.fleet = members;
    } else if (members.size() == 1 && members.constFirst().isProfile) {
        options.mode = ConsoleOptions::Mode::Profile;
        options.profileName = members.constFirst().value;
    } else if (members.size() == 1) {
        options.mode = ConsoleOptions::Mode::Database;
        options.databaseUrl = members.constFirst().value;
    }
    options.readOnly = parser.isSet(readOnly);
    options.role = parser.value(role).trimmed();
    if (parser.isSet(role) && options.role.isEmpty())
        return fail(QStringLiteral("--role needs a role name, e.g. --role billing"));
    options.demoDirectory = parser.value(demoDir);
    if (options.mode != ConsoleOptions::Mode::Demo && parser.isSet(demoDir))
        return fail(QStringLiteral("--demo-dir applies to the demo only, not to --database or "
                                   "--profile"));
    options.screenshotPath = parser.value(screenshot);
    if (!parseSeconds(parser.value(screenshotAfter), &options.screenshotAfterSeconds))
        return fail(QStringLiteral("--screenshot-after needs seconds between 1 and 86400"));
    if (parser.isSet(drill)) {
        if (options.mode != ConsoleOptions::Mode::Demo)
            return fail(QStringLiteral("--drill-after needs the demo: its replicas are the only "
                                       "ones the console can break"));
        if (!parseSeconds(parser.value(drill), &options.drillAfterSeconds))
            return fail(QStringLiteral("--drill-after needs seconds between 1 and 86400"));
    }
    if (parser.isSet(drillReport)) {
        options.drillReportDir = parser.value(drillReport).trimmed();
        if (options.drillReportDir.isEmpty())
            return fail(QStringLiteral("--drill-report needs a directory, e.g. --drill-report "
                                       "drill"));
        if (options.mode != ConsoleOptions::Mode::Demo || options.readOnly)
            return fail(QStringLiteral("--drill-report needs the demo, not --database, --profile "
                                       "or --read-only: its replicas are the only ones the "
                                       "console can break"));
        if (parser.isSet(drill) || parser.isSet(screenshot))
            return fail(QStringLiteral("--drill-report runs its own faults and quits when done: "
                                       "leave out --drill-after and --screenshot"));
    }
    result.options = options;
    return result;
}

} // namespace leader::console
