// A failover under the real binaries, on a libpq multi-host URL with target_session_attrs=
// read-write: a primary and its asynchronous streaming standby made here (initdb, pg_basebackup
// -R) on free loopback ports, the lease and demo schema migrated by leaderctl on that URL, one
// leader-replica process and the console's StatusPoller on it. The primary is stopped (fast) and
// the standby promoted; without a restart the same replica process ticks again on the new primary
// within interval + 15 s and its fast-wake listener is back there, leaderctl status answers from
// it, and the poller reconnects to it and reports rows again.

#include "core/connectionprofile.h"
#include "core/statuspoller.h"
#include "embedded/cluster.h"
#include "measurement.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/process.h"
#include "replicapath.h"
#include "toolprocess.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <libpq-fe.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

using namespace std::chrono_literals;
using leader::console::ConnectionProfile;
using leader::console::ConnectionState;
using leader::console::isConnected;
using leader::console::StatusPoller;
using leader::console::StatusSnapshot;
namespace platform = leader::platform;

using leader::test::cleanEnvironment;
using leader::test::qs;

// QCOMPARE prints a connection state by its name.
namespace leader::console {
char *toString(ConnectionState state)
{
    const QLatin1StringView name = connectionStateName(state);
    return qstrdup(QByteArray(name.data(), name.size()).constData());
}
} // namespace leader::console

namespace {

constexpr int ProcessDeadlineMs = 60'000;
constexpr int BillingIntervalMs = 1000;
// Issue 13's bound: every role ticks within its interval + 15 s of the database being back.
constexpr int TickBoundMs = BillingIntervalMs + 15'000;
// The poller's backoff is 1, 2, then 5 s between attempts, each bounded by connect_timeout.
constexpr int PollerBoundMs = 30'000;
const QString Database = QStringLiteral("leader_ha");

// The account Postgres runs as: the caller, or when that is root (which Postgres refuses), the
// test servers' account, the login of their admin URL (scripts/test-servers.sh: leaderci).
std::optional<platform::Account> serverAccount()
{
    if (!platform::isRoot())
        return std::nullopt;
    std::string name = "leaderci";
    char *error = nullptr;
    if (PQconninfoOption *options
        = PQconninfoParse(qgetenv("LEADER_TEST_ADMIN_URL").constData(), &error)) {
        for (PQconninfoOption *option = options; option->keyword; ++option) {
            if (qstrcmp(option->keyword, "user") == 0 && option->val && *option->val)
                name = option->val;
        }
        PQconninfoFree(options);
    }
    PQfreemem(error);
    std::optional<platform::Account> account = platform::lookupAccount(name);
    if (!account)
        throw std::runtime_error("no account '" + name
                                 + "' to run the servers as (Postgres refuses root): run the "
                                   "suite through scripts/test.sh, which creates it");
    return account;
}

// One server of the pair: its directory (data, Unix socket, log) and its loopback port.
struct Server
{
    std::filesystem::path directory;
    int port = 0;
    bool running = false;

    std::filesystem::path data() const { return directory / "data"; }
    std::filesystem::path socket() const { return directory / "run"; }
    // As the superuser over the Unix socket (trust), for what the test checks behind the tools.
    std::string adminUrl(const std::string &superuser) const
    {
        return "postgresql://" + superuser + "@/" + Database.toStdString()
               + "?host=" + socket().string() + "&port=" + std::to_string(port);
    }
};

// A primary and its asynchronous streaming standby in a temporary directory. Both servers are
// stopped (immediate) by the destructor, so a failed test leaves none running.
class ServerPair final
{
public:
    ServerPair()
        : m_dir(QDir::tempPath() + QStringLiteral("/tst_hafailover-XXXXXX"))
        , m_binDir(leader::embedded::Cluster::findBinDir())
        , m_account(serverAccount())
    {
        if (!m_dir.isValid())
            throw std::runtime_error("cannot create a temporary directory");
        const std::filesystem::path root = m_dir.path().toStdString();
        // The server account must reach its directories below ours.
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
                                                    | QFile::ReadOther | QFile::ExeOther
                                                    | QFile::ReadGroup | QFile::ExeGroup);
        m_primary.directory = root / "primary";
        m_standby.directory = root / "standby";
        for (const Server *server : {&m_primary, &m_standby})
            std::filesystem::create_directories(server->socket());
        if (m_account)
            platform::chownTree(root, *m_account);
        // initdb names the superuser after the account that runs it.
        m_superuser = platform::ownerOf(root)->name;
    }
    ~ServerPair()
    {
        for (Server *server : {&m_standby, &m_primary}) {
            if (server->running)
                pgCtl({"-D", server->data().string(), "-m", "immediate", "-w", "stop"}, false);
        }
    }
    ServerPair(const ServerPair &) = delete;
    ServerPair &operator=(const ServerPair &) = delete;

    // initdb and start the primary with the logins the tools use, base-backup the standby from it
    // and start it streaming.
    void create(const std::string &password)
    {
        run({"initdb", "-D", m_primary.data().string(), "-U", m_superuser, "-E", "UTF8",
             "--no-instructions", "--auth-local=trust", "--auth-host=scram-sha-256"});
        start(m_primary);
        leader::pg::Connection admin({.url = postgresUrl(m_primary), .applicationName = "tst"});
        // The grant roles exist before any migration, as a DBA would create them.
        admin.execScript("logins",
                         "CREATE ROLE hardcount_app NOLOGIN;"
                         "CREATE ROLE hardcount_monitor NOLOGIN;"
                         "CREATE ROLE lt_owner LOGIN PASSWORD '"
                                 + password
                                 + "';"
                                   "CREATE ROLE lt_app LOGIN PASSWORD '"
                                 + password
                                 + "' IN ROLE hardcount_app;"
                                   "CREATE ROLE lt_monitor LOGIN PASSWORD '"
                                 + password + "' IN ROLE hardcount_monitor;",
                         10s);
        admin.exec("database", "CREATE DATABASE " + Database.toStdString() + " OWNER lt_owner", {},
                   30s);
        // -R writes primary_conninfo (the primary's socket) and standby.signal.
        run({"pg_basebackup", "-D", m_standby.data().string(), "-R", "-X", "stream", "-c", "fast",
             "-h", m_primary.socket().string(), "-p", std::to_string(m_primary.port), "-U",
             m_superuser});
        start(m_standby);
    }
    void stopPrimary()
    {
        pgCtl({"-D", m_primary.data().string(), "-m", "fast", "-w", "-t", "60", "stop"});
        m_primary.running = false;
    }
    void promoteStandby() { pgCtl({"-D", m_standby.data().string(), "-w", "-t", "60", "promote"}); }

    const Server &primary() const { return m_primary; }
    const Server &standby() const { return m_standby; }
    const std::string &superuser() const { return m_superuser; }

    // The multi-host URL every tool here is given: the primary first, then the standby.
    QString url(const QString &login, const std::string &password) const
    {
        return QStringLiteral("postgresql://%1:%2@127.0.0.1:%3,127.0.0.1:%4/%5"
                              "?target_session_attrs=read-write")
                .arg(login, qs(password))
                .arg(m_primary.port)
                .arg(m_standby.port)
                .arg(Database);
    }

private:
    std::string postgresUrl(const Server &server) const
    {
        return "postgresql://" + m_superuser + "@/postgres?host=" + server.socket().string()
               + "&port=" + std::to_string(server.port);
    }
    void start(Server &server)
    {
        server.port = platform::freeLoopbackPort();
        // fsync off: nothing here is worth a crash-safe write, and the test runs faster.
        pgCtl({"-D", server.data().string(), "-l", (server.directory / "server.log").string(), "-w",
               "-t", "60", "-o",
               "-p " + std::to_string(server.port) + " -k " + server.socket().string()
                       + " -c listen_addresses=127.0.0.1 -c fsync=off",
               "start"});
        server.running = true;
    }
    void pgCtl(std::vector<std::string> arguments, bool check = true)
    {
        arguments.insert(arguments.begin(), "pg_ctl");
        run(std::move(arguments), check);
    }
    // Runs a server program as the server account, in the pair's directory (the caller's may be
    // closed to that account); throws with its output when it fails and check is set.
    void run(std::vector<std::string> argv, bool check = true)
    {
        const std::string program = argv.front();
        argv.front() = platform::programFile(m_binDir, program).string();
        const platform::ProcessResult result
                = platform::runProcess(argv, {.asAccount = m_account,
                                              .timeout = std::chrono::milliseconds(90'000),
                                              .workingDirectory = m_dir.path().toStdString()});
        if (check && !result.succeeded())
            throw std::runtime_error(program + " failed (exit " + std::to_string(result.exitCode)
                                     + "): " + result.error + result.output);
    }

    QTemporaryDir m_dir;
    std::filesystem::path m_binDir;
    std::optional<platform::Account> m_account;
    std::string m_superuser;
    Server m_primary;
    Server m_standby;
};

struct Run
{
    bool finished = false;
    int exitCode = -1;
    QString out;
    QString err;
};

Run leaderctl(const QStringList &arguments)
{
    QProcess process;
    process.setProcessEnvironment(cleanEnvironment());
    process.start(QStringLiteral(LEADERCTL_PATH), arguments);
    Run run;
    run.finished = process.waitForFinished(ProcessDeadlineMs);
    if (!run.finished) {
        process.kill();
        process.waitForFinished();
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// One leader-replica process, its stdout read as events; killed at the end if still running.
class ReplicaProcess final
{
public:
    explicit ReplicaProcess(const QStringList &arguments)
    {
        m_process.setProcessEnvironment(cleanEnvironment());
        m_process.start(leader::test::replicaPath(), arguments);
    }
    ~ReplicaProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    ReplicaProcess(const ReplicaProcess &) = delete;
    ReplicaProcess &operator=(const ReplicaProcess &) = delete;

    QProcess &process() { return m_process; }
    QList<QJsonObject> events()
    {
        m_out += m_process.readAllStandardOutput();
        QStringList lines = QString::fromUtf8(m_out).split(u'\n');
        lines.removeLast(); // empty, or a line still coming
        QList<QJsonObject> parsed;
        for (const QString &line : std::as_const(lines))
            parsed << QJsonDocument::fromJson(line.toUtf8()).object();
        return parsed;
    }
    // The first event named event from index from on, with that outcome and token when given.
    std::optional<QJsonObject> find(const QString &event, qsizetype from = 0,
                                    const QString &outcome = {}, const QJsonValue &token = {})
    {
        const QList<QJsonObject> all = events();
        for (qsizetype i = from; i < all.size(); ++i) {
            if (all[i].value("event").toString() == event
                && (outcome.isEmpty() || all[i].value("outcome").toString() == outcome)
                && (token.isNull() || all[i].value("token") == token))
                return all[i];
        }
        return std::nullopt;
    }
    // Every stdout line from index from on, and stderr: what a failed check shows.
    QString since(qsizetype from)
    {
        QStringList lines;
        const QList<QJsonObject> all = events();
        for (qsizetype i = from; i < all.size(); ++i)
            lines << QString::fromUtf8(QJsonDocument(all[i]).toJson(QJsonDocument::Compact));
        return lines.join(u'\n') + QStringLiteral("\nstderr: ") + errors();
    }
    QString errors()
    {
        m_err += m_process.readAllStandardError();
        return QString::fromUtf8(m_err);
    }

private:
    QProcess m_process;
    QByteArray m_out;
    QByteArray m_err;
};

// Re-emits the poller's signals in the test's thread, so QSignalSpy never races the poller's.
class Relay final : public QObject
{
    Q_OBJECT

public:
    explicit Relay(StatusPoller *poller)
    {
        connect(poller, &StatusPoller::snapshot, this, &Relay::snapshot);
        connect(poller, &StatusPoller::connectionChanged, this, &Relay::connectionChanged);
    }

Q_SIGNALS:
    void snapshot(const leader::console::StatusSnapshot &snapshot);
    void connectionChanged(leader::console::ConnectionState state, const QString &message);
};

// The console's poller in its own thread, as the console runs it.
class PollerThread final
{
public:
    PollerThread()
        : m_poller(new StatusPoller)
        , relay(m_poller)
        , snapshots(&relay, &Relay::snapshot)
        , connection(&relay, &Relay::connectionChanged)
    {
        m_poller->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_poller, &QObject::deleteLater);
        m_thread.start();
    }
    ~PollerThread()
    {
        QMetaObject::invokeMethod(m_poller, &StatusPoller::stop, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    Q_DISABLE_COPY_MOVE(PollerThread)

    void start(const ConnectionProfile &profile)
    {
        QMetaObject::invokeMethod(
                m_poller,
                [poller = m_poller, profile] {
                    poller->setInterval(500);
                    poller->setTarget(profile);
                },
                Qt::QueuedConnection);
    }
    struct Change
    {
        ConnectionState state;
        QString message;
    };
    // The first connection (Connected or Reconnected) from index from on, waiting up to timeoutMs
    // for it.
    std::optional<Change> waitForConnection(qsizetype from, int timeoutMs)
    {
        QElapsedTimer waited;
        waited.start();
        for (;;) {
            for (qsizetype i = from; i < connection.size(); ++i) {
                const auto state = connection.at(i).at(0).value<ConnectionState>();
                if (isConnected(state))
                    return Change{state, connection.at(i).at(1).toString()};
            }
            from = connection.size();
            const int left = timeoutMs - int(waited.elapsed());
            if (left <= 0 || !connection.wait(left))
                return std::nullopt;
        }
    }
    QString messages() const
    {
        QStringList all;
        for (const auto &arguments : connection)
            all << arguments.at(1).toString();
        return all.join(QLatin1Char('|'));
    }

private:
    QThread m_thread;
    StatusPoller *m_poller;

public:
    Relay relay;
    QSignalSpy snapshots;
    QSignalSpy connection;
};

} // namespace

class TestHaFailover final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void followsAPromotion();
    void cleanupTestCase();

private:
    std::unique_ptr<ServerPair> m_pair; // first in, last out: nothing outlives the servers
    std::string m_password;
    QTemporaryDir m_dir;
};

void TestHaFailover::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(LEADERCTL_PATH)).isExecutable(), LEADERCTL_PATH);
    QVERIFY2(QFileInfo(leader::test::replicaPath()).isExecutable(),
             qPrintable(leader::test::replicaPath()));
    QVERIFY(m_dir.isValid());
    m_password = QByteArray(platform::randomBytes(12).c_str(), 12).toHex().toStdString();
    try {
        m_pair = std::make_unique<ServerPair>();
        m_pair->create(m_password);
    } catch (const std::exception &error) {
        QFAIL(error.what());
    }
    // leaderctl migrates through the multi-host URL as well: it must reach the primary.
    const Run migrate = leaderctl({"migrate", "--demo", "--database",
                                   m_pair->url(QStringLiteral("lt_owner"), m_password)});
    QVERIFY2(migrate.finished && migrate.exitCode == 0, qPrintable(migrate.out + migrate.err));
    QVERIFY2(!QString(migrate.out + migrate.err).contains(qs(m_password)), qPrintable(migrate.err));
}

void TestHaFailover::cleanupTestCase()
{
    m_pair.reset();
}

void TestHaFailover::followsAPromotion()
{
    const Server &primary = m_pair->primary();
    const Server &standby = m_pair->standby();
    const QString config = m_dir.filePath(QStringLiteral("ha.conf"));
    {
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // Ticks of 4 s: each one renews on the heartbeat at least once.
        file.write("billing.interval = 1s\nbilling.min_tick = 4s\n");
    }
    const QString appUrl = m_pair->url(QStringLiteral("lt_app"), m_password);
    // No drain at SIGTERM: its stop at the end is the immediate one.
    ReplicaProcess replica({"--database", appUrl, "--roles", "billing", "--config", config, "--id",
                            "ha1", "--drain-on-sigterm", "off"});
    QTRY_VERIFY2_WITH_TIMEOUT(replica.find("released", 0, "completed").has_value(),
                              qPrintable(replica.errors()), 30'000);
    const QJsonObject started = *replica.find("started");
    QVERIFY2(started.value("fast_wake").toBool(), "no fast wake on a direct connection");
    // The started event names every server of the URL, and no password.
    QCOMPARE(started.value("database").toString(),
             QStringLiteral("lt_app@127.0.0.1:%1,127.0.0.1:%2/%3")
                     .arg(primary.port)
                     .arg(standby.port)
                     .arg(Database));
    const QString holder = started.value("holder").toString();
    const qint64 pid = replica.process().processId();

    PollerThread poller;
    QString error;
    const std::optional<ConnectionProfile> profile = ConnectionProfile::fromUrl(appUrl, &error);
    QVERIFY2(profile, qPrintable(error));
    poller.start(*profile);
    const std::optional<PollerThread::Change> connected
            = poller.waitForConnection(0, PollerBoundMs);
    QVERIFY2(connected, qPrintable(poller.messages()));
    QCOMPARE(connected->state, ConnectionState::Connected);
    QVERIFY2(connected->message.endsWith(
                     QStringLiteral("answered by 127.0.0.1:%1").arg(primary.port)),
             qPrintable(connected->message));

    // The failover: the primary stops (its sessions are ended), the standby is promoted.
    const qsizetype eventsBefore = replica.events().size();
    const qsizetype connectionBefore = poller.connection.size();
    try {
        m_pair->stopPrimary();
        m_pair->promoteStandby();
    } catch (const std::exception &failure) {
        QFAIL(failure.what());
    }
    QElapsedTimer sincePromotion;
    sincePromotion.start();
    // What the test checks behind the tools, as the new primary's superuser; a statement that
    // fails reads as an empty value.
    leader::pg::Connection admin(
            {.url = standby.adminUrl(m_pair->superuser()), .applicationName = "tst_hafailover"});
    const auto valueOnStandby = [&admin](const std::string &sql) {
        try {
            const leader::pg::Result result = admin.exec("inspect", sql, {}, 5s);
            return result.rows() == 0 || result.isNull(0, 0) ? QString() : qs(result.text(0, 0));
        } catch (const leader::pg::Error &) {
            return QString();
        }
    };
    const QString promotedAt = valueOnStandby("SELECT now()::text");
    QVERIFY(!promotedAt.isEmpty());

    // A tick begun on the new primary: an ACQUIRE whose now() came after the promotion (compared
    // on the new primary's clock). Checked: with the replica given the primary alone, this times
    // out.
    const auto acquiredSincePromotion = [&]() -> std::optional<QJsonObject> {
        const QList<QJsonObject> events = replica.events();
        for (qsizetype i = eventsBefore; i < events.size(); ++i) {
            if (events[i].value("event").toString() != QLatin1String("acquired"))
                continue;
            const std::string later
                    = "SELECT ('" + events[i].value("db_time").toString().toStdString()
                      + "'::timestamptz > '" + promotedAt.toStdString() + "'::timestamptz)::text";
            if (valueOnStandby(later) == QLatin1String("true"))
                return events[i];
        }
        return std::nullopt;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(acquiredSincePromotion(), qPrintable(replica.since(eventsBefore)),
                              TickBoundMs);
    leader::test::reportMeasurement(QString::asprintf(
            "ha failover: billing acquired on the promoted standby %.1f s after its promotion "
            "(interval 1 s, bound %d s)",
            sincePromotion.elapsed() / 1000.0, TickBoundMs / 1000));
    // ... and completed there, renewed on the way: a RELEASE as completed stamps the row.
    const QJsonObject acquired = *acquiredSincePromotion();
    QTRY_VERIFY2_WITH_TIMEOUT(
            replica.find("released", eventsBefore, "completed", acquired.value("token"))
                    .has_value(),
            qPrintable(replica.since(eventsBefore)), 15'000);
    const std::string stamped = "SELECT (last_tick_holder = '" + holder.toStdString()
                                + "' AND last_tick_ended_at > '"
                                + acquired.value("db_time").toString().toStdString()
                                + "'::timestamptz)::text FROM leader_status WHERE role = 'billing'";
    QCOMPARE(valueOnStandby(stamped), QStringLiteral("true"));
    QCOMPARE(replica.process().state(), QProcess::Running);
    QCOMPARE(replica.process().processId(), pid);
    QVERIFY(!replica.find("stopped").has_value());
    QVERIFY(replica.find("acquired", eventsBefore).has_value());

    // The fast-wake listener's session is back, on the new primary, holding its marker lock
    // again (migration 0179), named as the marker (amendment 2026-12-05).
    QTRY_COMPARE_WITH_TIMEOUT(
            valueOnStandby("SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l "
                           "ON l.pid = a.pid AND l.locktype = 'advisory' AND "
                           "l.granted WHERE a.usename = 'lt_app' AND "
                           "a.application_name LIKE 'leader marker %'"),
            QStringLiteral("1"), 15'000);

    // leaderctl on the same URL answers from the new primary, the only server left.
    const Run status = leaderctl(
            {"status", "--database", m_pair->url(QStringLiteral("lt_monitor"), m_password)});
    QVERIFY2(status.finished && status.exitCode == 0, qPrintable(status.out + status.err));
    QVERIFY2(status.out.contains(QStringLiteral(" on lt_monitor@127.0.0.1:%1/%2\n")
                                         .arg(standby.port)
                                         .arg(Database)),
             qPrintable(status.out));

    // The console's poller follows without being told: its session ended with the primary, and
    // its reconnects pass the stopped primary and the standby until the promotion.
    const std::optional<PollerThread::Change> reconnected = poller.waitForConnection(
            connectionBefore, std::max(0, PollerBoundMs - int(sincePromotion.elapsed())));
    QVERIFY2(reconnected, qPrintable(poller.messages()));
    QCOMPARE(reconnected->state, ConnectionState::Reconnected);
    QVERIFY2(reconnected->message.startsWith(QLatin1String("reconnected to lt_app@127.0.0.1:"))
                     && reconnected->message.endsWith(
                             QStringLiteral("answered by 127.0.0.1:%1").arg(standby.port)),
             qPrintable(reconnected->message));
    // Its own words say how long it was without a connection, from the primary's stop.
    leader::test::reportMeasurement(
            QStringLiteral("ha failover: the console's poller ")
            + reconnected->message.section(QStringLiteral(", answered"), 0, 0));
    const qsizetype snapshotsBefore = poller.snapshots.size();
    QTRY_VERIFY_WITH_TIMEOUT(poller.snapshots.size() > snapshotsBefore, 10'000);
    const auto snapshot = poller.snapshots.last().at(0).value<StatusSnapshot>();
    QCOMPARE(snapshot.roles.size(), 5);

    // The replica still stops cleanly, releasing on the new primary.
    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(5000));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);
    QVERIFY2(!replica.errors().contains(qs(m_password)), "a password in the replica's log");
}

QTEST_GUILESS_MAIN(TestHaFailover)
#include "tst_hafailover.moc"
