// console-fleetbench: what a fleet of databases, each polled every second, costs the console's GUI
// thread, and the console's resident memory. Against a real server it creates N databases
// (fleetbench_01 …), applies the lease migrations to each (and the demo's to those with
// replicas), starts real leader-replica processes on the first few so their status changes every
// second, and opens the real FleetWindow on all of them: one MainWindow tab and ConsoleSession per
// database, each polling in its own worker, offscreen. After a warm-up, every wall second the GUI
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID, read on that thread) is sampled; it prints the
// median, p95 and max of those per-second samples, the whole process's CPU beside them, VmRSS and
// VmHWM at the end, and how to reproduce. Then it closes the window, stops the replicas and drops
// the databases.
//
//   console-fleetbench [--server URL] [--databases N] [--seconds S] [--warmup S]
//                      [--ticking K] [--replicas R] [--show-tab I] [--json FILE]
//
// The URL (default LEADER_TEST_ADMIN_URL, as scripts/test-servers.sh writes it) is a login that
// may create databases; the console and the replicas use it too.

#include "consolebench.h"
#include "core/connectionprofile.h"
#include "core/consolesession.h"
#include "core/statustypes.h"
#include "pg/connection.h"
#include "pg/conninfo.h"
#include "schema/migrator.h"
#include "ui/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <numeric>
#include <vector>

using namespace consolebench;
using namespace leader::console;
using namespace std::chrono_literals;

namespace {

double cpuSeconds(clockid_t clock)
{
    timespec now{};
    clock_gettime(clock, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

// VmRSS or VmHWM from /proc/self/status, in MB.
double memoryMb(const QByteArray &field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray prefix = field + ':';
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').first().toDouble() / 1024.0;
    }
    return 0;
}

// The replica's own application_name (its holder) is kept: the profile's would name the console.
QString replicaConninfo(const ConnectionProfile &profile)
{
    return QStringLiteral("host='%1' port=%2 dbname='%3' user='%4'")
            .arg(profile.host, profile.portList(), profile.database, profile.user);
}

QString databaseName(int index)
{
    return QStringLiteral("fleetbench_%1").arg(index + 1, 2, 10, QLatin1Char('0'));
}

leader::pg::Connection connectTo(const QString &conninfo)
{
    leader::pg::Connection connection(
            {.url = conninfo.toStdString(), .applicationName = "console-fleetbench"});
    connection.open();
    return connection;
}

void dropDatabases(const QString &serverUrl, int count)
{
    leader::pg::Connection admin = connectTo(serverUrl);
    for (int i = 0; i < count; ++i) {
        admin.exec("drop bench database",
                   "DROP DATABASE IF EXISTS " + databaseName(i).toStdString() + " WITH (FORCE)", {},
                   30s);
    }
}

struct Figures
{
    double median = 0;
    double p95 = 0;
    double max = 0;
};

Figures figuresOf(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return {percentile(samples, 0.5), percentile(samples, 0.95),
            samples.empty() ? 0 : samples.back()};
}

QJsonObject toJson(const Figures &figures)
{
    return {{QStringLiteral("median"), figures.median},
            {QStringLiteral("p95"), figures.p95},
            {QStringLiteral("max"), figures.max}};
}

} // namespace

int main(int argc, char **argv)
{
    preferOffscreen();
    // The history files and settings of this run stay out of the operator's own.
    QTemporaryDir home;
    if (!home.isValid()) {
        std::fprintf(stderr, "console-fleetbench: cannot create a temporary directory\n");
        return 1;
    }
    qputenv("XDG_DATA_HOME", QFile::encodeName(home.filePath(QStringLiteral("data"))));
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(home.filePath(QStringLiteral("config"))));
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("console-fleetbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "GUI-thread CPU time per second and resident memory of the console's fleet window, "
            "N databases each polled every second."));
    parser.addHelpOption();
    const QCommandLineOption serverOption(
            QStringLiteral("server"),
            QStringLiteral("A login that may create databases (default LEADER_TEST_ADMIN_URL)."),
            QStringLiteral("url"), qEnvironmentVariable("LEADER_TEST_ADMIN_URL"));
    const QCommandLineOption databasesOption(QStringLiteral("databases"),
                                             QStringLiteral("Databases in the fleet."),
                                             QStringLiteral("n"), QStringLiteral("10"));
    const QCommandLineOption secondsOption(QStringLiteral("seconds"),
                                           QStringLiteral("Measured seconds."), QStringLiteral("s"),
                                           QStringLiteral("60"));
    const QCommandLineOption warmupOption(QStringLiteral("warmup"),
                                          QStringLiteral("Seconds before measuring."),
                                          QStringLiteral("s"), QStringLiteral("15"));
    const QCommandLineOption tickingOption(
            QStringLiteral("ticking"),
            QStringLiteral("Databases (the first K) with replicas running the five roles."),
            QStringLiteral("k"), QStringLiteral("3"));
    const QCommandLineOption replicasOption(QStringLiteral("replicas"),
                                            QStringLiteral("leader-replica processes on each."),
                                            QStringLiteral("r"), QStringLiteral("2"));
    const QCommandLineOption showTabOption(
            QStringLiteral("show-tab"),
            QStringLiteral("The tab on screen: 0 the overview, I the I-th database's own tab."),
            QStringLiteral("i"), QStringLiteral("0"));
    const QCommandLineOption replicaBinaryOption(
            QStringLiteral("replica-binary"), QStringLiteral("The leader-replica to start."),
            QStringLiteral("path"), QStringLiteral(LEADER_REPLICA_PATH));
    const QCommandLineOption jsonOption = consolebench::jsonFileOption();
    parser.addOptions({serverOption, databasesOption, secondsOption, warmupOption, tickingOption,
                       replicasOption, showTabOption, replicaBinaryOption, jsonOption});
    parser.process(app);

    const QString serverUrl = parser.value(serverOption);
    const int databases = parser.value(databasesOption).toInt();
    const int seconds = parser.value(secondsOption).toInt();
    const int warmup = parser.value(warmupOption).toInt();
    const int ticking = std::min(databases, parser.value(tickingOption).toInt());
    const int replicasEach = parser.value(replicasOption).toInt();
    const int showTab = parser.value(showTabOption).toInt();
    if (serverUrl.isEmpty() || databases < 1 || seconds < 1 || warmup < 0 || ticking < 0
        || replicasEach < 0 || showTab < 0 || showTab > databases) {
        std::fprintf(stderr, "console-fleetbench: wrong arguments (--help); --server or "
                             "LEADER_TEST_ADMIN_URL names the server\n");
        return 2;
    }
    QString error;
    const std::optional<ConnectionProfile> server = ConnectionProfile::fromUrl(serverUrl, &error);
    if (!server) {
        std::fprintf(stderr, "console-fleetbench: %s\n", qPrintable(error));
        return 2;
    }

    // The databases, fresh: the lease schema on each, and the demo's domain where replicas run.
    QStringList conninfos;
    QStringList replicaConninfos;
    try {
        dropDatabases(serverUrl, databases);
        leader::pg::Connection admin = connectTo(serverUrl);
        for (int i = 0; i < databases; ++i) {
            admin.exec("create bench database", "CREATE DATABASE " + databaseName(i).toStdString(),
                       {}, 30s);
            ConnectionProfile profile = *server;
            profile.database = databaseName(i);
            conninfos << profile.conninfo();
            replicaConninfos << replicaConninfo(profile);
            leader::pg::Connection connection = connectTo(conninfos.last());
            if (i < ticking) {
                leader::schema::Migrator(connection)
                        .migrate({leader::schema::MigrationSet::Adr,
                                  leader::schema::MigrationSet::Extension,
                                  leader::schema::MigrationSet::Demo});
            } else {
                leader::schema::Migrator(connection)
                        .migrate({leader::schema::MigrationSet::Adr,
                                  leader::schema::MigrationSet::Extension});
            }
        }
    } catch (const std::exception &problem) {
        std::fprintf(stderr, "console-fleetbench: setting up the databases: %s\n",
                     leader::pg::redactSecrets(problem.what(), serverUrl.toStdString()).c_str());
        return 1;
    }

    std::vector<std::unique_ptr<QProcess>> replicas;
    for (int i = 0; i < ticking; ++i) {
        for (int r = 0; r < replicasEach; ++r) {
            auto replica = std::make_unique<QProcess>();
            // Its event lines would cost the GUI thread if read here: they go nowhere.
            replica->setStandardOutputFile(QProcess::nullDevice());
            replica->setStandardErrorFile(
                    home.filePath(QStringLiteral("replica-%1-%2.log").arg(i + 1).arg(r + 1)));
            replica->start(parser.value(replicaBinaryOption),
                           {QStringLiteral("--database"), replicaConninfos.at(i),
                            QStringLiteral("--id"),
                            QStringLiteral("fleetbench-%1-r%2").arg(i + 1).arg(r + 1)});
            replicas.push_back(std::move(replica));
        }
    }
    const auto stopReplicas = [&replicas] {
        for (const auto &replica : replicas)
            replica->terminate();
        for (const auto &replica : replicas) {
            if (!replica->waitForFinished(5000))
                replica->kill();
        }
    };

    ConsoleOptions options;
    options.mode = ConsoleOptions::Mode::Fleet;
    for (const QString &conninfo : std::as_const(conninfos))
        options.fleet.append({false, conninfo});
    const double rssBeforeMb = memoryMb("VmRSS");
    auto window = std::make_unique<FleetWindow>(options);
    window->show();
    window->start();
    if (showTab > 0)
        window->findChild<QTabWidget *>(QStringLiteral("fleetTabs"))->setCurrentIndex(showTab);

    // Per database: polls in the measured window, and the distinct leases (role, token) seen led,
    // which shows the replicas' roles changing hands as the console saw them.
    bool measuring = false;
    std::vector<int> polls(std::size_t(databases), 0);
    std::vector<QSet<QString>> leases(static_cast<std::size_t>(databases));
    for (int i = 0; i < databases; ++i) {
        QObject::connect(window->pages().at(i)->session(), &ConsoleSession::snapshot, &app,
                         [&, i](const StatusSnapshot &snapshot) {
                             if (!measuring)
                                 return;
                             ++polls.at(std::size_t(i));
                             for (const RoleStatus &role : snapshot.roles) {
                                 if (role.state == RoleState::Led)
                                     leases.at(std::size_t(i))
                                             .insert(role.role + QString::number(role.token));
                             }
                         });
    }

    std::vector<double> guiMsPerS;
    std::vector<double> processMsPerS;
    QElapsedTimer wall;
    double lastWall = 0;
    double lastGui = 0;
    double lastProcess = 0;
    QTimer sampler;
    sampler.setTimerType(Qt::PreciseTimer);
    sampler.setInterval(1000);
    QObject::connect(&sampler, &QTimer::timeout, &app, [&] {
        const double nowWall = double(wall.nsecsElapsed()) / 1e9;
        const double nowGui = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        const double nowProcess = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        const double elapsed = nowWall - lastWall;
        guiMsPerS.push_back((nowGui - lastGui) * 1000.0 / elapsed);
        processMsPerS.push_back((nowProcess - lastProcess) * 1000.0 / elapsed);
        lastWall = nowWall;
        lastGui = nowGui;
        lastProcess = nowProcess;
        if (int(guiMsPerS.size()) >= seconds)
            QCoreApplication::exit(0);
    });
    QTimer::singleShot(warmup * 1000, &app, [&] {
        measuring = true;
        wall.start();
        lastGui = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        lastProcess = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        sampler.start();
    });
    app.exec();
    measuring = false;
    const double rssMb = memoryMb("VmRSS");
    const double hwmMb = memoryMb("VmHWM");
    int replicasAlive = 0;
    for (const auto &replica : replicas)
        replicasAlive += replica->state() == QProcess::Running ? 1 : 0;

    // Closing stops every poller within its session's bound, as in the console.
    window->close();
    QElapsedTimer closing;
    closing.start();
    while (window->isVisible() && closing.elapsed() < 10000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    window.reset();
    stopReplicas();
    try {
        dropDatabases(serverUrl, databases);
    } catch (const std::exception &problem) {
        std::fprintf(stderr, "console-fleetbench: dropping the databases: %s\n", problem.what());
    }

    const Figures gui = figuresOf(guiMsPerS);
    const Figures process = figuresOf(processMsPerS);
    const double pollsPerSecond
            = double(std::accumulate(polls.begin(), polls.end(), 0)) / double(seconds);
    const int minPolls = *std::min_element(polls.begin(), polls.end());
    int leasesSeen = 0;
    for (const QSet<QString> &seen : leases)
        leasesSeen += int(seen.size());

    QStringList command{QStringLiteral("QT_QPA_PLATFORM=")
                                + qEnvironmentVariable("QT_QPA_PLATFORM"),
                        QCoreApplication::applicationFilePath()};
    command << QStringLiteral("--server")
            << shellQuoted(QString::fromStdString(
                       leader::pg::redactSecrets(serverUrl.toStdString(), serverUrl.toStdString())))
            << QStringLiteral("--databases") << QString::number(databases)
            << QStringLiteral("--seconds") << QString::number(seconds) << QStringLiteral("--warmup")
            << QString::number(warmup) << QStringLiteral("--ticking") << QString::number(ticking)
            << QStringLiteral("--replicas") << QString::number(replicasEach);
    if (showTab > 0)
        command << QStringLiteral("--show-tab") << QString::number(showTab);
    if (parser.isSet(jsonOption))
        command << QStringLiteral("--json") << shellQuoted(parser.value(jsonOption));

    const QString shown
            = showTab == 0
                      ? QStringLiteral("the overview")
                      : QStringLiteral("tab %1 (%2)").arg(showTab).arg(databaseName(showTab - 1));
    std::printf("fleet       %d databases on %s, each polled every second; %d with %d "
                "leader-replica each (%d of %d alive at the end); on screen: %s\n",
                databases, qPrintable(server->describe()), ticking, replicasEach, replicasAlive,
                int(replicas.size()), qPrintable(shown));
    std::printf("polls       %.1f per second over the fleet (fewest for one database: %d in %d s); "
                "%d leases seen led\n",
                pollsPerSecond, minPolls, seconds, leasesSeen);
    std::printf("GUI thread  CPU per wall second over %d s: median %.2f ms, p95 %.2f ms, max "
                "%.2f ms\n",
                seconds, gui.median, gui.p95, gui.max);
    std::printf("process     CPU per wall second (every thread): median %.2f ms, p95 %.2f ms, "
                "max %.2f ms\n",
                process.median, process.p95, process.max);
    std::printf("memory      VmRSS %.1f MB at the end (%.1f MB before the window), VmHWM %.1f MB\n",
                rssMb, rssBeforeMb, hwmMb);
    std::printf("reproduce   %s\n", qPrintable(command.join(QLatin1Char(' '))));

    if (parser.isSet(jsonOption)) {
        QJsonArray guiSamples;
        for (const double sample : guiMsPerS)
            guiSamples.append(std::round(sample * 1000.0) / 1000.0);
        const QJsonObject figures{
                {QStringLiteral("benchmark"), QStringLiteral("console-fleetbench")},
                {QStringLiteral("target"), server->describe()},
                {QStringLiteral("databases"), databases},
                {QStringLiteral("seconds"), seconds},
                {QStringLiteral("warmup_seconds"), warmup},
                {QStringLiteral("ticking_databases"), ticking},
                {QStringLiteral("replicas_each"), replicasEach},
                {QStringLiteral("replicas_alive_at_end"), replicasAlive},
                {QStringLiteral("on_screen"), shown},
                {QStringLiteral("polls_per_second"), pollsPerSecond},
                {QStringLiteral("leases_seen_led"), leasesSeen},
                {QStringLiteral("gui_thread_cpu_ms_per_s"), toJson(gui)},
                {QStringLiteral("process_cpu_ms_per_s"), toJson(process)},
                {QStringLiteral("gui_thread_cpu_ms_per_s_samples"), guiSamples},
                {QStringLiteral("vmrss_mb_before_window"), rssBeforeMb},
                {QStringLiteral("vmrss_mb"), rssMb},
                {QStringLiteral("vmhwm_mb"), hwmMb},
                {QStringLiteral("command"), command.join(QLatin1Char(' '))}};
        if (!writeFigures(figures, parser.value(jsonOption), "console-fleetbench"))
            return 1;
    }
    return replicasAlive == int(replicas.size()) && minPolls > 0 ? 0 : 1;
}
