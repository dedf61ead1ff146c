// console-chartbench: how long the age chart takes to update, with a full day behind it.
// Fills a TickHistory and a HolderTimeline with 24 h of synthetic 1 s polls for the five roles
// (saw-tooth ages, pauses, takeovers), then times, per window: AgeChart::refresh() alone, and
// append + refresh (what every poll does), and append + refresh + paint. Prints median, p95 and
// max in ms (target < 16 ms), the resident memory after the day, and how to reproduce.

#include "consolebench.h"
#include "core/tickhistory.h"
#include "models/holdertimeline.h"
#include "ui/agechart.h"
#include "ui/holdertimelineview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

using namespace consolebench;
using namespace leader::console;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);

double vmRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    }
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    preferOffscreen();
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Times the age chart's update over a day."));
    parser.addHelpOption();
    const QCommandLineOption iterationsOption(QStringLiteral("iterations"),
                                              QStringLiteral("Updates timed per case."),
                                              QStringLiteral("n"), QStringLiteral("200"));
    const QCommandLineOption maxPointsOption(QStringLiteral("max-points"),
                                             QStringLiteral("Points per series."),
                                             QStringLiteral("n"), QStringLiteral("1200"));
    const QCommandLineOption hoursOption(QStringLiteral("hours"),
                                         QStringLiteral("Hours of history to simulate."),
                                         QStringLiteral("h"), QStringLiteral("24"));
    const QCommandLineOption jsonOption = consolebench::jsonFileOption();
    const QCommandLineOption saveOption(
            QStringLiteral("save-images"),
            QStringLiteral("Also save the chart and the timeline of each window, as drawn before "
                           "the timing, as PNGs into DIR: to look at what is timed."),
            QStringLiteral("dir"));
    parser.addOptions({iterationsOption, maxPointsOption, hoursOption, jsonOption, saveOption});
    parser.process(app);
    const int iterations = std::max(1, parser.value(iterationsOption).toInt());
    const int maxPoints = std::max(2, parser.value(maxPointsOption).toInt());
    const int hours = std::max(1, parser.value(hoursOption).toInt());

    const double rssStart = vmRssMb();
    TickHistory history;
    HolderTimeline timeline;
    HolderChangeTracker changes; // one classification for both, as in the window
    QElapsedTimer fillTimer;
    fillTimer.start();
    const qint64 seconds = qint64(hours) * 3600;
    for (qint64 s = 0; s < seconds; ++s) {
        const StatusSnapshot snapshot = syntheticPoll(Base, s);
        const QList<HolderChange> changed = changes.append(snapshot);
        history.append(snapshot, changed);
        timeline.append(snapshot, changed);
    }
    const double fillMs = double(fillTimer.nsecsElapsed()) / 1e6;

    AgeChart chart;
    chart.setMaxPoints(maxPoints);
    chart.resize(1400, 600);
    chart.setHistory(&history);
    chart.show();
    HolderTimelineView timelineView;
    timelineView.setModel(&timeline);
    timelineView.resize(1400, timelineView.sizeHint().height());
    timelineView.show();
    QCoreApplication::processEvents();
    const double rssAfterDay = vmRssMb();

    std::printf("console-chartbench: %d h of 1 s polls x %lld roles, %lld markers (24 h), "
                "%d spans; filled in %.0f ms\n",
                hours, qlonglong(SyntheticRoles),
                qlonglong(history.markers(HistoryWindow::Day).size()), timeline.rowCount(), fillMs);
    std::printf("TickHistory ~%.2f MB; VmRSS %.1f MB at start, %.1f MB after the day with the "
                "chart shown (target < 200 MB for the whole app)\n",
                history.approximateBytes() / 1048576.0, rssStart, rssAfterDay);
    std::printf("%-8s %-28s %9s %9s %9s %9s\n", "window", "update", "median ms", "p95 ms", "max ms",
                "points");

    QJsonArray results;
    qint64 next = seconds;
    for (const HistoryWindow window :
         {HistoryWindow::FiveMinutes, HistoryWindow::OneHour, HistoryWindow::Day}) {
        chart.setWindow(window);
        timelineView.setWindow(window);
        if (parser.isSet(saveOption)) {
            const QString name = historyWindowName(window).remove(QLatin1Char(' '));
            const QDir dir(parser.value(saveOption));
            chart.grab().save(dir.filePath(QStringLiteral("chart-%1.png").arg(name)));
            timelineView.grab().save(dir.filePath(QStringLiteral("timeline-%1.png").arg(name)));
        }
        struct Case
        {
            const char *name;
            bool append;
            bool paint;
            bool chart = true;
        };
        for (const Case c : {Case{"refresh", false, false}, Case{"append+refresh", true, false},
                             Case{"append+refresh+paint", true, true},
                             Case{"holder timeline paint", false, true, false}}) {
            QList<double> samples;
            samples.reserve(iterations);
            for (int i = 0; i < iterations; ++i) {
                const StatusSnapshot snapshot = syntheticPoll(Base, next);
                QElapsedTimer timer;
                timer.start();
                if (c.append) {
                    const QList<HolderChange> changed = changes.append(snapshot);
                    history.append(snapshot, changed);
                    timeline.append(snapshot, changed);
                    ++next;
                }
                if (c.chart)
                    chart.refresh();
                if (c.paint) {
                    // What the screen costs: the chart and the timeline drawn into pixmaps.
                    if (c.chart)
                        (void)chart.grab();
                    (void)timelineView.grab();
                }
                samples.append(double(timer.nsecsElapsed()) / 1e6);
            }
            const Stats stats = statsOf(samples);
            const int points = chart.pointCount(QStringLiteral("billing"));
            std::printf("%-8s %-28s %9.3f %9.3f %9.3f %9d\n", qPrintable(historyWindowName(window)),
                        c.name, stats.median, stats.p95, stats.max, points);
            results.append(QJsonObject{{QStringLiteral("window"), historyWindowName(window)},
                                       {QStringLiteral("update"), QString::fromLatin1(c.name)},
                                       {QStringLiteral("iterations"), iterations},
                                       {QStringLiteral("median_ms"), stats.median},
                                       {QStringLiteral("p95_ms"), stats.p95},
                                       {QStringLiteral("max_ms"), stats.max},
                                       {QStringLiteral("billing_points"), points}});
        }
    }
    const double rssEnd = vmRssMb();
    std::printf("VmRSS at the end: %.1f MB\n", rssEnd);
    const QString command = QStringLiteral("QT_QPA_PLATFORM=%1 %2 --iterations %3 --max-points %4 "
                                           "--hours %5")
                                    .arg(qEnvironmentVariable("QT_QPA_PLATFORM"),
                                         QCoreApplication::applicationFilePath())
                                    .arg(iterations)
                                    .arg(maxPoints)
                                    .arg(hours);
    std::printf("reproduce: %s\n", qPrintable(command));

    if (parser.isSet(jsonOption)) {
        const QJsonObject root{
                {QStringLiteral("benchmark"), QStringLiteral("console-chartbench")},
                {QStringLiteral("hours"), hours},
                {QStringLiteral("roles"), SyntheticRoles},
                {QStringLiteral("max_points"), maxPoints},
                {QStringLiteral("fill_ms"), fillMs},
                {QStringLiteral("tickhistory_bytes"), double(history.approximateBytes())},
                {QStringLiteral("holder_spans"), timeline.rowCount()},
                {QStringLiteral("vmrss_mb_after_day"), rssAfterDay},
                {QStringLiteral("vmrss_mb_end"), rssEnd},
                {QStringLiteral("platform"), qEnvironmentVariable("QT_QPA_PLATFORM")},
                {QStringLiteral("command"), command},
                {QStringLiteral("results"), results}};
        if (!writeFigures(root, parser.value(jsonOption), "console-chartbench"))
            return 1;
    }
    return 0;
}
