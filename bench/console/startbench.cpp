// console-startbench: two figures of the real console window.
// 1. Start-up to the first painted status with an existing demo cluster: from before the
//    MainWindow is constructed (demo mode) until the status model has its five rows and the status
//    table's viewport has painted after that. A first warm-up run creates the cluster (initdb) and
//    is not counted; every counted run closes the window, which stops the cluster, so each counted
//    run is a cold start of the existing cluster.
// 2. Resident memory after a simulated 24 h: a MainWindow in database mode that never connects,
//    shown offscreen, fed 86 400 synthetic 1 s polls through onSnapshot().
// Prints median, p95 and max in ms, VmRSS before, after and at peak, and how to reproduce.

#include "consolebench.h"
#include "core/commandline.h"
#include "core/consolesession.h"
#include "core/statustypes.h"
#include "models/statusmodel.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

using namespace consolebench;
using namespace leader::console;

namespace {

constexpr int StartTimeoutMs = 180000;
constexpr int ShutdownTimeoutMs = 120000;
constexpr qint64 DaySeconds = 24 * 3600;

QJsonObject toJson(const Stats &stats)
{
    return {{QStringLiteral("median_ms"), stats.median},
            {QStringLiteral("p95_ms"), stats.p95},
            {QStringLiteral("max_ms"), stats.max}};
}

// A line of /proc/self/status ("VmRSS", "VmHWM"), in MB.
double procStatusMb(const char *key)
{
    const std::string prefix = std::string(key) + ':';
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(prefix, 0) == 0)
            return std::stod(line.substr(prefix.size())) / 1024.0;
    }
    return -1;
}

// Stops the clock at the first paint of the status table's viewport once all five rows are in.
class FirstPaintWatcher final : public QObject
{
public:
    FirstPaintWatcher(StatusModel *model, QObject *parent)
        : QObject(parent)
        , m_model(model)
    {}

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && !m_painted && m_model->rowCount() == 5) {
            m_painted = true;
            m_loop.quit();
        }
        return QObject::eventFilter(watched, event);
    }

    bool painted() const { return m_painted; }
    QEventLoop &loop() { return m_loop; }

private:
    StatusModel *m_model;
    bool m_painted = false;
    QEventLoop m_loop;
};

struct StartRun
{
    double toDemoStartedMs = -1;
    double toFirstPaintMs = -1;
    double shutdownMs = -1;
};

// One start: construct, show, start, wait for the first painted five rows, close, wait for the
// cluster to stop. An error message when it went wrong.
std::optional<QString> runStart(const QString &directory, StartRun *run)
{
    QElapsedTimer timer;
    timer.start();
    ConsoleOptions options;
    options.mode = ConsoleOptions::Mode::Demo;
    options.demoDirectory = directory;
    auto window = std::make_unique<MainWindow>(options);
    auto *view = window->findChild<QTableView *>(QStringLiteral("statusView"));
    if (!view)
        return QStringLiteral("the window has no QTableView named statusView");
    auto *session = window->findChild<ConsoleSession *>();
    FirstPaintWatcher watcher(window->findChild<StatusModel *>(), nullptr);
    view->viewport()->installEventFilter(&watcher);

    QString failure;
    QObject::connect(session, &ConsoleSession::demoStarted, &watcher,
                     [run, &timer] { run->toDemoStartedMs = double(timer.nsecsElapsed()) / 1e6; });
    QObject::connect(session, &ConsoleSession::demoFailed, &watcher,
                     [&failure, &watcher](const QString &message) {
                         failure = message;
                         watcher.loop().quit();
                     });
    QTimer::singleShot(StartTimeoutMs, &watcher, [&watcher] { watcher.loop().quit(); });
    window->show();
    window->start();
    if (!watcher.painted() && failure.isEmpty())
        watcher.loop().exec();
    view->viewport()->removeEventFilter(&watcher);
    if (watcher.painted())
        run->toFirstPaintMs = double(timer.nsecsElapsed()) / 1e6;

    // Close: the window stops the poller, the replicas release and the cluster stops.
    QElapsedTimer shutdownTimer;
    shutdownTimer.start();
    QEventLoop shutdownLoop;
    bool stopped = false;
    QObject::connect(session, &ConsoleSession::finished, &shutdownLoop, [&stopped, &shutdownLoop] {
        stopped = true;
        shutdownLoop.quit();
    });
    QTimer::singleShot(ShutdownTimeoutMs, &shutdownLoop, &QEventLoop::quit);
    window->close();
    if (!stopped && window->isVisible())
        shutdownLoop.exec();
    run->shutdownMs = double(shutdownTimer.nsecsElapsed()) / 1e6;
    window.reset();

    if (!failure.isEmpty())
        return QStringLiteral("the demo failed: %1").arg(failure);
    if (run->toFirstPaintMs < 0)
        return QStringLiteral("no painted status within %1 s").arg(StartTimeoutMs / 1000);
    if (!stopped)
        std::fprintf(stderr, "console-startbench: shutdownFinished not seen within %d s\n",
                     ShutdownTimeoutMs / 1000);
    return std::nullopt;
}

} // namespace

int main(int argc, char **argv)
{
    preferOffscreen();
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);

    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Times the console's start-up to the first painted status with an "
                           "existing demo cluster, and its resident memory after a simulated "
                           "day of polls."));
    parser.addHelpOption();
    const QCommandLineOption dirOption(
            QStringLiteral("demo-dir"), QStringLiteral("The demo cluster's directory (kept)."),
            QStringLiteral("dir"), QStringLiteral("/tmp/leader-console-startbench"));
    const QCommandLineOption runsOption(QStringLiteral("runs"),
                                        QStringLiteral("Counted start-ups, after one warm-up."),
                                        QStringLiteral("n"), QStringLiteral("5"));
    const QCommandLineOption jsonOption = consolebench::jsonFileOption();
    const QCommandLineOption skipStartupOption(QStringLiteral("skip-startup"),
                                               QStringLiteral("Do not time the start-up."));
    const QCommandLineOption skipMemoryOption(QStringLiteral("skip-memory"),
                                              QStringLiteral("Do not replay the day."));
    parser.addOptions({dirOption, runsOption, jsonOption, skipStartupOption, skipMemoryOption});
    parser.process(app);
    const QString directory = QDir(parser.value(dirOption)).absolutePath();
    const int runs = std::max(1, parser.value(runsOption).toInt());
    const bool doStartup = !parser.isSet(skipStartupOption);
    const bool doMemory = !parser.isSet(skipMemoryOption);

    QString command = QStringLiteral("QT_QPA_PLATFORM=%1 %2")
                              .arg(qEnvironmentVariable("QT_QPA_PLATFORM"),
                                   QCoreApplication::applicationFilePath());
    if (doStartup)
        command += QStringLiteral(" --demo-dir %1 --runs %2").arg(directory).arg(runs);
    if (!doStartup)
        command += QStringLiteral(" --skip-startup");
    if (!doMemory)
        command += QStringLiteral(" --skip-memory");

    QJsonObject root{{QStringLiteral("benchmark"), QStringLiteral("console-startbench")},
                     {QStringLiteral("platform"), qEnvironmentVariable("QT_QPA_PLATFORM")},
                     {QStringLiteral("command"), command}};

    if (doStartup) {
        // Under /tmp and world-searchable: as root the cluster's server runs as another account.
        if (!QDir().mkpath(directory)
            || !QFile::setPermissions(directory, QFile::ReadOwner | QFile::WriteOwner
                                                         | QFile::ExeOwner | QFile::ReadGroup
                                                         | QFile::ExeGroup | QFile::ReadOther
                                                         | QFile::ExeOther)) {
            std::fprintf(stderr, "console-startbench: cannot create %s\n", qPrintable(directory));
            return 1;
        }
        const QString cluster = QDir(directory).filePath(QStringLiteral("demo-cluster"));
        std::printf("console-startbench: start-up to the first painted status, demo cluster in "
                    "%s\n",
                    qPrintable(cluster));
        std::printf("each run: construct MainWindow (demo) -> show + start -> 5 rows in the "
                    "status model and the status table painted; then close, which stops the "
                    "cluster, so every counted run is a cold start of the existing cluster\n");
        std::fflush(stdout);

        StartRun warmUp;
        if (const std::optional<QString> error = runStart(cluster, &warmUp)) {
            std::fprintf(stderr, "console-startbench: warm-up: %s\n", qPrintable(*error));
            return 1;
        }
        std::printf("warm-up (creates the cluster if missing, not counted): first paint %.0f ms, "
                    "demoStarted %.0f ms, shutdown %.0f ms\n",
                    warmUp.toFirstPaintMs, warmUp.toDemoStartedMs, warmUp.shutdownMs);
        std::fflush(stdout);

        QList<double> toPaint;
        QList<double> toStarted;
        QList<double> shutdowns;
        QJsonArray samples;
        for (int i = 0; i < runs; ++i) {
            StartRun run;
            if (const std::optional<QString> error = runStart(cluster, &run)) {
                std::fprintf(stderr, "console-startbench: run %d: %s\n", i + 1, qPrintable(*error));
                return 1;
            }
            std::printf("run %d: first painted status %.0f ms (demoStarted %.0f ms), shutdown "
                        "%.0f ms\n",
                        i + 1, run.toFirstPaintMs, run.toDemoStartedMs, run.shutdownMs);
            std::fflush(stdout);
            toPaint.append(run.toFirstPaintMs);
            toStarted.append(run.toDemoStartedMs);
            shutdowns.append(run.shutdownMs);
            samples.append(QJsonObject{{QStringLiteral("first_paint_ms"), run.toFirstPaintMs},
                                       {QStringLiteral("demo_started_ms"), run.toDemoStartedMs},
                                       {QStringLiteral("shutdown_ms"), run.shutdownMs}});
        }
        const Stats paint = statsOf(toPaint);
        const Stats started = statsOf(toStarted);
        const Stats shutdown = statsOf(shutdowns);
        std::printf("%-34s %9s %9s %9s\n", "start-up (ms)", "median", "p95", "max");
        std::printf("%-34s %9.0f %9.0f %9.0f   (target < 3000 ms)\n", "to first painted status",
                    paint.median, paint.p95, paint.max);
        std::printf("%-34s %9.0f %9.0f %9.0f\n", "to demoStarted (context)", started.median,
                    started.p95, started.max);
        std::printf("%-34s %9.0f %9.0f %9.0f\n", "close to shutdownFinished", shutdown.median,
                    shutdown.p95, shutdown.max);
        std::fflush(stdout);
        QJsonObject startup = toJson(paint);
        startup.insert(QStringLiteral("runs"), runs);
        startup.insert(QStringLiteral("demo_directory"), cluster);
        startup.insert(QStringLiteral("cold_cluster_start_each_run"), true);
        startup.insert(QStringLiteral("target_ms"), 3000);
        startup.insert(QStringLiteral("demo_started"), toJson(started));
        startup.insert(QStringLiteral("shutdown"), toJson(shutdown));
        startup.insert(QStringLiteral("warm_up"),
                       QJsonObject{{QStringLiteral("first_paint_ms"), warmUp.toFirstPaintMs},
                                   {QStringLiteral("demo_started_ms"), warmUp.toDemoStartedMs}});
        startup.insert(QStringLiteral("samples"), samples);
        root.insert(QStringLiteral("startup"), startup);
    }

    if (doMemory) {
        const double rssBefore = procStatusMb("VmRSS");
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Database;
        options.databaseUrl = QStringLiteral("host=/nonexistent");
        MainWindow window(options); // start() is never called: nothing connects
        window.show();
        // The rows arrive as the session delivers a poll's.
        auto *session = window.findChild<ConsoleSession *>();
        QCoreApplication::processEvents();
        const double rssShown = procStatusMb("VmRSS");

        const QDateTime base = QDateTime::currentDateTimeUtc().addSecs(-DaySeconds);
        QElapsedTimer timer;
        timer.start();
        for (qint64 s = 0; s < DaySeconds; ++s) {
            StatusSnapshot snapshot = syntheticPoll(base, s);
            snapshot.roundTripMs = 0.5;
            Q_EMIT session->snapshot(snapshot, {});
            if (s % 1000 == 999)
                QCoreApplication::processEvents();
        }
        QCoreApplication::processEvents();
        const double replayMs = double(timer.nsecsElapsed()) / 1e6;
        const double rssAfter = procStatusMb("VmRSS");
        const double hwm = procStatusMb("VmHWM");
        std::printf("memory: MainWindow (database mode, not connected) fed %lld synthetic 1 s "
                    "polls x %lld roles through onSnapshot in %.0f ms\n",
                    qlonglong(DaySeconds), qlonglong(SyntheticRoles), replayMs);
        std::printf("VmRSS before the window %.1f MB, window shown %.1f MB, after 24 h %.1f MB, "
                    "peak (VmHWM) %.1f MB (target < 200 MB)\n",
                    rssBefore, rssShown, rssAfter, hwm);
        std::printf("note: onSnapshot refreshes the chart at most once a second of wall clock, so "
                    "the replay mostly exercises the stored history\n");
        root.insert(QStringLiteral("memory"),
                    QJsonObject{{QStringLiteral("snapshots"), double(DaySeconds)},
                                {QStringLiteral("roles"), SyntheticRoles},
                                {QStringLiteral("replay_ms"), replayMs},
                                {QStringLiteral("vmrss_mb_before"), rssBefore},
                                {QStringLiteral("vmrss_mb_window_shown"), rssShown},
                                {QStringLiteral("vmrss_mb_after_24h"), rssAfter},
                                {QStringLiteral("vmhwm_mb"), hwm},
                                {QStringLiteral("target_mb"), 200}});
    }

    std::printf("reproduce: %s\n", qPrintable(command));
    if (parser.isSet(jsonOption)
        && !writeFigures(root, parser.value(jsonOption), "console-startbench"))
        return 1;
    return 0;
}
