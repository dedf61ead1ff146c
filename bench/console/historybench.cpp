// console-historybench: two figures of the status history on disk (HistoryStore).
// 1. The history file's size after a simulated week: five roles polled every second for --days
//    days (saw-tooth ages, a pause every 6 h, a takeover every 4 h) recorded through the real
//    HistoryStore with the shipped tiers and bounds (7 days, 100 MB), then one trim; the size is
//    the file and its WAL on disk.
// 2. Start to the 24 h chart on screen with that history: construct the store on the same file,
//    wait for the last 24 h (loaded on its writer thread), restore them into a TickHistory, show
//    an AgeChart with the 24 h window and paint it. Each run starts from a closed file.
// The file lives in a temporary XDG_DATA_HOME. Prints median, p95 and max in ms and how to
// reproduce.

#include "consolebench.h"
#include "core/historystore.h"
#include "core/tickhistory.h"
#include "ui/agechart.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace consolebench;
using namespace leader::console;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QStringList Roles{QStringLiteral("billing"), QStringLiteral("dunning"),
                        QStringLiteral("email_outbox"), QStringLiteral("webhook_delivery"),
                        QStringLiteral("webhook_outbox")};
const int Intervals[] = {60, 10, 2, 2, 2}; // s, as the demo configures the roles
constexpr int WaitMs = 600000;

// A poll at second s: saw-tooth ages, dunning paused 10 min every 6 h.
StatusSnapshot poll(qint64 s)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addSecs(s);
    for (qsizetype i = 0; i < Roles.size(); ++i) {
        RoleStatus status;
        status.role = Roles.at(i);
        status.state = RoleState::Free;
        status.lastTickAgeSeconds = double(s % Intervals[i]) + 0.5;
        const qint64 inQuarter = s % (6 * 3600);
        if (i == 1 && inQuarter >= 3600 && inQuarter < 4200) {
            status.state = RoleState::Paused;
            status.pausedAt = Base.addSecs(s - inQuarter + 3600);
            status.pausedBy = QStringLiteral("bench");
            status.pauseReason = QStringLiteral("simulated maintenance");
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

// Billing taken over every 4 h.
QList<HolderChange> changesAt(qint64 s)
{
    if (s % (4 * 3600) != 100)
        return {};
    HolderChange change;
    change.kind = HolderChangeKind::Takeover;
    change.role = Roles.first();
    change.previousHolder = QStringLiteral("bench:1:00000001");
    change.newHolder = QStringLiteral("bench:2:00000002");
    change.newToken = s;
    change.acquiredAt = Base.addSecs(s);
    change.gapSeconds = 10.5;
    return {change};
}

} // namespace

int main(int argc, char **argv)
{
    preferOffscreen();
    QTemporaryDir dataHome;
    if (!dataHome.isValid()) {
        std::fprintf(stderr, "console-historybench: cannot create a temporary directory\n");
        return 1;
    }
    qputenv("XDG_DATA_HOME", QFile::encodeName(dataHome.path()));
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("console-historybench"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("History file size after a simulated week; start to the 24 h chart."));
    parser.addHelpOption();
    const QCommandLineOption daysOption(QStringLiteral("days"),
                                        QStringLiteral("Days of 1 s polls to simulate."),
                                        QStringLiteral("n"), QStringLiteral("7"));
    const QCommandLineOption iterationsOption(QStringLiteral("iterations"),
                                              QStringLiteral("Timed starts."), QStringLiteral("n"),
                                              QStringLiteral("20"));
    parser.addOptions({daysOption, iterationsOption});
    parser.process(app);
    const int days = std::max(1, parser.value(daysOption).toInt());
    const int iterations = std::max(1, parser.value(iterationsOption).toInt());
    const HistorySettings settings; // the shipped defaults
    const QString key = QStringLiteral("bench@localhost-5432-bench");

    qint64 fileBytes = 0;
    QElapsedTimer fillTimer;
    fillTimer.start();
    {
        HistoryStore store(key, settings);
        qint64 rowsSent = 0;
        qint64 rowsWritten = 0;
        QObject::connect(&store, &HistoryStore::batchWritten, &store,
                         [&rowsWritten](int rows) { rowsWritten += rows; });
        QObject::connect(&store, &HistoryStore::problem, &store, [](const QString &message) {
            std::fprintf(stderr, "%s\n", qPrintable(message));
        });
        const qint64 seconds = qint64(days) * 24 * 3600;
        for (qint64 s = 0; s < seconds; ++s) {
            const QList<HolderChange> changes = changesAt(s);
            store.record(poll(s), changes);
            rowsSent += Roles.size(); // and the odd marker: rowsWritten counts those too
            // Every simulated 10 min, let the writer catch up, so the queue stays bounded.
            if (s % 600 == 599) {
                store.flush();
                QElapsedTimer wait;
                wait.start();
                while (rowsWritten < rowsSent && store.isKeeping() && wait.elapsed() < WaitMs)
                    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
            }
        }
        QSignalSpy trimmed(&store, &HistoryStore::trimmed);
        store.trimNow();
        if (!trimmed.wait(WaitMs) || !store.isKeeping()) {
            std::fprintf(stderr, "console-historybench: the store did not trim\n");
            return 1;
        }
        fileBytes = trimmed.last().first().toLongLong();
    }
    const double fillS = double(fillTimer.elapsed()) / 1000.0;
    const QString path
            = HistoryStore::directory() + QLatin1Char('/') + key + QStringLiteral(".sqlite");
    std::printf("console-historybench: %d days of 1 s polls x %lld roles written in %.0f s\n", days,
                qlonglong(Roles.size()), fillS);
    std::printf("history file after the simulated %d days: %.2f MB (%lld bytes; bounds %d days, "
                "%d MB); closed: %lld bytes\n",
                days, fileBytes / 1048576.0, qlonglong(fileBytes), settings.retentionDays,
                settings.maxMegabytes, qlonglong(QFileInfo(path).size()));

    QList<double> samples;
    qsizetype points = 0;
    qsizetype markers = 0;
    for (int i = 0; i < iterations; ++i) {
        QElapsedTimer timer;
        timer.start();
        HistoryStore store(key, settings);
        QSignalSpy restored(&store, &HistoryStore::restored);
        if (!restored.wait(WaitMs)) {
            std::fprintf(stderr, "console-historybench: no history restored\n");
            return 1;
        }
        TickHistory history;
        history.restore(restored.first().first().value<TickHistory::Saved>());
        AgeChart chart;
        chart.resize(1400, 600);
        chart.setHistory(&history);
        chart.setWindow(HistoryWindow::Day);
        chart.refresh();
        chart.show();
        (void)chart.grab(); // on screen: painted
        samples.append(double(timer.nsecsElapsed()) / 1e6);
        points = chart.pointCount(Roles.first());
        markers = history.markers(HistoryWindow::Day).size();
    }
    const Stats stats = statsOf(samples);
    std::printf("start to the 24 h chart on screen (%lld billing points, %lld markers), %d runs: "
                "median %.1f ms, p95 %.1f ms, max %.1f ms\n",
                qlonglong(points), qlonglong(markers), iterations, stats.median, stats.p95,
                stats.max);
    std::printf("reproduce: QT_QPA_PLATFORM=%s %s --days %d --iterations %d\n",
                qPrintable(qEnvironmentVariable("QT_QPA_PLATFORM")),
                qPrintable(QCoreApplication::applicationFilePath()), days, iterations);
    return 0;
}
