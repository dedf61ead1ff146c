// One reading of a connection string for messages and redaction (issue 31, finding 5): a user or
// password holding any reserved character, raw or percent-encoded, in a URL's user info, in its
// query (?password=), in key=value form and in a multi-host URL, never reaches a message. Each
// row checks what the engine prints (the target, the redacted text, the reason it refuses, the
// error of a real connect attempt) and that libpq, when the string is used, reads it as meant.
// No server: the connect goes to a loopback port where nothing listens, refused at once.
//
// Checked once: with the checks for a raw '@' after the user info and a port that is not a number
// removed (libpq's reading alone, as before), the rows with a raw '/' or '@' in the user or the
// password failed, "lt_user:Qzx/Vk7w@127.0.0.1:1/appdb" printed as the finding said; before the
// run-on masking of a refused string, the rows with a raw '&' in ?password= and a raw space in
// key=value failed (libpq's refusal quoted the rest of the password).

#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"

#include <QtTest>

#include <libpq-fe.h>

#include <cstdlib>
#include <memory>

using namespace std::chrono_literals;

namespace {

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

// Every character but RFC 3986's unreserved ones as %XX.
QString percentEncoded(const QString &text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

QString quoted(QString value)
{
    value.replace(u'\\', QStringLiteral("\\\\"));
    value.replace(u'\'', QStringLiteral("\\'"));
    return u'\'' + value + u'\'';
}

// What libpq reads for keyword, or nullopt when it refuses the text.
std::optional<QString> libpqValue(const QString &conninfo, const char *keyword)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.toUtf8().constData(), &error);
    PQfreemem(error);
    if (!options)
        return std::nullopt;
    QString value;
    for (PQconninfoOption *option = options; option->keyword; ++option)
        if (qstrcmp(option->keyword, keyword) == 0 && option->val)
            value = QString::fromUtf8(option->val);
    PQconninfoFree(options);
    return value;
}

// libpq's own complaint about the text, if it has one: what a message would quote.
QString libpqComplaint(const QString &conninfo)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.toUtf8().constData(), &error);
    PQconninfoFree(options);
    const QString complaint = error ? QString::fromUtf8(error) : QString();
    PQfreemem(error);
    return complaint;
}

// A loopback address and a port nothing listens on: every connect is refused at once.
constexpr const char *Host = "127.0.0.1";
constexpr int ClosedPort = 1;

} // namespace

class TestConninfo final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void neverPrintsThePassword_data();
    void neverPrintsThePassword();
    void unreadableUrlIsDescribedWithoutItsText();
    void withoutPasswordKeepsTheForm_data();
    void withoutPasswordKeepsTheForm();
};

void TestConninfo::initTestCase()
{
    // The rows say everything; the caller's PG* variables must not fill a gap.
    for (const char *name : {"PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD",
                             "PGPASSFILE", "PGSERVICE", "DATABASE_URL"})
        qunsetenv(name);
}

void TestConninfo::neverPrintsThePassword_data()
{
    QTest::addColumn<QString>("conninfo");
    QTest::addColumn<QString>("user");     // as meant
    QTest::addColumn<QString>("password"); // as meant
    QTest::addColumn<QStringList>("secrets");
    // Whether libpq may read the user and password other than meant: a raw ':' in a URL's user
    // name ends it (RFC 3986), the rest becoming the password; neither piece prints.
    QTest::addColumn<bool>("userAmbiguous");

    const QStringList reserved{":", "/", "?", "#", "[", "]", "@", "!", "$", "&", "'",
                               "(", ")", "*", "+", ",", ";", "=", "%", " ", "é", "\""};
    const QString port = QString::number(ClosedPort);
    const QString hosts = QString::fromLatin1(Host) + u':' + port;
    const QString twoHosts = hosts + u',' + QString::fromLatin1(Host) + u':' + port;
    for (const QString &character : reserved) {
        for (const bool inUser : {false, true}) {
            // Distinctive pieces either side of the character: a piece alone must not print.
            const QString user = inUser ? "Usr" + character + "Nme" : QStringLiteral("lt_user");
            const QString password
                    = inUser ? QStringLiteral("Plain9Pw") : "Qzx" + character + "Vk7w";
            QStringList secrets{password};
            if (!inUser)
                secrets << percentEncoded(password) << QStringLiteral("Qzx")
                        << QStringLiteral("Vk7w");
            const QString where = inUser ? QStringLiteral("user") : QStringLiteral("password");
            for (const bool encoded : {false, true}) {
                const QString u = encoded ? percentEncoded(user) : user;
                const QString p = encoded ? percentEncoded(password) : password;
                const QString how = encoded ? QStringLiteral("encoded") : QStringLiteral("raw");
                const bool ambiguous = inUser && !encoded && character == ":";
                const auto row = [&](const QString &form, const QString &conninfo) {
                    QTest::addRow("%s %s in %s, %s", qPrintable(form), qPrintable(how),
                                  qPrintable(where), qPrintable(character))
                            << conninfo << user << password << secrets << ambiguous;
                };
                row("url", "postgresql://" + u + ":" + p + "@" + hosts + "/appdb");
                row("multi-host url", "postgresql://" + u + ":" + p + "@" + twoHosts
                                              + "/appdb?target_session_attrs=read-write");
                row("query", "postgresql://" + hosts + "/appdb?user=" + u + "&password=" + p
                                     + "&sslmode=disable");
                if (!encoded) {
                    row("keyword", "host=" + QString::fromLatin1(Host) + " port=" + port
                                           + " dbname=appdb user=" + user
                                           + " password=" + password);
                    row("quoted keyword", "host=" + QString::fromLatin1(Host) + " port=" + port
                                                  + " dbname=appdb user=" + quoted(user)
                                                  + " password=" + quoted(password));
                }
            }
        }
    }
}

void TestConninfo::neverPrintsThePassword()
{
    QFETCH(QString, conninfo);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(QStringList, secrets);
    QFETCH(bool, userAmbiguous);
    const std::string url = conninfo.toStdString();

    QStringList printed;
    printed << qs(leader::pg::describeTarget(url));
    const std::optional<std::string> reason = leader::pg::unreadableReason(url);
    if (reason)
        printed << qs(*reason);
    // What libpq itself would say of the text, and the text itself, once redacted.
    printed << qs(leader::pg::redactSecrets(
            QString(libpqComplaint(conninfo) + " | " + conninfo + " | " + password).toStdString(),
            url));
    try {
        leader::pg::Connection connection(
                {.url = url, .applicationName = "tst_conninfo", .connectTimeout = 3s});
        connection.open();
        QFAIL("connected to a port where nothing listens");
    } catch (const leader::pg::Error &error) {
        printed << qs(error.what()) << qs(leader::pg::explain(error));
    }
    for (const QString &text : printed)
        for (const QString &secret : secrets)
            QVERIFY2(!text.contains(secret), qPrintable(secret + " printed: " + text));

    // Used at all, the string must mean what its author meant (bar the one ambiguity above).
    if (!reason && !userAmbiguous) {
        QCOMPARE(libpqValue(conninfo, "password"), std::optional<QString>(password));
        QCOMPARE(libpqValue(conninfo, "user"), std::optional<QString>(user));
        QCOMPARE(qs(leader::pg::passwordOf(url)), password);
    }
}

void TestConninfo::unreadableUrlIsDescribedWithoutItsText()
{
    const std::string url = "postgresql://app1:Wr/ngPass@db.example:5432/billing";
    QCOMPARE(qs(leader::pg::describeTarget(url)), QStringLiteral("an unreadable connection URL"));
    const std::optional<std::string> reason = leader::pg::unreadableReason(url);
    QVERIFY(reason);
    QVERIFY2(qs(*reason).contains(QStringLiteral("%2F")), reason->c_str());
    try {
        leader::pg::Connection({.url = url, .connectTimeout = 3s}).open();
        QFAIL("an unreadable URL was used");
    } catch (const leader::pg::Error &error) {
        const QString message = qs(error.what());
        QVERIFY2(message.startsWith(QStringLiteral("cannot connect: the connection URL has a raw "
                                                   "'@' after its user info")),
                 error.what());
        QVERIFY2(!message.contains(QStringLiteral("ngPass")) && !message.contains("Wr"),
                 error.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, leader::pg::withoutPassword(url));
}

void TestConninfo::withoutPasswordKeepsTheForm_data()
{
    QTest::addColumn<QString>("conninfo");
    QTest::addColumn<QString>("expected");
    QTest::newRow("url") << "postgresql://alice:s3%2Fcr@h1:5432,h2:5433/db?sslmode=disable"
                         << "postgresql://alice@h1:5432,h2:5433/db?sslmode=disable";
    QTest::newRow("query") << "postgresql://h/db?password=s3cr&user=alice"
                           << "postgresql://h/db?user=alice";
    QTest::newRow("query only password") << "postgres://alice@h/db?password=s3cr"
                                         << "postgres://alice@h/db";
    QTest::newRow("no user, a password") << "postgresql://:s3cr@h/db"
                                         << "postgresql://@h/db";
    QTest::newRow("keywords") << "host=h password='s3 cr' user=alice"
                              << "user='alice' host='h'";
    QTest::newRow("none") << "postgresql://alice@h/db"
                          << "postgresql://alice@h/db";
}

void TestConninfo::withoutPasswordKeepsTheForm()
{
    QFETCH(QString, conninfo);
    QFETCH(QString, expected);
    QCOMPARE(qs(leader::pg::withoutPassword(conninfo.toStdString())), expected);
}

QTEST_GUILESS_MAIN(TestConninfo)
#include "tst_conninfo.moc"
