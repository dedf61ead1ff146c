#include "measurement.h"

#include <QFile>
#include <QtTest>

namespace leader::test {

void reportMeasurement(const QString &line)
{
    qInfo().noquote() << line;
    const QString path = qEnvironmentVariable("LEADER_TEST_REPORT");
    if (path.isEmpty())
        return;
    QFile report(path);
    // Append-only and one write per line: several test processes may report at once.
    if (report.open(QIODevice::Append | QIODevice::Text)) {
        const QString via = qEnvironmentVariable("LEADER_TEST_VIA", QStringLiteral("-"));
        report.write(QStringLiteral("[%1] %2: %3\n")
                             .arg(via, QString::fromUtf8(QTest::currentTestFunction()), line)
                             .toUtf8());
    }
}

} // namespace leader::test
