#include "core/profilestore.h"

#include <QCoreApplication>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace leader::console;

class tst_ProfileStore final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void roundTrip_data();
    void roundTrip();
    void passwordNeverInFile_data();
    void passwordNeverInFile();
    void remove();
    void invalidNames_data();
    void invalidNames();
    void lastUsed();
    void rememberFlag();
    void profileWithoutEnvironmentLoads();
    void bandColour_data();
    void bandColour();

private:
    QString m_settingsFile;
};

void tst_ProfileStore::initTestCase()
{
    // QSettings' default location follows QStandardPaths: the test's files stay out of the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("leader-console-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_profilestore"));
}

void tst_ProfileStore::init()
{
    ProfileStore store;
    m_settingsFile = store.fileName();
    QFile::remove(m_settingsFile);
}

void tst_ProfileStore::roundTrip_data()
{
    QTest::addColumn<ConnectionProfile>("profile");

    ConnectionProfile plain;
    plain.name = QStringLiteral("prod");
    plain.host = QStringLiteral("db.example.com");
    plain.port = 6543;
    plain.database = QStringLiteral("hardcount");
    plain.user = QStringLiteral("console");
    plain.sslMode = QStringLiteral("verify-full");
    QTest::newRow("tcp") << plain;

    ConnectionProfile socket;
    socket.name = QStringLiteral("local socket");
    socket.host = QStringLiteral("/run/postgresql");
    socket.database = QStringLiteral("demo");
    socket.user = QStringLiteral("me");
    QTest::newRow("unix socket, defaults") << socket;

    ConnectionProfile unicode;
    unicode.name = QStringLiteral("staging é");
    unicode.host = QStringLiteral("::1");
    unicode.port = 1;
    unicode.database = QStringLiteral("données");
    unicode.sslMode = QStringLiteral("disable");
    QTest::newRow("unicode, ipv6, port 1") << unicode;

    ConnectionProfile hosts;
    hosts.name = QStringLiteral("failover pair");
    hosts.host = QStringLiteral("db1.example.com,db2.example.com");
    hosts.port = 5432;
    hosts.ports = QStringLiteral("5432,5433");
    hosts.database = QStringLiteral("hardcount");
    hosts.user = QStringLiteral("console");
    hosts.targetSessionAttrs = QStringLiteral("read-write");
    QTest::newRow("host list, a port each, read-write") << hosts;

    ConnectionProfile production = plain;
    production.name = QStringLiteral("hardcount production");
    production.environment = QStringLiteral("production");
    production.colour = QStringLiteral("#6a1b9a");
    QTest::newRow("production, own colour") << production;
}

void tst_ProfileStore::roundTrip()
{
    QFETCH(ConnectionProfile, profile);
    {
        ProfileStore store;
        QVERIFY(store.save(profile));
        store.sync();
    }
    ProfileStore reopened;
    QCOMPARE(reopened.names(), QStringList{profile.name});
    QVERIFY(reopened.contains(profile.name));
    const auto loaded = reopened.load(profile.name);
    QVERIFY(loaded);
    QCOMPARE(*loaded, profile);
    QVERIFY(!reopened.load(QStringLiteral("absent")));
}

void tst_ProfileStore::passwordNeverInFile_data()
{
    QTest::addColumn<bool>("defaultSettings");
    QTest::newRow("application settings") << true;
    QTest::newRow("ini file") << false;
}

void tst_ProfileStore::passwordNeverInFile()
{
    QFETCH(bool, defaultSettings);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto store = defaultSettings ? std::make_unique<ProfileStore>()
                                 : std::make_unique<ProfileStore>(dir.filePath("p.ini"));
    const QString secret = QStringLiteral("s3cr3t-Pa55-xyzzy");
    ConnectionProfile profile;
    profile.name = QStringLiteral("prod");
    profile.host = QStringLiteral("db");
    profile.database = QStringLiteral("hardcount");
    profile.user = QStringLiteral("console");
    profile.password = secret;
    QVERIFY(store->save(profile));
    store->setRemembersPassword(profile.name, true);
    store->setLastUsed(profile.name);
    store->sync();

    QFile file(store->fileName());
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(store->fileName()));
    const QByteArray contents = file.readAll();
    QVERIFY(contents.contains("hardcount"));
    QVERIFY(!contents.contains(secret.toUtf8()));
    for (const QByteArray &line : contents.split('\n'))
        QVERIFY2(!line.trimmed().toLower().startsWith("password="), line.constData());
    QVERIFY(store->load(profile.name)->password.isEmpty());
}

void tst_ProfileStore::remove()
{
    ProfileStore store;
    for (const QString &name : {QStringLiteral("a"), QStringLiteral("b")}) {
        ConnectionProfile profile;
        profile.name = name;
        profile.host = QStringLiteral("h");
        profile.database = QStringLiteral("d");
        QVERIFY(store.save(profile));
    }
    store.setLastUsed(QStringLiteral("a"));
    QCOMPARE(store.names(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));

    store.remove(QStringLiteral("a"));
    store.sync();
    QCOMPARE(store.names(), QStringList{QStringLiteral("b")});
    QVERIFY(!store.load(QStringLiteral("a")));
    QVERIFY(store.lastUsed().isEmpty());

    ProfileStore reopened;
    QCOMPARE(reopened.names(), QStringList{QStringLiteral("b")});
}

void tst_ProfileStore::invalidNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("empty") << QString();
    QTest::newRow("blank") << QStringLiteral("   ");
    QTest::newRow("slash") << QStringLiteral("a/b");
    QTest::newRow("backslash") << QStringLiteral("a\\b");
    QTest::newRow("padded") << QStringLiteral(" a ");
}

void tst_ProfileStore::invalidNames()
{
    QFETCH(QString, name);
    ProfileStore store;
    ConnectionProfile profile;
    profile.name = name;
    profile.host = QStringLiteral("h");
    profile.database = QStringLiteral("d");
    QVERIFY(!ProfileStore::isValidName(name));
    QVERIFY(!store.save(profile));
    QVERIFY(store.names().isEmpty());
}

void tst_ProfileStore::lastUsed()
{
    ProfileStore store;
    QVERIFY(store.lastUsed().isEmpty());
    store.setLastUsed(QStringLiteral("ghost"));
    QVERIFY2(store.lastUsed().isEmpty(), "a name with no saved profile is not reported");

    ConnectionProfile profile;
    profile.name = QStringLiteral("prod");
    profile.host = QStringLiteral("h");
    profile.database = QStringLiteral("d");
    QVERIFY(store.save(profile));
    store.setLastUsed(profile.name);
    store.sync();
    QCOMPARE(ProfileStore().lastUsed(), profile.name);
}

void tst_ProfileStore::rememberFlag()
{
    ProfileStore store;
    ConnectionProfile profile;
    profile.name = QStringLiteral("prod");
    profile.host = QStringLiteral("h");
    profile.database = QStringLiteral("d");
    QVERIFY(store.save(profile));
    QVERIFY(!store.remembersPassword(profile.name));
    store.setRemembersPassword(profile.name, true);
    QVERIFY(store.remembersPassword(profile.name));
    QVERIFY(store.save(profile)); // saving again keeps the flag
    QVERIFY(store.remembersPassword(profile.name));
    store.setRemembersPassword(profile.name, false);
    QVERIFY(!store.remembersPassword(profile.name));
}

// A profile saved before environments existed (no environment or colour keys): it loads, with no
// environment, so no band and no write lock.
void tst_ProfileStore::profileWithoutEnvironmentLoads()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("old.ini"));
    QFile ini(file);
    QVERIFY(ini.open(QIODevice::WriteOnly));
    ini.write("[profiles]\noldprod\\host=db.example.com\noldprod\\port=5432\n"
              "oldprod\\database=hardcount\noldprod\\user=console\n");
    ini.close();
    ProfileStore store(file);
    const auto loaded = store.load(QStringLiteral("oldprod"));
    QVERIFY(loaded);
    QCOMPARE(loaded->host, QStringLiteral("db.example.com"));
    QVERIFY(loaded->environment.isEmpty());
    QVERIFY(loaded->colour.isEmpty());
    QVERIFY(!loaded->isProduction());
    QVERIFY(loaded->bandColour().isEmpty());
}

void tst_ProfileStore::bandColour_data()
{
    QTest::addColumn<QString>("environment");
    QTest::addColumn<QString>("colour");
    QTest::addColumn<bool>("production");
    QTest::addColumn<QString>("band");
    QTest::newRow("none") << ""
                          << "" << false << "";
    QTest::newRow("production") << "production"
                                << "" << true << "#c62828";
    QTest::newRow("Prod") << " Prod "
                          << "" << true << "#c62828";
    QTest::newRow("staging") << "staging"
                             << "" << false << "#ef6c00";
    QTest::newRow("other") << "qa"
                           << "" << false << "#1565c0";
    QTest::newRow("chosen colour") << "production"
                                   << "#2e7d32" << true << "#2e7d32";
    QTest::newRow("production-like name") << "preproduction"
                                          << "" << false << "#1565c0";
}

void tst_ProfileStore::bandColour()
{
    ConnectionProfile profile;
    QFETCH(QString, environment);
    QFETCH(QString, colour);
    profile.environment = environment;
    profile.colour = colour;
    QTEST(profile.isProduction(), "production");
    QTEST(profile.bandColour(), "band");
}

QTEST_GUILESS_MAIN(tst_ProfileStore)
#include "tst_profilestore.moc"
