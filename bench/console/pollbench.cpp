// console-pollbench: runs the real StatusPoller (in its own thread, as the console does) against a
// database, N polls back to back, and prints the statement round trip's median, p95, p99 and max
// in ms, plus the command line that reproduces the run. Not a test: it prints figures.
//
//   console-pollbench [--database URL] [--polls N] [--json FILE]
//
// The URL defaults to DATABASE_URL, then the PG* variables. The login needs SELECT on
// leader_status (hardcount_monitor is enough).

#include "consolebench.h"
#include "core/connectionprofile.h"
#include "core/statuspoller.h"
#include "pg/conninfo.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using consolebench::percentile;
using consolebench::shellQuoted;
using leader::console::ConnectionProfile;
using leader::console::ConnectionState;
using leader::console::StatusPoller;
using leader::console::StatusSnapshot;

namespace {

// The profile as a URL without its password: the reproducer finds it where this run did
// (PGPASSWORD, ~/.pgpass).
QString urlWithoutPassword(const ConnectionProfile &profile)
{
    const bool socketDirectory = profile.host.startsWith(QLatin1Char('/'));
    QString url = QStringLiteral("postgresql://") + profile.user + QLatin1Char('@');
    if (!socketDirectory)
        url += profile.host + QLatin1Char(':') + QString::number(profile.port);
    url += QLatin1Char('/') + profile.database;
    QStringList query;
    if (socketDirectory) {
        query << QStringLiteral("host=") + profile.host
              << QStringLiteral("port=") + QString::number(profile.port);
    }
    if (profile.sslMode != QLatin1String("prefer"))
        query << QStringLiteral("sslmode=") + profile.sslMode;
    if (!query.isEmpty())
        url += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return url;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("console-pollbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Times the console's StatusPoller: N polls of leader_status at max "
                           "rate; prints median, p95, p99 and max round trip in ms."));
    parser.addHelpOption();
    const QCommandLineOption databaseOption(
            QStringLiteral("database"),
            QStringLiteral("postgresql:// URL or key=value (default: DATABASE_URL, then PG*)."),
            QStringLiteral("url"));
    const QCommandLineOption pollsOption(QStringLiteral("polls"),
                                         QStringLiteral("How many polls (default 1000)."),
                                         QStringLiteral("n"), QStringLiteral("1000"));
    const QCommandLineOption jsonOption = consolebench::jsonFileOption();
    parser.addOptions({databaseOption, pollsOption, jsonOption});
    parser.process(app);

    bool ok = false;
    const int polls = parser.value(pollsOption).toInt(&ok);
    if (!ok || polls <= 0) {
        std::fprintf(stderr, "console-pollbench: --polls must be a positive number\n");
        return 2;
    }
    const QString url = QString::fromStdString(
            leader::pg::databaseUrlFrom(parser.value(databaseOption).toStdString()));
    QString error;
    const std::optional<ConnectionProfile> profile = ConnectionProfile::fromUrl(url, &error);
    if (!profile) {
        std::fprintf(stderr, "console-pollbench: %s\n", qPrintable(error));
        return 2;
    }

    QThread thread;
    auto *poller = new StatusPoller;
    poller->moveToThread(&thread);
    QObject::connect(&thread, &QThread::finished, poller, &QObject::deleteLater);

    std::vector<double> roundTrips;
    roundTrips.reserve(std::size_t(polls));
    int failures = 0;
    int exitCode = 0;
    const auto finish = [&](int code) {
        exitCode = code;
        QCoreApplication::exit(code);
    };
    const auto next = [poller] {
        QMetaObject::invokeMethod(poller, &StatusPoller::pollNow, Qt::QueuedConnection);
    };
    // The connect's own first poll is a warm-up (it pays for the plan); the timed ones follow.
    bool warmedUp = false;
    QObject::connect(poller, &StatusPoller::snapshot, &app, [&](const StatusSnapshot &snapshot) {
        if (warmedUp)
            roundTrips.push_back(snapshot.roundTripMs);
        warmedUp = true;
        if (int(roundTrips.size()) >= polls)
            finish(0);
        else
            next();
    });
    QObject::connect(poller, &StatusPoller::pollFailed, &app, [&](const QString &message) {
        ++failures;
        std::fprintf(stderr, "console-pollbench: poll failed: %s\n", qPrintable(message));
        if (failures > polls / 10 + 5)
            finish(1);
        else
            next();
    });
    QObject::connect(poller, &StatusPoller::connectionChanged, &app,
                     [&](ConnectionState state, const QString &message) {
                         // The poller retries by itself; a benchmark should say why and stop.
                         if (state == ConnectionState::Failed) {
                             std::fprintf(stderr, "console-pollbench: %s\n", qPrintable(message));
                             finish(1);
                         }
                     });
    thread.start();
    QMetaObject::invokeMethod(
            poller, [poller, target = *profile] { poller->setTarget(target); },
            Qt::QueuedConnection);
    app.exec();
    QMetaObject::invokeMethod(poller, &StatusPoller::stop, Qt::BlockingQueuedConnection);
    thread.quit();
    thread.wait();
    if (exitCode != 0)
        return exitCode;

    std::vector<double> sorted = roundTrips;
    std::sort(sorted.begin(), sorted.end());
    const double median = percentile(sorted, 0.5);
    const double p95 = percentile(sorted, 0.95);
    const double p99 = percentile(sorted, 0.99);
    const double max = sorted.back();

    QStringList command{QStringLiteral("console-pollbench")};
    // The URL is shown without its password: the reproducer reads it from the same place.
    command << QStringLiteral("--database") << shellQuoted(urlWithoutPassword(*profile))
            << QStringLiteral("--polls") << QString::number(polls);
    if (parser.isSet(jsonOption))
        command << QStringLiteral("--json") << shellQuoted(parser.value(jsonOption));

    std::printf("target      %s\n", qPrintable(profile->describe()));
    std::printf("polls       %d (failures %d)\n", polls, failures);
    std::printf("round trip  median %.3f ms  p95 %.3f ms  p99 %.3f ms  max %.3f ms\n", median, p95,
                p99, max);
    std::printf("reproduce   %s\n", qPrintable(command.join(QLatin1Char(' '))));

    if (parser.isSet(jsonOption)) {
        const QJsonObject figures{
                {QStringLiteral("benchmark"), QStringLiteral("console-pollbench")},
                {QStringLiteral("target"), profile->describe()},
                {QStringLiteral("polls"), polls},
                {QStringLiteral("failures"), failures},
                {QStringLiteral("median_ms"), median},
                {QStringLiteral("p95_ms"), p95},
                {QStringLiteral("p99_ms"), p99},
                {QStringLiteral("max_ms"), max},
                {QStringLiteral("command"), command.join(QLatin1Char(' '))}};
        if (!consolebench::writeFigures(figures, parser.value(jsonOption), "console-pollbench"))
            return 1;
    }
    return 0;
}
