#include "consolebench.h"

#include <QFile>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace consolebench {

namespace {

using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;

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

bool isTakeover(const RoleSpec &spec, qint64 tickIndex)
{
    return spec.name == QLatin1String("billing") && tickIndex % 240 == 100;
}

} // namespace

void preferOffscreen()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

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

double percentile(const std::vector<double> &sorted, double fraction)
{
    if (sorted.empty())
        return 0;
    // Nearest rank: the smallest sample at or above the fraction of all samples.
    const auto rank = std::size_t(std::ceil(fraction * double(sorted.size())));
    return sorted.at(std::clamp<std::size_t>(rank, 1, sorted.size()) - 1);
}

QString shellQuoted(const QString &argument)
{
    if (!argument.isEmpty() && std::all_of(argument.begin(), argument.end(), [](QChar c) {
            return c.isLetterOrNumber() || QStringLiteral("-_./:=@,%+").contains(c);
        })) {
        return argument;
    }
    QString quoted = argument;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

StatusSnapshot syntheticPoll(const QDateTime &base, qint64 s)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = base.addSecs(s);
    snapshot.receivedAt = snapshot.databaseTime;
    for (qsizetype i = 0; i < Roles.size(); ++i) {
        const RoleSpec &spec = Roles.at(i);
        RoleStatus status;
        status.role = spec.name;
        const qint64 tickIndex = s / spec.interval;
        const qint64 phase = s % spec.interval;
        const qint64 inDay = s % (6 * 3600);
        if (spec.name == QLatin1String("dunning") && inDay >= 3600 && inDay < 4200) {
            status.state = RoleState::Paused;
            status.pausedAt = base.addSecs(s - inDay + 3600);
            status.pausedBy = QStringLiteral("bench");
            status.pauseReason = QStringLiteral("simulated maintenance");
            status.lastTickAgeSeconds = double(inDay - 3600 + 7);
        } else if (phase < spec.tick) {
            status.state = RoleState::Led;
            status.holderId = holderOf(tickIndex + i);
            status.token = tickIndex * 2;
            status.acquiredAt = base.addSecs(s - phase);
            status.expiresInSeconds = 9.0;
            if (isTakeover(spec, tickIndex) && phase >= 20) {
                status.holderId = Successor;
                status.token = tickIndex * 2 + 1;
                status.acquiredAt = base.addSecs(s - phase + 20);
            }
            status.lastTickHolder
                    = isTakeover(spec, tickIndex - 1) ? Successor : holderOf(tickIndex - 1 + i);
            status.lastTickEndedAt = base.addSecs((tickIndex - 1) * spec.interval + spec.tick);
            status.lastTickAgeSeconds = double(phase + spec.interval - spec.tick);
        } else {
            status.state = RoleState::Free;
            status.lastTickHolder
                    = isTakeover(spec, tickIndex) ? Successor : holderOf(tickIndex + i);
            status.lastTickEndedAt = base.addSecs(tickIndex * spec.interval + spec.tick);
            status.lastTickAgeSeconds = double(phase - spec.tick);
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

QCommandLineOption jsonFileOption()
{
    return QCommandLineOption(QStringLiteral("json"),
                              QStringLiteral("Also write the figures to FILE as JSON."),
                              QStringLiteral("file"));
}

bool writeFigures(const QJsonObject &figures, const QString &file, const char *program)
{
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || out.write(QJsonDocument(figures).toJson()) < 0) {
        std::fprintf(stderr, "%s: cannot write %s: %s\n", program, qPrintable(out.fileName()),
                     qPrintable(out.errorString()));
        return false;
    }
    return true;
}

} // namespace consolebench
