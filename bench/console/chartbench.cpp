// console-chartbench: how long the age chart takes to update, with a full day behind it.
// Fills a TickHistory and a HolderTimeline with 24 h of synthetic 1 s polls for the five roles
// (saw-tooth ages, pauses, takeovers), then times, per window: AgeChart::refresh() alone, and
// append + refresh (what every poll does), and append + refresh + paint. Prints median, p95 and
// max in ms (target < 16 ms), the resident memory after the day, and how to reproduce.

#include "core/tickhistory.h"
#include "models/holdertimeline.h"
#include "ui/agechart.h"
#include "ui/holdertimelineview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

using namespace leader::console;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);

struct RoleSpec
{
    QString name;
    int interval; // s, as the demo configures it
    int tick;     // s of simulated work
};

const QList<RoleSpec> Roles{{QStringLiteral("billing"), 60, 30},
                            {QStringLiteral("dunning"), 10, 3},
                            {QStringLiteral("email_outbox"), 2, 1},
                            {QStringLiteral("webhook_delivery"), 2, 1},
                            {QStringLiteral("webhook_outbox"), 2, 1}};
const QString Successor = QStringLiteral("bench:9:99999999");

QString holderOf(qint64 n)
{
    return QStringLiteral("bench:%1:0000000%1").arg(n % 3);
}

// Billing's holder dies 20 s into a tick every 4 h; the successor finishes it.
bool isTakeover(const RoleSpec &spec, qint64 tickIndex)
{
    return spec.name == QLatin1String("billing") && tickIndex % 240 == 100;
}

// A poll at second s: saw-tooth ages, dunning paused 10 min every 6 h, billing takeovers.
StatusSnapshot poll(qint64 s)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addSecs(s);
    snapshot.receivedAt = snapshot.databaseTime;
    for (qsizetype i = 0; i < Roles.size(); ++i) {
        const RoleSpec &spec = Roles.at(i);
        RoleStatus status;
        status.role = spec.name;
        const qint64 tickIndex = s / spec.interval;
        const qint64 phase = s % spec.interval;
        const qint64 inDay = s % (6 * 3600);
        if (spec.name == QLatin1String("dunning") && inDay >= 3600 && inDay < 4200) {
            status.state = leader::console::RoleState::Paused;
            status.pausedAt = Base.addSecs(s - inDay + 3600);
            status.pausedBy = QStringLiteral("bench");
            status.pauseReason = QStringLiteral("simulated maintenance");
            status.lastTickAgeSeconds = double(inDay - 3600 + 7);
        } else if (phase < spec.tick) {
            status.state = leader::console::RoleState::Led;
            status.holderId = holderOf(tickIndex + i);
            status.token = tickIndex * 2;
            status.acquiredAt = Base.addSecs(s - phase);
            status.expiresInSeconds = 9.0;
            if (isTakeover(spec, tickIndex) && phase >= 20) {
                status.holderId = Successor;
                status.token = tickIndex * 2 + 1;
                status.acquiredAt = Base.addSecs(s - phase + 20);
            }
            status.lastTickHolder
                    = isTakeover(spec, tickIndex - 1) ? Successor : holderOf(tickIndex - 1 + i);
            status.lastTickEndedAt = Base.addSecs((tickIndex - 1) * spec.interval + spec.tick);
            status.lastTickAgeSeconds = double(phase + spec.interval - spec.tick);
        } else {
            status.state = leader::console::RoleState::Free;
            status.lastTickHolder
                    = isTakeover(spec, tickIndex) ? Successor : holderOf(tickIndex + i);
            status.lastTickEndedAt = Base.addSecs(tickIndex * spec.interval + spec.tick);
            status.lastTickAgeSeconds = double(phase - spec.tick);
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

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

struct Stats
{
    double median = 0;
    double p95 = 0;
    double max = 0;
};

Stats statsOf(QList<double> samples)
{
    std::sort(samples.begin(), samples.end());
    Stats stats;
    if (samples.isEmpty())
        return stats;
    stats.median = samples.at(samples.size() / 2);
    stats.p95 = samples.at(std::min<qsizetype>(samples.size() - 1, samples.size() * 95 / 100));
    stats.max = samples.last();
    return stats;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
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
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Also write the figures to FILE as JSON."),
                                        QStringLiteral("file"));
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
        const StatusSnapshot snapshot = poll(s);
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
                hours, qlonglong(Roles.size()),
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
                const StatusSnapshot snapshot = poll(next);
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
        QFile file(parser.value(jsonOption));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            std::fprintf(stderr, "cannot write %s: %s\n", qPrintable(file.fileName()),
                         qPrintable(file.errorString()));
            return 1;
        }
        const QJsonObject root{
                {QStringLiteral("benchmark"), QStringLiteral("console-chartbench")},
                {QStringLiteral("hours"), hours},
                {QStringLiteral("roles"), int(Roles.size())},
                {QStringLiteral("max_points"), maxPoints},
                {QStringLiteral("fill_ms"), fillMs},
                {QStringLiteral("tickhistory_bytes"), double(history.approximateBytes())},
                {QStringLiteral("holder_spans"), timeline.rowCount()},
                {QStringLiteral("vmrss_mb_after_day"), rssAfterDay},
                {QStringLiteral("vmrss_mb_end"), rssEnd},
                {QStringLiteral("platform"), qEnvironmentVariable("QT_QPA_PLATFORM")},
                {QStringLiteral("command"), command},
                {QStringLiteral("results"), results}};
        file.write(QJsonDocument(root).toJson());
    }
    return 0;
}
