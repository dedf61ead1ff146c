// ConnectionProfile: URLs and key=value conninfo read through libpq, the PG* variables filling the
// gaps, error lines that never carry the password, and what reaches QPSQL and libpq.

#include "core/connectionprofile.h"

#include <QStandardPaths>
#include <QtTest>

#include <libpq-fe.h>

#include <algorithm>

using leader::console::ConnectionProfile;
using leader::console::KeywordValue;

namespace {

constexpr std::array EnvironmentNames{"PGHOST",    "PGHOSTADDR", "PGPORT",
                                      "PGUSER",    "PGDATABASE", "PGPASSWORD",
                                      "PGSSLMODE", "PGSERVICE",  "PGSERVICEFILE"};

using Environment = QHash<QString, QString>;

// Clears the variables libpq reads for one scope and sets what a row asks, restoring the caller's
// afterwards, so neither the machine's environment nor one row leaks into another.
class ScopedEnvironment final
{
public:
    explicit ScopedEnvironment(const Environment &values)
    {
        for (const char *name : EnvironmentNames) {
            if (qEnvironmentVariableIsSet(name))
                m_saved.insert(name, qgetenv(name));
            qunsetenv(name);
        }
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            qputenv(it.key().toLatin1().constData(), it.value().toUtf8());
    }
    ~ScopedEnvironment()
    {
        for (const char *name : EnvironmentNames)
            qunsetenv(name);
        for (auto it = m_saved.cbegin(); it != m_saved.cend(); ++it)
            qputenv(it.key().constData(), it.value());
    }
    Q_DISABLE_COPY_MOVE(ScopedEnvironment)

private:
    QHash<QByteArray, QByteArray> m_saved;
};

QHash<QString, QString> parseConninfo(const QString &conninfo)
{
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.toUtf8().constData(), &error);
    QHash<QString, QString> values;
    if (!options) {
        values.insert(QStringLiteral("error"), QString::fromUtf8(error));
        PQfreemem(error);
        return values;
    }
    for (PQconninfoOption *option = options; option->keyword; ++option) {
        if (option->val)
            values.insert(QString::fromUtf8(option->keyword), QString::fromUtf8(option->val));
    }
    PQconninfoFree(options);
    return values;
}

} // namespace

class TestConnectionProfile final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void fromUrl_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<Environment>("environment");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("database");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("password");
        QTest::addColumn<QString>("sslMode");

        QTest::newRow("url") << "postgresql://alice:pw@db.example:6543/prod?sslmode=require"
                             << Environment{} << "db.example" << 6543 << "prod"
                             << "alice"
                             << "pw"
                             << "require";
        QTest::newRow("url, default port and sslmode")
                << "postgres://alice@db.example/prod" << Environment{} << "db.example" << 5432
                << "prod"
                << "alice"
                << ""
                << "prefer";
        QTest::newRow("socket directory as ?host=")
                << "postgresql://leaderci@/postgres?host=/tmp/lt-servers/run&port=55432"
                << Environment{} << "/tmp/lt-servers/run" << 55432 << "postgres"
                << "leaderci"
                << ""
                << "prefer";
        QTest::newRow("percent-encoded socket directory")
                << "postgresql://bob@%2Fvar%2Frun%2Fpostgresql/app" << Environment{}
                << "/var/run/postgresql" << 5432 << "app"
                << "bob"
                << ""
                << "prefer";
        QTest::newRow("key=value")
                << "host=/var/run/postgresql port=5433 dbname=x user=bob password='a b'"
                << Environment{} << "/var/run/postgresql" << 5433 << "x"
                << "bob"
                << "a b"
                << "prefer";
        const Environment pg{{"PGHOST", "envhost"},    {"PGPORT", "7000"},
                             {"PGUSER", "carol"},      {"PGPASSWORD", "envpw"},
                             {"PGSSLMODE", "disable"}, {"PGDATABASE", "envdb"}};
        QTest::newRow("PG* variables fill the gaps")
                << "postgresql://" << pg << "envhost" << 7000 << "envdb"
                << "carol"
                << "envpw"
                << "disable";
        QTest::newRow("empty: all from PG*") << "" << pg << "envhost" << 7000 << "envdb"
                                             << "carol"
                                             << "envpw"
                                             << "disable";
        QTest::newRow("the URL wins over PG*")
                << "postgresql://dave:urlpw@urlhost:6000/urldb?sslmode=require" << pg << "urlhost"
                << 6000 << "urldb"
                << "dave"
                << "urlpw"
                << "require";
        QTest::newRow("database defaults to the user")
                << "postgresql://erin@h" << Environment{} << "h" << 5432 << "erin"
                << "erin"
                << ""
                << "prefer";
    }

    void fromUrl()
    {
        QFETCH(QString, url);
        QFETCH(Environment, environment);
        const ScopedEnvironment scope(environment);

        QString error;
        const std::optional<ConnectionProfile> profile = ConnectionProfile::fromUrl(url, &error);
        QVERIFY2(profile, qPrintable(error));
        QTEST(profile->host, "host");
        QTEST(profile->port, "port");
        QTEST(profile->database, "database");
        QTEST(profile->user, "user");
        QTEST(profile->password, "password");
        QTEST(profile->sslMode, "sslMode");
    }

    // libpq multi-host URLs: each host's port, target_session_attrs, what describe() and
    // conninfo() make of them.
    void hostList_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("ports");
        QTest::addColumn<QString>("targetSessionAttrs");
        QTest::addColumn<QString>("described");

        QTest::newRow("URL, a port each, read-write")
                << "postgresql://alice:pw@db1:5432,db2:5433/prod?target_session_attrs=read-write"
                << "db1,db2" << 5432 << "5432,5433"
                << "read-write"
                << "alice@db1:5432,db2:5433/prod";
        QTest::newRow("URL, the default port for both")
                << "postgresql://alice@db1,db2/prod?target_session_attrs=primary"
                << "db1,db2" << 5432 << ""
                << "primary"
                << "alice@db1:5432,db2:5432/prod";
        QTest::newRow("key=value, one port for all") << "host=db1,db2,db3 port=6000 dbname=prod "
                                                        "user=alice target_session_attrs=read-write"
                                                     << "db1,db2,db3" << 6000 << ""
                                                     << "read-write"
                                                     << "alice@db1:6000,db2:6000,db3:6000/prod";
        QTest::newRow("key=value, the same port repeated")
                << "host=db1,db2 port=6000,6000 dbname=prod user=alice"
                << "db1,db2" << 6000 << ""
                << ""
                << "alice@db1:6000,db2:6000/prod";
        QTest::newRow("any is libpq's default")
                << "postgresql://alice@db1:1,db2:2/prod?target_session_attrs=any"
                << "db1,db2" << 1 << "1,2"
                << ""
                << "alice@db1:1,db2:2/prod";
        QTest::newRow("IPv6 addresses") << "postgresql://alice@[::1]:5432,[fe80::2]:5433/prod"
                                        << "::1,fe80::2" << 5432 << "5432,5433"
                                        << ""
                                        << "alice@[::1]:5432,[fe80::2]:5433/prod";
    }

    void hostList()
    {
        QFETCH(QString, url);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QString, ports);
        QFETCH(QString, targetSessionAttrs);
        QFETCH(QString, described);
        const ScopedEnvironment scope({});

        QString error;
        const std::optional<ConnectionProfile> profile = ConnectionProfile::fromUrl(url, &error);
        QVERIFY2(profile, qPrintable(error));
        QCOMPARE(profile->host, host);
        QCOMPARE(profile->port, port);
        QCOMPARE(profile->ports, ports);
        QCOMPARE(profile->targetSessionAttrs, targetSessionAttrs);
        QCOMPARE(profile->describe(), described);
        QVERIFY(ConnectionProfile::checkPorts(profile->host, profile->portList()).isEmpty());

        // libpq reads the same servers back from conninfo().
        const QHash<QString, QString> parsed = parseConninfo(profile->conninfo());
        QVERIFY2(!parsed.contains(QStringLiteral("error")), qPrintable(parsed.value("error")));
        QCOMPARE(parsed.value("host"), host);
        QCOMPARE(parsed.value("port"), ports.isEmpty() ? QString::number(port) : ports);
        QCOMPARE(parsed.value("target_session_attrs"), targetSessionAttrs);
    }

    void badUrl_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("expected"); // a piece of the message
        QTest::addColumn<QString>("secret");   // must not appear

        QTest::newRow("unknown query parameter") << "postgresql://alice:hunter2@h/db?nonsense=1"
                                                 << "nonsense"
                                                 << "hunter2";
        QTest::newRow("bad percent-encoding inside the password")
                << "postgresql://alice:s%zzcret@h/db"
                << "percent"
                << "s%zzcret";
        QTest::newRow("port not a number") << "postgresql://alice:hunter2@h:notaport/db"
                                           << "notaport"
                                           << "hunter2";
        QTest::newRow("unknown sslmode") << "postgresql://alice:hunter2@h/db?sslmode=sideways"
                                         << "sideways"
                                         << "hunter2";
        // "bogus" may be the rest of a password with a raw space: masked too.
        QTest::newRow("key=value without =") << "host=h password=hunter2 bogus"
                                             << "missing \"=\" after \"***\""
                                             << "bogus";
        QTest::newRow("unterminated quote") << "host=h password='hunter2"
                                            << "quoted"
                                            << "hunter2";
        QTest::newRow("three ports for two hosts") << "host=a,b port=1,2,3 password=hunter2"
                                                   << "3 ports for 2 hosts"
                                                   << "hunter2";
        QTest::newRow("a port of the list out of range")
                << "host=a,b port=5432,70000 password=hunter2"
                << "port \"70000\" is not a TCP port"
                << "hunter2";
        QTest::newRow("unknown target_session_attrs")
                << "postgresql://alice:hunter2@a,b/db?target_session_attrs=writable"
                << "target_session_attrs \"writable\" is not one of"
                << "hunter2";
    }

    void badUrl()
    {
        QFETCH(QString, url);
        QFETCH(QString, expected);
        QFETCH(QString, secret);
        const ScopedEnvironment scope({});

        QString error;
        QVERIFY(!ConnectionProfile::fromUrl(url, &error));
        QVERIFY2(error.contains(expected, Qt::CaseInsensitive), qPrintable(error));
        QVERIFY2(!error.contains(secret), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
    }

    void conninfoQuotesValues()
    {
        ConnectionProfile profile;
        profile.host = QStringLiteral("/tmp/dir with space");
        profile.port = 6543;
        profile.database = QStringLiteral("d'b");
        profile.user = QStringLiteral("u\\ser");
        profile.password = QStringLiteral("it's a \\ secret");
        profile.sslMode = QStringLiteral("require");

        const QHash<QString, QString> parsed = parseConninfo(profile.conninfo());
        QVERIFY2(!parsed.contains(QStringLiteral("error")), qPrintable(parsed.value("error")));
        QCOMPARE(parsed.value("host"), profile.host);
        QCOMPARE(parsed.value("port"), QStringLiteral("6543"));
        QCOMPARE(parsed.value("dbname"), profile.database);
        QCOMPARE(parsed.value("user"), profile.user);
        QCOMPARE(parsed.value("password"), profile.password);
        QCOMPARE(parsed.value("sslmode"), profile.sslMode);
        QCOMPARE(parsed.value("application_name"), QStringLiteral("leader-console"));
        QCOMPARE(parsed.value("connect_timeout"), QStringLiteral("5"));
    }

    void describeHasNoPassword()
    {
        ConnectionProfile profile;
        profile.host = QStringLiteral("db.example");
        profile.port = 6543;
        profile.database = QStringLiteral("prod");
        profile.user = QStringLiteral("alice");
        profile.password = QStringLiteral("hunter2");
        QCOMPARE(profile.describe(), QStringLiteral("alice@db.example:6543/prod"));
    }

    void checkPorts_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("ports");
        QTest::addColumn<QString>("problem"); // a piece of the message; empty: fine
        QTest::newRow("one host, one port") << "db"
                                            << "5432"
                                            << "";
        QTest::newRow("two hosts, one port") << "db1,db2"
                                             << "5432"
                                             << "";
        QTest::newRow("two hosts, two ports") << "db1,db2"
                                              << "5432, 5433"
                                              << "";
        QTest::newRow("one host, two ports") << "db"
                                             << "5432,5433"
                                             << "2 ports for 1 hosts";
        QTest::newRow("not a number") << "db"
                                      << "abc"
                                      << "port \"abc\"";
        QTest::newRow("zero") << "db1,db2"
                              << "0,5432"
                              << "port \"0\"";
        QTest::newRow("empty") << "db"
                               << ""
                               << "port \"\"";
    }

    void checkPorts()
    {
        QFETCH(QString, host);
        QFETCH(QString, ports);
        QFETCH(QString, problem);
        const QString message = ConnectionProfile::checkPorts(host, ports);
        if (problem.isEmpty())
            QVERIFY2(message.isEmpty(), qPrintable(message));
        else
            QVERIFY2(message.contains(problem), qPrintable(message));
    }

    void sslModes()
    {
        QCOMPARE(ConnectionProfile::sslModes().size(), std::size_t(6));
        QVERIFY(std::ranges::any_of(ConnectionProfile::sslModes(), [](const KeywordValue &mode) {
            return mode.value == QLatin1String("verify-full");
        }));
    }
};

QTEST_GUILESS_MAIN(TestConnectionProfile)
#include "tst_connectionprofile.moc"
