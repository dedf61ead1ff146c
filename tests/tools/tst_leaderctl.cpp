// leaderctl as an operator meets it: the real binary, run with QProcess against a real database,
// straight to Postgres and through PgBouncer in transaction mode. A failure is one line on stderr
// with the exit code the help text documents, and never echoes a password.

#include "adrstatements.h"
#include "lease/draincontrol.h"
#include "lease/handovercontrol.h"
#include "lease/pausecontrol.h"
#include "lease/replicaregistry.h"
#include "lease/roles.h"
#include "lease/statements.h"
#include "lease/wakelistener.h"
#include "loopbackport.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "schema/features.h"
#include "schema/migrations.h"
#include "schema/migrator.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <memory>

#ifndef Q_OS_WIN
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace std::chrono_literals;
using leader::test::Login;
using leader::test::loginName;
using leader::test::TestDatabase;

using leader::test::cleanEnvironment;
using leader::test::qs;

namespace {

constexpr int ProcessDeadlineMs = 30'000;
// A password no server knows, so any trace of it in the output is an echo of the URL.
const QString WrongPassword = QStringLiteral("s3cr3t-xyz");

QStringList roleNames()
{
    QStringList names;
    for (const std::string_view role : leader::lease::Roles)
        names << qs(role);
    return names;
}

struct Run
{
    bool finished = false;
    int exitCode = -1;
    QProcess::ExitStatus exitStatus = QProcess::CrashExit;
    QString out;
    QString err;

    QString describe() const
    {
        return QStringLiteral("exit %1%2; stdout: %3; stderr: %4")
                .arg(exitCode)
                .arg(exitStatus == QProcess::CrashExit ? " (crashed or timed out)" : "", out, err);
    }
};

// Entries of the form NAME=value; a NAME alone is unset.
Run leaderctl(const QStringList &arguments, const QStringList &assignments = {})
{
    QProcessEnvironment environment = cleanEnvironment();
    for (const QString &assignment : assignments) {
        const qsizetype equals = assignment.indexOf(u'=');
        if (equals < 0)
            environment.remove(assignment);
        else
            environment.insert(assignment.left(equals), assignment.mid(equals + 1));
    }
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(LEADERCTL_PATH), arguments);
    Run run;
    run.finished = process.waitForFinished(ProcessDeadlineMs);
    if (!run.finished) {
        process.kill();
        process.waitForFinished();
    }
    run.exitCode = process.exitCode();
    run.exitStatus = run.finished ? process.exitStatus() : QProcess::CrashExit;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// A demo cluster's directory under /tmp, where the server's own account can reach it when the
// test runs as root; the cluster is stopped at the end whatever the test's checks said.
class DemoDirectory final
{
public:
    explicit DemoDirectory(const QString &purpose)
        : m_parent(QDir::tempPath() + "/leaderctl-" + purpose + "-XXXXXX")
    {
        QFile::setPermissions(m_parent.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                                       | QFileDevice::ExeOwner
                                                       | QFileDevice::ExeGroup
                                                       | QFileDevice::ExeOther);
    }
    ~DemoDirectory()
    {
        if (isValid())
            leaderctl({"demo", "--stop", "--dir", path()});
    }
    Q_DISABLE_COPY_MOVE(DemoDirectory)

    bool isValid() const { return m_parent.isValid(); }
    QString path() const { return m_parent.filePath("cluster"); }

private:
    QTemporaryDir m_parent;
};

} // namespace

class TestLeaderctl final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void helpAndVersion_data();
    void helpAndVersion();
    void migrateAppliesTheLeaseMigrationsOnce();
    void statusFindsTheDatabase_data();
    void statusFindsTheDatabase();
    void statusJson();
    void pauseAndUnpause_data();
    void pauseAndUnpause();
    void severalRolesTimedPauseAndHistory();
    void earlyTakeSwitch();
    void lastTickInStatus();
    void backlogInStatus();
    void replicasListsAliveAndGone();
    void drainAndUndrain();
    void drainBadInput_data();
    void drainBadInput();
    void handoverCommand();
    void outsideHoldersAreNamed();
    void handoverBadInput_data();
    void handoverBadInput();
    void replicasOnAnOlderSchema_data();
    void replicasOnAnOlderSchema();
    void badInput_data();
    void badInput();
    void printSqlOut_data();
    void printSqlOut();
    void demoStartsMigratesRunsAndStopsItsCluster();
    void demoKeepRunningOutlivesLeaderctlUntilStop();
    void demoClosesItsPublicSchemaBeforeMigrating();
    void auditOnTheDemoSchema();
    void workloadCreatesWhatItReports();
    void databaseTextIsEscaped();
    void adrOnlyStatus();
    void adrOnlyPauseSeveralRolesThenUnpause();
    void adrOnlyPauseIsAllOrNothing();
    void adrOnlyExtensionCommandsRefused_data();
    void adrOnlyExtensionCommandsRefused();

private:
    QString url(Login login) const { return qs(m_db->url(login)); }
    // Idempotent, so each test stands alone; in file order leaderctl itself migrated already.
    void ensureMigrated() const { m_db->migrateLease(); }
    QString appliedMigrations() const;
    // The roles of `leaderctl status --json` (on m_db unless given the monitor's URL), checked to
    // parse; empty after a failed check.
    QJsonArray statusRoles(const QString &monitorUrl = {});
    // The ADR-only database's roles that status --json shows paused.
    QStringList adrPaused();

    std::unique_ptr<TestDatabase> m_db;    // migrated by the tests
    std::unique_ptr<TestDatabase> m_empty; // never migrated
    // ADR-114's 0174 and 0175 only, as the application's own migration tool leaves a database.
    std::unique_ptr<TestDatabase> m_adr;
    leader::test::LoopbackPort m_refusingPort{leader::test::LoopbackPort::Behaviour::Refuse};
};

void TestLeaderctl::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(LEADERCTL_PATH)).isExecutable(), LEADERCTL_PATH);
    m_db = std::make_unique<TestDatabase>("leaderctl");
    m_empty = std::make_unique<TestDatabase>("leaderctl_empty");
    m_adr = std::make_unique<TestDatabase>("leaderctl_adr");
    leader::pg::Connection owner = m_adr->connect(Login::Owner);
    leader::schema::Migrator(owner).migrate({leader::schema::MigrationSet::Adr});
}

QString TestLeaderctl::appliedMigrations() const
{
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const leader::pg::Result result = owner.exec(
            "applied",
            "SELECT string_agg(version || ' at ' || applied_at, ', ' ORDER BY version) "
            "FROM leader_ext.migrations",
            {}, 5s);
    return qs(result.text(0, 0));
}

QJsonArray TestLeaderctl::statusRoles(const QString &monitorUrl)
{
    const Run run = leaderctl({"status", "--json", "--database",
                               monitorUrl.isEmpty() ? url(Login::Monitor) : monitorUrl});
    [&] {
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    }();
    if (QTest::currentTestFailed())
        return {};
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(run.out.toUtf8(), &error);
    [&] {
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(document.isObject());
        QVERIFY(document.object().value("observed_at").isString());
    }();
    return QTest::currentTestFailed() ? QJsonArray() : document.object().value("roles").toArray();
}

QStringList TestLeaderctl::adrPaused()
{
    QStringList paused;
    for (const QJsonValue &value : statusRoles(qs(m_adr->url(Login::Monitor)))) {
        if (value.toObject().value("state").toString() == QLatin1String("paused"))
            paused << value.toObject().value("role").toString();
    }
    return paused;
}

void TestLeaderctl::helpAndVersion_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected"); // the start of stdout
    QTest::newRow("--help") << QStringList{"--help"} << "Usage: leaderctl COMMAND";
    QTest::newRow("help") << QStringList{"help"} << "Usage: leaderctl COMMAND";
    QTest::newRow("status --help") << QStringList{"status", "--help"} << "Usage: leaderctl COMMAND";
    QTest::newRow("--version") << QStringList{"--version"}
                               << QStringLiteral("leaderctl " LEADER_VERSION "\n");
}

void TestLeaderctl::helpAndVersion()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Run run = leaderctl(arguments);
    QVERIFY2(run.finished, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.startsWith(expected), qPrintable(run.out));
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    if (expected.startsWith("Usage"))
        QVERIFY(run.out.contains("Exit codes: 0 done; 1 "));
}

void TestLeaderctl::migrateAppliesTheLeaseMigrationsOnce()
{
    const Run first = leaderctl({"migrate", "--database", url(Login::Owner)});
    QVERIFY2(first.finished && first.exitCode == 0, qPrintable(first.describe()));
    QVERIFY2(first.err.isEmpty(), qPrintable(first.err));
    const qsizetype at0174 = first.out.indexOf("applying migration 0174");
    const qsizetype at0175 = first.out.indexOf("applying migration 0175");
    const qsizetype at0176 = first.out.indexOf("applying leader_ext 0176 pause_notify");
    const qsizetype at0177 = first.out.indexOf("applying leader_ext 0177 pause_log");
    const qsizetype at0178 = first.out.indexOf("applying leader_ext 0178 leader_replicas");
    const qsizetype at0179 = first.out.indexOf("applying leader_ext 0179 holder_session");
    const qsizetype at0180 = first.out.indexOf("applying leader_ext 0180 early_take_switch");
    QVERIFY2(at0174 >= 0 && at0175 > at0174 && at0176 > at0175 && at0177 > at0176 && at0178 > at0177
                     && at0179 > at0178 && at0180 > at0179,
             qPrintable(first.out));
    const QString applied = appliedMigrations();
    QVERIFY2(applied.startsWith("174 at ") && applied.contains(", 175 at ")
                     && applied.contains(", 176 at ") && applied.contains(", 177 at ")
                     && applied.contains(", 178 at ") && applied.contains(", 179 at ")
                     && applied.contains(", 180 at "),
             qPrintable(applied));

    const Run second = leaderctl({"migrate", "--database", url(Login::Owner)});
    QVERIFY2(second.finished && second.exitCode == 0, qPrintable(second.describe()));
    QVERIFY2(second.out.contains("up to date"), qPrintable(second.out));
    QVERIFY2(!second.out.contains("appl"), qPrintable(second.out));
    QVERIFY2(second.err.isEmpty(), qPrintable(second.err));
    QCOMPARE(appliedMigrations(), applied);
}

void TestLeaderctl::statusFindsTheDatabase_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    const QString monitor = url(Login::Monitor);
    QTest::newRow("--database URL")
            << QStringList{"status", "--database", monitor} << QStringList();
    QTest::newRow("--database=URL")
            << QStringList{"status", "--database=" + monitor} << QStringList();
    QTest::newRow("DATABASE_URL") << QStringList{"status"}
                                  << QStringList{"DATABASE_URL=" + monitor};
    const QString port = m_db->viaPgBouncer() ? qEnvironmentVariable("LEADER_TEST_BOUNCER_PORT")
                                              : qEnvironmentVariable("LEADER_TEST_PG_PORT");
    QTest::newRow("PG* variables")
            << QStringList{"status"}
            << QStringList{"PGHOST=" + qEnvironmentVariable("LEADER_TEST_HOST"), "PGPORT=" + port,
                           "PGUSER=lt_monitor",
                           "PGPASSWORD=" + qEnvironmentVariable("LEADER_TEST_PASSWORD"),
                           "PGDATABASE=" + qs(m_db->name())};
    // A host list whose first server refuses: libpq goes on to the next, which is read-write.
    QTest::newRow("host list, read-write")
            << QStringList{"status", "--database",
                           QStringLiteral("postgresql://lt_monitor:%1@%2:%3,%2:%4/%5"
                                          "?target_session_attrs=read-write")
                                   .arg(qEnvironmentVariable("LEADER_TEST_PASSWORD"),
                                        qEnvironmentVariable("LEADER_TEST_HOST"))
                                   .arg(m_refusingPort.port())
                                   .arg(port, qs(m_db->name()))}
            << QStringList();
}

void TestLeaderctl::statusFindsTheDatabase()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    ensureMigrated();
    const Run run = leaderctl(arguments, environment);
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    // A header, one line per role in the documented order, and the database clock.
    QCOMPARE(lines.size(), 7);
    QVERIFY2(lines.first().startsWith("ROLE "), qPrintable(lines.first()));
    const QStringList roles = roleNames();
    for (int i = 0; i < roles.size(); ++i) {
        const QStringList cells = lines[i + 1].split(QStringLiteral("  "), Qt::SkipEmptyParts);
        QVERIFY2(cells.size() >= 2, qPrintable(lines[i + 1]));
        QCOMPARE(cells[0].trimmed(), roles[i]);
        QCOMPARE(cells[1].trimmed(), QStringLiteral("never ran"));
    }
    QVERIFY2(lines.last().startsWith("database clock: "), qPrintable(lines.last()));
    // ... and the server that answered.
    const QString port = m_db->viaPgBouncer() ? qEnvironmentVariable("LEADER_TEST_BOUNCER_PORT")
                                              : qEnvironmentVariable("LEADER_TEST_PG_PORT");
    const QString server
            = QStringLiteral(" on lt_monitor@%1:%2/%3")
                      .arg(qEnvironmentVariable("LEADER_TEST_HOST"), port, qs(m_db->name()));
    QVERIFY2(lines.last().endsWith(server), qPrintable(lines.last()));
}

void TestLeaderctl::statusJson()
{
    ensureMigrated();
    const QJsonArray roles = statusRoles();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(roles.size(), 5);
    const QStringList names = roleNames();
    for (int i = 0; i < roles.size(); ++i) {
        const QJsonObject role = roles[i].toObject();
        QCOMPARE(role.value("role").toString(), names[i]);
        QCOMPARE(role.value("state").toString(), QStringLiteral("never ran"));
        // Present and null, not missing: a consumer must tell "never ran" from a field it lacks.
        QVERIFY(role.contains("last_tick_age_s") && role.value("last_tick_age_s").isNull());
        QVERIFY(role.contains("holder_id") && role.value("holder_id").isNull());
        QVERIFY(role.value("holder_token").isDouble());
        QCOMPARE(role.value("early_take").toBool(false), true);
    }
}

void TestLeaderctl::pauseAndUnpause_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("by"); // empty: leaderctl's default
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("expectedBy");
    // The console's rule too (tst_pausedialog's defaultWhoIsUserAtHost has the same rows): the
    // login, "@", the host name up to its first dot. Checked to fail with leaderctl's former
    // rule (USER, else "operator", @ the full host name) on the rows without USER.
    const QString host = "@" + QSysInfo::machineHostName().section(u'.', 0, 0);
#ifdef Q_OS_WIN
    const QString account = QStringLiteral("operator"); // USERNAME unset, and no account entry
#else
    const QString account = QString::fromLocal8Bit(::getpwuid(::geteuid())->pw_name);
#endif
    // Not webhook_outbox nor webhook_delivery: severalRolesTimedPauseAndHistory reads a history
    // of webhook_outbox alone, in columns as wide as the longest role paused.
    QTest::newRow("--by given") << "email_outbox"
                                << "alice@ops" << QStringList{"USER=ops-tester"} << "alice@ops";
    QTest::newRow("--by defaults to USER@host")
            << "dunning"
            << "" << QStringList{"USER=ops-tester", "LOGNAME=other", "USERNAME"}
            << "ops-tester" + host;
    QTest::newRow("USER unset: LOGNAME@host")
            << "billing"
            << "" << QStringList{"USER", "LOGNAME=logname-tester", "USERNAME"}
            << "logname-tester" + host;
    QTest::newRow("USER empty: LOGNAME@host")
            << "email_outbox"
            << "" << QStringList{"USER=", "LOGNAME=logname-tester", "USERNAME"}
            << "logname-tester" + host;
    QTest::newRow("neither: the account@host")
            << "dunning"
            << "" << QStringList{"USER", "LOGNAME", "USERNAME"} << account + host;
}

void TestLeaderctl::pauseAndUnpause()
{
    QFETCH(QString, role);
    QFETCH(QString, by);
    QFETCH(QStringList, environment);
    QFETCH(QString, expectedBy);
    ensureMigrated();
    const QString reason = QStringLiteral("SMTP key rotation");
    QStringList arguments{"pause", role, "--reason", reason, "--database", url(Login::App)};
    if (!by.isEmpty())
        arguments << "--by" << by;
    const Run pause = leaderctl(arguments, environment);
    QVERIFY2(pause.finished && pause.exitCode == 0, qPrintable(pause.describe()));
    QVERIFY2(pause.out.startsWith("leaderctl: " + role + " paused at "), qPrintable(pause.out));
    QVERIFY2(pause.out.contains(" by " + expectedBy), qPrintable(pause.out));

    const Run table = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0, qPrintable(table.describe()));
    const QStringList lines = table.out.split(u'\n');
    const auto line = std::find_if(lines.begin(), lines.end(), [&](const QString &text) {
        return text.startsWith(role + " ");
    });
    QVERIFY2(line != lines.end(), qPrintable(table.out));
    QVERIFY2(line->contains(" paused ") && line->contains(expectedBy) && line->contains(reason),
             qPrintable(*line));

    QJsonArray roles = statusRoles();
    if (QTest::currentTestFailed())
        return;
    for (const QJsonValue &value : roles) {
        const QJsonObject entry = value.toObject();
        if (entry.value("role").toString() == role) {
            QCOMPARE(entry.value("state").toString(), QStringLiteral("paused"));
            QCOMPARE(entry.value("paused_by").toString(), expectedBy);
            QCOMPARE(entry.value("pause_reason").toString(), reason);
            QVERIFY(entry.value("paused_at").isString());
        } else {
            // A pause is per role.
            QCOMPARE(entry.value("state").toString(), QStringLiteral("never ran"));
        }
    }

    const Run unpause = leaderctl({"unpause", role, "--database", url(Login::App)});
    QVERIFY2(unpause.finished && unpause.exitCode == 0, qPrintable(unpause.describe()));
    QCOMPARE(unpause.out, "leaderctl: " + role + " unpaused\n");
    roles = statusRoles();
    if (QTest::currentTestFailed())
        return;
    for (const QJsonValue &value : roles) {
        QCOMPARE(value.toObject().value("state").toString(), QStringLiteral("never ran"));
        QVERIFY(value.toObject().value("paused_by").isNull());
    }

    const Run again = leaderctl({"unpause", role, "--database", url(Login::App)});
    QVERIFY2(again.finished && again.exitCode == 0, qPrintable(again.describe()));
    QCOMPARE(again.out, "leaderctl: " + role + " was not paused\n");
}

void TestLeaderctl::severalRolesTimedPauseAndHistory()
{
    ensureMigrated();
    const Run pause
            = leaderctl({"pause", "email_outbox", "webhook_outbox", "--reason", "SMTP key rotation",
                         "--by", "alice@ops", "--for", "1h", "--database", url(Login::App)});
    QVERIFY2(pause.finished && pause.exitCode == 0, qPrintable(pause.describe()));
    const QStringList lines = pause.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    for (const QString &line : lines)
        QVERIFY2(line.contains(" paused at ") && line.contains(" by alice@ops until "),
                 qPrintable(line));
    // leaderctl status shows the end and the time left (the database's arithmetic).
    for (const QJsonValue &value : statusRoles()) {
        const QJsonObject entry = value.toObject();
        if (entry.value("role").toString() != QLatin1String("email_outbox"))
            continue;
        QVERIFY(entry.value("paused_until").toString().endsWith(u'Z'));
        const double left = entry.value("pause_remaining_s").toDouble();
        QVERIFY2(left > 3500 && left <= 3600, qPrintable(QString::number(left)));
    }
    const Run table = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0 && table.out.contains("PAUSED UNTIL (UTC)"),
             qPrintable(table.describe()));

    // Already paused: the message credits the pause in force, not this caller.
    const Run again = leaderctl({"pause", "email_outbox", "--reason", "other", "--by", "bob",
                                 "--database", url(Login::App)});
    QVERIFY2(again.finished && again.exitCode == 0, qPrintable(again.describe()));
    QVERIFY2(again.out.contains("email_outbox was already paused at ")
                     && again.out.contains(" by alice@ops: SMTP key rotation until ")
                     && again.out.contains("nothing changed") && !again.out.contains("bob"),
             qPrintable(again.out));

    const Run unpause = leaderctl({"unpause", "email_outbox", "webhook_outbox", "--by", "carol",
                                   "--reason", "rotated", "--database", url(Login::App)});
    QVERIFY2(unpause.finished && unpause.exitCode == 0, qPrintable(unpause.describe()));
    QCOMPARE(unpause.out, QStringLiteral("leaderctl: email_outbox unpaused\n"
                                         "leaderctl: webhook_outbox unpaused\n"));

    // webhook_outbox: the one role no other case here pauses.
    const Run history = leaderctl({"history", "webhook_outbox", "--since", "1h", "--json",
                                   "--database", url(Login::Monitor)});
    QVERIFY2(history.finished && history.exitCode == 0, qPrintable(history.describe()));
    const QJsonArray entries
            = QJsonDocument::fromJson(history.out.toUtf8()).object().value("entries").toArray();
    QCOMPARE(entries.size(), 2); // newest first: the unpause, then the pause
    QCOMPARE(entries[0].toObject().value("action").toString(), QStringLiteral("unpause"));
    QCOMPARE(entries[0].toObject().value("by").toString(), QStringLiteral("carol"));
    QCOMPARE(entries[0].toObject().value("login").toString(), qs(loginName(Login::App)));
    QCOMPARE(entries[1].toObject().value("action").toString(), QStringLiteral("pause"));
    QVERIFY(entries[1].toObject().value("paused_until").isString());

    const Run historyTable = leaderctl({"history", "--database", url(Login::Monitor)});
    QVERIFY2(historyTable.finished && historyTable.exitCode == 0,
             qPrintable(historyTable.describe()));
    QVERIFY2(historyTable.out.startsWith("AT (UTC)")
                     && historyTable.out.contains("webhook_outbox  unpause"),
             qPrintable(historyTable.out));
}

// What each tick did (migration 0184): status shows the last tick and the hour's counts, a failed
// step and its error on a line under the table, and every field in --json.
void TestLeaderctl::lastTickInStatus()
{
    ensureMigrated();
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    owner.exec("forget ticks", "DELETE FROM leader_ext.leader_tick_last", {}, 5s);
    owner.exec("forget counts", "DELETE FROM leader_ext.leader_tick_counts", {}, 5s);
    m_db->connect(Login::App)
            .exec("record",
                  "SELECT leader_ext.leader_tick_record('billing', holder_token, 'vm:1:0000abcd', "
                  "'failed', NULL, 2250, 'billing > close period', 'nil row password=x') "
                  "FROM leader_leases WHERE role = 'billing'",
                  {}, 5s);
    const Run table = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0, qPrintable(table.describe()));
    const QStringList lines = table.out.split(u'\n');
    for (const char *header : {"OUTCOME", "TOOK s", "HOUR C/L/F"})
        QVERIFY2(lines.first().contains(header), qPrintable(table.out));
    const qsizetype outcome = lines.first().indexOf("OUTCOME");
    const qsizetype took = lines.first().indexOf("TOOK s");
    const qsizetype hour = lines.first().indexOf("HOUR C/L/F");
    const QString billing = lines.filter(QRegularExpression("^billing ")).value(0);
    QVERIFY2(billing.mid(outcome).startsWith("failed "), qPrintable(billing));
    QVERIFY2(billing.mid(took).startsWith("2.250 "), qPrintable(billing));
    QVERIFY2(billing.mid(hour).startsWith("0/0/1"), qPrintable(billing));
    QVERIFY2(table.out.contains("billing: last tick failed in step \"billing > close period\": nil "
                                "row password=***\n"),
             qPrintable(table.out));

    for (const QJsonValue &value : statusRoles()) {
        const QJsonObject role = value.toObject();
        if (role.value("role").toString() != "billing")
            continue;
        QCOMPARE(role.value("last_outcome").toString(), QStringLiteral("failed"));
        QVERIFY(role.value("last_loss_reason").isNull());
        QCOMPARE(role.value("last_duration_s").toDouble(), 2.25);
        QCOMPARE(role.value("last_failed_step").toString(),
                 QStringLiteral("billing > close period"));
        QCOMPARE(role.value("last_error").toString(), QStringLiteral("nil row password=***"));
        QCOMPARE(role.value("failed_last_hour").toInt(-1), 1);
        QCOMPARE(role.value("completed_last_hour").toInt(-1), 0);
    }
}

// How much work waits (migration 0186): the BACKLOG column with the count and the oldest age a
// role's source reports, "error" and a line under the table for a failing source, "-" without one;
// the same in --json; and the status alone, with the reason, when the backlog cannot be read.
void TestLeaderctl::backlogInStatus()
{
    ensureMigrated();
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto cleanUp = qScopeGuard([&owner] {
        owner.execScript("clean up", R"sql(
GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() TO hardcount_monitor;
SELECT leader_ext.leader_backlog_unregister(role) FROM leader_ext.leader_backlog_sources;
DROP FUNCTION IF EXISTS public.ctl_billing_backlog(), public.ctl_dunning_backlog();
)sql",
                         5s);
    });
    owner.execScript("sources", R"sql(
CREATE FUNCTION public.ctl_billing_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE sql STABLE AS $$ SELECT 12::bigint, now() - interval '185 seconds' $$;
CREATE FUNCTION public.ctl_dunning_backlog()
    RETURNS TABLE (pending bigint, oldest_pending_at timestamptz)
    LANGUAGE plpgsql STABLE AS $$ BEGIN RAISE EXCEPTION 'dunning queue down'; END $$;
SELECT leader_ext.leader_backlog_register('billing', 'public.ctl_billing_backlog()',
                                          'due subscriptions');
SELECT leader_ext.leader_backlog_register('dunning', 'public.ctl_dunning_backlog()', 'due runs');
)sql",
                     5s);
    const Run table = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0, qPrintable(table.describe()));
    const QStringList lines = table.out.split(u'\n');
    const qsizetype column = lines.first().indexOf("BACKLOG");
    QVERIFY2(column > 0, qPrintable(table.out));
    const auto cell = [&](const char *role) {
        return lines.filter(QRegularExpression(QStringLiteral("^%1 ").arg(role)))
                .value(0)
                .mid(column);
    };
    // Seconds on the database clock: now() is the statement's, both in the source and the age.
    QCOMPARE(cell("billing"), QStringLiteral("12 due subscriptions, oldest 3m05s"));
    QCOMPARE(cell("dunning"), QStringLiteral("error"));
    QCOMPARE(cell("email_outbox"), QStringLiteral("-"));
    QVERIFY2(table.out.contains("\ndunning: backlog source failed: P0001: dunning queue down\n"),
             qPrintable(table.out));

    const auto json = [this] {
        const Run run = leaderctl({"status", "--json", "--database", url(Login::Monitor)});
        [&] {
            QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        }();
        return QJsonDocument::fromJson(run.out.toUtf8()).object();
    };
    QJsonObject document = json();
    QVERIFY(document.contains("backlog_error") && document.value("backlog_error").isNull());
    for (const QJsonValue &value : document.value("roles").toArray()) {
        const QJsonObject role = value.toObject();
        const QString name = role.value("role").toString();
        QVERIFY2(role.contains("backlog"), qPrintable(name));
        const QJsonObject backlog = role.value("backlog").toObject();
        if (name == "billing") {
            QCOMPARE(backlog.value("what").toString(), QStringLiteral("due subscriptions"));
            QCOMPARE(backlog.value("pending").toInt(-1), 12);
            QCOMPARE(backlog.value("oldest_pending_age_seconds").toDouble(), 185.0);
            QVERIFY(backlog.value("error").isNull());
        } else if (name == "dunning") {
            QVERIFY(backlog.value("pending").isNull());
            QVERIFY(backlog.value("oldest_pending_age_seconds").isNull());
            QCOMPARE(backlog.value("error").toString(),
                     QStringLiteral("P0001: dunning queue down"));
        } else {
            QVERIFY2(role.value("backlog").isNull(), qPrintable(name));
        }
    }

    // The backlog refused to the monitor: the status still comes, the reason on one line.
    owner.exec("revoke",
               "REVOKE EXECUTE ON FUNCTION leader_ext.leader_backlog() FROM hardcount_monitor", {},
               5s);
    const Run refused = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(refused.finished && refused.exitCode == 0, qPrintable(refused.describe()));
    const QStringList refusedLines = refused.out.split(u'\n');
    QVERIFY2(refusedLines.value(1).startsWith("billing ")
                     && refusedLines.value(1)
                                .mid(refusedLines.first().indexOf("BACKLOG"))
                                .startsWith("error"),
             qPrintable(refused.out));
    QVERIFY2(refused.out.contains(
                     QRegularExpression("\nleaderctl: the backlog could not be read: [^\n]*"
                                        "permission denied for function leader_backlog[^\n]*\n")),
             qPrintable(refused.out));
    document = json();
    QVERIFY2(document.value("backlog_error").toString().contains("permission denied"),
             qPrintable(QJsonDocument(document).toJson()));
    QCOMPARE(document.value("roles").toArray().size(), 5);
}

// The early take's switch (migration 0180) without a deploy: all roles or the ones named, in one
// statement, shown by status as a column and in --json as a boolean.
void TestLeaderctl::earlyTakeSwitch()
{
    ensureMigrated();
    const auto restore = qScopeGuard([this] {
        leaderctl({"early-take", "on", "--database", url(Login::Owner)});
    });
    const Run off = leaderctl({"early-take", "off", "billing", "--database", url(Login::Owner)});
    QVERIFY2(off.finished && off.exitCode == 0, qPrintable(off.describe()));
    QCOMPARE(off.out, QStringLiteral("leaderctl: billing: early take off; its leases end at their "
                                     "expiry from now on\n"));
    const Run table = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0, qPrintable(table.describe()));
    const QStringList lines = table.out.split(u'\n');
    QVERIFY2(lines.first().contains("EARLY TAKE"), qPrintable(table.out));
    // The switch's column, by where its header starts (the last tick's columns follow it).
    const qsizetype column = lines.first().indexOf("EARLY TAKE");
    for (const QString &line : lines) {
        if (line.startsWith("billing "))
            QVERIFY2(line.mid(column).startsWith("off "), qPrintable(line));
        else if (line.startsWith("dunning "))
            QVERIFY2(line.mid(column).startsWith("on "), qPrintable(line));
    }
    const QJsonArray roles = statusRoles();
    if (QTest::currentTestFailed())
        return;
    for (const QJsonValue &value : roles)
        QCOMPARE(value.toObject().value("early_take").toBool(),
                 value.toObject().value("role").toString() != "billing");

    const Run again = leaderctl({"early-take", "off", "--database", url(Login::Owner)});
    QVERIFY2(again.finished && again.exitCode == 0, qPrintable(again.describe()));
    QCOMPARE(again.out.count(u'\n'), 5);
    QVERIFY2(again.out.contains("billing: early take off (it was already)"), qPrintable(again.out));
    const Run on = leaderctl({"early-take", "on", "all", "--database", url(Login::Owner)});
    QVERIFY2(on.finished && on.exitCode == 0, qPrintable(on.describe()));
    QVERIFY2(on.out.contains("leaderctl: webhook_delivery: early take on\n"), qPrintable(on.out));
}

// Three replicas registered through the app's function: one alive, one last seen 40 s ago (a kill
// of a replica without a marker, or of an earlier build), one whose marker session ended a moment
// ago: the table and the JSON say alive and gone as the view decides, on the monitor's login,
// with each replica's name (0182) in the appended NAME column.
// Two registered replicas, reporting as leader-replica's drain beat does: the guard for the last
// eligible replica, the audit, --wait's three endings, the monitor's refusal and undrain.
void TestLeaderctl::drainAndUndrain()
{
    ensureMigrated();
    leader::pg::Connection app = m_db->connect(Login::App);
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto cleanUp = qScopeGuard([&owner] {
        owner.execScript("clean up",
                         "DELETE FROM leader_ext.leader_replicas;"
                         " DELETE FROM leader_ext.leader_replica_drains;"
                         " TRUNCATE leader_ext.leader_drain_log",
                         5s);
    });
    const std::string a1 = "ctl-d:201:000000d1";
    leader::lease::replicaSeen(app,
                               {.holderId = a1,
                                .host = "ctl-d",
                                .pid = 201,
                                .version = "1.2.3",
                                .roles = {"billing", "dunning"},
                                .name = "a1"},
                               5s, {}, true);
    leader::lease::replicaSeen(app,
                               {.holderId = "ctl-d:202:000000d2",
                                .host = "ctl-d",
                                .pid = 202,
                                .version = "1.2.3",
                                .roles = {"billing"},
                                .name = "b2"},
                               5s, {}, true);
    const auto logged = [&owner] {
        return qs(owner.exec("log",
                             "SELECT coalesce(string_agg(name || ':' || action || ':' || login || "
                             "':' || by || ':' || reason || ':' || coalesce(array_to_string("
                             "forced, ','), '-'), ' ' ORDER BY id), '') "
                             "FROM leader_ext.leader_drain_log",
                             {}, 5s)
                          .text(0, 0));
    };
    const QString appLogin = qs(loginName(Login::App));

    Run run = leaderctl({"drain", "nobody", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("unknown replica 'nobody'") && run.err.count('\n') == 1,
             qPrintable(run.describe()));

    // a1 is the only replica of dunning.
    run = leaderctl({"drain", "a1", "--reason", "deploy", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 6);
    QVERIFY2(run.err.contains("leaves dunning with no eligible replica")
                     && run.err.contains("--force") && run.err.count('\n') == 1,
             qPrintable(run.describe()));
    QCOMPARE(logged(), QString());

    // Monitor: reads, never drains.
    run = leaderctl({"drain", "a1", "--force", "--database", url(Login::Monitor)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.count('\n') == 1 && run.err.contains("permission", Qt::CaseInsensitive),
             qPrintable(run.describe()));
    QCOMPARE(logged(), QString());

    run = leaderctl({"drain", "a1", "--force", "--reason", "deploy", "--by", "alice@ops",
                     "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("replica a1 drained at ") && run.out.contains(" by alice@ops")
                     && run.out.contains("forced: dunning now has no eligible replica"),
             qPrintable(run.describe()));
    QCOMPARE(logged(), QStringLiteral("a1:drain:%1:alice@ops:deploy:dunning").arg(appLogin));

    // Not reported yet, then still running billing: --wait times out naming it.
    run = leaderctl({"drain", "a1", "--wait", "--timeout", "500ms", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 7);
    QVERIFY2(run.out.contains("was already drained") && run.err.contains("has not reported"),
             qPrintable(run.describe()));
    leader::lease::drainBeat(app, a1, false, std::vector<std::string>{"billing"}, 5s);
    run = leaderctl({"drain", "a1", "--wait", "--timeout", "500ms", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 7);
    QVERIFY2(run.err.contains("is not drained after 500 ms; still running billing"),
             qPrintable(run.describe()));
    QCOMPARE(logged().count(':'), 5); // the repeated drains changed nothing

    // --wait returns once the replica reports it runs no tick.
    QProcess waiting;
    waiting.setProcessEnvironment(cleanEnvironment());
    waiting.start(QStringLiteral(LEADERCTL_PATH),
                  {"drain", "a1", "--wait", "--timeout", "20s", "--database", url(Login::App)});
    QVERIFY(waiting.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(waiting.canReadLine() || waiting.state() != QProcess::Running, 10000);
    QCOMPARE(waiting.state(), QProcess::Running);
    leader::lease::drainBeat(app, a1, false, std::vector<std::string>{}, 5s);
    QVERIFY(waiting.waitForFinished(10000));
    QCOMPARE(waiting.exitCode(), 0);
    const QString waited = QString::fromUtf8(waiting.readAllStandardOutput());
    QVERIFY2(waited.contains("replica a1 drained: it runs no tick"), qPrintable(waited));

    // The monitor reads what the console shows.
    leader::pg::Connection monitor = m_db->connect(Login::Monitor);
    QCOMPARE(qs(monitor.exec("read",
                             "SELECT drain || ' ' || drained_by || ' ' || drain_reason FROM "
                             "leader_ext.leader_replicas_status WHERE name = 'a1'",
                             {}, 5s)
                        .text(0, 0)),
             QStringLiteral("drained alice@ops deploy"));
    run = leaderctl({"replicas", "--database", url(Login::Monitor)});
    QVERIFY2(run.exitCode == 0 && run.out.contains("DRAIN") && run.out.contains(" drained ")
                     && run.out.contains("alice@ops"),
             qPrintable(run.describe()));
    run = leaderctl({"replicas", "--json", "--database", url(Login::Monitor)});
    QVERIFY2(run.out.contains(R"("name":"a1","marker_held":null,"drain":"drained",)"
                              R"("drained_by":"alice@ops","drain_reason":"deploy")"),
             qPrintable(run.describe()));

    run = leaderctl({"undrain", "a1", "--by", "alice@ops", "--reason", "deployed", "--database",
                     url(Login::App)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("replica a1 undrained"), qPrintable(run.describe()));
    run = leaderctl({"undrain", "a1", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("was not drained"), qPrintable(run.describe()));
    QVERIFY(logged().endsWith(QStringLiteral("a1:undrain:%1:alice@ops:deployed:-").arg(appLogin)));
}

void TestLeaderctl::drainBadInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrContains");
    QTest::newRow("no replica") << QStringList{"drain"} << 2 << "drain takes one replica";
    QTest::newRow("two replicas") << QStringList{"undrain", "a", "b"} << 2
                                  << "undrain takes one replica";
    QTest::newRow("timeout without wait")
            << QStringList{"drain", "a", "--timeout", "1s"} << 2 << "--timeout goes with --wait";
    QTest::newRow("timeout unreadable") << QStringList{"drain", "a", "--wait", "--timeout", "soon"}
                                        << 2 << "--timeout takes a whole number and a unit";
}

void TestLeaderctl::drainBadInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrContains);
    const Run run = leaderctl(arguments << "--database" << url(Login::App));
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(stderrContains) && run.err.count('\n') == 1,
             qPrintable(run.describe()));
}

// billing held by a holder that is only a row, b2 a registered replica running it: the refusals
// (exit 6 for a state, 1 for an unknown replica or the monitor), the audit, --wait's timeout, and
// --wait returning once b2 acquires, with the time from the handover.
void TestLeaderctl::handoverCommand()
{
    ensureMigrated();
    leader::pg::Connection app = m_db->connect(Login::App);
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto clear = [&owner] {
        owner.execScript("clean up",
                         "DELETE FROM leader_ext.leader_replicas;"
                         " TRUNCATE leader_ext.leader_handover_log;"
                         " UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL,"
                         " expires_at = NULL, last_tick_ended_at = NULL, not_before = NULL,"
                         " paused_at = NULL, paused_by = NULL, pause_reason = NULL,"
                         " paused_until = NULL, handover_token = NULL, handover_at = NULL,"
                         " handover_by = NULL, handover_reason = NULL, handover_from = NULL,"
                         " handover_to = NULL",
                         5s);
    };
    clear();
    const auto cleanUp = qScopeGuard(clear);
    const std::string b2 = "ctl-h:202:000000h2";
    leader::lease::replicaSeen(app,
                               {.holderId = b2,
                                .host = "ctl-h",
                                .pid = 202,
                                .version = "1.2.3",
                                .roles = {"billing"},
                                .name = "b2"},
                               5s, {}, true);
    const auto logged = [&owner] {
        return qs(owner.exec("log",
                             "SELECT coalesce(string_agg(role || ':' || login || ':' || by || ':'"
                             " || reason || ':' || coalesce(to_replica, '-'), ' ' ORDER BY id), '')"
                             " FROM leader_ext.leader_handover_log",
                             {}, 5s)
                          .text(0, 0));
    };
    Run run = leaderctl({"handover", "billing", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 6);
    QVERIFY2(run.err.contains("role billing is not held: nothing to hand over")
                     && run.err.count('\n') == 1,
             qPrintable(run.describe()));
    run = leaderctl({"handover", "billing", "--to", "nobody", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("unknown replica 'nobody'") && run.err.count('\n') == 1,
             qPrintable(run.describe()));
    run = leaderctl({"handover", "billing", "--to", "b2", "--database", url(Login::Monitor)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.count('\n') == 1 && run.err.contains("permission", Qt::CaseInsensitive),
             qPrintable(run.describe()));
    QCOMPARE(logged(), QString());

    // The holder is a replica of ours, in the registry: it takes the request.
    leader::lease::replicaSeen(app,
                               {.holderId = "ctl-h:201:000000h1",
                                .host = "ctl-h",
                                .pid = 201,
                                .version = "1.2.3",
                                .roles = {"billing"},
                                .name = "b1"},
                               5s, {}, true);
    owner.exec("held",
               "UPDATE leader_leases SET holder_id = 'ctl-h:201:000000h1',"
               " holder_token = holder_token + 1, acquired_at = now(),"
               " expires_at = now() + interval '1 minute' WHERE role = 'billing'",
               {}, 5s);
    run = leaderctl({"handover", "billing", "--to", "b2", "--reason", "deploy", "--by", "alice@ops",
                     "--wait", "--timeout", "500ms", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 7);
    QVERIFY2(run.out.contains("billing handed over at ") && run.out.contains(" by alice@ops")
                     && run.out.contains("ctl-h:201:000000h1 ends its tick at its next step")
                     && run.out.contains("replica b2 is preferred for the next tick")
                     && run.err.contains("no other holder acquired billing within 500 ms"),
             qPrintable(run.describe()));
    const QString appLogin = qs(loginName(Login::App));
    QCOMPARE(logged(), QStringLiteral("billing:%1:alice@ops:deploy:b2").arg(appLogin));

    // --wait returns once b2 acquires after the holder released.
    QProcess waiting;
    waiting.setProcessEnvironment(cleanEnvironment());
    waiting.start(QStringLiteral(LEADERCTL_PATH),
                  {"handover", "billing", "--to", "b2", "--wait", "--timeout", "20s", "--database",
                   url(Login::App)});
    QVERIFY(waiting.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(waiting.canReadLine() || waiting.state() != QProcess::Running, 10000);
    QCOMPARE(waiting.state(), QProcess::Running);
    owner.exec("released",
               "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL,"
               " expires_at = NULL WHERE role = 'billing'",
               {}, 5s);
    QVERIFY(!leader::lease::acquire(app, "billing", "ctl-h:203:000000h3", 60s, std::nullopt,
                                    nullptr,
                                    {.handovers = true, .handoversClearedByDatabase = true}));
    QVERIFY(leader::lease::acquire(app, "billing", b2, 60s, std::nullopt, nullptr,
                                   {.handovers = true, .handoversClearedByDatabase = true}));
    QVERIFY(waiting.waitForFinished(10000));
    QCOMPARE(waiting.exitCode(), 0);
    const QString waited = QString::fromUtf8(waiting.readAllStandardOutput());
    QVERIFY2(waited.contains(QStringLiteral("billing acquired by %1 ").arg(qs(b2)))
                     && waited.contains(" s after the handover"),
             qPrintable(waited));
}

// A replica that speaks only the ADR (its ACQUIRE and RELEASE as the ADR prints them, as the app)
// holds billing from outside the registry: status names it and says the hour's counts are ours
// only; a hand-over says it will not stop and when its tick should end; a drain of the replica of
// ours beside it is not refused, and says the role runs on outside it. With the outside holders'
// query answering nothing (lease::outsideHolders), the hand-over's line failed.
void TestLeaderctl::outsideHoldersAreNamed()
{
    ensureMigrated();
    leader::pg::Connection app = m_db->connect(Login::App);
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto clear = [&owner] {
        owner.execScript("clean up",
                         "DELETE FROM leader_ext.leader_replicas;"
                         " DELETE FROM leader_ext.leader_replica_drains;"
                         " DELETE FROM leader_ext.leader_outside_holders;"
                         " TRUNCATE leader_ext.leader_handover_log, leader_ext.leader_drain_log;"
                         " UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL,"
                         " expires_at = NULL, last_tick_ended_at = NULL, not_before = NULL,"
                         " handover_token = NULL, handover_at = NULL, handover_by = NULL,"
                         " handover_reason = NULL, handover_from = NULL, handover_to = NULL",
                         5s);
    };
    clear();
    const auto cleanUp = qScopeGuard(clear);
    leader::lease::replicaSeen(app,
                               {.holderId = "ctl-o:201:000000o1",
                                .host = "ctl-o",
                                .pid = 201,
                                .version = "1.2.3",
                                .roles = {"billing"},
                                .name = "o1"},
                               5s, {}, true);
    // One tick seen from its ACQUIRE to its RELEASE, so that the next one's end can be told.
    constexpr std::string_view Adr = "adr-h:7:0000adr1";
    QVERIFY(leader::test::adrTick(app, "billing", Adr));
    owner.exec("a longer tick",
               "UPDATE leader_ext.leader_outside_holders SET last_duration_seconds = 30", {}, 5s);
    QVERIFY(leader::test::adrAcquire(app, "billing", Adr));

    Run run = leaderctl({"status", "--database", url(Login::Monitor)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("billing: held by adr-h:7:0000adr1, outside the replica registry")
                     && run.out.contains("its last tick of the role lasted 30.000 s")
                     && run.out.contains("billing: the hour's counts are ours only")
                     && run.out.contains(" ours only "),
             qPrintable(run.describe()));
    run = leaderctl({"status", "--json", "--database", url(Login::Monitor)});
    QCOMPARE(run.exitCode, 0);
    const QJsonArray roles = QJsonDocument::fromJson(run.out.toUtf8())["roles"].toArray();
    QCOMPARE(roles[0]["role"].toString(), QStringLiteral("billing"));
    QCOMPARE(roles[0]["holder_outside"].toBool(), true);
    QCOMPARE(roles[0]["counts_ours_only"].toBool(), true);
    QCOMPARE(roles[1]["counts_ours_only"].toBool(), false);
    // A replica of ours that names no marker for now (its marker kept being ended) is named too.
    app.exec("early take off",
             "SELECT leader_ext.leader_replica_early_take_off('ctl-o:201:000000o1', 3600000, "
             "'the marker session was ended 2 times in 10 min')",
             {}, 5s);
    run = leaderctl({"status", "--database", url(Login::Monitor)});
    QVERIFY2(run.out.contains("early take off on o1 until ")
                     && run.out.contains(": the marker session was ended 2 times in 10 min; its "
                                         "leases end at their expiry only"),
             qPrintable(run.describe()));

    run = leaderctl({"handover", "billing", "--to", "o1", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("adr-h:7:0000adr1 is outside the replica registry and does not take "
                              "hand-over requests: its tick ends when its work does, about ")
                     && run.out.contains("(its last tick lasted 30.0 s)")
                     && run.out.contains("replica o1 is preferred for the next tick"),
             qPrintable(run.describe()));

    // o1 is the only replica of ours on billing, and theirs runs it: not refused.
    run = leaderctl({"drain", "o1", "--reason", "deploy", "--database", url(Login::App)});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("billing also runs on holders outside the registry, which take no "
                              "drain: adr-h:7:0000adr1 (holds it now)")
                     && !run.out.contains("runs nowhere"),
             qPrintable(run.describe()));
}

void TestLeaderctl::handoverBadInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("stderrContains");
    QTest::newRow("no role") << QStringList{"handover"} << "handover takes one role";
    QTest::newRow("unknown role") << QStringList{"handover", "nobody"} << "handover takes one role";
    QTest::newRow("two roles") << QStringList{"handover", "billing", "dunning"}
                               << "handover takes one role";
    QTest::newRow("empty --to") << QStringList{"handover", "billing", "--to="}
                                << "--to takes a replica's leader-replica --id";
    QTest::newRow("timeout without wait") << QStringList{"handover", "billing", "--timeout", "1s"}
                                          << "--timeout goes with --wait";
}

void TestLeaderctl::handoverBadInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, stderrContains);
    const Run run = leaderctl(arguments << "--database" << url(Login::App));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(stderrContains) && run.err.count('\n') == 1,
             qPrintable(run.describe()));
}

void TestLeaderctl::replicasListsAliveAndGone()
{
    ensureMigrated();
    leader::pg::Connection app = m_db->connect(Login::App);
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto cleanUp = qScopeGuard(
            [&owner] { owner.exec("clean up", "DELETE FROM leader_ext.leader_replicas", {}, 5s); });
    leader::lease::replicaSeen(app,
                               {.holderId = "ctl-a:101:0000000a",
                                .host = "ctl-a",
                                .pid = 101,
                                .version = "1.2.3",
                                .roles = {"billing", "dunning"},
                                .name = "a1"},
                               5s, {}, true);
    // An earlier replica's beat: no name.
    leader::lease::replicaSeen(app,
                               {.holderId = "ctl-b:102:0000000b",
                                .host = "ctl-b",
                                .pid = 102,
                                .version = "1.2.3",
                                .roles = {"email_outbox"}},
                               5s);
    owner.exec("as if killed",
               "UPDATE leader_ext.leader_replicas SET started_at = now() - interval '1 h', "
               "last_seen = now() - interval '40 s' WHERE holder_id = 'ctl-b:102:0000000b'",
               {}, 5s);
    // Killed a moment ago, with a marker: its last beat is fresh, its marker session ended. This
    // leaderctl never saw the marker held (checked once: without 0182's record of the marker it
    // reads alive).
    {
        const std::string holder = "ctl-c:103:0000000c";
        leader::pg::Connection marker = m_db->connectDirect(Login::App);
        const std::int64_t key
                = marker.exec("marker",
                              "SELECT k, pg_advisory_lock(k) FROM (SELECT ($1::bigint << 32) | "
                              "pg_backend_pid() AS k) s",
                              {leader::lease::WakeListener::sessionKeyPrefix(holder)}, 5s)
                          .toInt64(0, 0);
        leader::lease::replicaSeen(app,
                                   {.holderId = holder,
                                    .host = "ctl-c",
                                    .pid = 103,
                                    .version = "1.2.3",
                                    .roles = {"billing"},
                                    .name = "c3",
                                    .markerSession = key},
                                   5s, {}, true);
        marker.close();
        QTRY_VERIFY_WITH_TIMEOUT(owner.exec("backend",
                                            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                                            {key & 0xffffffff}, 5s)
                                                 .toInt64(0, 0)
                                         == 0,
                                 5000);
    }

    const Run table = leaderctl({"replicas", "--database", url(Login::Monitor)});
    QVERIFY2(table.finished && table.exitCode == 0, qPrintable(table.describe()));
    QVERIFY2(table.err.isEmpty(), qPrintable(table.err));
    const QStringList lines = table.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5); // a header, three replicas, the database clock
    // NAME, then DRAIN and DRAINED BY (0183), are appended, so the columns before them are where
    // scripts found them.
    QVERIFY2(lines[0].startsWith("HOLDER ") && lines[0].contains("SEEN AGO s")
                     && lines[0].contains("STATE  NAME  DRAIN")
                     && lines[0].trimmed().endsWith("DRAINED BY"),
             qPrintable(lines[0]));
    const auto cells = [](const QString &line) {
        QStringList trimmed;
        for (const QString &cell : line.split(QStringLiteral("  "), Qt::SkipEmptyParts))
            trimmed << cell.trimmed();
        return trimmed;
    };
    const QStringList alive = cells(lines[1]);
    QCOMPARE(alive.size(), 12);
    QCOMPARE(alive.first(), QStringLiteral("ctl-a:101:0000000a"));
    QVERIFY2(alive.contains("billing,dunning") && alive.contains("101"), qPrintable(lines[1]));
    QCOMPARE(alive.at(8), QStringLiteral("alive"));
    QCOMPARE(alive.at(9), QStringLiteral("a1"));
    QCOMPARE(alive.last(), QStringLiteral("-")); // not drained
    const QStringList gone = cells(lines[2]);
    QCOMPARE(gone.first(), QStringLiteral("ctl-b:102:0000000b"));
    QCOMPARE(gone.at(8), QStringLiteral("gone"));
    QCOMPARE(gone.at(9), QStringLiteral("-"));
    const QStringList killed = cells(lines[3]);
    QCOMPARE(killed.first(), QStringLiteral("ctl-c:103:0000000c"));
    QCOMPARE(killed.at(8), QStringLiteral("gone"));
    QCOMPARE(killed.at(9), QStringLiteral("c3"));
    QVERIFY2(lines[4].startsWith("database clock: "), qPrintable(lines[4]));

    const Run json = leaderctl({"replicas", "--json", "--database", url(Login::Monitor)});
    QVERIFY2(json.finished && json.exitCode == 0, qPrintable(json.describe()));
    QJsonParseError error;
    const QJsonObject document = QJsonDocument::fromJson(json.out.toUtf8(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(json.out));
    QCOMPARE(document.value("available").toBool(), true);
    QVERIFY(document.value("observed_at").isString());
    const QJsonArray replicas = document.value("replicas").toArray();
    QCOMPARE(replicas.size(), 3);
    const QJsonObject first = replicas[0].toObject();
    QCOMPARE(first.value("holder_id").toString(), QStringLiteral("ctl-a:101:0000000a"));
    QCOMPARE(first.value("pid").toInt(), 101);
    QCOMPARE(first.value("version").toString(), QStringLiteral("1.2.3"));
    QCOMPARE(first.value("roles").toVariant().toStringList(), (QStringList{"billing", "dunning"}));
    QCOMPARE(first.value("state").toString(), QStringLiteral("alive"));
    QCOMPARE(first.value("name").toString(), QStringLiteral("a1"));
    QVERIFY(first.value("marker_held").isNull());
    QVERIFY(first.value("last_seen_age_s").toDouble() < 30);
    const QJsonObject second = replicas[1].toObject();
    QCOMPARE(second.value("state").toString(), QStringLiteral("gone"));
    QVERIFY(second.value("name").isNull());
    QVERIFY(second.value("last_seen_age_s").toDouble() >= 40);
    QVERIFY(second.value("started_at").toString() < second.value("last_seen").toString());
    const QJsonObject third = replicas[2].toObject();
    QCOMPARE(third.value("state").toString(), QStringLiteral("gone"));
    QCOMPARE(third.value("name").toString(), QStringLiteral("c3"));
    QCOMPARE(third.value("marker_held").toBool(true), false);
    QVERIFY(third.value("last_seen_age_s").toDouble() < 30);
}

void TestLeaderctl::replicasOnAnOlderSchema_data()
{
    QTest::addColumn<bool>("withLeaseSchema"); // 0174 to 0177, else nothing at all
    QTest::addColumn<bool>("json");
    QTest::addColumn<QString>("expected");
    const QString needs
            = QStringLiteral("the replica registry needs the extension leader_ext 0178");
    const QString lacks = QStringLiteral("lacks ADR-114's migration 0174");
    QTest::newRow("before 0178") << true << false << needs;
    QTest::newRow("before 0178, --json") << true << true << needs;
    QTest::newRow("no lease schema") << false << false << lacks;
}

// A database without the registry: what it needs and how to add it, in one line on stderr, and the
// exit code of a schema problem, --json or not.
void TestLeaderctl::replicasOnAnOlderSchema()
{
    QFETCH(bool, withLeaseSchema);
    QFETCH(bool, json);
    QFETCH(QString, expected);
    ensureMigrated();
    leader::pg::Connection owner = m_db->connect(Login::Owner);
    leader::schema::Migrator migrator(owner);
    const auto restore = qScopeGuard([&migrator] {
        migrator.migrate(
                {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
    });
    QCOMPARE(migrator.rollbackTo(178),
             (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183, 182, 181, 180, 179, 178}));
    const QString database = withLeaseSchema ? url(Login::Monitor) : qs(m_empty->url(Login::Owner));
    QStringList arguments{"replicas", "--database", database};
    if (json)
        arguments << "--json";
    const Run run = leaderctl(arguments);
    QVERIFY2(run.finished && run.exitCode == 3, qPrintable(run.describe()));
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    QCOMPARE(run.err.count(u'\n'), 1);
    QVERIFY2(run.err.startsWith("leaderctl: ") && run.err.contains(expected)
                     && run.err.contains("leaderctl migrate"),
             qPrintable(run.err));
}

void TestLeaderctl::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("stderrContains");

    const QString wrongPassword
            = url(Login::Owner)
                      .replace(qEnvironmentVariable("LEADER_TEST_PASSWORD"), WrongPassword);
    const QString closedPort = QStringLiteral("127.0.0.1:%1").arg(m_refusingPort.port());
    const QString nowhere = "postgresql://lt_owner:" + WrongPassword + "@" + closedPort + "/x";
    const QString port = m_db->viaPgBouncer() ? qEnvironmentVariable("LEADER_TEST_BOUNCER_PORT")
                                              : qEnvironmentVariable("LEADER_TEST_PG_PORT");

    QTest::newRow("unresolvable host")
            << QStringList{"status", "--database",
                           "postgresql://lt_owner:" + WrongPassword + "@no-such-host.invalid/x"}
            << QStringList() << 4
            << QStringList{"no-such-host.invalid", "check the host name in the URL"};
    QTest::newRow("closed port") << QStringList{"status", "--database", nowhere} << QStringList()
                                 << 4 << QStringList{"lt_owner@" + closedPort + "/x"};
    // A host list is named server by server, as libpq tried them.
    QTest::newRow("host list, every port closed")
            << QStringList{"status", "--database",
                           QStringLiteral("postgresql://lt_owner:%1@%2,%2/x"
                                          "?target_session_attrs=read-write")
                                   .arg(WrongPassword, closedPort)}
            << QStringList() << 4
            << QStringList{"cannot connect to lt_owner@" + closedPort + "," + closedPort + "/x"};
    QTest::newRow("wrong password")
            << QStringList{"status", "--database", wrongPassword} << QStringList() << 4
            << QStringList{"authentication failed", "check the user and password"};
    QTest::newRow("wrong PGPASSWORD")
            << QStringList{"status"}
            << QStringList{"PGHOST=" + qEnvironmentVariable("LEADER_TEST_HOST"), "PGPORT=" + port,
                           "PGUSER=lt_owner", "PGPASSWORD=" + WrongPassword,
                           "PGDATABASE=" + qs(m_db->name())}
            << 4 << QStringList{"authentication failed", "check the user and password"};
    QTest::newRow("status without the schema")
            << QStringList{"status", "--database", qs(m_empty->url(Login::Owner))} << QStringList()
            << 3 << QStringList{"lacks ADR-114's migration 0174", "leaderctl migrate"};
    QTest::newRow("pause without the schema")
            << QStringList{"pause", "billing",    "--reason",
                           "x",     "--database", qs(m_empty->url(Login::App))}
            << QStringList() << 3
            << QStringList{"lacks ADR-114's migration 0174", "leaderctl migrate"};
    QTest::newRow("status as a login without grants")
            << QStringList{"status", "--database", url(Login::Nobody)} << QStringList() << 1
            << QStringList{"permission denied", "42501", "hardcount_monitor"};
    QTest::newRow("pause as the monitor login")
            << QStringList{"pause", "billing", "--reason", "x", "--database", url(Login::Monitor)}
            << QStringList() << 1 << QStringList{"leader_pause", "42501", "hardcount_app"};
    QTest::newRow("pause an unknown role")
            << QStringList{"pause", "accounting", "--reason", "x", "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"unknown role 'accounting'", "billing, dunning"};
    QTest::newRow("unpause an unknown role")
            << QStringList{"unpause", "accounting", "--database", url(Login::App)} << QStringList()
            << 2 << QStringList{"unknown role 'accounting'"};
    QTest::newRow("early-take without on or off")
            << QStringList{"early-take", "billing", "--database", url(Login::Owner)}
            << QStringList() << 2 << QStringList{"early-take takes on or off"};
    QTest::newRow("early-take for an unknown role")
            << QStringList{"early-take", "off", "accounting", "--database", url(Login::Owner)}
            << QStringList() << 2 << QStringList{"unknown role 'accounting'"};
    QTest::newRow("early-take as the monitor login")
            << QStringList{"early-take", "off", "--database", url(Login::Monitor)} << QStringList()
            << 1 << QStringList{"permission denied", "42501"};
    QTest::newRow("early-take without the schema")
            << QStringList{"early-take", "off", "--database", qs(m_empty->url(Login::Owner))}
            << QStringList() << 3
            << QStringList{"lacks ADR-114's migration 0174", "leaderctl migrate"};
    QTest::newRow("pause without a role")
            << QStringList{"pause", "--reason", "x", "--database", url(Login::App)} << QStringList()
            << 2 << QStringList{"pause takes one or more roles"};
    QTest::newRow("--print-sql in an unknown format")
            << QStringList{"migrate", "--print-sql", "--format", "liquibase"} << QStringList() << 2
            << QStringList{"unknown --format 'liquibase'", "sql-migrate, golang-migrate"};
    QTest::newRow("--print-sql to an ADR migration")
            << QStringList{"migrate", "--print-sql", "--to", "0175"} << QStringList() << 2
            << QStringList{"--to 0175 is no extension migration", "0176 to 0190"};
    QTest::newRow("--print-sql --down for sql-migrate")
            << QStringList{"migrate", "--print-sql", "--format", "sql-migrate", "--down"}
            << QStringList() << 2 << QStringList{"files hold both directions"};
    QTest::newRow("--print-sql with a database")
            << QStringList{"migrate", "--print-sql", "--database", url(Login::Owner)}
            << QStringList() << 2 << QStringList{"needs no database"};
    QTest::newRow("--format without --print-sql")
            << QStringList{"migrate", "--format", "goose", "--database", url(Login::Owner)}
            << QStringList() << 2 << QStringList{"go with --print-sql"};
    QTest::newRow("pause with a typo among several roles")
            << QStringList{"pause", "billing",    "biling",       "--reason",
                           "x",     "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"unknown role 'biling'"};
    QTest::newRow("--for without a unit")
            << QStringList{"pause", "billing", "--reason",   "x",
                           "--for", "60",      "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"--for takes a whole number and a unit"};
    QTest::newRow("--for and --until")
            << QStringList{"pause", "billing", "--reason",   "x",          "--for",
                           "1h",    "--until", "2999-01-01", "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"not both"};
    QTest::newRow("--until in the past")
            << QStringList{"pause",   "billing",           "--reason",   "x",
                           "--until", "2000-01-01 00:00Z", "--database", url(Login::App)}
            << QStringList() << 1 << QStringList{"give an instant after now", "22023"};
    QTest::newRow("history since something unreadable")
            << QStringList{"history", "--since", "last tuesday-ish", "--database", url(Login::App)}
            << QStringList() << 1 << QStringList{"22007"};
    QTest::newRow("replicas as a login without grants")
            << QStringList{"replicas", "--database", url(Login::Nobody)} << QStringList() << 1
            << QStringList{"permission denied", "42501"};
    QTest::newRow("replicas with an argument")
            << QStringList{"replicas", "billing", "--database", url(Login::Monitor)}
            << QStringList() << 2 << QStringList{"replicas takes no argument"};
    QTest::newRow("pause without --reason")
            << QStringList{"pause", "billing", "--database", url(Login::App)} << QStringList() << 2
            << QStringList{"--reason"};
    QTest::newRow("--reason without its value")
            << QStringList{"pause", "billing", "--database", url(Login::App), "--reason"}
            << QStringList() << 2 << QStringList{"--reason needs a value"};
    QTest::newRow("unknown command")
            << QStringList{"frobnicate", "--database", url(Login::App)} << QStringList() << 2
            << QStringList{"unknown command 'frobnicate'", "--help"};
    QTest::newRow("unknown option") << QStringList{"status", "--jsn", "--database", url(Login::App)}
                                    << QStringList() << 2 << QStringList{"unknown option --jsn"};
    QTest::newRow("no command") << QStringList() << QStringList() << 2
                                << QStringList{"no command given"};
    // The database's bounds (0190), before anything connects; characters, not bytes, and the
    // text never echoed (a 100 KB --to came back in a 100,140-character error).
    QTest::newRow("--reason of 501 characters")
            << QStringList{"pause",      "billing",      "--reason", QString(501, u'é'),
                           "--database", url(Login::App)}
            << QStringList() << 2
            << QStringList{"--reason is 501 characters long; at most 500 are taken"};
    QTest::newRow("--by of 100 KB")
            << QStringList{"pause",      "billing",      "--reason",
                           "x",          "--by",         QString(100000, u'x'),
                           "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"--by is 100000 characters long"};
    QTest::newRow("--to of 100 KB")
            << QStringList{"handover",   "billing",      "--to", QString(100000, u'r'),
                           "--database", url(Login::App)}
            << QStringList() << 2 << QStringList{"--to is 100000 characters long; at most 128"};
    QTest::newRow("a replica name of 129 characters")
            << QStringList{"drain", QString(129, u'r'), "--database", url(Login::App)}
            << QStringList() << 2
            << QStringList{"a role or replica name is 129 characters long; at most 128"};
}

void TestLeaderctl::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(int, exitCode);
    QFETCH(QStringList, stderrContains);
    ensureMigrated();
    const Run run = leaderctl(arguments, environment);
    QVERIFY2(run.finished, qPrintable(run.describe()));
    // A crash (an uncaught exception aborts) is a CrashExit; a stack trace is more than one line.
    QCOMPARE(run.exitStatus, QProcess::NormalExit);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    QVERIFY2(run.err.startsWith("leaderctl: ") && run.err.endsWith(u'\n')
                     && run.err.count(u'\n') == 1,
             qPrintable(run.err));
    QVERIFY2(run.err.size() < 1000, qPrintable(run.err.left(200)));
    for (const QString &expected : stderrContains)
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
    for (const QString &secret : {WrongPassword, qEnvironmentVariable("LEADER_TEST_PASSWORD")})
        QVERIFY2(!QString(run.out + run.err).contains(secret), qPrintable(run.err));
}

// migrate --print-sql --out as the review of issue 51 found it: root's files went into a directory
// another local user had made, through a link planted there, and stayed theirs to edit before the
// owner ran them. Now DIR is made 0700 and each file 0600; a DIR that is a link, another user's or
// writable by others, and any existing file, are refused in one line (exit 1) and left as they
// were. Checked to fail with the printSql of before (create_directories, and an std::ofstream that
// truncated whatever the path led to): every row.
void TestLeaderctl::printSqlOut_data()
{
    QTest::addColumn<QString>("setup"); // what stands at --out before leaderctl runs
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("stderrContains");
    const QStringList exists{"0176_pause_notify.up.sql: it exists already (a file or a link)",
                             "choose a new --out directory"};
    QTest::newRow("nothing: made 0700, files 0600") << "nothing" << 0 << QStringList();
    QTest::newRow("the caller's own empty 0700 directory") << "own" << 0 << QStringList();
    QTest::newRow("a file of a name it writes") << "file" << 1 << exists;
    QTest::newRow("a link planted as a name it writes") << "planted link" << 1 << exists;
    QTest::newRow("a directory writable by all (0777)")
            << "0777" << 1 << QStringList{"it is writable by its group or by others"};
    QTest::newRow("a directory of another user (nobody, 0755)")
            << "nobody" << 1 << QStringList{"it belongs to another user"};
    QTest::newRow("a link to a directory")
            << "link" << 1 << QStringList{"it is a symbolic link", "choose a new directory"};
}

void TestLeaderctl::printSqlOut()
{
#ifdef Q_OS_WIN
    QSKIP("POSIX owners, modes and links");
#else
    QFETCH(QString, setup);
    QFETCH(int, exitCode);
    QFETCH(QStringList, stderrContains);
    QTemporaryDir parent;
    QVERIFY(parent.isValid());
    const QString out = parent.filePath("out");
    const QString first = out + "/0176_pause_notify.up.sql";
    // Where the planted links lead, with a file that is not leaderctl's to change.
    const QString elsewhere = parent.filePath("elsewhere");
    const QString victim = elsewhere + "/victim";
    const QByteArray kept = "-- not leaderctl's\n";
    const auto contents = [](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
    };
    const auto writeKept = [&kept](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::WriteOnly) && file.write(kept) == kept.size();
    };
    const auto entries = [](const QString &path) {
        return QDir(path).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System
                                    | QDir::Hidden);
    };
    QVERIFY(QDir().mkpath(elsewhere) && writeKept(victim));
    if (setup != "nothing" && setup != "link")
        QVERIFY(::mkdir(qPrintable(out), 0700) == 0);
    if (setup == "file") {
        QVERIFY(writeKept(first));
    } else if (setup == "planted link") {
        QVERIFY(::symlink(qPrintable(victim), qPrintable(first)) == 0);
    } else if (setup == "0777") {
        QVERIFY(::chmod(qPrintable(out), 0777) == 0);
    } else if (setup == "nobody") {
        if (::geteuid() != 0)
            QSKIP("only root can give a directory to nobody");
        const passwd *nobody = ::getpwnam("nobody");
        QVERIFY(nobody);
        QVERIFY(::chmod(qPrintable(out), 0755) == 0
                && ::chown(qPrintable(out), nobody->pw_uid, nobody->pw_gid) == 0);
    } else if (setup == "link") {
        QVERIFY(::symlink(qPrintable(elsewhere), qPrintable(out)) == 0);
    }

    const Run run = leaderctl({"migrate", "--print-sql", "--out", out});
    QVERIFY2(run.finished && run.exitStatus == QProcess::NormalExit, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, exitCode);
    struct stat status = {};
    if (exitCode == 0) {
        QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
        QVERIFY(::lstat(qPrintable(out), &status) == 0 && S_ISDIR(status.st_mode));
        QCOMPARE(status.st_mode & 07777, 0700U);
        const QStringList files = entries(out);
        QVERIFY2(files.contains("0176_pause_notify.up.sql"), qPrintable(files.join(' ')));
        QCOMPARE(run.out.count("leaderctl: wrote "), files.size());
        for (const QString &file : files) {
            QVERIFY(::lstat(qPrintable(out + '/' + file), &status) == 0);
            QVERIFY2(S_ISREG(status.st_mode) && (status.st_mode & 07777) == 0600,
                     qPrintable(file + QStringLiteral(": mode %1").arg(status.st_mode, 0, 8)));
        }
    } else {
        QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
        QVERIFY2(run.err.startsWith("leaderctl: ") && run.err.count(u'\n') == 1
                         && run.err.contains(out),
                 qPrintable(run.err));
        for (const QString &expected : stderrContains)
            QVERIFY2(run.err.contains(expected), qPrintable(run.err));
    }
    // What stood there is as it was: the file, the link's target, the directory it led to.
    QCOMPARE(contents(victim), kept);
    QCOMPARE(entries(elsewhere), QStringList{"victim"});
    if (setup == "file")
        QCOMPARE(contents(first), kept);
    if (setup == "0777" || setup == "nobody")
        QCOMPARE(entries(out), QStringList());
#endif
}

void TestLeaderctl::demoStartsMigratesRunsAndStopsItsCluster()
{
    // Under /tmp so that, when the test runs as root, the server's own account can reach it.
    QTemporaryDir parent(QDir::tempPath() + "/leaderctl-demo-XXXXXX");
    QVERIFY(parent.isValid());
    QFile::setPermissions(parent.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                                 | QFileDevice::ExeOwner | QFileDevice::ExeGroup
                                                 | QFileDevice::ExeOther);
    const QString directory = parent.filePath("cluster");
    for (const bool firstRun : {true, false}) {
        const Run run = leaderctl({"demo", "--dir", directory});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        // The first run creates and migrates the cluster; the second reuses it as it is.
        QCOMPARE(run.out.contains("applied migration 0174 leader_leases"), firstRun);
        QCOMPARE(run.out.contains("is up to date"), !firstRun);
        QCOMPARE(run.out.count("never ran"), 5);
        QVERIFY2(run.out.contains("demo cluster stopped"), qPrintable(run.describe()));
        QVERIFY(!QFile::exists(directory + "/data/postmaster.pid"));
    }

    // The whole demo in the terminal for two seconds: the replicas lead, the stop releases, the
    // audit holds, the cluster is stopped again.
    const Run run
            = leaderctl({"demo", "--run", "--dir", directory, "--replicas", "2", "--seconds", "2"});
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains(
                     QRegularExpression(QStringLiteral(" r[12] +billing +acquired token "))),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("--seconds 2: stopping the demo"), qPrintable(run.out));
    const QRegularExpressionMatch audit
            = QRegularExpression(QStringLiteral("audit: (\\d+) of (\\d+) invariants hold"))
                      .match(run.out);
    QVERIFY2(audit.hasMatch() && audit.captured(1) == audit.captured(2), qPrintable(run.out));
    QVERIFY2(run.out.contains("demo stopped in"), qPrintable(run.out));
    QVERIFY(!QFile::exists(directory + "/data/postmaster.pid"));
}

// Issue 31, finding 8: `demo --keep-running` said the cluster keeps running, then stopped it on
// the way out. Now it outlives leaderctl until `demo --stop`. Checked to fail with
// Cluster::detach() a no-op (the connection after leaderctl's exit was refused).
void TestLeaderctl::demoKeepRunningOutlivesLeaderctlUntilStop()
{
    const DemoDirectory demoDirectory("keep");
    QVERIFY(demoDirectory.isValid());
    const QString directory = demoDirectory.path();

    const Run kept = leaderctl({"demo", "--keep-running", "--dir", directory});
    QVERIFY2(kept.finished && kept.exitCode == 0, qPrintable(kept.describe()));
    QVERIFY2(kept.out.contains("the cluster keeps running")
                     && kept.out.contains("stop it with: leaderctl demo --stop --dir '" + directory
                                          + "'"),
             qPrintable(kept.out));
    const QRegularExpressionMatch psql
            = QRegularExpression(QStringLiteral("connect with: psql '([^']+)'")).match(kept.out);
    QVERIFY2(psql.hasMatch(), qPrintable(kept.out));
    const std::string url = psql.captured(1).toStdString();

    // leaderctl has exited; the server answers on the URL it printed.
    std::int64_t leases = 0;
    QString refused;
    try {
        leader::pg::Connection connection({.url = url, .applicationName = "tst_leaderctl"});
        connection.open();
        leases = connection.exec("probe", "SELECT count(*) FROM leader_leases", {}, 5s)
                         .toInt64(0, 0);
    } catch (const leader::pg::Error &error) {
        refused = QString::fromStdString(error.what());
    }
    QVERIFY2(refused.isEmpty(), qPrintable(refused));
    QCOMPARE(leases, 5);

    const Run stopped = leaderctl({"demo", "--stop", "--dir", directory});
    QVERIFY2(stopped.finished && stopped.exitCode == 0, qPrintable(stopped.describe()));
    QVERIFY2(stopped.out.contains("stopped"), qPrintable(stopped.out));
    QVERIFY(!QFile::exists(directory + "/data/postmaster.pid"));
    leader::pg::Connection gone({.url = url, .applicationName = "tst_leaderctl"});
    QVERIFY_THROWS_EXCEPTION(leader::pg::Error, gone.open());

    const Run again = leaderctl({"demo", "--stop", "--dir", directory});
    QVERIFY2(again.finished && again.exitCode == 0, qPrintable(again.describe()));
    QVERIFY2(again.out.contains("no demo cluster runs in"), qPrintable(again.out));
}

// Before PostgreSQL 15 every login may CREATE in public, and the migrator refuses such a schema
// (docs/security.md). The demo's database is the project's own, so the demo closes it itself:
// here public is opened as 14 has it and the last migration is pending again. Checked once to
// fail without the REVOKE in engine/sim/demo/bootstrap.cpp (leaderctl demo then exits 3 with the
// migrator's "REVOKE CREATE ON SCHEMA public FROM PUBLIC" line).
void TestLeaderctl::demoClosesItsPublicSchemaBeforeMigrating()
{
    const DemoDirectory demoDirectory("public");
    QVERIFY(demoDirectory.isValid());
    const QString directory = demoDirectory.path();
    const QRegularExpression connectWith(QStringLiteral("connect with: psql '([^']+)'"));

    const Run first = leaderctl({"demo", "--keep-running", "--dir", directory});
    QVERIFY2(first.finished && first.exitCode == 0, qPrintable(first.describe()));
    const QRegularExpressionMatch psql = connectWith.match(first.out);
    QVERIFY2(psql.hasMatch(), qPrintable(first.out));
    const std::string url = psql.captured(1).toStdString();
    const int latest = leader::schema::embeddedMigrations().back().version;
    {
        leader::pg::Connection superuser({.url = url, .applicationName = "tst_leaderctl"});
        superuser.open();
        leader::schema::Migrator(superuser).rollbackTo(latest);
        superuser.exec("open public", "GRANT CREATE ON SCHEMA public TO PUBLIC", {}, 5s);
    }
    const Run stopped = leaderctl({"demo", "--stop", "--dir", directory});
    QVERIFY2(stopped.finished && stopped.exitCode == 0, qPrintable(stopped.describe()));

    const Run again = leaderctl({"demo", "--keep-running", "--dir", directory});
    QVERIFY2(again.finished && again.exitCode == 0, qPrintable(again.describe()));
    const QRegularExpressionMatch psqlAgain = connectWith.match(again.out); // a port of its own
    QVERIFY2(psqlAgain.hasMatch(), qPrintable(again.out));
    leader::pg::Connection superuser(
            {.url = psqlAgain.captured(1).toStdString(), .applicationName = "tst_leaderctl"});
    superuser.open();
    const leader::pg::Result state
            = superuser.exec("public and the latest migration",
                             "SELECT has_schema_privilege('public', 'public', 'CREATE'), "
                             "EXISTS (SELECT FROM leader_ext.migrations WHERE version = $1)",
                             {std::to_string(latest)}, 5s);
    QCOMPARE(state.text(0, 0), std::string("f"));
    QCOMPARE(state.text(0, 1), std::string("t"));
}

void TestLeaderctl::auditOnTheDemoSchema()
{
    TestDatabase demo("leaderctl_audit");
    const Run before = leaderctl({"audit", "--database", qs(demo.url(Login::App))});
    QVERIFY2(before.finished && before.exitCode == 3, qPrintable(before.describe()));
    QVERIFY2(before.err.contains("leaderctl migrate --demo") && before.err.count(u'\n') == 1,
             qPrintable(before.err));

    const Run migrate = leaderctl({"migrate", "--demo", "--database", qs(demo.url(Login::Owner))});
    QVERIFY2(migrate.finished && migrate.exitCode == 0, qPrintable(migrate.describe()));
    QVERIFY2(migrate.out.contains("applying migration 0174")
                     && migrate.out.contains("applying migration 1001 demo_domain"),
             qPrintable(migrate.out));

    const Run clean = leaderctl({"audit", "--database", qs(demo.url(Login::App))});
    QVERIFY2(clean.finished && clean.exitCode == 0, qPrintable(clean.describe()));
    QVERIFY2(clean.err.isEmpty(), qPrintable(clean.err));
    QVERIFY2(clean.out.startsWith("billing\n") && !clean.out.contains(QChar(0x2717))
                     && clean.out.contains(QChar(0x2713) + QStringLiteral(" no row claimed"))
                     && clean.out.endsWith("audit: 13 of 13 invariants hold\n"),
             qPrintable(clean.out));

    // A claim under a token lower than one the role already claimed with.
    leader::pg::Connection owner = demo.connect(Login::Owner);
    owner.exec("plant",
               "INSERT INTO claim_log (role, token, item) VALUES ('email_outbox', 8, "
               "'email:1'), ('email_outbox', 7, 'email:2')",
               {}, 5s);
    const Run broken = leaderctl({"audit", "--database", qs(demo.url(Login::App))});
    QVERIFY2(broken.finished && broken.exitCode == 5, qPrintable(broken.describe()));
    QVERIFY2(broken.out.contains(
                     QChar(0x2717)
                     + QStringLiteral(" no row claimed under a stale token: 1 offending"))
                     && broken.out.contains("email_outbox claimed email:2 under token 7 after "
                                            "token 8"),
             qPrintable(broken.out));
    QVERIFY2(broken.err.startsWith("leaderctl: 1 invariant fails: all roles: no row claimed under "
                                   "a stale token")
                     && broken.err.count(u'\n') == 1,
             qPrintable(broken.err));

    const Run json = leaderctl({"audit", "--json", "--database", qs(demo.url(Login::App))});
    QVERIFY2(json.finished && json.exitCode == 5, qPrintable(json.describe()));
    QJsonParseError error;
    const QJsonObject document = QJsonDocument::fromJson(json.out.toUtf8(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(document.value("holds").toBool(true), false);
    const QJsonArray invariants = document.value("invariants").toArray();
    QCOMPARE(invariants.size(), 13);
    const QJsonObject claims = invariants.last().toObject();
    QCOMPARE(claims.value("name").toString(), QStringLiteral("no row claimed under a stale token"));
    QCOMPARE(claims.value("holds").toBool(true), false);
    QCOMPARE(claims.value("offending").toInt(), 1);
    QVERIFY(claims.value("samples").toArray().first().toString().contains("under token 7"));
    QCOMPARE(claims.value("info").toObject().value("claims").toInt(), 2);
}

void TestLeaderctl::workloadCreatesWhatItReports()
{
    TestDatabase demo("leaderctl_workload");
    demo.migrateDemo();
    const Run bad
            = leaderctl({"workload", "--rate", "fast", "--database", qs(demo.url(Login::App))});
    QVERIFY2(bad.finished && bad.exitCode == 2, qPrintable(bad.describe()));
    QVERIFY2(bad.err.contains("--rate must be a positive number"), qPrintable(bad.err));

    const Run run = leaderctl({"workload", "--rate", "100/s", "--count", "4", "--duration", "20",
                               "--database", qs(demo.url(Login::App))});
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("created 4 tenants, 4 subscriptions (0 with a declining first "
                              "charge), 4 webhook events and 4 emails")
                     && run.out.contains("(count reached)"),
             qPrintable(run.out));
    leader::pg::Connection owner = demo.connect(Login::Owner);
    QCOMPARE(owner.exec("count", "SELECT count(*) FROM subscriptions", {}, 5s).toInt64(0, 0), 4);
}

// Issue 31, finding 7: a holder id, a pause's by and reason may hold escape sequences (clear the
// screen), bidirectional overrides (reorder what the operator reads) and markup. leaderctl's text
// shows them escaped, its JSON stays valid and exact. Checked once without the fix: status and
// history printed the raw ESC and U+202E, and the JSON carried U+202E raw.
void TestLeaderctl::databaseTextIsEscaped()
{
    ensureMigrated();
    const QString hostile = QStringLiteral("\x1b[2J\u202Eevil\u2066<b>x</b><img src=x>\x7f\u0085");
    const QStringList raw{QStringLiteral("\x1b"), QStringLiteral("\u202E"),
                          QStringLiteral("\u2066"), QStringLiteral("\x7f"),
                          QStringLiteral("\u0085")};
    const QStringList escaped{QStringLiteral("\\x1b[2J"), QStringLiteral("\\u202e"),
                              QStringLiteral("\\u2066"), QStringLiteral("\\x7f"),
                              QStringLiteral("\\u0085")};
    const auto checkText = [&](const Run &run) {
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        for (const QString &character : raw)
            QVERIFY2(!run.out.contains(character) && !run.err.contains(character),
                     qPrintable(run.out.toUtf8().toPercentEncoding(" \n")));
        for (const QString &text : escaped)
            QVERIFY2(run.out.contains(text), qPrintable(run.out));
    };
    const auto checkJson = [&](const Run &run,
                               const std::function<bool(const QJsonObject &)> &has) {
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        for (const QString &character : raw)
            QVERIFY2(!run.out.contains(character),
                     qPrintable(run.out.toUtf8().toPercentEncoding(" \n")));
        QJsonParseError error;
        const QJsonObject document = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(run.out));
        QVERIFY2(has(document), qPrintable(run.out));
    };

    leader::pg::Connection owner = m_db->connect(Login::Owner);
    const auto release = [&owner] {
        owner.exec("release",
                   "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, "
                   "expires_at = NULL WHERE role = 'dunning'",
                   {}, 5s);
    };
    const auto cleanUp = qScopeGuard([&] {
        release();
        leaderctl({"unpause", "dunning", "--by", "t", "--reason", "t", "--database",
                   url(Login::App)});
    });
    owner.exec("hold",
               "UPDATE leader_leases SET holder_id = $1, acquired_at = now(), "
               "expires_at = now() + interval '1 h' WHERE role = 'dunning'",
               {hostile.toStdString()}, 5s);
    checkText(leaderctl({"status", "--database", url(Login::Monitor)}));
    checkJson(leaderctl({"status", "--json", "--database", url(Login::Monitor)}),
              [&](const QJsonObject &document) {
                  for (const QJsonValue &role : document.value("roles").toArray())
                      if (role.toObject().value("holder_id").toString() == hostile)
                          return true;
                  return false;
              });
    release();

    checkText(leaderctl({"pause", "dunning", "--by", hostile, "--reason", hostile, "--database",
                         url(Login::App)}));
    checkText(leaderctl({"pause", "dunning", "--by", "bob", "--reason", "again", "--database",
                         url(Login::App)}));
    checkText(leaderctl({"status", "--database", url(Login::Monitor)}));
    checkText(
            leaderctl({"history", "dunning", "--since", "1h", "--database", url(Login::Monitor)}));
    checkJson(leaderctl({"history", "dunning", "--since", "1h", "--json", "--database",
                         url(Login::Monitor)}),
              [&](const QJsonObject &document) {
                  const QJsonArray entries = document.value("entries").toArray();
                  return !entries.isEmpty()
                         && entries[0].toObject().value("reason").toString() == hostile
                         && entries[0].toObject().value("by").toString() == hostile;
              });
}

// Issue 32: ADR-114's schema alone, as the application's own migration tool leaves it. status
// reads it as the monitor login with no column of an extension, and ends with one line naming the
// extensions and how to add them. Checked once to fail with paused_until read directly (exit 1:
// column "paused_until" does not exist, 42703).
void TestLeaderctl::adrOnlyStatus()
{
    const Run run = leaderctl({"status", "--database", qs(m_adr->url(Login::Monitor))});
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    // A header, one line per role, the database clock and the extensions' line.
    QCOMPARE(lines.size(), 8);
    QVERIFY2(lines[0].startsWith("ROLE ") && lines[0].contains("PAUSED BY")
                     && !lines[0].contains("PAUSED UNTIL") && !lines[0].contains("EARLY TAKE")
                     && !lines[0].contains("OUTCOME"),
             qPrintable(lines[0]));
    const QStringList roles = roleNames();
    for (int i = 0; i < roles.size(); ++i)
        QVERIFY2(lines[i + 1].startsWith(roles[i] + " "), qPrintable(lines[i + 1]));
    QVERIFY2(lines[6].startsWith("database clock: "), qPrintable(lines[6]));
    QVERIFY2(lines[7].startsWith("leaderctl: the extensions leader_ext 0176 to 0190 would add ")
                     && lines[7].contains("next heartbeat, within 3 s")
                     && lines[7].contains("leaderctl migrate --print-sql"),
             qPrintable(lines[7]));

    const Run json = leaderctl({"status", "--json", "--database", qs(m_adr->url(Login::Monitor))});
    QVERIFY2(json.finished && json.exitCode == 0 && json.err.isEmpty(),
             qPrintable(json.describe()));
    const QJsonObject document = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(document.value("extension").toInt(-1), 0);
    QVERIFY(document.value("extensions_missing").toString().contains("leaderctl migrate"));
    const QJsonArray entries = document.value("roles").toArray();
    QCOMPARE(entries.size(), 5);
    for (const QJsonValue &entry : entries) {
        QVERIFY(entry.toObject().value("state").isString());
        // Present and null: the ADR's view has no such column.
        QVERIFY(entry.toObject().contains("paused_until")
                && entry.toObject().value("paused_until").isNull());
        QVERIFY(entry.toObject().contains("early_take")
                && entry.toObject().value("early_take").isNull());
    }
}

// The ADR's leader_pause(role, by, reason) for two roles in one go as the app login: both paused,
// and one line says that without 0176 the holders stop at their next heartbeat. The unpause goes
// through the ADR's leader_unpause(role) and says in one line that --by and --reason were not
// recorded. Checked once to fail with lease::pauseRoles, and once with unpauseRoles, calling
// leader_ext's functions whatever the features (exit 1: function leader_ext.leader_pause(...),
// leader_ext.leader_unpause(...) does not exist).
void TestLeaderctl::adrOnlyPauseSeveralRolesThenUnpause()
{
    const QString app = qs(m_adr->url(Login::App));
    const auto cleanUp = qScopeGuard([&] { leaderctl({"unpause", "all", "--database", app}); });
    const Run pause = leaderctl({"pause", "email_outbox", "webhook_outbox", "--reason",
                                 "SMTP key rotation", "--by", "alice@ops", "--database", app});
    QVERIFY2(pause.finished && pause.exitCode == 0, qPrintable(pause.describe()));
    QVERIFY2(pause.err.isEmpty(), qPrintable(pause.err));
    const QStringList lines = pause.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines[0].startsWith("leaderctl: email_outbox paused at ")
                     && lines[0].endsWith(" by alice@ops"),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith("leaderctl: webhook_outbox paused at "), qPrintable(lines[1]));
    QVERIFY2(lines[2].startsWith("leaderctl: a holder stops at its next heartbeat, within 3 s")
                     && lines[2].contains("leader_ext 0176"),
             qPrintable(lines[2]));
    QCOMPARE(adrPaused(), (QStringList{"webhook_outbox", "email_outbox"}));

    const Run unpause = leaderctl({"unpause", "email_outbox", "webhook_outbox", "--by", "carol",
                                   "--reason", "rotated", "--database", app});
    QVERIFY2(unpause.finished && unpause.exitCode == 0, qPrintable(unpause.describe()));
    QVERIFY2(unpause.err.isEmpty(), qPrintable(unpause.err));
    QVERIFY2(unpause.out.startsWith("leaderctl: email_outbox unpaused\n"
                                    "leaderctl: webhook_outbox unpaused\n"
                                    "leaderctl: --by and --reason were not recorded: ")
                     && unpause.out.contains("leader_ext 0177") && unpause.out.count(u'\n') == 3,
             qPrintable(unpause.out));
    QCOMPARE(adrPaused(), QStringList());
}

// All or nothing on the ADR's functions too: a role the database refuses rolls back the roles
// paused before it in the same transaction. leaderctl refuses an unknown role before it connects,
// so the role is sent through the engine's API, as the console sends it. Checked once to fail with
// the ADR path of lease::pauseRoles outside its transaction (billing stayed paused).
void TestLeaderctl::adrOnlyPauseIsAllOrNothing()
{
    leader::pg::Connection app = m_adr->connect(Login::App);
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(app);
    QVERIFY(features.adr());
    QCOMPARE(features.extension, 0);
    const std::vector<std::string> roles{"billing", "accounting"};
    QString refused;
    try {
        leader::lease::pauseRoles(app, features, roles, "alice@ops", "drill");
    } catch (const leader::pg::Error &error) {
        refused = qs(error.sqlstate());
    }
    QCOMPARE(refused, QStringLiteral("22023"));
    QCOMPARE(adrPaused(), QStringList());
}

void TestLeaderctl::adrOnlyExtensionCommandsRefused_data()
{
    QTest::addColumn<QStringList>("arguments"); // --database is added
    QTest::addColumn<int>("login");
    QTest::addColumn<QString>("expected");
    const QString pauseEnd = "a pause that ends by itself needs the extension leader_ext 0177";
    QTest::newRow("pause --for") << QStringList{"pause", "billing", "--reason", "x", "--for", "1h"}
                                 << int(Login::App) << pauseEnd;
    QTest::newRow("pause --until")
            << QStringList{"pause", "billing", "dunning", "--reason", "x", "--until", "2999-01-01"}
            << int(Login::App) << pauseEnd;
    QTest::newRow("history") << QStringList{"history"} << int(Login::Monitor)
                             << "the pause history needs the extension leader_ext 0177";
    QTest::newRow("history --json")
            << QStringList{"history", "billing", "--json"} << int(Login::Monitor)
            << "the pause history needs the extension leader_ext 0177";
    QTest::newRow("replicas") << QStringList{"replicas"} << int(Login::Monitor)
                              << "the replica registry needs the extension leader_ext 0178";
    QTest::newRow("early-take") << QStringList{"early-take", "off", "billing"} << int(Login::Owner)
                                << "the early-take switch needs the extension leader_ext 0180";
}

// Each command that needs an extension says, in one line on stderr, which one and how to add it,
// exits 3 and changes nothing. Checked once to fail without each check: a pause with an end was
// sent to the ADR's leader_pause without it (exit 0), history read leader_ext.leader_pause_log
// (exit 1, 42P01), early-take wrote leader_leases.early_take (exit 1, 42703), and replicas without
// its refusal exited 0.
void TestLeaderctl::adrOnlyExtensionCommandsRefused()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, login);
    QFETCH(QString, expected);
    const Run run
            = leaderctl(arguments << "--database" << qs(m_adr->url(static_cast<Login>(login))));
    QVERIFY2(run.finished, qPrintable(run.describe()));
    QCOMPARE(run.exitStatus, QProcess::NormalExit);
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    QVERIFY2(run.err.startsWith("leaderctl: " + expected) && run.err.count(u'\n') == 1
                     && run.err.contains("add it with leaderctl migrate"),
             qPrintable(run.err));
    QCOMPARE(adrPaused(), QStringList());
}

QTEST_GUILESS_MAIN(TestLeaderctl)
#include "tst_leaderctl.moc"
