// leader-console's command line: the demo by default, a database or a profile, and a one-line
// error for each wrong use.

#include "core/commandline.h"

#include <QCoreApplication>
#include <QTest>

using leader::console::CommandLineResult;
using leader::console::ConsoleOptions;
using leader::console::parseCommandLine;

class CommandLineTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setApplicationName(QStringLiteral("leader-console"));
        QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7"));
    }

    void modes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("readOnly");

        QTest::newRow("no arguments: the demo")
                << QStringList{} << int(ConsoleOptions::Mode::Demo) << QString() << false;
        QTest::newRow("--database")
                << QStringList{"--database", "postgresql://mon@db/hardcount"}
                << int(ConsoleOptions::Mode::Database) << "postgresql://mon@db/hardcount" << false;
        QTest::newRow("-d with key=value")
                << QStringList{"-d", "host=db dbname=hardcount"}
                << int(ConsoleOptions::Mode::Database) << "host=db dbname=hardcount" << false;
        QTest::newRow("--profile, read-only")
                << QStringList{"--profile", "prod", "--read-only"}
                << int(ConsoleOptions::Mode::Profile) << "prod" << true;
        QTest::newRow("demo read-only") << QStringList{"--read-only"}
                                        << int(ConsoleOptions::Mode::Demo) << QString() << true;
    }

    void modes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, mode);
        QFETCH(QString, value);
        QFETCH(bool, readOnly);
        arguments.prepend(QStringLiteral("leader-console"));
        const CommandLineResult result = parseCommandLine(arguments);
        QVERIFY2(result.options, qPrintable(result.error));
        QCOMPARE(int(result.options->mode), mode);
        QCOMPARE(result.options->readOnly, readOnly);
        if (mode == int(ConsoleOptions::Mode::Database))
            QCOMPARE(result.options->databaseUrl, value);
        if (mode == int(ConsoleOptions::Mode::Profile))
            QCOMPARE(result.options->profileName, value);
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("mentions");

        QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
        QTest::newRow("a profile twice")
                << QStringList{"-p", "prod", "-d", "host=x", "-p", "prod"} << "prod is given twice";
        QTest::newRow("a URL twice")
                << QStringList{"-d", "host=x", "--database=host=x"} << "--database is given twice";
        QTest::newRow("an empty URL in a fleet")
                << QStringList{"-p", "prod", "-d", ""} << "needs a URL";
        QTest::newRow("drill in a fleet")
                << QStringList{"-p", "a", "-p", "b", "--drill-after", "5"} << "needs the demo";
        QTest::newRow("empty URL") << QStringList{"--database", " "} << "needs a URL";
        QTest::newRow("stray argument") << QStringList{"postgresql://x"} << "unexpected argument";
        QTest::newRow("drill without demo")
                << QStringList{"-d", "host=x", "--drill-after", "5"} << "needs the demo";
        QTest::newRow("bad seconds") << QStringList{"--drill-after", "soon"} << "seconds";
        QTest::newRow("demo dir with database")
                << QStringList{"-d", "host=x", "--demo-dir", "/tmp/x"} << "demo only";
        QTest::newRow("empty role") << QStringList{"--role", " "} << "needs a role name";
        QTest::newRow("drill report without a directory")
                << QStringList{"--drill-report", " "} << "needs a directory";
        QTest::newRow("drill report on a database")
                << QStringList{"-d", "host=x", "--drill-report", "/tmp/r"} << "needs the demo";
        QTest::newRow("drill report read-only")
                << QStringList{"--read-only", "--drill-report", "/tmp/r"} << "needs the demo";
        QTest::newRow("drill report and drill after")
                << QStringList{"--drill-report", "/tmp/r", "--drill-after", "5"} << "leave out";
        QTest::newRow("drill report and screenshot")
                << QStringList{"--drill-report", "/tmp/r", "--screenshot", "/tmp/s.png"}
                << "leave out";
    }

    // Several databases make a fleet, each once, in the order given (profiles and URLs mixed).
    void fleet()
    {
        const CommandLineResult result = parseCommandLine(
                {"leader-console", "-p", "prod-eu", "--database", "host=db2 dbname=hardcount",
                 "--profile=prod-us", "--read-only"});
        QVERIFY2(result.options, qPrintable(result.error));
        QCOMPARE(result.options->mode, ConsoleOptions::Mode::Fleet);
        const QList<ConsoleOptions::FleetMember> expected{
                {true, QStringLiteral("prod-eu")},
                {false, QStringLiteral("host=db2 dbname=hardcount")},
                {true, QStringLiteral("prod-us")}};
        QCOMPARE(result.options->fleet, expected);
        QVERIFY(result.options->readOnly);
    }

    void roleSelection_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("role");
        QTest::newRow("none") << QStringList{} << QString();
        QTest::newRow("with a profile")
                << QStringList{"-p", "prod", "--role", "billing"} << "billing";
        QTest::newRow("in the demo") << QStringList{"--role=email_outbox"} << "email_outbox";
    }

    // A link in a runbook or an alert opens the console on one role; whether it exists is the
    // database's to say, once rows arrive.
    void roleSelection()
    {
        QFETCH(QStringList, arguments);
        arguments.prepend(QStringLiteral("leader-console"));
        const CommandLineResult result = parseCommandLine(arguments);
        QVERIFY2(result.options, qPrintable(result.error));
        QTEST(result.options->role, "role");
    }

    void errors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        arguments.prepend(QStringLiteral("leader-console"));
        const CommandLineResult result = parseCommandLine(arguments);
        QVERIFY(!result.options);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.error.contains(mentions), qPrintable(result.error));
        QVERIFY2(!result.error.contains(QLatin1Char('\n')), "one line");
    }

    // The headless drill: the demo, a report directory, and nothing else that quits.
    void drillReport()
    {
        const CommandLineResult none = parseCommandLine({"leader-console"});
        QVERIFY(none.options);
        QVERIFY(none.options->drillReportDir.isEmpty());
        const CommandLineResult result = parseCommandLine(
                {"leader-console", "--demo-dir", "/tmp/cluster", "--drill-report", "/tmp/report"});
        QVERIFY2(result.options, qPrintable(result.error));
        QCOMPARE(int(result.options->mode), int(ConsoleOptions::Mode::Demo));
        QCOMPARE(result.options->drillReportDir, QStringLiteral("/tmp/report"));
        QCOMPARE(result.options->demoDirectory, QStringLiteral("/tmp/cluster"));
    }

    void helpAndVersion()
    {
        const CommandLineResult help = parseCommandLine({"leader-console", "--help"});
        QVERIFY(!help.options);
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.output.contains(QLatin1String("--database")));
        QVERIFY(help.output.contains(QLatin1String("--read-only")));
        QVERIFY(help.output.contains(QLatin1String("--drill-report <dir>")));
        QVERIFY(help.output.contains(QLatin1String("report.json")));
        const CommandLineResult version = parseCommandLine({"leader-console", "--version"});
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.output, QStringLiteral("leader-console 9.8.7\n"));
    }
};

QTEST_GUILESS_MAIN(CommandLineTest)
#include "tst_commandline.moc"
