// No password ever in a message, log, report or export (issue 31, finding 5; the benchmarks'
// children, finding 8). Marker passwords, each with reserved characters, are given the ways a real
// user gives them: in a URL (percent-encoded, and raw, which libpq would misread), in key=value
// form, wrong, in PGPASSWORD and in a passfile (PGPASSFILE). Then everything a run writes is
// collected and searched for the markers and their pieces: leaderctl's stdout and stderr for
// status, history, pause, unpause, migrate and replicas (text and JSON); leader-replica's JSON
// events, its log and its /metrics; the console's connection messages, URL errors and status
// export (CSV and JSON); the command line of a leader-replica started by the benchmarks' own
// spawn code (bench_support), as ps shows it; and the test server's log.
//
// Straight to Postgres only: the marker roles are made here, and PgBouncer's userlist does not
// know them. Checked once each: without the reading's check for a raw '@' after the user info,
// leaderctl printed "cannot connect to lt_leak_url_…:Wr3g/Tt6v@Yy1u:Gg0o@127.0.0.1:…" (the
// finding); with the benchmarks' URLs left as given, the child's /proc/PID/cmdline held the
// marker.

#include "core/connectionprofile.h"
#include "core/statusexport.h"
#include "core/statuspoller.h"
#include "pg/conninfo.h"
#include "replicaprocess.h"
#include "secrets.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <libpq-fe.h>

#include <fstream>
#include <memory>
#include <mutex>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace std::chrono_literals;
using leader::test::cleanEnvironment;
using leader::test::Login;
using leader::test::qs;
using leader::test::TestDatabase;

namespace {

constexpr int ProcessDeadlineMs = 30'000;

// Distinctive pieces between reserved characters, so that a piece printed alone is found too.
const QString Marker = QStringLiteral("Mk1L/Qv9x@Zt7y:Rk3w#Ww5q?Pq2z Hh8j'Bb4n\u00e9");
const QString EnvMarker = QStringLiteral("Env2/Sx8k@Lm4p");        // PGPASSWORD and a passfile
const QString WrongMarker = QStringLiteral("Wr3g/Tt6v@Yy1u:Gg0o"); // a password no role has

QString encoded(const QString &text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

QString quoted(QString value)
{
    value.replace(u'\\', QStringLiteral("\\\\"));
    value.replace(u'\'', QStringLiteral("\\'"));
    return u'\'' + value + u'\'';
}

// What must never appear: each marker as written, percent-encoded, and every piece of four
// characters or more between its reserved characters.
QStringList forbidden()
{
    QStringList texts;
    for (const QString &marker : {Marker, EnvMarker, WrongMarker}) {
        texts << marker << encoded(marker);
        static const QRegularExpression separators(QStringLiteral("[/@:#? '\"]"));
        for (const QString &piece : marker.split(separators, Qt::SkipEmptyParts))
            if (piece.size() >= 4)
                texts << piece;
    }
    return texts;
}

struct Output
{
    QString what; // the run, for the failure message
    QString text;
};

class Outputs final
{
public:
    void add(const QString &what, const QString &text)
    {
        const std::lock_guard lock(m_mutex);
        m_outputs.push_back({what, text});
    }
    std::vector<Output> all() const
    {
        const std::lock_guard lock(m_mutex);
        return m_outputs;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Output> m_outputs;
};

QString firstConninfoValue(const std::string &url, const char *keyword)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(url.c_str(), &error);
    PQfreemem(error);
    QString value;
    for (PQconninfoOption *option = options; option && option->keyword; ++option)
        if (qstrcmp(option->keyword, keyword) == 0 && option->val)
            value = QString::fromUtf8(option->val);
    PQconninfoFree(options);
    return value;
}

// A loopback port nothing listens on now, for leader-replica's /metrics.
int freePort()
{
    const int socket = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(socket, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
        && ::getsockname(socket, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(socket);
    return port;
}

// GET /metrics over HTTP/1.0: the whole answer, headers included.
QByteArray scrape(int port)
{
    const int socket = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    timeval timeout{5, 0};
    ::setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    QByteArray answer;
    if (::connect(socket, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0) {
        const char request[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (::send(socket, request, sizeof request - 1, MSG_NOSIGNAL) > 0) {
            char buffer[4096];
            for (ssize_t n; (n = ::recv(socket, buffer, sizeof buffer, 0)) > 0;)
                answer.append(buffer, n);
        }
    }
    ::close(socket);
    return answer;
}

} // namespace

class TestNoPasswordLeaks final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void leaderctl();
    void leaderReplica();
    void console();
    void benchmarkChildren();
    void nothingPrintedAPassword();

private:
    QProcessEnvironment environment(const QStringList &assignments) const;
    QString url(const QString &user, const QString &password, bool raw = false) const;
    // Starts leader-replica, waits for its started event (or its exit), scrapes /metrics.
    void runReplica(const QString &database, const QStringList &assignments, bool connects,
                    const QString &what);

    std::unique_ptr<TestDatabase> m_db;
    QString m_host;
    QString m_port;
    QString m_database;
    QString m_urlRole; // its password: Marker
    QString m_envRole; // its password: EnvMarker
    QTemporaryDir m_home;
    QString m_passfile;
    QString m_serverLog;
    qint64 m_serverLogFrom = 0;
    Outputs m_outputs;
};

void TestNoPasswordLeaks::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("noleaks");
    m_db->migrateDemo();
    const std::string owner = m_db->directUrl(Login::Owner);
    m_host = firstConninfoValue(owner, "host");
    m_port = firstConninfoValue(owner, "port");
    m_database = qs(m_db->name());
    QVERIFY(!m_host.isEmpty() && !m_port.isEmpty());

    // The test servers' log (scripts/test-servers.sh: DIR/postgres.log, its socket in DIR/run).
    const QByteArray admin = qgetenv("LEADER_TEST_ADMIN_URL");
    const QString socketDirectory = firstConninfoValue(admin.toStdString(), "host");
    m_serverLog = QFileInfo(socketDirectory).dir().filePath(QStringLiteral("postgres.log"));
    QVERIFY2(QFileInfo::exists(m_serverLog), qPrintable(m_serverLog));
    m_serverLogFrom = QFileInfo(m_serverLog).size();

    // The roles, their passwords sent as SCRAM verifiers made here, as a careful operator does:
    // a server logging DDL then logs no password either.
    const QString suffix = QString::number(QCoreApplication::applicationPid());
    m_urlRole = "lt_leak_url_" + suffix;
    m_envRole = "lt_leak_env_" + suffix;
    PGconn *conn = PQconnectdb(admin.constData());
    QVERIFY2(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
    const auto execute = [conn](const QString &sql) {
        PGresult *result = PQexec(conn, sql.toUtf8().constData());
        const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
        if (!ok)
            qWarning("%s", PQresultErrorMessage(result));
        PQclear(result);
        return ok;
    };
    for (const auto &[role, password] : {std::pair{m_urlRole, Marker}, {m_envRole, EnvMarker}}) {
        char *verifier = PQencryptPasswordConn(conn, password.toUtf8().constData(),
                                               role.toUtf8().constData(), "scram-sha-256");
        QVERIFY(verifier);
        const QString sql = QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2' IN ROLE "
                                           "hardcount_app, hardcount_monitor")
                                    .arg(role, QString::fromLatin1(verifier));
        PQfreemem(verifier);
        QVERIFY(execute(sql));
    }
    PQfinish(conn);

    QVERIFY(m_home.isValid());
    // A passfile as libpq wants it: mode 0600, host:port:database:user:password.
    m_passfile = m_home.filePath(QStringLiteral("pgpass"));
    QFile passfile(m_passfile);
    QVERIFY(passfile.open(QIODevice::WriteOnly));
    passfile.write(QStringLiteral("%1:%2:%3:%4:%5\n")
                           .arg(m_host, m_port, m_database, m_envRole, EnvMarker)
                           .toUtf8());
    passfile.close();
    QVERIFY(passfile.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
}

void TestNoPasswordLeaks::cleanupTestCase()
{
    PGconn *conn = PQconnectdb(qgetenv("LEADER_TEST_ADMIN_URL").constData());
    if (PQstatus(conn) == CONNECTION_OK) {
        for (const QString &role : {m_urlRole, m_envRole}) {
            if (role.isEmpty())
                continue;
            PQclear(PQexec(conn, ("DROP ROLE IF EXISTS " + role).toUtf8().constData()));
        }
    }
    PQfinish(conn);
}

QProcessEnvironment TestNoPasswordLeaks::environment(const QStringList &assignments) const
{
    QProcessEnvironment environment = cleanEnvironment();
    // No ~/.pgpass of the caller's: only what a row gives.
    environment.insert(QStringLiteral("HOME"), m_home.path());
    for (const QString &assignment : assignments) {
        const qsizetype equals = assignment.indexOf(u'=');
        environment.insert(assignment.left(equals), assignment.mid(equals + 1));
    }
    return environment;
}

QString TestNoPasswordLeaks::url(const QString &user, const QString &password, bool raw) const
{
    const QString userinfo
            = password.isEmpty() ? user : user + u':' + (raw ? password : encoded(password));
    return QStringLiteral("postgresql://%1@%2:%3/%4").arg(userinfo, m_host, m_port, m_database);
}

void TestNoPasswordLeaks::leaderctl()
{
    const QString keywords = QStringLiteral("host=%1 port=%2 dbname=%3 user=%4 password=%5")
                                     .arg(m_host, m_port, m_database, m_urlRole, quoted(Marker));
    const QList<std::pair<QString, QStringList>> targets{
            {url(m_urlRole, Marker), {}},
            {url(m_urlRole, Marker, true), {}},
            {url(m_urlRole, WrongMarker), {}},
            // Raw, the way of the finding: libpq would read a host, a port and a database name
            // out of the password.
            {url(m_urlRole, WrongMarker, true), {}},
            {keywords, {}},
            {url(m_envRole, {}), {"PGPASSWORD=" + EnvMarker}},
            {url(m_envRole, {}), {"PGPASSFILE=" + m_passfile}},
            // PGPASSWORD given but wrong for this login.
            {url(m_urlRole, {}), {"PGPASSWORD=" + EnvMarker}},
    };
    const QList<QStringList> commands{
            {"status"},
            {"status", "--json"},
            {"pause", "email_outbox", "--by", "leakcheck", "--reason", "leak check"},
            {"history", "--since", "1h"},
            {"history", "--since", "1h", "--json"},
            {"unpause", "email_outbox", "--by", "leakcheck", "--reason", "leak check"},
            {"replicas", "--json"},
            {"migrate"},
    };
    int connected = 0;
    for (qsizetype target = 0; target < targets.size(); ++target) {
        const auto &[database, assignments] = targets.at(target);
        for (const QStringList &command : commands) {
            QProcess process;
            process.setProcessEnvironment(environment(assignments));
            process.start(QStringLiteral(LEADERCTL_PATH),
                          command + QStringList{"--database", database});
            QVERIFY(process.waitForFinished(ProcessDeadlineMs));
            if (command.first() == "status" && process.exitCode() == 0)
                ++connected;
            const QString what = "leaderctl " + command.join(u' ') + " #" + QString::number(target);
            m_outputs.add(what + " (stdout)", QString::fromUtf8(process.readAllStandardOutput()));
            m_outputs.add(what + " (stderr)", QString::fromUtf8(process.readAllStandardError()));
        }
    }
    // The right URL, key=value, PGPASSWORD and the passfile each connected, twice (text, JSON):
    // the markers were really in use, not refused before the first message.
    QCOMPARE(connected, 4 * 2);
}

void TestNoPasswordLeaks::runReplica(const QString &database, const QStringList &assignments,
                                     bool connects, const QString &what)
{
    const int port = freePort();
    QVERIFY(port > 0);
    QProcess process;
    process.setProcessEnvironment(environment(assignments));
    QString out;
    QString err;
    QObject::connect(&process, &QProcess::readyReadStandardOutput, &process,
                     [&] { out += QString::fromUtf8(process.readAllStandardOutput()); });
    QObject::connect(&process, &QProcess::readyReadStandardError, &process,
                     [&] { err += QString::fromUtf8(process.readAllStandardError()); });
    process.start(QStringLiteral(LEADER_REPLICA_PATH),
                  {"--database", database, "--roles", "email_outbox", "--id", "leakcheck",
                   "--metrics-port", QString::number(port)});
    QVERIFY(process.waitForStarted());
    const QDeadlineTimer deadline(20s);
    while (!out.contains(QLatin1String("\"event\":\"started\""))
           && process.state() == QProcess::Running && !deadline.hasExpired())
        process.waitForReadyRead(100);
    if (connects) {
        QVERIFY2(out.contains(QLatin1String("\"event\":\"started\"")), qPrintable(out + err));
        const QByteArray metrics = scrape(port);
        QVERIFY2(metrics.contains("hardcount_leader"), metrics.constData());
        m_outputs.add(what + " (/metrics)", QString::fromUtf8(metrics));
        process.terminate();
    }
    if (!process.waitForFinished(ProcessDeadlineMs)) {
        process.kill();
        process.waitForFinished();
    }
    out += QString::fromUtf8(process.readAllStandardOutput());
    err += QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(connects || process.exitCode() != 0, qPrintable(out + err));
    m_outputs.add(what + " (events)", out);
    m_outputs.add(what + " (log)", err);
}

void TestNoPasswordLeaks::leaderReplica()
{
    runReplica(url(m_urlRole, Marker), {}, true, "leader-replica, the URL's password");
    runReplica(url(m_envRole, {}), {"PGPASSWORD=" + EnvMarker}, true, "leader-replica, PGPASSWORD");
    runReplica(url(m_urlRole, Marker, true), {}, false, "leader-replica, a raw password");
    runReplica(url(m_urlRole, WrongMarker), {}, false, "leader-replica, a wrong password");
    runReplica(url(m_urlRole, WrongMarker, true), {}, false,
               "leader-replica, a raw password libpq would misread");
}

void TestNoPasswordLeaks::console()
{
    using namespace leader::console;
    // The URL field: a raw password is refused in one line.
    QString error;
    QVERIFY(!ConnectionProfile::fromUrl(url(m_urlRole, Marker, true), &error));
    m_outputs.add("console URL error", error);

    for (const auto &[password, connects] : {std::pair{Marker, true}, {WrongMarker, false}}) {
        QString parseError;
        const std::optional<ConnectionProfile> profile
                = ConnectionProfile::fromUrl(url(m_urlRole, password), &parseError);
        QVERIFY2(profile, qPrintable(parseError));
        QCOMPARE(profile->password, password);
        StatusPoller poller;
        QSignalSpy snapshots(&poller, &StatusPoller::snapshot);
        QSignalSpy changes(&poller, &StatusPoller::connectionChanged);
        poller.setInterval(500);
        poller.setTarget(*profile);
        if (connects) {
            QVERIFY(snapshots.wait(20'000));
            const auto snapshot = snapshots.takeFirst().at(0).value<StatusSnapshot>();
            m_outputs.add("console status export (CSV)", QString::fromUtf8(statusToCsv(snapshot)));
            m_outputs.add("console status export (JSON)",
                          QString::fromUtf8(statusToJson(snapshot)));
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(std::any_of(changes.cbegin(), changes.cend(),
                                                 [](const QList<QVariant> &change) {
                                                     return change.at(0).value<ConnectionState>()
                                                            == ConnectionState::Failed;
                                                 }),
                                     20'000);
        }
        for (const QList<QVariant> &change : std::as_const(changes))
            m_outputs.add("console connection message", change.at(1).toString());
        poller.stop();
    }
}

void TestNoPasswordLeaks::benchmarkChildren()
{
    // As a benchmark's main() does with its URLs, then its spawn code (bench_support).
    std::string database = url(m_urlRole, Marker).toStdString();
    const QByteArray inherited = qgetenv("PGPASSWORD");
    const auto restore = qScopeGuard([&inherited] {
        if (inherited.isNull())
            qunsetenv("PGPASSWORD");
        else
            qputenv("PGPASSWORD", inherited);
    });
    qunsetenv("PGPASSWORD");
    bench::passwordsToEnvironment({&database});
    QCOMPARE(qgetenv("PGPASSWORD"), Marker.toUtf8());
    QTemporaryDir logs;
    QVERIFY(logs.isValid());
    std::mutex mutex;
    QString events;
    bench::ReplicaProcess child({LEADER_REPLICA_PATH, "--database", database, "--roles",
                                 "email_outbox", "--id", "leakcheck-bench"},
                                logs.filePath("replica.log").toStdString(),
                                logs.filePath("replica.out").toStdString(),
                                [&](int, std::string_view line) {
                                    const std::lock_guard lock(mutex);
                                    events += qs(line) + u'\n';
                                });
    // What every local user reads of it (ps).
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(child.pid()));
    QVERIFY(cmdline.open(QIODevice::ReadOnly));
    m_outputs.add("bench child's command line", QString::fromUtf8(cmdline.readAll()));
    // It connected with the password from its environment.
    QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const std::lock_guard lock(mutex);
                return events.contains(QLatin1String("\"event\":\"started\""));
            }(),
            20'000);
    child.terminate();
    QVERIFY(child.waitForExit(20s));
    QFile log(logs.filePath("replica.log"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    m_outputs.add("bench child's log", QString::fromUtf8(log.readAll()));
    const std::lock_guard lock(mutex);
    m_outputs.add("bench child's events", events);
}

void TestNoPasswordLeaks::nothingPrintedAPassword()
{
    QFile serverLog(m_serverLog);
    QVERIFY(serverLog.open(QIODevice::ReadOnly));
    QVERIFY(serverLog.seek(m_serverLogFrom));
    const QString logged = QString::fromUtf8(serverLog.readAll());
    // The wrong password was really tried: the server said so, without it.
    QVERIFY2(logged.contains("password authentication failed for user \"" + m_urlRole + "\""),
             qPrintable(logged.right(2000)));
    m_outputs.add("the server's log", logged);

    const QStringList secrets = forbidden();
    int searched = 0;
    for (const Output &output : m_outputs.all()) {
        ++searched;
        for (const QString &secret : secrets)
            QVERIFY2(!output.text.contains(secret),
                     qPrintable(QStringLiteral("%1 printed \"%2\": %3")
                                        .arg(output.what, secret, output.text.left(2000))));
    }
    QVERIFY(searched > 100);
}

int main(int argc, char **argv)
{
    // The marker roles are unknown to PgBouncer's userlist: straight to Postgres.
    qputenv("LEADER_TEST_VIA", "direct");
    QCoreApplication app(argc, argv);
    qRegisterMetaType<leader::console::StatusSnapshot>();
    qRegisterMetaType<leader::console::ConnectionState>();
    TestNoPasswordLeaks test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_nopasswordleaks.moc"
