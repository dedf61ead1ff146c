// leader::pg::Connection against a real server, straight to Postgres and again through PgBouncer in
// transaction mode: client-side deadlines and the cancel behind them, definite versus transport
// errors, parameters, pooled interleaving, and what the messages say (the target, never a
// password). Also the conninfo helpers the messages are built from.

#include "loopbackport.h"
#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <libpq-fe.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::pg::Error;
using leader::pg::ErrorKind;
using leader::pg::Param;
using leader::pg::Result;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;
// A password no server knows, so any trace of it in a message is an echo of the URL.
constexpr const char *WrongPassword = "s3cr3t-xyz";

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The keyword=value pairs libpq reads from conninfo, empty values left out, sorted, space-joined.
QString conninfoPairs(const std::string &conninfo)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.c_str(), &error);
    if (!options) {
        const QString message = QStringLiteral("unparsable: %1").arg(error ? error : "");
        PQfreemem(error);
        return message;
    }
    QStringList pairs;
    for (PQconninfoOption *option = options; option->keyword; ++option)
        if (option->val && *option->val)
            pairs << QString::fromUtf8(option->keyword) + "=" + QString::fromUtf8(option->val);
    PQconninfoFree(options);
    pairs.sort();
    return pairs.join(u' ');
}

// The variables libpq and the conninfo helpers read, cleared for one scope (then set as a row
// asks) and restored afterwards, so neither the caller's environment nor one row leaks into
// another.
class ConninfoEnvironment final
{
public:
    ConninfoEnvironment()
    {
        for (const char *name : Names) {
            if (qEnvironmentVariableIsSet(name))
                m_saved[name] = qgetenv(name);
            qunsetenv(name);
        }
    }
    ~ConninfoEnvironment()
    {
        for (const char *name : Names) {
            const auto saved = m_saved.find(name);
            if (saved == m_saved.end())
                qunsetenv(name);
            else
                qputenv(name, saved->second);
        }
    }
    ConninfoEnvironment(const ConninfoEnvironment &) = delete;
    ConninfoEnvironment &operator=(const ConninfoEnvironment &) = delete;

    // Entries of the form NAME=value.
    void set(const QStringList &assignments)
    {
        for (const QString &assignment : assignments) {
            const qsizetype equals = assignment.indexOf(u'=');
            qputenv(assignment.left(equals).toUtf8().constData(),
                    assignment.mid(equals + 1).toUtf8());
        }
    }

private:
    static constexpr const char *Names[] = {"PGHOST",     "PGHOSTADDR", "PGPORT", "PGUSER",
                                            "PGDATABASE", "PGPASSWORD", "USER",   "DATABASE_URL"};
    std::map<std::string, QByteArray> m_saved;
};

} // namespace

class TestPgConnection final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void deadlineCancelsLongStatement();
    void definiteErrorKeepsConnection_data();
    void definiteErrorKeepsConnection();
    void scriptReportsItsFirstError();
    void parameterRoundTrips_data();
    void parameterRoundTrips();
    void severalParametersKeepTheirPositions();
    void interleavedConnectionsShareThePool();
    void transactionKeepsItsServerConnection();
    void concurrentConnections();
    void refusedConnectionIsTransportError_data();
    void refusedConnectionIsTransportError();
    void silentServerMeetsTheDeadline_data();
    void silentServerMeetsTheDeadline();
    void stopEndsAWaitAtOnce_data();
    void stopEndsAWaitAtOnce();
    void wrongPasswordIsClearAndRedacted_data();
    void wrongPasswordIsClearAndRedacted();
    void terminatedBackend_data();
    void terminatedBackend();
    void describesItsSession();
    void hostListSkipsAnUnusableServer_data();
    void hostListSkipsAnUnusableServer();
    void redactSecrets_data();
    void redactSecrets();
    void describeTarget_data();
    void describeTarget();
    void databaseUrlFrom_data();
    void databaseUrlFrom();
    void serverConninfos_data();
    void serverConninfos();

private:
    // Server backends, other than the asking one, running a statement whose text holds marker.
    int activeWith(const std::string &marker);
    std::optional<int> activePidWith(const std::string &marker);
    QString urlWithPassword(Login login, const QString &password) const;

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_admin;
    leader::test::LoopbackPort m_refusingPort{leader::test::LoopbackPort::Behaviour::Refuse};
    leader::test::LoopbackPort m_silentPort{leader::test::LoopbackPort::Behaviour::Silent};
};

void TestPgConnection::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("pgconnection");
    m_admin = std::make_unique<Connection>(leader::pg::ConnectOptions{
            .url = qEnvironmentVariable("LEADER_TEST_ADMIN_URL").toStdString(),
            .applicationName = "leader-tests admin"});
    m_admin->open();
}

int TestPgConnection::activeWith(const std::string &marker)
{
    const Result result = m_admin->exec("watch activity", R"sql(
SELECT count(*) FROM pg_stat_activity
 WHERE state = 'active' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0
)sql",
                                        {marker}, Short);
    return static_cast<int>(result.toInt64(0, 0));
}

std::optional<int> TestPgConnection::activePidWith(const std::string &marker)
{
    const Result result = m_admin->exec("find backend", R"sql(
SELECT pid FROM pg_stat_activity
 WHERE state = 'active' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0
)sql",
                                        {marker}, Short);
    if (result.rows() != 1)
        return std::nullopt;
    return static_cast<int>(result.toInt64(0, 0));
}

QString TestPgConnection::urlWithPassword(Login login, const QString &password) const
{
    return qs(m_db->url(login)).replace(qEnvironmentVariable("LEADER_TEST_PASSWORD"), password);
}

void TestPgConnection::deadlineCancelsLongStatement()
{
    Connection connection = m_db->connect(Login::App);
    // The text, not a parameter, carries the marker: pg_stat_activity shows the text only.
    const std::string marker = "deadline-" + std::to_string(::getpid());
    QElapsedTimer timer;
    timer.start();
    try {
        connection.exec("long sleep", "SELECT pg_sleep(5) /* " + marker + " */", {}, 300ms);
        QFAIL("a 5 s statement returned within its 300 ms deadline");
    } catch (const Error &error) {
        const qint64 elapsed = timer.elapsed();
        QVERIFY2(error.deadlineExceeded(), error.what());
        QVERIFY2(error.isTransport() || error.sqlstate() == leader::pg::sqlstate::QueryCanceled,
                 error.what());
        QCOMPARE(qs(error.statement()), QStringLiteral("long sleep"));
        QVERIFY2(elapsed >= 300, qPrintable(QString::number(elapsed)));
        // The deadline plus the 500 ms cancel grace, with slack for a loaded machine.
        QVERIFY2(elapsed < 3000, qPrintable(QString::number(elapsed)));
    }
    // A cancel that reached the server ends the sleep there as well; a connection that was only
    // dropped would leave the backend sleeping for the rest of its 5 s.
    QTRY_COMPARE_WITH_TIMEOUT(activeWith(marker), 0, 2000);
    // The connection serves again, and a late cancel must not hit the statement after.
    const Result after = connection.exec("after deadline", "SELECT pg_sleep(0.3), 42", {}, Short);
    QCOMPARE(qs(after.text(0, 1)), QStringLiteral("42"));
}

void TestPgConnection::definiteErrorKeepsConnection_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("sqlstate");
    QTest::addColumn<QString>("advice"); // what explain() tells the operator to do, if anything
    QTest::newRow("division by zero") << "SELECT 1/0"
                                      << "22012" << QString();
    QTest::newRow("undefined table") << "SELECT * FROM no_such_table"
                                     << "42P01"
                                     << "run leaderctl migrate";
    // An extension undone under a running replica: its database was reached, so not "check the
    // database name in the URL", which "does not exist" in the message used to give.
    QTest::newRow("undefined column") << "SELECT handover_token FROM (SELECT 1) AS l"
                                      << "42703"
                                      << "lacks a column this build uses";
    QTest::newRow("syntax error") << "SELEC 1"
                                  << "42601" << QString();
    QTest::newRow("invalid integer") << "SELECT 'abc'::int"
                                     << "22P02" << QString();
    QTest::newRow("raised by plpgsql")
            << "DO $$ BEGIN RAISE EXCEPTION 'custom' USING ERRCODE = 'P0001'; END $$"
            << "P0001" << QString();
}

void TestPgConnection::definiteErrorKeepsConnection()
{
    QFETCH(QString, sql);
    QFETCH(QString, sqlstate);
    QFETCH(QString, advice);
    Connection connection = m_db->connect(Login::App);
    const auto *handle = connection.handle();
    // The row's name is the statement's name, so each row checks it travels with the error.
    const std::string statement = QTest::currentDataTag();
    try {
        connection.exec(statement, sql.toStdString(), {}, Short);
        QFAIL("the statement did not fail");
    } catch (const Error &error) {
        QCOMPARE(error.kind(), ErrorKind::Definite);
        QVERIFY(!error.isTransport());
        QVERIFY(!error.deadlineExceeded());
        QCOMPARE(qs(error.sqlstate()), sqlstate);
        QCOMPARE(qs(error.statement()), qs(statement));
        const QString explained = qs(leader::pg::explain(error));
        QVERIFY2(explained.startsWith(qs(statement) + ": "), qPrintable(explained));
        QVERIFY2(explained.contains("[SQLSTATE " + sqlstate + "]"), qPrintable(explained));
        QVERIFY2(explained.contains(advice), qPrintable(explained));
    }
    // Checked before the next statement, which would reopen a closed connection unseen.
    QVERIFY(connection.isOpen());
    QVERIFY(connection.handle() == handle);
    QCOMPARE(qs(connection.exec("after error", "SELECT 7", {}, Short).text(0, 0)),
             QStringLiteral("7"));
}

void TestPgConnection::scriptReportsItsFirstError()
{
    Connection connection = m_db->connect(Login::App);
    connection.execScript("two statements", "SELECT 1; SELECT 2", Short);
    try {
        connection.execScript("failing script", "SELECT 1; SELECT 1/0; SELECT 'abc'::int", Short);
        QFAIL("the script did not fail");
    } catch (const Error &error) {
        QCOMPARE(error.kind(), ErrorKind::Definite);
        QCOMPARE(qs(error.sqlstate()), QStringLiteral("22012"));
        QCOMPARE(qs(error.statement()), QStringLiteral("failing script"));
    }
    QVERIFY(connection.isOpen());
    QVERIFY(!connection.inTransaction());
}

void TestPgConnection::parameterRoundTrips_data()
{
    QTest::addColumn<QString>("kind"); // text, null or integer
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("number");
    QTest::addColumn<QString>("expected"); // as the server prints it; ignored for null
    QTest::newRow("text") << "text"
                          << "hello" << qint64(0) << "hello";
    QTest::newRow("empty text is not NULL") << "text"
                                            << "" << qint64(0) << "";
    QTest::newRow("quotes, backslashes, injection")
            << "text"
            << R"(it's "quoted" \ and '); DROP TABLE x; --)" << qint64(0)
            << R"(it's "quoted" \ and '); DROP TABLE x; --)";
    QTest::newRow("unicode") << "text"
                             << "grüße, 日本, 🎉" << qint64(0) << "grüße, 日本, 🎉";
    // Larger than a socket buffer: the non-blocking send must flush it in parts.
    const QString large(4 * 1024 * 1024, u'x');
    QTest::newRow("4 MiB of text") << "text" << large << qint64(0) << large;
    QTest::newRow("null") << "null"
                          << "" << qint64(0) << "";
    QTest::newRow("zero") << "integer"
                          << "" << qint64(0) << "0";
    QTest::newRow("negative") << "integer"
                              << "" << qint64(-7) << "-7";
    QTest::newRow("int64 max") << "integer"
                               << "" << std::numeric_limits<qint64>::max() << "9223372036854775807";
    QTest::newRow("int64 min") << "integer"
                               << "" << std::numeric_limits<qint64>::min()
                               << "-9223372036854775808";
}

void TestPgConnection::parameterRoundTrips()
{
    QFETCH(QString, kind);
    QFETCH(QString, text);
    QFETCH(qint64, number);
    QFETCH(QString, expected);
    const std::string value = text.toStdString();
    const Param param = kind == "null"      ? Param(nullptr)
                        : kind == "integer" ? Param(static_cast<std::int64_t>(number))
                                            : Param(value);
    Connection connection = m_db->connect(Login::App);
    const Result result = connection.exec(
            "round trip", "SELECT $1::text AS value, $1::text IS NULL AS is_null", {param}, Short);
    QCOMPARE(result.rows(), 1);
    const int column = result.column("value");
    QCOMPARE(column, 0);
    QCOMPARE(result.toBool(0, result.column("is_null")), kind == "null");
    QCOMPARE(result.isNull(0, column), kind == "null");
    if (kind == "null") {
        QVERIFY(!result.optionalText(0, column).has_value());
        return;
    }
    QCOMPARE(qs(result.text(0, column)), expected);
    if (kind == "integer")
        QCOMPARE(result.toInt64(0, column), number);
}

void TestPgConnection::severalParametersKeepTheirPositions()
{
    Connection connection = m_db->connect(Login::App);
    const Result result = connection.exec("positions", R"sql(
SELECT $1::int - $2::int AS difference, $3::text AS label, $4::text IS NULL AS missing,
       $5::text AS last
)sql",
                                          {50, 8, "third", nullptr, std::string("fifth")}, Short);
    QCOMPARE(result.toInt64(0, result.column("difference")), 42);
    QCOMPARE(qs(result.text(0, result.column("label"))), QStringLiteral("third"));
    QVERIFY(result.toBool(0, result.column("missing")));
    QCOMPARE(qs(result.text(0, result.column("last"))), QStringLiteral("fifth"));
    QCOMPARE(result.column("absent"), -1);
}

void TestPgConnection::interleavedConnectionsShareThePool()
{
    constexpr int Clients = 4;
    constexpr int Rounds = 50;
    std::vector<Connection> clients;
    for (int i = 0; i < Clients; ++i)
        clients.push_back(m_db->connect(Login::App));
    // Which clients each server backend served: a named prepared statement left on a backend by
    // one client is what breaks the next client it serves.
    std::map<std::int64_t, std::set<int>> clientsOfBackend;
    for (int round = 0; round < Rounds; ++round) {
        for (int client = 0; client < Clients; ++client) {
            const Result result = clients[client].exec(
                    "interleaved", "SELECT $1::int * 1000 + $2::int, $3::text, pg_backend_pid()",
                    {client, round, "client " + std::to_string(client)}, Short);
            QCOMPARE(result.toInt64(0, 0), client * 1000 + round);
            QCOMPARE(qs(result.text(0, 1)), QStringLiteral("client %1").arg(client));
            clientsOfBackend[result.toInt64(0, 2)].insert(client);
        }
    }
    if (m_db->viaPgBouncer()) {
        // Otherwise this route would not exercise pooling at all.
        QVERIFY(std::any_of(clientsOfBackend.begin(), clientsOfBackend.end(),
                            [](const auto &entry) { return entry.second.size() > 1; }));
    } else {
        QCOMPARE(clientsOfBackend.size(), std::size_t(Clients));
    }
}

void TestPgConnection::transactionKeepsItsServerConnection()
{
    Connection holder = m_db->connect(Login::App);
    Connection other = m_db->connect(Login::App);
    holder.exec("begin", "BEGIN", {}, Short);
    QVERIFY(holder.inTransaction());
    const std::int64_t first
            = holder.exec("pid", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0);
    for (int i = 0; i < 10; ++i) {
        const std::int64_t seen
                = other.exec("other", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0);
        QVERIFY(seen != first);
    }
    QCOMPARE(holder.exec("pid", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0), first);
    holder.exec("commit", "COMMIT", {}, Short);
    QVERIFY(!holder.inTransaction());
}

void TestPgConnection::concurrentConnections()
{
    constexpr int Threads = 6;
    constexpr int Statements = 100;
    std::mutex mutex;
    QStringList failures;
    std::vector<std::thread> threads;
    for (int t = 0; t < Threads; ++t) {
        threads.emplace_back([&, t] {
            try {
                Connection connection = m_db->connect(Login::App);
                for (int i = 0; i < Statements; ++i) {
                    const Result result = connection.exec("concurrent", "SELECT $1::int + $2::int",
                                                          {t * 10'000, i}, Short);
                    if (result.toInt64(0, 0) != t * 10'000 + i)
                        throw std::runtime_error("wrong answer " + std::string(result.text(0, 0)));
                }
            } catch (const std::exception &error) {
                const std::lock_guard lock(mutex);
                failures << QStringLiteral("thread %1: %2").arg(t).arg(error.what());
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join("; ")));
}

void TestPgConnection::refusedConnectionIsTransportError_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("firstStatement"); // else open()
    const QString port = QString::number(m_refusingPort.port());
    const QString url = "postgresql://lt_owner:" + QString(WrongPassword) + "@127.0.0.1:" + port
                        + "/" + qs(m_db->name());
    const QString keywords = "host=127.0.0.1 port=" + port + " user=lt_owner password='"
                             + WrongPassword + "' dbname=" + qs(m_db->name());
    QTest::newRow("url, open") << url << false;
    QTest::newRow("url, first statement") << url << true;
    QTest::newRow("keywords, open") << keywords << false;
    QTest::newRow("keywords, first statement") << keywords << true;
}

void TestPgConnection::refusedConnectionIsTransportError()
{
    QFETCH(QString, url);
    QFETCH(bool, firstStatement);
    Connection connection({.url = url.toStdString()});
    QElapsedTimer timer;
    timer.start();
    try {
        if (firstStatement)
            connection.exec("first statement", "SELECT 1", {}, Short);
        else
            connection.open();
        QFAIL("connected to a port nobody listens on");
    } catch (const Error &error) {
        QVERIFY(error.isTransport());
        QVERIFY(error.sqlstate().empty());
        QVERIFY(!error.deadlineExceeded());
        QCOMPARE(qs(error.statement()), QString(firstStatement ? "first statement" : "connect"));
        const QString what = qs(error.what());
        const QString explained = qs(leader::pg::explain(error));
        const QString target = "lt_owner@127.0.0.1:" + QString::number(m_refusingPort.port()) + "/"
                               + qs(m_db->name());
        QVERIFY2(what.contains(target), qPrintable(what));
        QVERIFY2(!what.contains(WrongPassword), qPrintable(what));
        QVERIFY2(!explained.contains(WrongPassword), qPrintable(explained));
    }
    // A refusal is immediate; only a bug would wait out the connect timeout.
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!connection.isOpen());
}

void TestPgConnection::silentServerMeetsTheDeadline_data()
{
    QTest::addColumn<bool>("firstStatement"); // else open(300 ms)
    QTest::newRow("open") << false;
    QTest::newRow("first statement") << true;
}

void TestPgConnection::silentServerMeetsTheDeadline()
{
    QFETCH(bool, firstStatement);
    // The connect timeout is far longer than the deadline: the deadline must win.
    Connection connection({.url = "postgresql://lt_owner:" + std::string(WrongPassword)
                                  + "@127.0.0.1:" + std::to_string(m_silentPort.port()) + "/x",
                           .connectTimeout = 20s});
    QElapsedTimer timer;
    timer.start();
    try {
        if (firstStatement)
            connection.exec("first statement", "SELECT 1", {}, 300ms);
        else
            connection.open(300ms);
        QFAIL("a server that never answers let the connection open");
    } catch (const Error &error) {
        const qint64 elapsed = timer.elapsed();
        QVERIFY(error.isTransport());
        QVERIFY(error.deadlineExceeded());
        QCOMPARE(qs(error.statement()), QString(firstStatement ? "first statement" : "connect"));
        // Not before the deadline, give or take the whole milliseconds the socket wait rounds to.
        QVERIFY2(elapsed >= 295, qPrintable(QString::number(elapsed)));
        QVERIFY2(elapsed < 3000, qPrintable(QString::number(elapsed)));
        const QString explained = qs(leader::pg::explain(error));
        QVERIFY2(explained.contains("did not answer in time"), qPrintable(explained));
        QVERIFY2(!explained.contains(WrongPassword), qPrintable(explained));
    }
}

void TestPgConnection::stopEndsAWaitAtOnce_data()
{
    QTest::addColumn<bool>("silentServer"); // else a statement the server runs for 5 s
    QTest::newRow("connect to a server that never answers") << true;
    QTest::newRow("statement in flight") << false;
}

// What bounds the console's exit: a wait on the server, however long its deadline, ends soon
// after the owner asks it to stop from another thread. (Without the stop token in the socket
// waits, both rows wait out their 20 s deadlines.)
void TestPgConnection::stopEndsAWaitAtOnce()
{
    QFETCH(bool, silentServer);
    std::stop_source stop;
    leader::pg::ConnectOptions options
            = silentServer ? leader::pg::ConnectOptions{.url = "postgresql://lt_owner@127.0.0.1:"
                                                               + std::to_string(m_silentPort.port())
                                                               + "/x",
                                                        .connectTimeout = 20s}
                           : leader::pg::ConnectOptions{.url = m_db->url(Login::App)};
    options.stop = stop.get_token();
    Connection connection(options);
    if (!silentServer)
        connection.open();
    std::thread stopper([&stop] {
        std::this_thread::sleep_for(200ms); // the wait must have begun; not a synchronisation
        stop.request_stop();
    });
    QElapsedTimer timer;
    timer.start();
    try {
        connection.exec("waited", "SELECT pg_sleep(5)", {}, 20s);
        stopper.join();
        QFAIL("the statement returned although stop was requested");
    } catch (const Error &error) {
        const qint64 elapsed = timer.elapsed();
        stopper.join();
        QVERIFY2(error.isTransport(), error.what());
        QCOMPARE(qs(error.statement()), QStringLiteral("waited"));
        QVERIFY2(QString(error.what()).contains("stopping"), error.what());
        QVERIFY2(elapsed < 200 + 3 * leader::pg::StopCheckEvery.count() + 200,
                 qPrintable(QString::number(elapsed)));
    }
    QVERIFY(!connection.isOpen());
    // Once stopped, nothing more is sent.
    try {
        connection.exec("after stop", "SELECT 1", {}, Short);
        QFAIL("a statement was sent after stop");
    } catch (const Error &error) {
        QVERIFY(error.notStarted());
    }
}

void TestPgConnection::wrongPasswordIsClearAndRedacted_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("url") << urlWithPassword(Login::Owner, WrongPassword);
    const int port = m_db->viaPgBouncer() ? qEnvironmentVariableIntValue("LEADER_TEST_BOUNCER_PORT")
                                          : qEnvironmentVariableIntValue("LEADER_TEST_PG_PORT");
    QTest::newRow("quoted keyword") << QStringLiteral("host=%1 port=%2 user=lt_owner "
                                                      "password='%3' dbname=%4")
                                               .arg(qEnvironmentVariable("LEADER_TEST_HOST"))
                                               .arg(port)
                                               .arg(WrongPassword, qs(m_db->name()));
}

void TestPgConnection::wrongPasswordIsClearAndRedacted()
{
    QFETCH(QString, url);
    Connection connection({.url = url.toStdString()});
    try {
        connection.open();
        QFAIL("connected with a wrong password");
    } catch (const Error &error) {
        QVERIFY(error.isTransport());
        QCOMPARE(qs(error.statement()), QStringLiteral("connect"));
        const QString what = qs(error.what());
        const QString explained = qs(leader::pg::explain(error));
        // Postgres says "password authentication failed", PgBouncer "SASL authentication failed".
        QVERIFY2(what.contains("authentication failed"), qPrintable(what));
        QVERIFY2(explained.contains("check the user and password"), qPrintable(explained));
        QVERIFY2(what.contains("lt_owner@"), qPrintable(what));
        QVERIFY2(!what.contains(WrongPassword), qPrintable(what));
        QVERIFY2(!explained.contains(WrongPassword), qPrintable(explained));
    }
}

void TestPgConnection::terminatedBackend_data()
{
    QTest::addColumn<bool>("midStatement");
    QTest::newRow("idle") << false;
    QTest::newRow("mid-statement") << true;
}

void TestPgConnection::terminatedBackend()
{
    QFETCH(bool, midStatement);
    if (!midStatement && m_db->viaPgBouncer())
        QSKIP("through PgBouncer an idle client holds no server backend, so none is its own to "
              "terminate; the mid-statement row covers this route");
    Connection connection = m_db->connect(Login::App);
    const std::string marker = "terminate-" + std::to_string(::getpid());
    std::optional<Error> failure;
    QElapsedTimer sinceTerminate;
    if (midStatement) {
        // A jthread joins even when a failed check returns early.
        std::jthread statement([&] {
            try {
                connection.exec("long statement", "SELECT pg_sleep(20) /* " + marker + " */", {},
                                30s);
            } catch (const Error &error) {
                failure = error;
            }
        });
        std::optional<int> pid;
        QTRY_VERIFY_WITH_TIMEOUT((pid = activePidWith(marker)).has_value(), 5000);
        QVERIFY(m_admin->exec("terminate", "SELECT pg_terminate_backend($1)", {*pid}, Short)
                        .toBool(0, 0));
        sinceTerminate.start();
        statement.join();
        QVERIFY2(sinceTerminate.elapsed() < 3000,
                 qPrintable(QString::number(sinceTerminate.elapsed())));
        QVERIFY2(failure.has_value(), "the statement survived its backend's termination");
        QCOMPARE(qs(failure->statement()), QStringLiteral("long statement"));
    } else {
        const int pid = static_cast<int>(
                connection.exec("pid", "SELECT pg_backend_pid()", {}, Short).toInt64(0, 0));
        // Waits until the backend is gone, so the next statement meets a closed session.
        QVERIFY(m_admin->exec("terminate", "SELECT pg_terminate_backend($1, 5000)", {pid}, Short)
                        .toBool(0, 0));
        // A session the server closed while it sat idle (a restart, a failover, a pooler restart)
        // is found before the next statement is sent, which then runs on a new session instead of
        // failing. Without Connection::closeIfEndedByServer it fails (checked once).
        const Result after
                = connection.exec("after terminate", "SELECT pg_backend_pid()", {}, Short);
        QVERIFY(after.toInt64(0, 0) != pid);
        return;
    }
    QVERIFY2(failure->isTransport(), failure->what());
    QVERIFY(!failure->deadlineExceeded());
    QVERIFY(!connection.isOpen());
    // The next statement reconnects.
    const Result again = connection.exec("reconnect", "SELECT current_user", {}, Short);
    QCOMPARE(qs(again.text(0, 0)), QStringLiteral("lt_app"));
}

void TestPgConnection::describesItsSession()
{
    const std::string url = m_db->url(Login::Monitor);
    Connection connection({.url = url});
    QVERIFY(!connection.isOpen());
    QCOMPARE(qs(connection.target()), qs(leader::pg::describeTarget(url)));
    QVERIFY(connection.user().empty());
    QCOMPARE(connection.serverVersion(), 0);

    connection.open();
    QVERIFY(connection.isOpen());
    const int port = m_db->viaPgBouncer() ? qEnvironmentVariableIntValue("LEADER_TEST_BOUNCER_PORT")
                                          : qEnvironmentVariableIntValue("LEADER_TEST_PG_PORT");
    QCOMPARE(qs(connection.target()), QStringLiteral("lt_monitor@%1:%2/%3")
                                              .arg(qEnvironmentVariable("LEADER_TEST_HOST"))
                                              .arg(port)
                                              .arg(qs(m_db->name())));
    QCOMPARE(qs(connection.user()), QStringLiteral("lt_monitor"));
    QVERIFY(connection.serverVersion() >= 120000);

    Connection moved = std::move(connection);
    QCOMPARE(qs(moved.exec("who", "SELECT current_user", {}, Short).text(0, 0)),
             QStringLiteral("lt_monitor"));
    moved.close();
    QVERIFY(!moved.isOpen());
    // A closed connection is reopened by its next statement.
    QCOMPARE(qs(moved.exec("reopen", "SELECT 1", {}, Short).text(0, 0)), QStringLiteral("1"));
    QVERIFY(moved.isOpen());
}

// A multi-host URL with target_session_attrs: the async connect passes a server that refuses and
// lands on the next, and target() names the server it reached, not the list.
void TestPgConnection::hostListSkipsAnUnusableServer_data()
{
    QTest::addColumn<bool>("silent");
    QTest::newRow("refusing first server") << false;
    // A dead machine rather than a stopped server: libpq's asynchronous connect would wait on it
    // for the whole deadline; each server gets its share instead. Without the per-server split
    // in Connection::openUntil this row fails (checked once).
    QTest::newRow("silent first server") << true;
}

void TestPgConnection::hostListSkipsAnUnusableServer()
{
    QFETCH(bool, silent);
    const QString host = qEnvironmentVariable("LEADER_TEST_HOST");
    const int firstPort = silent ? m_silentPort.port() : m_refusingPort.port();
    const std::string url
            = QStringLiteral(
                      "postgresql://lt_app:%1@%2:%3,%2:%4/%5?target_session_attrs=read-write")
                      .arg(qEnvironmentVariable("LEADER_TEST_PASSWORD"), host)
                      .arg(firstPort)
                      .arg(m_db->targetPort())
                      .arg(qs(m_db->name()))
                      .toStdString();
    Connection connection({.url = url});
    QCOMPARE(qs(connection.target()), QStringLiteral("lt_app@%1:%2,%1:%3/%4")
                                              .arg(host)
                                              .arg(firstPort)
                                              .arg(m_db->targetPort())
                                              .arg(qs(m_db->name())));
    // A RENEW's deadline: the silent server may take half of it, never all.
    QCOMPARE(qs(connection.exec("who", "SELECT current_user", {}, 2s).text(0, 0)),
             QStringLiteral("lt_app"));
    QCOMPARE(qs(connection.target()), QStringLiteral("lt_app@%1:%2/%3")
                                              .arg(host)
                                              .arg(m_db->targetPort())
                                              .arg(qs(m_db->name())));
    // Each server of the list on its own: the first is refused, the second answers.
    const std::vector<std::string> servers = leader::pg::serverConninfos(url);
    QCOMPARE(servers.size(), std::size_t(2));
    Connection first({.url = servers.front()});
    QVERIFY_THROWS_EXCEPTION(Error, first.open(1s));
    Connection second({.url = servers.back()});
    second.open();
    QCOMPARE(qs(second.user()), QStringLiteral("lt_app"));
}

void TestPgConnection::redactSecrets_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("url userinfo")
            << "postgresql://alice:s3cr3t-xyz@db.example:5432/billing" << QStringList()
            << "failed for postgresql://alice:s3cr3t-xyz@db.example:5432/billing: s3cr3t-xyz"
            << "failed for postgresql://alice:***@db.example:5432/billing: ***";
    QTest::newRow("percent-encoded password, both forms")
            << "postgresql://alice:s3%40cr%2Ft@db.example/billing" << QStringList()
            << "raw s3%40cr%2Ft, decoded s3@cr/t"
            << "raw ***, decoded ***";
    QTest::newRow("url query parameter")
            << "postgresql://db.example/billing?user=alice&password=s3cr3t-xyz&sslmode=disable"
            << QStringList() << "said s3cr3t-xyz"
            << "said ***";
    QTest::newRow("keyword") << "host=db.example password=s3cr3t-xyz user=alice" << QStringList()
                             << "password=s3cr3t-xyz was s3cr3t-xyz"
                             << "password=*** was ***";
    QTest::newRow("keyword with spaces around =")
            << "host=db.example password = s3cr3t-xyz user=alice" << QStringList()
            << "got s3cr3t-xyz"
            << "got ***";
    QTest::newRow("quoted keyword")
            << "host=db.example password='s3 cr3t' user=alice" << QStringList() << "got s3 cr3t!"
            << "got ***!";
    QTest::newRow("quoted keyword with escapes")
            << R"(host=db.example password='it\'s a \\secret' user=alice)" << QStringList()
            << R"(got it's a \secret!)"
            << "got ***!";
    QTest::newRow("PGPASSWORD") << "postgresql://alice@db.example/billing"
                                << QStringList{"PGPASSWORD=s3cr3t-env"} << "x s3cr3t-env y"
                                << "x *** y";
    QTest::newRow("no password anywhere")
            << "postgresql://alice@db.example:5432/billing" << QStringList()
            << "cannot connect to alice@db.example:5432/billing: refused"
            << "cannot connect to alice@db.example:5432/billing: refused";
    QTest::newRow("empty url") << "" << QStringList() << "nothing to hide"
                               << "nothing to hide";
    QTest::newRow("multi-host URL")
            << "postgresql://alice:s3cr3t-xyz@h1:5432,h2:5433/"
               "billing?target_session_attrs=read-write"
            << QStringList()
            << "cannot connect to postgresql://alice:s3cr3t-xyz@h1:5432,h2:5433/billing: s3cr3t-xyz"
            << "cannot connect to postgresql://alice:***@h1:5432,h2:5433/billing: ***";
    QTest::newRow("multi-host keywords")
            << "host=h1,h2 port=5432,5433 password=s3cr3t-xyz target_session_attrs=read-write"
            << QStringList() << "password=s3cr3t-xyz said s3cr3t-xyz"
            << "password=*** said ***";
}

void TestPgConnection::redactSecrets()
{
    QFETCH(QString, url);
    QFETCH(QStringList, environment);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    ConninfoEnvironment guard;
    guard.set(environment);
    QCOMPARE(qs(leader::pg::redactSecrets(text.toStdString(), url.toStdString())), expected);
}

void TestPgConnection::describeTarget_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("expected");
    QTest::newRow("url") << "postgresql://alice:s3cr3t-xyz@db.example:6543/billing" << QStringList()
                         << "alice@db.example:6543/billing";
    QTest::newRow("url, percent-encoded password")
            << "postgresql://alice:s3%40cr%2Ft@db.example/billing" << QStringList()
            << "alice@db.example:5432/billing";
    QTest::newRow("keywords") << "host=db.example port=6000 user=bob password=s3cr3t dbname=ops"
                              << QStringList() << "bob@db.example:6000/ops";
    QTest::newRow("quoted keyword") << "host=db.example user=bob password='s3 cr3t' dbname=ops"
                                    << QStringList() << "bob@db.example:5432/ops";
    QTest::newRow("hostaddr") << "hostaddr=10.0.0.5 user=bob dbname=ops" << QStringList()
                              << "bob@10.0.0.5:5432/ops";
    QTest::newRow("unix socket") << "postgresql://leaderci@/postgres?host=/run/pg&port=55432"
                                 << QStringList() << "leaderci@/run/pg:55432/postgres";
    QTest::newRow("database defaults to the user")
            << "postgresql://alice@db.example" << QStringList() << "alice@db.example:5432/alice";
    QTest::newRow("PG* variables")
            << ""
            << QStringList{"PGHOST=pg.internal", "PGPORT=7000", "PGUSER=carol", "PGDATABASE=audit",
                           "PGPASSWORD=s3cr3t-env"}
            << "carol@pg.internal:7000/audit";
    QTest::newRow("url wins over PG* variables")
            << "postgresql://alice@db.example/billing"
            << QStringList{"PGHOST=pg.internal", "PGPORT=7000", "PGUSER=carol"}
            << "alice@db.example:7000/billing";
    QTest::newRow("user from the login") << "postgresql://db.example/ops"
                                         << QStringList{"USER=dave"} << "dave@db.example:5432/ops";
    // A host list names every server with its own port, in libpq's order.
    QTest::newRow("URL host list")
            << "postgresql://alice:s3cr3t@h1.example:5432,h2.example:5433/billing"
               "?target_session_attrs=read-write"
            << QStringList() << "alice@h1.example:5432,h2.example:5433/billing";
    // libpq's quirk: the URL gives the port keyword (empty entries), so PGPORT does not apply.
    QTest::newRow("URL host list without ports")
            << "postgresql://alice@h1,h2/billing" << QStringList{"PGPORT=7000"}
            << "alice@h1:5432,h2:5432/billing";
    QTest::newRow("host list, one port for all")
            << "host=h1,h2 port=6000 user=bob password=s3cr3t dbname=ops" << QStringList()
            << "bob@h1:6000,h2:6000/ops";
    QTest::newRow("hostaddr list")
            << "hostaddr=10.0.0.5,10.0.0.6 port=5432,5433 user=bob dbname=ops" << QStringList()
            << "bob@10.0.0.5:5432,10.0.0.6:5433/ops";
    QTest::newRow("IPv6 host list") << "postgresql://alice@[::1]:5432,[fe80::2]:5433/db"
                                    << QStringList() << "alice@[::1]:5432,[fe80::2]:5433/db";
    QTest::newRow("socket directory and a host")
            << "host=/run/pg,db.example port=5432 user=x dbname=d" << QStringList()
            << "x@/run/pg:5432,db.example:5432/d";
    QTest::newRow("PG* host list")
            << ""
            << QStringList{"PGHOST=a,b", "PGPORT=7000,7001", "PGUSER=carol", "PGDATABASE=audit"}
            << "carol@a:7000,b:7001/audit";
}

void TestPgConnection::describeTarget()
{
    QFETCH(QString, url);
    QFETCH(QStringList, environment);
    QFETCH(QString, expected);
    ConninfoEnvironment guard;
    guard.set(environment);
    const QString target = qs(leader::pg::describeTarget(url.toStdString()));
    QCOMPARE(target, expected);
    QVERIFY(!target.contains("s3"));
}

void TestPgConnection::databaseUrlFrom_data()
{
    QTest::addColumn<QString>("commandLine");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("expected");
    QTest::newRow("command line wins")
            << "postgresql://cli/db" << QStringList{"DATABASE_URL=postgresql://env/db"}
            << "postgresql://cli/db";
    QTest::newRow("DATABASE_URL") << "" << QStringList{"DATABASE_URL=postgresql://env/db"}
                                  << "postgresql://env/db";
    QTest::newRow("empty DATABASE_URL is unset") << "" << QStringList{"DATABASE_URL="} << "";
    // Empty: libpq then takes the PG* variables itself.
    QTest::newRow("neither") << "" << QStringList{"PGHOST=pg.internal"} << "";
}

void TestPgConnection::databaseUrlFrom()
{
    QFETCH(QString, commandLine);
    QFETCH(QStringList, environment);
    QFETCH(QString, expected);
    ConninfoEnvironment guard;
    guard.set(environment);
    QCOMPARE(qs(leader::pg::databaseUrlFrom(commandLine.toStdString())), expected);
}

void TestPgConnection::serverConninfos_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QStringList>("expected"); // each server's conninfo, as conninfoPairs
    QTest::newRow("one server") << "postgresql://app:pw@db:6432/d" << QStringList()
                                << QStringList{"dbname=d host=db password=pw port=6432 user=app"};
    QTest::newRow("URL host list")
            << "postgresql://app:pw@a:5432,b:5433/d?target_session_attrs=read-write"
            << QStringList()
            << QStringList{"dbname=d host=a password=pw port=5432 target_session_attrs=read-write "
                           "user=app",
                           "dbname=d host=b password=pw port=5433 target_session_attrs=read-write "
                           "user=app"};
    QTest::newRow("one port for all")
            << "host=a,b port=6000 dbname=d" << QStringList()
            << QStringList{"dbname=d host=a port=6000", "dbname=d host=b port=6000"};
    QTest::newRow("names and addresses")
            << "host=a,b hostaddr=10.0.0.1,10.0.0.2 port=5432,5433 dbname=d" << QStringList()
            << QStringList{"dbname=d host=a hostaddr=10.0.0.1 port=5432",
                           "dbname=d host=b hostaddr=10.0.0.2 port=5433"};
    QTest::newRow("quoted values survive")
            << R"(host=a,b dbname=d password='it\'s a \\ secret')" << QStringList()
            << QStringList{R"(dbname=d host=a password=it's a \ secret port=5432)",
                           R"(dbname=d host=b password=it's a \ secret port=5432)"};
    QTest::newRow("PG* variables")
            << "dbname=d" << QStringList{"PGHOST=a,b", "PGPORT=7000"}
            << QStringList{"dbname=d host=a port=7000", "dbname=d host=b port=7000"};
    QTest::newRow("no host: libpq's default socket")
            << "dbname=d" << QStringList() << QStringList{"dbname=d port=5432"};
}

void TestPgConnection::serverConninfos()
{
    QFETCH(QString, url);
    QFETCH(QStringList, environment);
    QFETCH(QStringList, expected);
    ConninfoEnvironment guard;
    guard.set(environment);
    QStringList servers;
    for (const std::string &conninfo : leader::pg::serverConninfos(url.toStdString()))
        servers << conninfoPairs(conninfo);
    QCOMPARE(servers, expected);
}

QTEST_GUILESS_MAIN(TestPgConnection)
#include "tst_pgconnection.moc"
