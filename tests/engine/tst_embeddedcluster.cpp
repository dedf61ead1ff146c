#include "embedded/cluster.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/process.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <libpq-fe.h>

#include <fstream>

using namespace leader;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

embedded::ClusterOptions optionsFor(const fs::path &directory)
{
    embedded::ClusterOptions options;
    options.directory = directory;
    return options;
}

std::vector<std::string> linesOf(const fs::path &file)
{
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

int postmasterPid(const fs::path &directory)
{
    const auto lines = linesOf(directory / "data" / "postmaster.pid");
    return lines.empty() ? 0 : std::stoi(lines.front());
}

pg::Connection connectTo(const std::string &url)
{
    pg::ConnectOptions options;
    options.url = url;
    pg::Connection connection(options);
    connection.open();
    return connection;
}

int queryNumber(const std::string &url, std::string_view sql)
{
    return static_cast<int>(connectTo(url).exec("query", sql, {}, 5s).toInt64(0, 0));
}

// Sessions other than this one running the test's long statement.
int busyBackends(const std::string &url)
{
    return queryNumber(url, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                            " AND pid <> pg_backend_pid() AND query LIKE '%generate_series%'");
}

// The ClusterError message of start(), empty when it started.
QString startFailure(embedded::Cluster &cluster)
{
    try {
        cluster.start();
    } catch (const embedded::ClusterError &error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

fs::perms permissionsOf(const fs::path &path)
{
    return fs::status(path).permissions() & fs::perms::all;
}

} // namespace

class tst_EmbeddedCluster final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void startsConnectsAndStops();
    void restartKeepsDataAndPassword();
    void recoversFromKilledPostmaster_data();
    void recoversFromKilledPostmaster();
    void recoversFromPidFileOfUnrelatedProcess();
    void adoptsRunningServer();
    void rejectsMissingBinaries_data();
    void rejectsMissingBinaries();
    void rejectsUnusableDirectory_data();
    void rejectsUnusableDirectory();
    void rejectsDirectoryTheServerCannotReach();
    void runsAsTheChosenServerAccount();
    void rejectsUnknownServerAccount();

private:
    fs::path freshDirectory(const char *name) const;

    // Under /tmp, so that the server account can reach it when the test runs as root.
    QTemporaryDir m_root{QStringLiteral("/tmp/tst_embeddedcluster-XXXXXX")};
};

fs::path tst_EmbeddedCluster::freshDirectory(const char *name) const
{
    const fs::path directory = fs::path(m_root.path().toStdString()) / name;
    fs::remove_all(directory);
    return directory;
}

void tst_EmbeddedCluster::initTestCase()
{
    QVERIFY(m_root.isValid());
    if (platform::isRoot()) {
        QVERIFY(QFile::setPermissions(m_root.path(), QFile::ReadOwner | QFile::WriteOwner
                                                             | QFile::ExeOwner | QFile::ExeGroup
                                                             | QFile::ExeOther));
    }
    try {
        qInfo("PostgreSQL binaries: %s", embedded::Cluster::findBinDir().c_str());
    } catch (const embedded::ClusterError &error) {
        QSKIP(error.what());
    }
}

void tst_EmbeddedCluster::startsConnectsAndStops()
{
    const fs::path directory = freshDirectory("lifecycle");
    embedded::Cluster cluster(optionsFor(directory));
    cluster.start();
    QVERIFY(cluster.isRunning());
    QVERIFY(cluster.port() > 0);
    QCOMPARE(cluster.socketDirectory(), directory / "run");
    QCOMPARE(queryNumber(cluster.url(), "SELECT 1"), 1);
    QCOMPARE(queryNumber(cluster.tcpUrl(), "SELECT 1"), 1);
    QCOMPARE(connectTo(cluster.url()).user(), cluster.superuser());

    // TCP takes the password and nothing else.
    std::string wrongPassword = cluster.tcpUrl();
    wrongPassword.replace(wrongPassword.find(cluster.password()), cluster.password().size(),
                          "wrong");
    QVERIFY_THROWS_EXCEPTION(pg::Error, connectTo(wrongPassword));

    const fs::path passwordFile = directory / "superuser.password";
    QCOMPARE(permissionsOf(passwordFile), fs::perms::owner_read | fs::perms::owner_write);
    QCOMPARE(linesOf(passwordFile), std::vector<std::string>{cluster.password()});
    QCOMPARE(cluster.password().size(), std::size_t(32));
    QCOMPARE(permissionsOf(directory / "run"), fs::perms::owner_all);
    QVERIFY(fs::file_size(directory / "server.log") > 0);

    const int pid = postmasterPid(directory);
    QVERIFY(platform::processAlive(pid));
    cluster.stop();
    QVERIFY(!cluster.isRunning());
    QVERIFY(!platform::processAlive(pid));
    QVERIFY(!fs::exists(directory / "data" / "postmaster.pid"));
    QCOMPARE(PQping(cluster.url().c_str()), PQPING_NO_RESPONSE);
    cluster.stop(); // not running: nothing to do
}

void tst_EmbeddedCluster::restartKeepsDataAndPassword()
{
    const fs::path directory = freshDirectory("restart");
    std::string password;
    int firstPid = 0;
    {
        embedded::Cluster first(optionsFor(directory));
        first.start();
        password = first.password();
        firstPid = postmasterPid(directory);
        pg::Connection connection = connectTo(first.tcpUrl());
        connection.exec("create", "CREATE TABLE kept (value int)", {}, 5s);
        connection.exec("insert", "INSERT INTO kept VALUES ($1)", {42}, 5s);
    }
    // The destructor stopped what it started.
    QVERIFY(!platform::processAlive(firstPid));

    embedded::Cluster second(optionsFor(directory));
    second.start();
    QCOMPARE(second.password(), password);
    QCOMPARE(queryNumber(second.tcpUrl(), "SELECT value FROM kept"), 42);
}

void tst_EmbeddedCluster::recoversFromKilledPostmaster_data()
{
    QTest::addColumn<bool>("busyBackend");
    QTest::newRow("idle session") << false;
    QTest::newRow("busy backend outlives it") << true;
}

void tst_EmbeddedCluster::recoversFromKilledPostmaster()
{
    QFETCH(bool, busyBackend);
    const fs::path directory = freshDirectory("killed");
    embedded::Cluster cluster(optionsFor(directory));
    cluster.start();
    // A session's backend outlives the postmaster for a moment, holding its shared memory; a busy
    // one notices the postmaster is gone only when its statement ends, well after the kill.
    const std::unique_ptr<PGconn, decltype(&PQfinish)> session(PQconnectdb(cluster.url().c_str()),
                                                               &PQfinish);
    QCOMPARE(PQstatus(session.get()), CONNECTION_OK);
    if (busyBackend) {
        QVERIFY(PQsendQuery(session.get(), "SELECT count(*) FROM generate_series(1, 20000000)"));
        QTRY_COMPARE_WITH_TIMEOUT(busyBackends(cluster.url()), 1, 10000);
    }
    const int pid = postmasterPid(directory);
    QVERIFY(platform::killProcess(pid));
    QTRY_VERIFY_WITH_TIMEOUT(!platform::processAlive(pid), 10000);
    QVERIFY(!cluster.isRunning());
    QCOMPARE(postmasterPid(directory), pid); // the stale lock file stays behind

    cluster.start();
    QVERIFY(cluster.isRunning());
    QVERIFY(postmasterPid(directory) != pid);
    QCOMPARE(queryNumber(cluster.url(), "SELECT 1"), 1);
}

void tst_EmbeddedCluster::recoversFromPidFileOfUnrelatedProcess()
{
    const fs::path directory = freshDirectory("reused-pid");
    embedded::Cluster cluster(optionsFor(directory));
    cluster.start();
    std::vector<std::string> lockFile = linesOf(directory / "data" / "postmaster.pid");
    cluster.stop();

    // As after a reboot: the dead server's lock file names a PID that now belongs to someone else.
    lockFile.front() = std::to_string(QCoreApplication::applicationPid());
    {
        std::ofstream out(directory / "data" / "postmaster.pid");
        for (const std::string &line : lockFile)
            out << line << '\n';
    }
    cluster.start();
    QVERIFY(cluster.isRunning());
    QVERIFY(postmasterPid(directory) != QCoreApplication::applicationPid());
    QCOMPARE(queryNumber(cluster.url(), "SELECT 1"), 1);
}

void tst_EmbeddedCluster::adoptsRunningServer()
{
    const fs::path directory = freshDirectory("adopt");
    embedded::Cluster first(optionsFor(directory));
    first.start();
    const int pid = postmasterPid(directory);
    {
        embedded::Cluster second(optionsFor(directory));
        second.start();
        QVERIFY(second.isRunning());
        QCOMPARE(second.port(), first.port());
        QCOMPARE(second.socketDirectory(), first.socketDirectory());
        QCOMPARE(second.password(), first.password());
        QCOMPARE(postmasterPid(directory), pid);
        QCOMPARE(queryNumber(second.tcpUrl(), "SELECT 1"), 1);
    }
    // An adopted server counts as the adopter's: its destructor stopped it.
    QVERIFY(!platform::processAlive(pid));
    QVERIFY(!first.isRunning());
    first.stop();
}

void tst_EmbeddedCluster::rejectsMissingBinaries_data()
{
    QTest::addColumn<bool>("fromEnvironment");
    QTest::addColumn<QString>("expected");
    QTest::newRow("option") << false << QStringLiteral("not found in");
    QTest::newRow("LEADER_PG_BINDIR") << true << QStringLiteral("LEADER_PG_BINDIR=");
}

void tst_EmbeddedCluster::rejectsMissingBinaries()
{
    QFETCH(bool, fromEnvironment);
    QFETCH(QString, expected);
    const fs::path empty = freshDirectory("no-binaries");
    fs::create_directory(empty);
    const fs::path directory = freshDirectory("no-binaries-cluster");
    embedded::ClusterOptions options = optionsFor(directory);
    if (fromEnvironment)
        qputenv("LEADER_PG_BINDIR", QByteArray::fromStdString(empty.string()));
    else
        options.binDir = empty;
    embedded::Cluster cluster(options);
    const QString message = startFailure(cluster);
    qunsetenv("LEADER_PG_BINDIR");

    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(empty.string())), qPrintable(message));
    QVERIFY2(message.contains("no initdb"), qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QVERIFY(!fs::exists(directory));
}

void tst_EmbeddedCluster::rejectsUnusableDirectory_data()
{
    QTest::addColumn<QString>("directory");
    QTest::addColumn<QString>("expected");

    const fs::path root = m_root.path().toStdString();
    std::ofstream(root / "a-file").put('x');
    QTest::newRow("file in its place") << QString::fromStdString((root / "a-file").string())
                                       << QStringLiteral("is not a directory");
    QTest::newRow("below a file") << QString::fromStdString((root / "a-file" / "cluster").string())
                                  << QStringLiteral("cannot create");
    // Root writes anywhere but to a pseudo file system.
    fs::path readOnly = "/proc/tst_embeddedcluster";
    if (!platform::isRoot()) {
        readOnly = root / "read-only";
        fs::create_directory(readOnly);
        fs::permissions(readOnly, fs::perms::owner_read | fs::perms::owner_exec);
    }
    QTest::newRow("read-only") << QString::fromStdString((readOnly / "cluster").string())
                               << QStringLiteral("cannot create");
    QTest::newRow("socket path too long")
            << QString::fromStdString((root / std::string(90, 'x')).string())
            << QStringLiteral("too long for a Unix socket path");
}

void tst_EmbeddedCluster::rejectsUnusableDirectory()
{
    QFETCH(QString, directory);
    QFETCH(QString, expected);
    embedded::Cluster cluster(optionsFor(directory.toStdString()));
    const QString message = startFailure(cluster);
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.contains(directory), qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QVERIFY(!cluster.isRunning());
}

void tst_EmbeddedCluster::rejectsDirectoryTheServerCannotReach()
{
    if (!platform::isRoot())
        QSKIP("only root hands the server to another account");
    const fs::path closed = freshDirectory("closed");
    fs::create_directory(closed);
    fs::permissions(closed, fs::perms::owner_all);
    const fs::path directory = closed / "cluster";
    embedded::Cluster cluster(optionsFor(directory));
    const QString message = startFailure(cluster);
    QVERIFY2(message.contains("cannot reach " + QString::fromStdString(directory.string())),
             qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(closed.string()) + " is closed to it"),
             qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QVERIFY(!fs::exists(directory));
}

void tst_EmbeddedCluster::runsAsTheChosenServerAccount()
{
    if (!platform::isRoot())
        QSKIP("only root hands the server to another account");
    const fs::path directory = freshDirectory("nobody");
    embedded::ClusterOptions options = optionsFor(directory);
    options.serverAccount = "nobody";
    embedded::Cluster cluster(options);
    cluster.start();
    QCOMPARE(platform::ownerOf(directory / "data" / "postmaster.pid").value().name,
             std::string("nobody"));
    QCOMPARE(queryNumber(cluster.tcpUrl(), "SELECT 1"), 1);
    cluster.stop();
    QVERIFY(!cluster.isRunning());
}

void tst_EmbeddedCluster::rejectsUnknownServerAccount()
{
    if (!platform::isRoot())
        QSKIP("only root hands the server to another account");
    embedded::ClusterOptions options = optionsFor(freshDirectory("unknown-account"));
    options.serverAccount = "no-such-account-here";
    embedded::Cluster cluster(options);
    const QString message = startFailure(cluster);
    QVERIFY2(message.contains("'no-such-account-here' does not exist"), qPrintable(message));
}

QTEST_GUILESS_MAIN(tst_EmbeddedCluster)

#include "tst_embeddedcluster.moc"
