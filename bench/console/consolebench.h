#pragma once

#include "core/statustypes.h"

#include <QCommandLineOption>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <vector>

// What the console benchmarks share: the platform, the figures of a set of samples, the shell
// quoting of the reproduce line, a synthetic day of polls, and the JSON file of the figures.
namespace consolebench {

// Qt's offscreen platform, unless QT_QPA_PLATFORM names one. Before the application exists.
void preferOffscreen();

struct Stats
{
    double median = 0;
    double p95 = 0;
    double max = 0;
};

Stats statsOf(QList<double> samples);

// The nearest-rank percentile of sorted samples (fraction 0.95 for p95): the smallest sample at or
// above that fraction of them; 0 for none.
double percentile(const std::vector<double> &sorted, double fraction);

// argument as one word for a POSIX shell: as it is when it is plainly safe, else single-quoted.
QString shellQuoted(const QString &argument);

// The roles of the synthetic day, as the demo configures them.
inline constexpr int SyntheticRoles = 5;

// A poll at second s after base: saw-tooth ages, dunning paused 10 min every 6 h, billing's
// holder dying 20 s into a tick every 4 h and its successor finishing it.
leader::console::StatusSnapshot syntheticPoll(const QDateTime &base, qint64 s);

// --json FILE, as every console benchmark takes it.
QCommandLineOption jsonFileOption();

// Writes figures to file as JSON; false, after a line on stderr naming program, when it cannot.
bool writeFigures(const QJsonObject &figures, const QString &file, const char *program);

} // namespace consolebench
