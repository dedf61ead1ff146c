// The real drill, once: leader-console --drill-report DIR, headless (offscreen), on its embedded
// demo in a fresh home, quits by itself with exit code 0 and leaves a report that says what the
// ADR promises: every fault taken over within 15 s of the last heartbeat, and a passing auditor,
// and embeds a chart drawn for print.

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class DrillHeadlessTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void drillReport()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        // As root the demo's server runs as another account, which must reach the cluster.
        QVERIFY(QFile::setPermissions(home.path(), QFile::ReadOwner | QFile::WriteOwner
                                                           | QFile::ExeOwner | QFile::ReadGroup
                                                           | QFile::ExeGroup | QFile::ReadOther
                                                           | QFile::ExeOther));
        const QDir dir(home.path());
        const QString reportDir = dir.filePath(QStringLiteral("report"));

        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("HOME"), home.path());
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                           dir.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("cache")));
        QProcess console;
        console.setProcessEnvironment(environment);
        console.setProcessChannelMode(QProcess::MergedChannels);
        QElapsedTimer elapsed;
        elapsed.start();
        console.start(QStringLiteral(LEADER_CONSOLE_PATH),
                      {QStringLiteral("--demo-dir"), dir.filePath(QStringLiteral("demo-cluster")),
                       QStringLiteral("--drill-report"), reportDir});
        QVERIFY2(console.waitForFinished(300000), "the drill did not end within 5 min");
        const QByteArray output = console.readAll();
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0,
                 output.right(4000).constData());
        qInfo("headless drill: %.1f s", elapsed.elapsed() / 1000.0);

        QFile json(QDir(reportDir).filePath(QStringLiteral("report.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(json.readAll()).object();
        const QJsonArray faults = report["faults"].toArray();
        QStringList kinds;
        for (const QJsonValue &value : faults) {
            const QJsonObject fault = value.toObject();
            kinds.append(fault["kind"].toString());
            const double gap = fault["gap_from_last_heartbeat_s"].toDouble(-1);
            QVERIFY2(gap >= 0 && gap <= 15, qPrintable(fault["fault"].toString()));
            QVERIFY(fault["met"].toBool());
            QVERIFY(!fault["successor"].toString().isEmpty());
        }
        QCOMPARE(kinds, (QStringList{"kill", "freeze", "sever"}));
        QVERIFY(!report["pause"].toObject()["stopped_at"].toString().isEmpty());
        QVERIFY(!report["pause"].toObject()["led_again_at"].toString().isEmpty());
        QCOMPARE(report["auditor"].toObject()["verdict"].toString(), QStringLiteral("pass"));
        QVERIFY(report["fence_refusals"].toObject().contains(QStringLiteral("total")));

        QFile markdown(QDir(reportDir).filePath(QStringLiteral("report.md")));
        QVERIFY(markdown.open(QIODevice::ReadOnly));
        QVERIFY(markdown.readLine().startsWith("4 faults on billing: 3 takeovers within ADR-114"));

        // The drill's own chart, drawn at twice 960 × 420 for print, embedded in the report.
        const QImage chart(QDir(reportDir).filePath(QStringLiteral("chart.png")), "PNG");
        QVERIFY(!chart.isNull());
        QCOMPARE(chart.size(), QSize(1920, 840));
        QVERIFY(markdown.readAll().contains("](chart.png)"));
    }
};

QTEST_GUILESS_MAIN(DrillHeadlessTest)
#include "tst_drillheadless.moc"
