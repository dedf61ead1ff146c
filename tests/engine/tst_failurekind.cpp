// pg::classify, the one place that reads SQLSTATEs and libpq's texts to learn what kind a failure
// is (issue 52, point 1): the console's messages and its drain and hand-over refusals act on the
// kind. The texts are the server's, libpq's and PgBouncer's own. No server.
//
// And namesEveryValue, which every name table asserts: a table missing a value, naming one twice
// or with an empty name is refused at compile time.

#include "log/nametable.h"
#include "pg/failurekind.h"

#include <QtTest>

using leader::Named;
using leader::namesEveryValue;
using leader::pg::FailureKind;

Q_DECLARE_METATYPE(FailureKind)

namespace leader::pg {
char *toString(FailureKind kind)
{
    return qstrdup(std::string(nameOf(kind)).c_str());
}
} // namespace leader::pg

// Each check of the checker, beside one a table passes.
static_assert(namesEveryValue(leader::pg::FailureKindNames));
static_assert(!namesEveryValue(std::array<Named<FailureKind>, 1>{{{FailureKind::Other, "other"}}}));
enum class Pair { First, Second };
static_assert(leader::enumCount<Pair>() == 2);
static_assert(namesEveryValue(std::array<Named<Pair>, 2>{
        {{Pair::First, "a"}, {Pair::Second, "b"}}}));
static_assert(!namesEveryValue(std::array<Named<Pair>, 2>{
        {{Pair::First, "a"}, {Pair::First, "b"}}}));
static_assert(!namesEveryValue(std::array<Named<Pair>, 2>{
        {{Pair::First, "a"}, {Pair::Second, "a"}}}));
static_assert(!namesEveryValue(std::array<Named<Pair>, 2>{
        {{Pair::First, "a"}, {Pair::Second, ""}}}));
static_assert(namesEveryValue(std::array<Named<Pair>, 1>{{{Pair::Second, "b"}}}, {Pair::First}));
static_assert(!namesEveryValue(
        std::array<Named<Pair>, 2>{{{Pair::First, "a"}, {Pair::Second, "b"}}}, {Pair::First}));

class TestFailureKind final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void classifies_data();
    void classifies();
    void closedByServer_data();
    void closedByServer();
    void serverEnds_data();
    void serverEnds();
    void meanings();
};

void TestFailureKind::classifies_data()
{
    QTest::addColumn<QString>("sqlstate");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("transport");
    QTest::addColumn<bool>("deadline");
    QTest::addColumn<FailureKind>("kind");

    const auto row = [](const char *name, const char *sqlstate, const char *message, bool transport,
                        bool deadline, FailureKind kind) {
        QTest::newRow(name) << QString::fromLatin1(sqlstate) << QString::fromLatin1(message)
                            << transport << deadline << kind;
    };
    row("password by sqlstate", "28P01", "password authentication failed for user \"app\"", false,
        false, FailureKind::Authentication);
    row("no hba entry", "28000",
        "no pg_hba.conf entry for host \"127.0.0.1\", user \"app\", database \"leases\"", false,
        false, FailureKind::Authentication);
    // libpq's connect failures carry no SQLSTATE and come as transport errors.
    row("password by libpq", "",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password "
        "authentication failed for user \"app\"",
        true, false, FailureKind::Authentication);
    row("no password", "", "fe_sendauth: no password supplied", true, false,
        FailureKind::Authentication);
    row("pgbouncer scram", "", "SASL authentication failed", true, false,
        FailureKind::Authentication);
    row("database by sqlstate", "3D000", "database \"nope\" does not exist", false, false,
        FailureKind::DatabaseMissing);
    row("database by libpq", "",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  database \"nope\" "
        "does not exist",
        true, false, FailureKind::DatabaseMissing);
    row("database by pgbouncer", "08P01", "no such database: nope", true, false,
        FailureKind::DatabaseMissing);
    row("refused", "",
        "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the "
        "server running on that host and accepting TCP/IP connections?",
        true, false, FailureKind::Unreachable);
    row("unknown host", "",
        "could not translate host name \"nohost\" to address: Name or service not known", true,
        false, FailureKind::Unreachable);
    row("no socket", "",
        "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory",
        true, false, FailureKind::Unreachable);
    row("connect timeout", "",
        "connection to server at \"10.1.1.1\", port 5432 failed: timeout "
        "expired",
        true, true, FailureKind::Unreachable);
    row("no route", "", "connection to server at \"10.1.1.1\", port 5432 failed: No route to host",
        true, false, FailureKind::Unreachable);
    row("deadline", "", "the server did not answer within 5000 ms", true, true,
        FailureKind::Timeout);
    row("deadline cancel", "57014", "canceling statement due to user request", false, true,
        FailureKind::Timeout);
    row("admin shutdown", "57P01", "terminating connection due to administrator command", false,
        false, FailureKind::Closed);
    row("connection failure", "08006", "connection failure", false, false, FailureKind::Closed);
    row("closed unexpectedly", "",
        "server closed the connection unexpectedly\n\tThis probably means the server terminated "
        "abnormally",
        true, false, FailureKind::Closed);
    row("ssl closed", "", "SSL connection has been closed unexpectedly", false, false,
        FailureKind::Closed);
    row("reset", "", "could not receive data from server: Connection reset by peer", false, false,
        FailureKind::Closed);
    row("transport alone", "", "lost synchronization with server", true, false,
        FailureKind::Closed);
    row("table", "42P01", "relation \"leader_status\" does not exist", false, false,
        FailureKind::Schema);
    row("function", "42883",
        "function leader_ext.leader_pause(text, text, text, timestamp with time zone) does not "
        "exist",
        false, false, FailureKind::Schema);
    row("column", "42703", "column \"early_take\" does not exist", false, false,
        FailureKind::Schema);
    row("privilege", "42501", "permission denied for view leader_status", false, false,
        FailureKind::Privilege);
    row("drain refused", "55000", "draining replica r2 leaves billing with no eligible replica",
        false, false, FailureKind::Refused);
    row("hand-over refused", "55000", "role billing is not held", false, false,
        FailureKind::Refused);
    row("unknown role", "22023", "unknown role: nope", false, false, FailureKind::Other);
    row("unique", "23505", "duplicate key value violates unique constraint", false, false,
        FailureKind::Other);
    row("read-only", "25006", "cannot execute UPDATE in a read-only transaction", false, false,
        FailureKind::Other);
    row("nothing", "", "", false, false, FailureKind::Other);
}

void TestFailureKind::classifies()
{
    QFETCH(QString, sqlstate);
    QFETCH(QString, message);
    QFETCH(bool, transport);
    QFETCH(bool, deadline);
    QFETCH(FailureKind, kind);
    QCOMPARE(leader::pg::classify(sqlstate.toStdString(), message.toStdString(), transport,
                                  deadline),
             kind);
}

void TestFailureKind::closedByServer_data()
{
    QTest::addColumn<QString>("sqlstate");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("closed");

    QTest::newRow("crash shutdown") << "57P02"
                                    << "terminating connection because of crash" << true;
    QTest::newRow("class 08") << "08003"
                              << "connection does not exist" << true;
    QTest::newRow("libpq") << ""
                           << "no connection to the server" << true;
    QTest::newRow("pgbouncer") << "08P01"
                               << "server conn crashed?" << true;
    QTest::newRow("broken pipe") << ""
                                 << "could not send data to server: Broken pipe" << true;
    // A refusal leaves the session usable.
    QTest::newRow("privilege") << "42501"
                               << "permission denied for view leader_status" << false;
    QTest::newRow("refused") << "55000"
                             << "role billing is not held" << false;
}

void TestFailureKind::closedByServer()
{
    QFETCH(QString, sqlstate);
    QFETCH(QString, message);
    QFETCH(bool, closed);
    QCOMPARE(leader::pg::closedByServer(sqlstate.toStdString(), message.toStdString()), closed);
}

// The marker's repair (lease::WakeListener) takes a dead holder's row early only when the ended
// session announced the server going away and the reconnect is then refused for that reason.
void TestFailureKind::serverEnds_data()
{
    QTest::addColumn<QString>("sqlstate");
    QTest::addColumn<QString>("reconnect");
    QTest::addColumn<bool>("announced");
    QTest::addColumn<bool>("notAccepting");

    QTest::newRow("shutdown, then refused") << "57P01"
                                            << "connection to server at \"127.0.0.1\", port 5432 "
                                               "failed: Connection refused"
                                            << true << true;
    QTest::newRow("crash, then recovering")
            << "57P02"
            << "FATAL:  the database system is in recovery mode" << true << true;
    QTest::newRow("starting up") << "57P03"
                                 << "FATAL:  the database system is starting up" << true << true;
    QTest::newRow("socket gone") << "57P01"
                                 << "connection to server on socket \"/tmp/.s.PGSQL.5432\" "
                                    "failed: No such file or directory"
                                 << true << true;
    // pg_terminate_backend also says 57P01, but the server takes the reconnect.
    QTest::newRow("terminated, server lives") << "57P01"
                                              << "" << true << false;
    QTest::newRow("idle timeout") << "57P05"
                                  << "too many clients already" << false << false;
    QTest::newRow("no answer") << ""
                               << "timeout expired" << false << false;
}

void TestFailureKind::serverEnds()
{
    QFETCH(QString, sqlstate);
    QFETCH(QString, reconnect);
    QFETCH(bool, announced);
    QFETCH(bool, notAccepting);
    QCOMPARE(leader::pg::announcesServerEnd(sqlstate.toStdString()), announced);
    QCOMPARE(leader::pg::serverNotAccepting(reconnect.toStdString()), notAccepting);
}

void TestFailureKind::meanings()
{
    const auto meaning = [](const char *sqlstate) {
        return QString::fromStdString(std::string(leader::pg::sqlstateMeaning(sqlstate)));
    };
    QCOMPARE(meaning("42501"), QStringLiteral("insufficient privilege"));
    QCOMPARE(meaning("08006"), QStringLiteral("connection exception"));
    QCOMPARE(meaning("55000"), QString());
}

QTEST_GUILESS_MAIN(TestFailureKind)
#include "tst_failurekind.moc"
