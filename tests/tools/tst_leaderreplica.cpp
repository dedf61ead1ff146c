// leader-replica as an operator runs it: the real binary under QProcess against a real database,
// straight to Postgres and through PgBouncer in transaction mode. Bad input is one line on stderr
// with the documented exit code and never a password; a running replica writes one JSON event per
// line, serves /metrics, obeys its control socket, releases on SIGTERM and not on a kill.

#include "eventprocess.h"
#include "lease/constants.h"
#include "lease/manager.h"
#include "loopbackport.h"
#include "measurement.h"
#include "pg/connection.h"
#include "platform/control.h"
#include "platform/process.h"
#include "replicapath.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace std::chrono_literals;
using leader::test::EventProcess;
using leader::test::Login;
using leader::test::TestDatabase;

using leader::test::cleanEnvironment;
using leader::test::qs;

namespace {

constexpr int ProcessDeadlineMs = 30'000;
// A password no server knows, so any trace of it in the output is an echo of the URL.
const QString WrongPassword = QStringLiteral("s3cr3t-xyz");

// The binary under test: the production replica in the .production runs, else this build's.
const QString ProductionReplica = leader::test::productionReplica();
const QString ReplicaPath = leader::test::replicaPath();
constexpr const char *NeedsFaults
        = "drives the replica through --control, which the production replica refuses";
const QString NoFaults = QStringLiteral("this leader-replica is built without fault injection "
                                        "(LEADER_REPLICA_FAULTS=OFF): no --control, no --gate "
                                        "advisory");

// How many of the replica's events so far are named event.
int countOf(EventProcess &replica, const QString &event)
{
    return static_cast<int>(replica.all(event).size());
}

// GET path over HTTP/1.0 on 127.0.0.1:port, the whole response (status line, headers, body);
// empty when nothing answered within the deadline. QtNetwork is not linked, hence plain sockets.
QByteArray httpGet(int port, const QByteArray &path)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return {};
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    QByteArray response;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0) {
        const QByteArray request
                = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (::send(fd, request.constData(), request.size(), MSG_NOSIGNAL) == request.size()) {
            QElapsedTimer waited;
            waited.start();
            char buffer[4096];
            for (;;) {
                const int left = 5000 - static_cast<int>(waited.elapsed());
                pollfd item{fd, POLLIN, 0};
                if (left <= 0 || ::poll(&item, 1, left) <= 0)
                    break;
                const ssize_t got = ::read(fd, buffer, sizeof buffer);
                if (got <= 0)
                    break;
                response.append(buffer, got);
            }
        }
    }
    ::close(fd);
    return response;
}

QString control(const QString &path, const QString &command)
{
    return qs(leader::platform::controlRequest(path.toStdString(), command.toStdString()));
}

// A connection to 127.0.0.1:port that sends half a request line and then nothing: a slow or
// hostile client holding a worker until the server's read timeout closes it. -1 when it could not
// connect.
int stallingRequest(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0
        || ::send(fd, "GET /metr", 9, MSG_NOSIGNAL) != 9) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    return fd;
}

// The local addresses ("0100007F:1F90", the kernel's hex) of every IPv4 and IPv6 socket listening
// on port, from /proc/net/tcp and tcp6.
QStringList listeningAddresses(int port)
{
    QStringList addresses;
    const QString suffix = QStringLiteral(":%1").arg(port, 4, 16, QChar(u'0')).toUpper();
    for (const char *table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream file(table);
        std::string line;
        std::getline(file, line); // the header
        while (std::getline(file, line)) {
            const QStringList fields = QString::fromStdString(line).split(u' ', Qt::SkipEmptyParts);
            if (fields.size() > 3 && fields[3] == QLatin1String("0A") // TCP_LISTEN
                && fields[1].endsWith(suffix))
                addresses << fields[1];
        }
    }
    return addresses;
}

// A Unix socket file left at path as a killed process leaves it: bound, then closed unremoved.
bool leaveDeadSocket(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray bytes = path.toLocal8Bit();
    if (fd < 0 || bytes.size() >= qsizetype(sizeof address.sun_path))
        return false;
    std::memcpy(address.sun_path, bytes.constData(), bytes.size() + 1);
    const bool bound
            = ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0;
    ::close(fd);
    return bound;
}

const QRegularExpression Timestamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");

} // namespace

class TestLeaderReplica final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void badInput_data();
    void badInput();
    void runsReportsAndObeysItsControlSocket();
    void sigtermMidTickReleasesAndExits();
    void sigtermDrainsFirst_data();
    void sigtermDrainsFirst();
    void leaderctlDrainWaitsForTheReplica();
    void leaderctlHandoverMovesTheRole();
    void killedProcessLeavesTheRowHeld();
    void stoppedHolderWhoseMarkerEndsStartsNothingAfter();
    void earlyTakeOffIsTheTtlPath_data();
    void earlyTakeOffIsTheTtlPath();
    void registersAgesAndLeavesOnACleanStop();
    void aPortInUseFailsBeforeLeadingAnything();
    void metricsStayLocalAndCheapUnderAFlood();
    void metricsCapClosesTheLongestWaiting();
    void metricsAnswerWhileTheDatabaseIsUnreachable();
    void controlPathInTheWayIsRefusedAndKept_data();
    void controlPathInTheWayIsRefusedAndKept();
    void aDeadReplicasSocketIsReplaced();
    void controlNumbersMustBeFinite_data();
    void controlNumbersMustBeFinite();

private:
    QString url(Login login) const { return qs(m_db->url(login)); }
    QString field(const std::string &sql);
    // A --config file with these lines, in the test's directory.
    QString configFile(const QString &name, const QString &lines);
    // Every line so far is a JSON object with the fields every event has; fails the test if not.
    void verifyEventLines(EventProcess &replica, const QString &id);

    std::unique_ptr<TestDatabase> m_db;        // lease and demo migrations
    std::unique_ptr<TestDatabase> m_bare;      // none
    std::unique_ptr<TestDatabase> m_leaseOnly; // the lease migrations only
    std::unique_ptr<leader::pg::Connection> m_owner;
    QTemporaryDir m_dir;
    leader::test::LoopbackPort m_refusingPort{leader::test::LoopbackPort::Behaviour::Refuse};
};

void TestLeaderReplica::initTestCase()
{
    QVERIFY2(QFileInfo(ReplicaPath).isExecutable(), qPrintable(ReplicaPath));
    QVERIFY(m_dir.isValid());
    m_db = std::make_unique<TestDatabase>("leaderreplica");
    m_db->migrateDemo();
    m_bare = std::make_unique<TestDatabase>("leaderreplica_bare");
    m_leaseOnly = std::make_unique<TestDatabase>("leaderreplica_lease");
    m_leaseOnly->migrateLease();
    m_owner = std::make_unique<leader::pg::Connection>(m_db->connect(Login::Owner));
}

void TestLeaderReplica::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

QString TestLeaderReplica::field(const std::string &sql)
{
    const leader::pg::Result result = m_owner->exec("inspect", sql, {}, 5s);
    return result.isNull(0, 0) ? QString() : qs(result.text(0, 0));
}

QString TestLeaderReplica::configFile(const QString &name, const QString &lines)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(lines.toUtf8()) < 0)
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void TestLeaderReplica::verifyEventLines(EventProcess &replica, const QString &id)
{
    const QStringList lines = replica.lines();
    QVERIFY(!lines.isEmpty());
    for (const QString &line : lines) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError && document.isObject(), qPrintable(line));
        const QJsonObject event = document.object();
        QVERIFY2(Timestamp.match(event.value("ts").toString()).hasMatch(), qPrintable(line));
        QVERIFY2(event.value("replica").toString() == id, qPrintable(line));
        QVERIFY2(!event.value("event").toString().isEmpty(), qPrintable(line));
        if (event.contains("role")) // a transition
            QVERIFY2(event.value("token").isDouble() && event.value("holder").isString(),
                     qPrintable(line));
    }
}

void TestLeaderReplica::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("stderrContains");

    const QString app = url(Login::App);
    const QString nowhere = QStringLiteral("postgresql://lt_app:%1@127.0.0.1:%2/x")
                                    .arg(WrongPassword)
                                    .arg(m_refusingPort.port());
    const QString wrongPassword
            = QString(app).replace(qEnvironmentVariable("LEADER_TEST_PASSWORD"), WrongPassword);
    const QString badConfig
            = configFile("bad.conf", "# drill\nbilling.interval = 1s\nbilling.min_tick = soon\n");

    QTest::newRow("unknown option") << QStringList{"--frobnicate"} << QStringList() << 2
                                    << QStringList{"unknown option --frobnicate", "--help"};
    QTest::newRow("unexpected argument") << QStringList{"billing"} << QStringList() << 2
                                         << QStringList{"unexpected argument billing"};
    QTest::newRow("option without its value") << QStringList{"--database"} << QStringList() << 2
                                              << QStringList{"--database needs a value"};
    QTest::newRow("unknown role in --roles")
            << QStringList{"--database", app, "--roles", "billing,payroll"} << QStringList() << 2
            << QStringList{"--roles", "unknown role \"payroll\""};
    QTest::newRow("--roles naming nothing")
            << QStringList{"--database", app, "--roles", ","} << QStringList() << 2
            << QStringList{"--roles names no role"};
    QTest::newRow("a bad --config line")
            << QStringList{"--database", app, "--config", badConfig} << QStringList() << 2
            << QStringList{badConfig + ", line 3: ", "\"soon\" is not a valid min_tick"};
    QTest::newRow("--early-take maybe")
            << QStringList{"--database", app, "--early-take", "maybe"} << QStringList() << 2
            << QStringList{"--early-take is on or off, not \"maybe\""};
    QTest::newRow("a bad early_take line")
            << QStringList{"--database", app, "--config",
                           configFile("bad-early.conf", "early_take = sometimes\n")}
            << QStringList() << 2
            << QStringList{"bad-early.conf, line 1: ", "\"sometimes\" is not a valid early_take"};
    QTest::newRow("a missing --config file")
            << QStringList{"--database", app, "--config", m_dir.filePath("absent.conf")}
            << QStringList() << 2 << QStringList{"cannot read --config", "absent.conf"};
    QTest::newRow("--metrics-port 0")
            << QStringList{"--database", app, "--metrics-port", "0"} << QStringList() << 2
            << QStringList{"--metrics-port wants a port number from 1 to 65535, not \"0\""};
    QTest::newRow("--metrics-port=70000")
            << QStringList{"--database", app, "--metrics-port=70000"} << QStringList() << 2
            << QStringList{"--metrics-port", "\"70000\""};
    QTest::newRow("--metrics-listen without --metrics-port")
            << QStringList{"--database", app, "--metrics-listen", "0.0.0.0"} << QStringList() << 2
            << QStringList{"--metrics-listen needs --metrics-port"};
    QTest::newRow("--metrics-listen and its old name")
            << QStringList{"--database",       app,         "--metrics-port",    "9",
                           "--metrics-listen", "127.0.0.1", "--metrics-address", "0.0.0.0"}
            << QStringList() << 2
            << QStringList{"--metrics-address is the old name of --metrics-listen; give one"};
    QTest::newRow("no migrations")
            << QStringList{"--database", qs(m_bare->url(Login::App))} << QStringList() << 3
            << QStringList{"lacks ADR-114's migration 0174", "leaderctl migrate"};
    // The production replica refuses --control and --gate advisory before anything else.
    const bool faults = ProductionReplica.isEmpty();
    QTest::newRow("no migrations, faults routed")
            << QStringList{"--database", qs(m_bare->url(Login::App)), "--control",
                           m_dir.filePath("unused.sock")}
            << QStringList() << (faults ? 3 : 2)
            << (faults ? QStringList{"lacks ADR-114's migration 0174", "leaderctl migrate"}
                       : QStringList{NoFaults});
    QTest::newRow("no demo migrations")
            << QStringList{"--database", qs(m_leaseOnly->url(Login::App))} << QStringList() << 3
            << QStringList{"lacks the demo migrations", "leaderctl migrate --demo"};
    QTest::newRow("no migrations, URL from DATABASE_URL")
            << QStringList() << QStringList{"DATABASE_URL=" + qs(m_bare->url(Login::App))} << 3
            << QStringList{"leaderctl migrate"};
    QTest::newRow("nothing listening") << QStringList{"--database", nowhere} << QStringList() << 4
                                       << QStringList{"cannot connect", "127.0.0.1"};
    // Checked: without the check in leader-replica's run(), this row exits 4 instead: the link
    // proxy in front of the refusing first server accepts, then closes, and libpq gives up
    // without trying the second, which serves.
    QTest::newRow("faults routed with a host list")
            << QStringList{"--database",
                           QStringLiteral("postgresql://lt_app:%1@%2:%3,%2:%4/%5")
                                   .arg(qEnvironmentVariable("LEADER_TEST_PASSWORD"),
                                        qEnvironmentVariable("LEADER_TEST_HOST"))
                                   .arg(m_refusingPort.port())
                                   .arg(m_db->targetPort())
                                   .arg(qs(m_db->name())),
                           "--control", m_dir.filePath("unused.sock")}
            << QStringList() << 2
            << QStringList{faults ? QStringLiteral("--control needs a --database naming one server")
                                  : NoFaults};
    QTest::newRow("nothing listening, faults routed")
            << QStringList{"--database", nowhere, "--control", m_dir.filePath("unused.sock")}
            << QStringList() << (faults ? 4 : 2)
            << QStringList{faults ? QStringLiteral("cannot connect") : NoFaults};
    if (!faults)
        QTest::newRow("--gate advisory") << QStringList{"--database", app, "--gate", "advisory"}
                                         << QStringList() << 2 << QStringList{NoFaults};
    QTest::newRow("wrong password") << QStringList{"--database", wrongPassword} << QStringList()
                                    << 4 << QStringList{"authentication failed"};
}

void TestLeaderReplica::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(int, exitCode);
    QFETCH(QStringList, stderrContains);

    EventProcess replica;
    replica.start(ReplicaPath, arguments, environment);
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    const QString err = replica.errors();
    const QString out = QString::fromUtf8(replica.process().readAllStandardOutput());
    // A crash (an uncaught exception aborts) is a CrashExit; a stack trace is more than one line.
    QVERIFY2(replica.process().exitStatus() == QProcess::NormalExit,
             qPrintable(QStringLiteral("crashed (signal %1): %2")
                                .arg(replica.process().exitCode())
                                .arg(err)));
    QVERIFY2(replica.process().exitCode() == exitCode, qPrintable(err));
    QVERIFY2(err.startsWith("leader-replica: ") && err.endsWith('\n') && err.count('\n') == 1,
             qPrintable(err));
    for (const QString &fragment : stderrContains)
        QVERIFY2(err.contains(fragment), qPrintable(err));
    QVERIFY2(!err.contains(qEnvironmentVariable("LEADER_TEST_PASSWORD")), qPrintable(err));
    QVERIFY2(!err.contains(WrongPassword), qPrintable(err));
    QVERIFY2(out.isEmpty(), qPrintable(out)); // no "started": it never ran
}

// One replica of billing with short ticks: its event lines, /metrics, and the control socket's
// status, bad command and panic, which fails the next tick once and pages on the counter.
void TestLeaderReplica::runsReportsAndObeysItsControlSocket()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    const QString config
            = configFile("short.conf", "billing.interval = 1s\nbilling.min_tick = 3s\n");
    const QString socket = m_dir.filePath("r1.sock");
    const int metricsPort = leader::platform::freeLoopbackPort();
    EventProcess replica;
    replica.start(ReplicaPath,
                  {"--database", url(Login::App), "--config", config, "--roles", "billing", "--id",
                   "r1", "--control", socket, "--metrics-port", QString::number(metricsPort),
                   "--metrics-address", "127.0.0.1", "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    const QJsonObject started = *replica.find("started");
    QCOMPARE(started.value("pid").toInteger(), replica.process().processId());
    QCOMPARE(started.value("roles").toVariant().toStringList(), QStringList{"billing"});
    QCOMPARE(started.value("metrics_port").toInt(), metricsPort);
    QCOMPARE(started.value("control").toString(), socket);
    const QString holder = started.value("holder").toString();
    QVERIFY2(QRegularExpression(R"(^[^:]+:\d+:[0-9a-f]{8}$)").match(holder).hasMatch(),
             qPrintable(holder));
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    QCOMPARE(replica.find("acquired")->value("holder").toString(), holder);

    const QByteArray metrics = httpGet(metricsPort, "/metrics");
    QVERIFY2(metrics.startsWith("HTTP/1.1 200") || metrics.startsWith("HTTP/1.0 200"),
             metrics.constData());
    QVERIFY2(metrics.contains("text/plain; version=0.0.4"), metrics.constData());
    const QByteArray panicked
            = R"(hardcount_leader_lease_lost_total{reason="panicked",role="billing"} )";
    QVERIFY2(metrics.contains(QByteArray(panicked + "0\n")), metrics.constData());
    QVERIFY2(httpGet(metricsPort, "/nothing").startsWith("HTTP/1.1 404"), "not 404");

    QCOMPARE(control(socket, "status"), QStringLiteral("ok normal"));
    const QString bogus = control(socket, "bogus");
    QVERIFY2(bogus.startsWith("error unknown command \"bogus\""), qPrintable(bogus));
    QVERIFY2(control(socket, "slow many").startsWith("error slow wants"), "slow many");
    QVERIFY2(control(socket, "panic payroll X").startsWith("error panic wants ROLE STEP"),
             "payroll");
    QCOMPARE(control(socket, "panic billing GetDueBilling"),
             QStringLiteral("ok panic armed: billing GetDueBilling"));
    // Written before the reply, but read here only as events are processed.
    QTRY_VERIFY_WITH_TIMEOUT(
            replica.find("fault", {{"fault", "panic billing GetDueBilling"}}).has_value(), 2000);
    QVERIFY(!replica.find("fault", {{"fault", "bogus"}}).has_value());

    // The running tick took no panic; the next one (after min_tick and the interval) panics.
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("released", {{"outcome", "failed"}}).has_value(), 10000);
    QCOMPARE(control(socket, "status"), QStringLiteral("ok normal")); // fired, not re-armed
    QVERIFY2(httpGet(metricsPort, "/metrics").contains(QByteArray(panicked + "1\n")),
             "no panicked tick");

    // "stop" is SIGTERM by the control socket.
    QCOMPARE(control(socket, "stop"), QStringLiteral("ok normal"));
    QVERIFY(replica.process().waitForFinished(5000));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);
    verifyEventLines(replica, "r1");
    QCOMPARE(replica.events().last().value("event").toString(), QStringLiteral("stopped"));
    QVERIFY2(!replica.errors().contains(qEnvironmentVariable("LEADER_TEST_PASSWORD")),
             qPrintable(replica.errors()));
    QVERIFY(!QFileInfo::exists(socket)); // removed on the way out
}

// SIGTERM mid-tick without the drain (--drain-on-sigterm off): the tick is cancelled and released
// as interrupted within the 3 s promise, so another replica can lead at once rather than at the
// lease's expiry. Checked: with Manager::lead releasing a shutdown as completed, this fails.
void TestLeaderReplica::sigtermMidTickReleasesAndExits()
{
    const QString config
            = configFile("long.conf", "billing.interval = 1s\nbilling.min_tick = 20s\n");
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                                "billing", "--id", "r2", "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    const QString holder = replica.find("acquired")->value("holder").toString();
    QCOMPARE(field("SELECT holder_id FROM leader_leases WHERE role = 'billing'"), holder);

    QElapsedTimer sinceTerm;
    sinceTerm.start();
    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(3000));
    QVERIFY2(sinceTerm.elapsed() < 3000, qPrintable(QString::number(sinceTerm.elapsed())));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);

    verifyEventLines(replica, "r2");
    const QList<QJsonObject> events = replica.events();
    QVERIFY(events.size() >= 2);
    const QJsonObject released = events[events.size() - 2];
    QCOMPARE(released.value("event").toString(), QStringLiteral("released"));
    QCOMPARE(released.value("role").toString(), QStringLiteral("billing"));
    QCOMPARE(released.value("outcome").toString(), QStringLiteral("interrupted"));
    // The line's text as readers match it: fields in this order, no reason unless the lease was
    // lost.
    const QString releasedLine = replica.lines()[events.size() - 2];
    const QRegularExpression interrupted(
            R"re(,"role":"billing","event":"released","token":\d+,"outcome":"interrupted",)re"
            R"re("db_time":"[^"]+"\}$)re");
    QVERIFY2(interrupted.match(releasedLine).hasMatch(), qPrintable(releasedLine));
    QCOMPARE(events.last().value("event").toString(), QStringLiteral("stopped"));
    QCOMPARE(events.last().value("signal").toString(), QStringLiteral("SIGTERM"));

    // Released, unstamped, no cooldown: a contender leads at once.
    QCOMPARE(field("SELECT (holder_id IS NULL) || ',' || (last_tick_ended_at IS NULL) || ',' || "
                   "(not_before IS NULL) FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("true,true,true"));
    leader::lease::Manager contender({.database = {.url = m_db->url(Login::App)}});
    QVERIFY(contender.lead("billing", 1s, [](leader::lease::TickContext &) {}).acquired);
}

// "kill" on the control socket is a process death: SIGKILL, no RELEASE, no further event; the row
// stays held, until its expiry or, with a marker session, until the database ended that session.
void TestLeaderReplica::killedProcessLeavesTheRowHeld()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    const QString config
            = configFile("long.conf", "billing.interval = 1s\nbilling.min_tick = 20s\n");
    const QString socket = m_dir.filePath("r3.sock");
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                                "billing", "--id", "r3", "--control", socket});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    const QJsonObject acquired = *replica.find("acquired");
    const QString holder = acquired.value("holder").toString();

    const std::string registered
            = "SELECT state FROM leader_ext.leader_replicas_status WHERE holder_id = '"
              + holder.toStdString() + "'";
    QTRY_COMPARE_WITH_TIMEOUT(field(registered), QStringLiteral("alive"), 5000);
    // Named, and straight to Postgres with its marker recorded once its listener holds it.
    const std::string marker = "SELECT name || ' ' || coalesce(marker_held::text, 'none') FROM "
                               "leader_ext.leader_replicas_status WHERE holder_id = '"
                               + holder.toStdString() + "'";
    QTRY_COMPARE_WITH_TIMEOUT(
            field(marker),
            m_db->viaPgBouncer() ? QStringLiteral("r3 none") : QStringLiteral("r3 true"), 5000);

    try {
        control(socket, "kill"); // the process dies before it could answer
    } catch (const std::runtime_error &) {
    }
    QVERIFY(replica.process().waitForFinished(5000));
    QCOMPARE(replica.process().exitStatus(), QProcess::CrashExit);
    QCOMPARE(replica.process().exitCode(), SIGKILL);

    verifyEventLines(replica, "r3");
    const QList<QJsonObject> events = replica.events();
    QCOMPARE(events.last().value("event").toString(), QStringLiteral("fault"));
    QCOMPARE(events.last().value("fault").toString(), QStringLiteral("kill"));
    QVERIFY(!replica.find("released").has_value());
    QCOMPARE(field("SELECT holder_id || ' ' || holder_token || ' ' || (expires_at > now()) "
                   "FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("%1 %2 true").arg(holder).arg(acquired.value("token").toInteger()));
    // Straight to Postgres its listener's session was its marker (migration 0179), gone with the
    // process: the row is taken at once. Through PgBouncer it had none; the row waits for expiry.
    leader::lease::Manager contender({.database = {.url = m_db->url(Login::App)}});
    const auto tryLead = [&contender] {
        return contender.lead("billing", 1s, [](leader::lease::TickContext &) {}).acquired;
    };
    bool taken = false;
    if (m_db->viaPgBouncer())
        QVERIFY(!tryLead());
    else
        // QTRY evaluates its condition once more after it held: the flag keeps the tick led once.
        QTRY_VERIFY_WITH_TIMEOUT(taken = taken || tryLead(), 2000);

    // Its registry row stays too. Straight to Postgres it records its marker (0182), so it reads
    // gone at once, its last beat seconds old; through PgBouncer it reads gone once unseen for
    // 35 s (moved there as the owner, as if the time had passed; the view's rule itself is
    // tst_replicaregistry's).
    if (!m_db->viaPgBouncer()) {
        QCOMPARE(field(registered), QStringLiteral("gone"));
        return;
    }
    QCOMPARE(field(registered), QStringLiteral("alive"));
    m_owner->exec(
            "as if 36 s had passed",
            "UPDATE leader_ext.leader_replicas SET started_at = started_at - interval '36 s', "
            "last_seen = last_seen - interval '36 s' WHERE holder_id = $1",
            {holder.toStdString()}, 5s);
    QCOMPARE(field(registered), QStringLiteral("gone"));
}

// The exception the amendment of 2026-12-05 states: a holder whose threads are all stopped
// (SIGSTOP) when its marker session ends cannot repair its row, so the other replica takes the
// role early, after its grace. Once resumed, the stopped holder starts no statement of its tick:
// its statements wait for the listener to look at the marker, and the repair then finds the row
// taken. No claim of the old token, accepted or refused, reaches the database after the takeover.
// Both replicas LISTEN straight to Postgres (--listen-database), also behind PgBouncer. Checked:
// with the marker gate (Manager::markerGate) returning at once, the resumed billing run sends
// GetDueBilling, whose fence refuses it, and the fence_refusals count fails this.
void TestLeaderReplica::stoppedHolderWhoseMarkerEndsStartsNothingAfter()
{
    const QString config
            = configFile("long.conf", "billing.interval = 1s\nbilling.min_tick = 20s\n");
    const QString direct = qs(m_db->directUrl(Login::App));
    const auto start = [&](const QString &id) {
        auto replica = std::make_unique<EventProcess>();
        replica->start(ReplicaPath, {"--database", url(Login::App), "--listen-database", direct,
                                     "--config", config, "--roles", "billing", "--id", id});
        return replica;
    };
    std::unique_ptr<EventProcess> first = start("r1");
    QTRY_VERIFY_WITH_TIMEOUT(first->find("acquired", {{"role", "billing"}}).has_value(), 10000);
    std::unique_ptr<EventProcess> second = start("r2");
    QTRY_VERIFY_WITH_TIMEOUT(second->find("started").has_value(), 10000);
    QCOMPARE(second->find("started")->value("early_take").toBool(), true);
    const QJsonObject acquired = *first->find("acquired");
    const qint64 token = acquired.value("token").toInteger();
    QTRY_VERIFY_WITH_TIMEOUT(!field("SELECT holder_session FROM leader_leases WHERE role = "
                                    "'billing'")
                                      .isEmpty(),
                             6000);
    // The second replica waits on the marker (the holder's ACQUIRE announced it, or its reading).
    QTRY_COMPARE_WITH_TIMEOUT(
            field("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "
                  "database = (SELECT oid FROM pg_database WHERE datname = current_database())"),
            QStringLiteral("1"), 8000);
    // Right after a beat, so that the abandon (6 s later) is not what stops the resumed work.
    QTRY_COMPARE_WITH_TIMEOUT(field("SELECT expires_at - now() > interval '9.5 s' FROM "
                                    "leader_leases WHERE role = 'billing'"),
                              QStringLiteral("t"), 5000);
    const pid_t pid = pid_t(first->process().processId());
    QCOMPARE(::kill(pid, SIGSTOP), 0);
    const auto resume = qScopeGuard([pid] { ::kill(pid, SIGCONT); });
    leader::pg::Connection reaper = m_db->connectDirect(Login::App);
    const leader::pg::Result terminated = reaper.exec(
            "terminate marker",
            "SELECT pg_terminate_backend((holder_session & 4294967295)::int), now()::text "
            "FROM leader_leases WHERE role = 'billing'",
            {}, 5s);
    QVERIFY(terminated.toBool(0, 0));
    const std::string terminatedAt(terminated.text(0, 1));
    QTRY_VERIFY_WITH_TIMEOUT(second->find("acquired", {{"role", "billing"}}).has_value(), 3000);
    QCOMPARE(field("SELECT took_over FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("session_ended"));
    const std::string takenAt
            = field("SELECT acquired_at::text FROM leader_leases WHERE role = 'billing'")
                      .toStdString();
    const double afterTermination = field("SELECT extract(epoch FROM '" + takenAt
                                          + "'::timestamptz - '" + terminatedAt + "'::timestamptz)")
                                            .toDouble();
    leader::test::reportMeasurement(QString::asprintf(
            "stopped holder's marker terminated: taken %.3f s later (grace %lld ms)",
            afterTermination, static_cast<long long>(leader::lease::EarlyTakeGrace.count())));
    QVERIFY2(afterTermination >= leader::lease::EarlyTakeGrace.count() / 1000.0 - 0.01,
             qPrintable(QString::number(afterTermination)));
    // Stopped well past the grace, well before the abandon.
    QTest::qWait(1000);
    QCOMPARE(::kill(pid, SIGCONT), 0);
    QTRY_VERIFY_WITH_TIMEOUT(first->find("released", {{"role", "billing"}}).has_value(), 10000);
    QCOMPARE(first->find("released")->value("outcome").toString(), QStringLiteral("lost"));
    // The line's text as readers match it: the outcome, then the reason it was lost.
    const QStringList firstLines = first->lines();
    const auto releasedLine
            = std::find_if(firstLines.begin(), firstLines.end(), [](const QString &line) {
                  return line.contains(R"("event":"released")");
              });
    QVERIFY(releasedLine != firstLines.end());
    const QRegularExpression lost(R"re(,"role":"billing","event":"released","token":\d+,)re"
                                  R"re("outcome":"lost","reason":"(taken_over|marker_lost)")re");
    QVERIFY2(lost.match(*releasedLine).hasMatch(), qPrintable(*releasedLine));
    QCOMPARE(first->find("released")->value("token").toInteger(), token);
    for (const char *table : {"claim_log WHERE fenced_at", "fence_refusals WHERE refused_at"})
        QCOMPARE(
                field(std::string("SELECT count(*) FROM ") + table + " >= '" + takenAt
                      + "'::timestamptz AND role = 'billing' AND token = " + std::to_string(token)),
                QStringLiteral("0"));
}

void TestLeaderReplica::earlyTakeOffIsTheTtlPath_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("config");
    QTest::newRow("--early-take off") << QStringList{"--early-take", "off"} << QString();
    QTest::newRow("early_take = off in --config") << QStringList() << "early_take = off\n";
}

// Switched off on the replica, a killed holder's row is left to its expiry, straight to Postgres
// too: the replica names no marker session on its rows. Checked: with ReplicaOptions::earlyTake
// ignored by Replica::start, the row is taken within a second and this fails.
void TestLeaderReplica::earlyTakeOffIsTheTtlPath()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    QFETCH(QStringList, arguments);
    QFETCH(QString, config);
    const QString profile
            = configFile("off.conf", config + "billing.interval = 1s\nbilling.min_tick = 20s\n");
    const QString socket = m_dir.filePath("off.sock");
    EventProcess replica;
    replica.start(ReplicaPath, QStringList{"--database", url(Login::App), "--listen-database",
                                           qs(m_db->directUrl(Login::App)), "--config", profile,
                                           "--roles", "billing", "--id", "off", "--control", socket}
                                       + arguments);
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    QCOMPARE(replica.find("started")->value("early_take").toBool(), false);
    QTRY_COMPARE_WITH_TIMEOUT(field("SELECT expires_at - acquired_at > interval '10 s' FROM "
                                    "leader_leases WHERE role = 'billing'"),
                              QStringLiteral("t"), 6000);
    QCOMPARE(field("SELECT holder_session IS NULL FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("t"));
    try {
        control(socket, "kill");
    } catch (const std::runtime_error &) {
    }
    QVERIFY(replica.process().waitForFinished(5000));
    // Tried for a while: with a marker the row would be taken once the server ended the dead
    // process's session, within milliseconds.
    leader::lease::Manager contender({.database = {.url = m_db->url(Login::App)}});
    QElapsedTimer tried;
    tried.start();
    while (tried.elapsed() < 1500) {
        QVERIFY(!contender.lead("billing", 1s, [](leader::lease::TickContext &) {}).acquired);
        QTest::qWait(100);
    }
    QCOMPARE(field("SELECT expires_at > now() FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("t"));
}

void TestLeaderReplica::sigtermDrainsFirst_data()
{
    QTest::addColumn<int>("tickMs");
    QTest::addColumn<QString>("bound"); // --drain-timeout; empty: the default, 25 s
    QTest::addColumn<bool>("completes");
    QTest::addColumn<bool>("secondSignal"); // a second SIGTERM once the drain has begun
    QTest::newRow("a 4 s tick fits the default bound") << 4000 << QString() << true << false;
    QTest::newRow("a 20 s tick outlasts a 1 s bound")
            << 20000 << QStringLiteral("1s") << false << false;
    QTest::newRow("a second SIGTERM ends a 60 s drain")
            << 20000 << QStringLiteral("60s") << false << true;
}

// SIGTERM with the drain on (the default): a tick that fits the bound completes with its token and
// the process exits right after its release; one that does not is interrupted at the bound and
// released as such, as without the drain. No second tick starts meanwhile. A second SIGTERM
// ends the drain at once: the tick is interrupted and the process exits within the stop's 3 s of
// it. Checked: with the second signal's watcher gone, that row's tick runs on and completes, and
// it fails.
void TestLeaderReplica::sigtermDrainsFirst()
{
    QFETCH(int, tickMs);
    QFETCH(QString, bound);
    QFETCH(bool, completes);
    QFETCH(bool, secondSignal);
    const QString config = configFile(
            "drain.conf",
            QStringLiteral("billing.interval = 1s\nbilling.min_tick = %1ms\n").arg(tickMs));
    QStringList arguments{"--database", url(Login::App), "--config", config,
                          "--roles",    "billing",       "--id",     "r6"};
    if (!bound.isEmpty())
        arguments << "--drain-timeout" << bound;
    EventProcess replica;
    replica.start(ReplicaPath, arguments);
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    const QJsonObject acquired = *replica.find("acquired");
    QElapsedTimer sinceTerm;
    sinceTerm.start();
    replica.process().terminate();
    QElapsedTimer sinceSecond;
    if (secondSignal) {
        QTRY_VERIFY_WITH_TIMEOUT(replica.find("draining", {{"local", true}}).has_value(), 5000);
        sinceSecond.start();
        replica.process().terminate();
    }
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    const qint64 exitedAfter = secondSignal ? sinceSecond.elapsed() : sinceTerm.elapsed();
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);
    verifyEventLines(replica, "r6");
    QCOMPARE(replica.events().last().value("event").toString(), QStringLiteral("stopped"));
    const std::optional<QJsonObject> released = replica.find("released");
    QVERIFY(released);
    QCOMPARE(released->value("token"), acquired.value("token"));
    QCOMPARE(released->value("outcome").toString(),
             completes ? QStringLiteral("completed") : QStringLiteral("interrupted"));
    QVERIFY(replica.find("draining", {{"local", true}}).has_value());
    if (completes)
        QVERIFY(replica.find("drained").has_value());
    QCOMPARE(countOf(replica, "acquired"), 1);
    if (completes) {
        // Exits once the tick has ended: at most the tick after the SIGTERM, plus the stop.
        QVERIFY2(exitedAfter < tickMs + 3000, qPrintable(QString::number(exitedAfter)));
        leader::test::reportMeasurement(
                QStringLiteral("leader-replica SIGTERM during a %1 ms tick, drain on: the tick "
                               "completed, exit %2 ms after the signal")
                        .arg(tickMs)
                        .arg(exitedAfter));
    } else if (secondSignal) {
        QVERIFY2(exitedAfter < 3000, qPrintable(QString::number(exitedAfter)));
        leader::test::reportMeasurement(
                QStringLiteral("leader-replica second SIGTERM during a 60 s drain: interrupted, "
                               "exit %1 ms after the second signal")
                        .arg(exitedAfter));
    } else {
        QVERIFY2(exitedAfter >= 1000 && exitedAfter < 1000 + 3000,
                 qPrintable(QString::number(exitedAfter)));
        leader::test::reportMeasurement(
                QStringLiteral("leader-replica SIGTERM during a %1 ms tick, 1 s drain bound: "
                               "interrupted, exit %2 ms after the signal")
                        .arg(tickMs)
                        .arg(exitedAfter));
    }
}

// leaderctl drain --wait against the real process: it returns once the running tick has completed
// and the replica reported drained; undrain lets it lead again.
void TestLeaderReplica::leaderctlDrainWaitsForTheReplica()
{
    const QString config
            = configFile("wait.conf", "billing.interval = 1s\nbilling.min_tick = 3s\n");
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                                "billing", "--id", "r7"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    QProcess ctl;
    ctl.setProcessEnvironment(cleanEnvironment());
    ctl.start(QStringLiteral(LEADERCTL_PATH), {"drain", "r7", "--force", "--wait", "--timeout",
                                               "20s", "--database", url(Login::App)});
    QVERIFY(ctl.waitForFinished(ProcessDeadlineMs));
    const QString out = QString::fromUtf8(ctl.readAllStandardOutput());
    QVERIFY2(ctl.exitCode() == 0 && out.contains("replica r7 drained: it runs no tick"),
             qPrintable(out + QString::fromUtf8(ctl.readAllStandardError())));
    // By then its ticks had completed, and the replica said so. Through a pooler without
    // --listen-database the drain's NOTIFY does not arrive, and the replica reads the flag at its
    // next registry beat (within 15 s), so it may have led more ticks before.
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("drained").has_value(), 5000);
    const int acquiredAtDrain = countOf(replica, "acquired");
    QCOMPARE(countOf(replica, "released"), acquiredAtDrain);
    QVERIFY(!replica.find("released", {{"outcome", "interrupted"}}).has_value());
    if (!m_db->viaPgBouncer())
        QCOMPARE(acquiredAtDrain, 1);

    ctl.start(QStringLiteral(LEADERCTL_PATH), {"undrain", "r7", "--database", url(Login::App)});
    QVERIFY(ctl.waitForFinished(ProcessDeadlineMs));
    QCOMPARE(ctl.exitCode(), 0);
    // At once with the NOTIFY; through the pooler at the next registry beat.
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("undrained").has_value(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(replica, "acquired") == acquiredAtDrain + 1, 5000);
    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    QCOMPARE(replica.process().exitCode(), 0);
}

// Two leader-replica processes running billing, ticks of 30 s: leaderctl handover billing --to hb
// --wait ends ha's tick at its next step (released as interrupted) and returns once hb acquired,
// printing the time from the handover to that ACQUIRE, which is reported. Directly the NOTIFY
// wakes both at once; through a pooler without --listen-database ha learns it at its next beat
// (3 s) and hb tries within its poll (5 s), so the bound is well above both.
void TestLeaderReplica::leaderctlHandoverMovesTheRole()
{
    const QString config
            = configFile("handover.conf", "billing.interval = 1s\nbilling.min_tick = 30s\n");
    // Their SIGTERM at the end only stops them: no drain waiting for hb's tick.
    EventProcess from;
    from.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                             "billing", "--id", "ha", "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(from.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    EventProcess to;
    to.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles", "billing",
                           "--id", "hb", "--drain-on-sigterm", "off"});
    QTRY_COMPARE_WITH_TIMEOUT(field("SELECT count(*) FROM leader_ext.leader_replicas_status"
                                    " WHERE name = 'hb' AND state = 'alive'"),
                              QStringLiteral("1"), 10000);
    QProcess ctl;
    ctl.setProcessEnvironment(cleanEnvironment());
    ctl.start(QStringLiteral(LEADERCTL_PATH),
              {"handover", "billing", "--to", "hb", "--reason", "deploy ha", "--wait", "--timeout",
               "30s", "--database", url(Login::App)});
    QVERIFY(ctl.waitForFinished(ProcessDeadlineMs));
    const QString out = QString::fromUtf8(ctl.readAllStandardOutput());
    QVERIFY2(ctl.exitCode() == 0 && out.contains("replica hb is preferred"),
             qPrintable(out + QString::fromUtf8(ctl.readAllStandardError())));
    const QRegularExpressionMatch took
            = QRegularExpression(R"(billing acquired by (\S+) ([0-9.]+) s after the handover)")
                      .match(out);
    QVERIFY2(took.hasMatch(), qPrintable(out));
    QTRY_VERIFY_WITH_TIMEOUT(to.find("acquired", {{"role", "billing"}}).has_value(), 5000);
    QCOMPARE(took.captured(1),
             to.find("acquired", {{"role", "billing"}})->value("holder").toString());
    QTRY_VERIFY_WITH_TIMEOUT(from.find("released", {{"role", "billing"}}).has_value(), 5000);
    QCOMPARE(from.find("released", {{"role", "billing"}})->value("outcome").toString(),
             QStringLiteral("interrupted"));
    const double seconds = took.captured(2).toDouble();
    leader::test::reportMeasurement(
            QStringLiteral("leaderctl handover billing --to hb (%1): hb acquired %2 ms after the "
                           "handover")
                    .arg(m_db->viaPgBouncer() ? "PgBouncer, no listener" : "direct, NOTIFY")
                    .arg(seconds * 1000, 0, 'f', 0));
    QVERIFY2(seconds < 15, qPrintable(out));
    for (EventProcess *replica : {&from, &to}) {
        replica->process().terminate();
        QVERIFY(replica->process().waitForFinished(ProcessDeadlineMs));
    }
}

// The replica registry as an operator sees it: the row appears at the start with what identifies
// the process, ages between beats on the database clock, and is deleted by SIGTERM's clean stop
// before the process exits.
void TestLeaderReplica::registersAgesAndLeavesOnACleanStop()
{
    const QString config
            = configFile("idle.conf", "billing.interval = 1h\ndunning.interval = 1h\n");
    // Without the drain: the clean stop under test is the immediate one.
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                                "billing,dunning", "--id", "r5", "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    const std::string holder = replica.holder().toStdString();
    const std::string where
            = " FROM leader_ext.leader_replicas_status WHERE holder_id = '" + holder + "'";
    const std::string row
            = "SELECT host || ' ' || pid || ' ' || version || ' ' || array_to_string(roles, ',') "
              "|| ' ' || state"
              + where;
    QTRY_VERIFY_WITH_TIMEOUT(!field(row).isEmpty(), 5000);
    QCOMPARE(field(row), QStringLiteral("%1 %2 %3 billing,dunning alive")
                                 .arg(qs(leader::platform::hostName()))
                                 .arg(replica.process().processId())
                                 .arg(QStringLiteral(LEADER_VERSION)));
    // Named; straight to Postgres a second beat records its marker as soon as its listener holds
    // it (0182), through PgBouncer it has none.
    QTRY_COMPARE_WITH_TIMEOUT(
            field("SELECT name || ' ' || coalesce(marker_held::text, 'none')" + where),
            m_db->viaPgBouncer() ? QStringLiteral("r5 none") : QStringLiteral("r5 true"), 5000);
    QCOMPARE(field("SELECT started_at <= last_seen" + where), QStringLiteral("t"));

    const std::string age = "SELECT last_seen_age_seconds" + where;
    const double first = field(age).toDouble();
    QTRY_VERIFY_WITH_TIMEOUT(field(age).toDouble() >= first + 1.0, 5000);

    QElapsedTimer sinceTerm;
    sinceTerm.start();
    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(3000));
    QVERIFY2(sinceTerm.elapsed() < 3000, qPrintable(QString::number(sinceTerm.elapsed())));
    QCOMPARE(replica.process().exitCode(), 0);
    QCOMPARE(field("SELECT count(*)" + where), QStringLiteral("0"));
}

// A replica that cannot serve its /metrics exits 1, as documented; it must not have led (and
// worked) a tick of any role first.
void TestLeaderReplica::aPortInUseFailsBeforeLeadingAnything()
{
    const leader::test::LoopbackPort taken(leader::test::LoopbackPort::Behaviour::Silent);
    const std::string tokensSql
            = "SELECT string_agg(holder_token::text, ',' ORDER BY role) FROM leader_leases";
    const QString tokens = field(tokensSql);
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--metrics-port",
                                QString::number(taken.port()), "--metrics-address", "127.0.0.1"});
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 1);
    QVERIFY2(replica.errors().contains(
                     QStringLiteral("cannot serve metrics on 127.0.0.1:%1").arg(taken.port())),
             qPrintable(replica.errors()));
    QCOMPARE(replica.lines().join('\n'), QString()); // no transition: nothing was led
    QCOMPARE(field(tokensSql), tokens);              // no ACQUIRE took a row
}

// /metrics under a flood (issue 31, finding 4; issue 51, finding 7): 20 clients scraping in loops
// and StalledClients connections that send half a request line and stall, more than the old server
// had workers (128), renewed as the server closes them, for FloodForMs. Without --metrics-listen
// the port listens on loopback alone; the replica's database sessions stay as many as before (one
// metrics session; no pool connection per scrape); every well-behaved scrape, the first after all
// the stalled connections are open included, answers within ScrapeDeadlineMs; each stalled
// connection is closed at its head deadline (MetricsServer::IoTimeout, 2 s), not before and not
// much after; the billing tick keeps its lease, its RENEWs on time. One long tick so that the
// replica's own sessions are steady once its registry beat has run during it: then each of its
// pooled sessions is open and idle between uses. Straight to Postgres only: through PgBouncer
// pg_stat_activity shows the pooler's shared server connections, not the replica's. Checked: with
// Replica::metricsText borrowing the lease pool per scrape as before, the sessions rose during the
// flood (5 to 13); with the 0.0.0.0 default the listening address differed; with httplib's own
// workers (a fixed pool of 8, 5 s timeouts, a backlog of 5) the scrapes missed their deadline;
// with httplib and a worker per connection capped at 128 (before issue 51) the first scrape took
// 1.97 s (three runs) and stalled connections stayed open up to 4.0 s.
void TestLeaderReplica::metricsStayLocalAndCheapUnderAFlood()
{
    if (m_db->viaPgBouncer())
        QSKIP("sessions are counted by application_name in pg_stat_activity, which PgBouncer's "
              "shared server connections do not keep; the direct run measures them");
    constexpr qint64 FloodForMs = 6000;
    constexpr qint64 ScrapeDeadlineMs = 100;
    constexpr std::size_t StalledClients = 160;
    constexpr int Flooders = 20;
    // The server's head deadline, and how late the stalled client may see its close.
    constexpr qint64 HeadDeadlineMs = 2000;
    constexpr qint64 CloseSlackMs = 1000;
    const QString config
            = configFile("flood.conf", "billing.interval = 1s\nbilling.min_tick = 60s\n");
    const int port = leader::platform::freeLoopbackPort();
    EventProcess replica;
    replica.start(ReplicaPath,
                  {"--database", url(Login::App), "--config", config, "--roles", "billing", "--id",
                   "flood", "--metrics-port", QString::number(port)});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("acquired", {{"role", "billing"}}).has_value(), 10000);
    const QJsonObject acquired = *replica.find("acquired", {{"role", "billing"}});
    const qint64 token = acquired.value("token").toInteger();
    QCOMPARE(listeningAddresses(port),
             QStringList{QStringLiteral("0100007F:%1").arg(port, 4, 16, QChar(u'0')).toUpper()});
    QVERIFY2(httpGet(port, "/metrics").contains("\nhardcount_leader_status_up 1\n"), "not up");
    // Steady: a RENEW sent and a registry beat run while the tick holds its connection.
    const std::string steady
            = "SELECT r.last_seen > l.acquired_at AND l.expires_at - l.acquired_at > interval "
              "'10 s' FROM leader_ext.leader_replicas r, leader_leases l WHERE l.role = 'billing' "
              "AND "
              "r.holder_id = '"
              + acquired.value("holder").toString().toStdString() + "'";
    QTRY_COMPARE_WITH_TIMEOUT(field(steady), QStringLiteral("t"),
                              int(leader::lease::ReplicaSeenEvery.count()) + 5000);
    const std::string sessionsSql = "SELECT count(*) FROM pg_stat_activity WHERE application_name "
                                    "LIKE 'leader-replica flood%'";
    const std::string metricsSessionsSql = "SELECT count(*) FROM pg_stat_activity WHERE "
                                           "application_name = 'leader-replica flood metrics'";
    const std::string leftSql = "SELECT extract(epoch FROM expires_at - now()) FROM leader_leases "
                                "WHERE role = 'billing' AND holder_token = "
                                + std::to_string(token);
    const int before = field(sessionsSql).toInt();
    QCOMPARE(field(metricsSessionsSql), QStringLiteral("1"));

    using SteadyClock = std::chrono::steady_clock;
    std::atomic<bool> flooding = true;
    std::atomic<int> floodServed = 0;
    std::atomic<int> stalledOpened = 0;
    std::atomic<bool> allStalled = false;
    // Written by the stalled clients' thread, read after it ends: how long the server kept a
    // stalled connection open, at least and at most, and how many it closed.
    qint64 stalledClosed = 0;
    qint64 shortestStall = std::numeric_limits<qint64>::max();
    qint64 longestStall = 0;
    std::vector<std::thread> clients;
    for (int i = 0; i < Flooders; ++i)
        clients.emplace_back([&] {
            while (flooding.load())
                floodServed += httpGet(port, "/metrics").startsWith("HTTP/1.1 200") ? 1 : 0;
        });
    clients.emplace_back([&] {
        std::vector<pollfd> stalled;
        std::vector<SteadyClock::time_point> opened;
        while (flooding.load()) {
            while (stalled.size() < StalledClients) {
                // Before the connect: the server's deadline runs from its accept, later.
                const SteadyClock::time_point connecting = SteadyClock::now();
                if (const int fd = stallingRequest(port); fd >= 0) {
                    stalled.push_back({fd, POLLIN, 0});
                    opened.push_back(connecting);
                    ++stalledOpened;
                }
            }
            allStalled = true;
            // Renewed as the server gives up on them (it closes them, or answers 408).
            if (::poll(stalled.data(), stalled.size(), 50) <= 0)
                continue;
            const SteadyClock::time_point now = SteadyClock::now();
            for (std::size_t i = stalled.size(); i-- > 0;) {
                if (!stalled[i].revents)
                    continue;
                const qint64 lived
                        = std::chrono::duration_cast<std::chrono::milliseconds>(now - opened[i])
                                  .count();
                shortestStall = std::min(shortestStall, lived);
                longestStall = std::max(longestStall, lived);
                ++stalledClosed;
                ::close(stalled[i].fd);
                stalled.erase(stalled.begin() + std::ptrdiff_t(i));
                opened.erase(opened.begin() + std::ptrdiff_t(i));
            }
        }
        for (const pollfd &item : stalled)
            ::close(item.fd);
    });
    const auto endFlood = [&] {
        flooding = false;
        for (std::thread &client : clients)
            if (client.joinable())
                client.join();
    };
    const auto endFloodOnFailure = qScopeGuard(endFlood);
    QTRY_VERIFY_WITH_TIMEOUT(allStalled.load(), 10000);

    int most = before;
    int metricsSessions = 1;
    double leastLeft = 1e9; // seconds left of the lease, at its lowest
    qint64 first = -1;
    qint64 slowest = 0;
    int scrapes = 0;
    QElapsedTimer flood;
    flood.start();
    while (flood.elapsed() < FloodForMs) {
        QElapsedTimer scrape;
        scrape.start();
        const QByteArray response = httpGet(port, "/metrics");
        const qint64 took = scrape.elapsed();
        first = first < 0 ? took : first;
        slowest = std::max(slowest, took);
        ++scrapes;
        QVERIFY2(response.startsWith("HTTP/1.1 200") && took < ScrapeDeadlineMs,
                 qPrintable(QStringLiteral("scrape %1 after %2 ms of flood: %3 ms, \"%4\"")
                                    .arg(scrapes)
                                    .arg(flood.elapsed())
                                    .arg(took)
                                    .arg(QString::fromUtf8(response.left(40)))));
        most = std::max(most, field(sessionsSql).toInt());
        metricsSessions = std::max(metricsSessions, field(metricsSessionsSql).toInt());
        const QString left = field(leftSql);
        QVERIFY2(!left.isEmpty(), "the billing lease changed hands during the flood");
        leastLeft = std::min(leastLeft, left.toDouble());
        QTest::qWait(100); // paces the sampling; the replica's stdout is read meanwhile
    }
    endFlood();
    leader::test::reportMeasurement(
            QStringLiteral("metrics flood (%1 looping clients, %2 stalled requests, %3 s): "
                           "replica sessions %4 before, at most %5 during (metrics %6); "
                           "well-behaved scrape first %7 ms, at most %8 ms over %9; %10 flood "
                           "scrapes served; %11 stalled requests opened, %12 closed by the "
                           "server after %13 to %14 ms; billing lease left at least %15 s")
                    .arg(Flooders)
                    .arg(StalledClients)
                    .arg(FloodForMs / 1000)
                    .arg(before)
                    .arg(most)
                    .arg(metricsSessions)
                    .arg(first)
                    .arg(slowest)
                    .arg(scrapes)
                    .arg(floodServed.load())
                    .arg(stalledOpened.load())
                    .arg(stalledClosed)
                    .arg(shortestStall)
                    .arg(longestStall)
                    .arg(leastLeft, 0, 'f', 1));
    QVERIFY2(most == before, qPrintable(QStringLiteral("%1 sessions during the flood, %2 before")
                                                .arg(most)
                                                .arg(before)));
    QCOMPARE(metricsSessions, 1);
    // Every stalled connection of the first round closed at its deadline, and renewed.
    QVERIFY2(stalledClosed >= qint64(StalledClients),
             qPrintable(QStringLiteral("%1 stalled connections closed").arg(stalledClosed)));
    QVERIFY2(shortestStall >= HeadDeadlineMs && longestStall < HeadDeadlineMs + CloseSlackMs,
             qPrintable(QStringLiteral("stalled connections closed after %1 to %2 ms")
                                .arg(shortestStall)
                                .arg(longestStall)));
    // Ticks unaffected: RENEWs every 3 s kept more than 7 s of the 10 s lease left throughout, and
    // nothing was late or lost.
    QVERIFY2(leastLeft > 5.0, qPrintable(QString::number(leastLeft)));
    QVERIFY(!replica.find("late_beat").has_value());
    QVERIFY(!replica.find("lost").has_value());
    QVERIFY(!replica.find("released").has_value());
}

// At its cap of open connections (MetricsServer::MaxConnections, 512) the server makes room for a
// new one by closing the connection that has waited longest for its request head: with the cap
// filled by stalled half-requests a scrape still answers within ScrapeDeadlineMs, the oldest
// stalled connection is the one closed, and the others stay open until their own deadline.
// Checked: with httplib and a worker per connection capped at 128 the scrape had no answer in 5 s.
void TestLeaderReplica::metricsCapClosesTheLongestWaiting()
{
    constexpr std::size_t Cap = 512;
    constexpr qint64 ScrapeDeadlineMs = 100;
    const QString config = configFile("cap.conf", "billing.interval = 1h\n");
    const int port = leader::platform::freeLoopbackPort();
    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--config", config, "--roles",
                                "billing", "--id", "cap", "--metrics-port", QString::number(port)});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    QVERIFY2(httpGet(port, "/metrics").startsWith("HTTP/1.1 200"), "no metrics");

    std::vector<pollfd> stalled;
    const auto closeStalled = qScopeGuard([&] {
        for (const pollfd &item : stalled)
            ::close(item.fd);
    });
    while (stalled.size() < Cap) {
        const int fd = stallingRequest(port);
        QVERIFY2(fd >= 0, "a stalled connection could not connect (too few open files allowed?)");
        stalled.push_back({fd, POLLIN, 0});
    }
    // None closed yet, by its deadline or otherwise: what closes one next is the scrape.
    QCOMPARE(::poll(stalled.data(), stalled.size(), 0), 0);
    QElapsedTimer scrape;
    scrape.start();
    const QByteArray response = httpGet(port, "/metrics");
    const qint64 took = scrape.elapsed();
    QVERIFY2(response.startsWith("HTTP/1.1 200") && took < ScrapeDeadlineMs,
             qPrintable(QStringLiteral("scrape at the cap: %1 ms, \"%2\"")
                                .arg(took)
                                .arg(QString::fromUtf8(response.left(40)))));
    pollfd &oldest = stalled.front();
    QTRY_VERIFY_WITH_TIMEOUT(::poll(&oldest, 1, 0) == 1, 1000);
    char byte;
    QCOMPARE(::read(oldest.fd, &byte, 1), ssize_t(0)); // closed, nothing answered
    QCOMPARE(::poll(stalled.data() + 1, stalled.size() - 1, 0), 0);
    leader::test::reportMeasurement(
            QStringLiteral("metrics at the cap (%1 stalled connections): a scrape in %2 ms, the "
                           "oldest stalled connection closed for it")
                    .arg(Cap)
                    .arg(took));
}

// A scrape while the database cannot be reached (the link severed: no answer, no FIN) answers
// within ScrapeDeadlineMs with what the replica has, saying so: hardcount_leader_status_up 0, the
// staleness growing, the roles' state "error" once the read timed out; healed, up again. Checked:
// with a scrape waiting for its reading to end, as the old scrape did its own read, a scrape took
// 2 s (the old code has no up gauge at all).
void TestLeaderReplica::metricsAnswerWhileTheDatabaseIsUnreachable()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    constexpr qint64 ScrapeDeadlineMs = 1500;
    const QString config = configFile("idle.conf", "billing.interval = 1h\n");
    const QString socket = m_dir.filePath("down.sock");
    const int port = leader::platform::freeLoopbackPort();
    EventProcess replica;
    replica.start(ReplicaPath,
                  {"--database", url(Login::App), "--config", config, "--roles", "billing", "--id",
                   "down", "--control", socket, "--metrics-port", QString::number(port)});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    qint64 slowest = 0;
    const auto scrape = [&] {
        QElapsedTimer took;
        took.start();
        const QByteArray response = httpGet(port, "/metrics");
        slowest = std::max(slowest, took.elapsed());
        return response;
    };
    QTRY_VERIFY_WITH_TIMEOUT(scrape().contains("\nhardcount_leader_status_up 1\n"), 5000);
    QCOMPARE(control(socket, "sever 30"), QStringLiteral("ok severed"));
    QTRY_VERIFY_WITH_TIMEOUT(scrape().contains("\nhardcount_leader_status_up 0\n"), 10000);
    const QByteArray down = scrape();
    QVERIFY2(down.contains("hardcount_leader_last_tick_state{role=\"billing\",state=\"error\"} 1"),
             down.constData());
    const QRegularExpressionMatch stale
            = QRegularExpression(R"(\nhardcount_leader_status_staleness_seconds ([0-9.e+]+)\n)")
                      .match(QString::fromUtf8(down));
    QVERIFY2(stale.hasMatch() && stale.captured(1).toDouble() >= 1.0, down.constData());
    QCOMPARE(control(socket, "heal"), QStringLiteral("ok normal"));
    QTRY_VERIFY_WITH_TIMEOUT(scrape().contains("\nhardcount_leader_status_up 1\n"), 10000);
    leader::test::reportMeasurement(
            QStringLiteral("metrics with the database unreachable: every scrape within %1 ms")
                    .arg(slowest));
    QVERIFY2(slowest < ScrapeDeadlineMs, qPrintable(QString::number(slowest)));
}

void TestLeaderReplica::controlPathInTheWayIsRefusedAndKept_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("regular file") << "file"
                                  << "exists and is a regular file, not a socket";
    QTest::newRow("directory") << "directory"
                               << "exists and is a directory, not a socket";
    QTest::newRow("symbolic link to a file") << "symlink"
                                             << "exists and is a symbolic link, not a socket";
    QTest::newRow("dangling symbolic link") << "dangling"
                                            << "exists and is a symbolic link, not a socket";
    QTest::newRow("a live replica's socket")
            << "live"
            << "is served by another process (a replica running with the same";
}

// --control PATH removes nothing it did not create (issue 31, finding 8): whatever is at PATH is
// refused with one line, exit 1, before anything is led, and is left as it was. Checked: with the
// unconditional unlink before bind() the regular file was deleted and the replica ran.
void TestLeaderReplica::controlPathInTheWayIsRefusedAndKept()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    QFETCH(QString, kind);
    QFETCH(QString, message);
    const QString path = m_dir.filePath("inway.sock");
    const QString target = m_dir.filePath("precious.txt");
    QFile::remove(path);
    QDir(path).removeRecursively();
    QFile precious(target);
    QVERIFY(precious.open(QIODevice::WriteOnly | QIODevice::Truncate));
    precious.write("precious\n");
    precious.close();
    std::unique_ptr<leader::platform::ControlServer> live;
    if (kind == "file")
        QVERIFY(QFile::copy(target, path));
    else if (kind == "directory")
        QVERIFY(QDir().mkdir(path));
    else if (kind == "symlink")
        QVERIFY(QFile::link(target, path));
    else if (kind == "dangling")
        QVERIFY(QFile::link(m_dir.filePath("nowhere"), path));
    else {
        live = std::make_unique<leader::platform::ControlServer>(
                path.toStdString(), [](const std::string &) { return std::string("mine"); });
        live->start();
    }

    EventProcess replica;
    replica.start(ReplicaPath, {"--database", url(Login::App), "--roles", "billing", "--id",
                                "inway", "--control", path});
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    const QString err = replica.errors();
    QVERIFY2(replica.process().exitCode() == 1, qPrintable(err));
    QVERIFY2(err.startsWith("leader-replica: cannot open the control socket: --control " + path
                            + " " + message)
                     && err.count(u'\n') == 1,
             qPrintable(err));
    QCOMPARE(replica.lines(), QStringList()); // never started

    const QFileInfo left(path);
    if (kind == "file") {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("precious\n"));
    } else if (kind == "directory") {
        QVERIFY(left.isDir());
    } else if (kind == "symlink" || kind == "dangling") {
        QVERIFY(left.isSymLink());
        QVERIFY(QFileInfo::exists(target));
    } else {
        QCOMPARE(control(path, "status"), QStringLiteral("mine"));
    }
}

// A socket file a killed replica left behind (nobody listening: the connect is refused) is
// replaced, so a restart under a supervisor needs no cleanup; the new one is removed on a clean
// stop.
void TestLeaderReplica::aDeadReplicasSocketIsReplaced()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    const QString path = m_dir.filePath("dead.sock");
    QFile::remove(path);
    QVERIFY(leaveDeadSocket(path));
    const QString config = configFile("idle.conf", "billing.interval = 1h\n");
    // No drain at the stop: its stop is the immediate one.
    EventProcess replica;
    replica.start(ReplicaPath,
                  {"--database", url(Login::App), "--config", config, "--roles", "billing", "--id",
                   "heir", "--control", path, "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    QCOMPARE(control(path, "status"), QStringLiteral("ok normal"));
    QCOMPARE(control(path, "stop"), QStringLiteral("ok normal"));
    QVERIFY(replica.process().waitForFinished(5000));
    QCOMPARE(replica.process().exitCode(), 0);
    QVERIFY(!QFileInfo::exists(path));
}

void TestLeaderReplica::controlNumbersMustBeFinite_data()
{
    QTest::addColumn<QString>("command");
    for (const char *command : {"freeze nan", "sever nan", "slow nan", "freeze -nan", "sever NaN",
                                "slow nan(1)", "freeze inf", "sever infinity", "slow -inf",
                                "freeze 1e400", "sever 1e-400", "slow 0x1p3", "freeze 0x10"})
        QTest::newRow(command) << QString::fromLatin1(command);
}

// The control socket's numbers are finite or refused (issue 31, finding 8): NaN passed every
// range check and its cast to milliseconds was undefined; the reply names what was wrong, and no
// fault is applied. Checked: without the std::isfinite test the NaN rows answered "ok" (the
// others were refused already: the infinities by the range, 1e400 and hex by from_chars).
void TestLeaderReplica::controlNumbersMustBeFinite()
{
    if (!ProductionReplica.isEmpty())
        QSKIP(NeedsFaults);
    QFETCH(QString, command);
    const QString socket = m_dir.filePath("numbers.sock");
    const QString config = configFile("idle.conf", "billing.interval = 1h\n");
    // No drain at the stop: its stop is the immediate one.
    EventProcess replica;
    replica.start(ReplicaPath,
                  {"--database", url(Login::App), "--config", config, "--roles", "billing", "--id",
                   "numbers", "--control", socket, "--drain-on-sigterm", "off"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    const QString verb = command.section(u' ', 0, 0);
    const QString word = command.section(u' ', 1);
    const QString reply = control(socket, command);
    QVERIFY2(reply.startsWith("error " + verb + " wants ")
                     && reply.endsWith(", not \"" + word + "\""),
             qPrintable(reply));
    QCOMPARE(control(socket, "status"), QStringLiteral("ok normal"));
    QCOMPARE(control(socket, "stop"), QStringLiteral("ok normal"));
    QVERIFY(replica.process().waitForFinished(5000));
    QVERIFY(!replica.find("fault", {{"fault", command}}).has_value());
}

QTEST_GUILESS_MAIN(TestLeaderReplica)
#include "tst_leaderreplica.moc"
