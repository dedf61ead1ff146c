// The migrator on the product's own database (issue 32): ADR-114's 0174 and 0175 belong to the
// application and its migration tool; the extensions live in leader_ext with their own version
// table, and no other tool's table is read or written. Each extension migration refuses, in its own
// SQL, what it needs and does not find, so a file printed for another tool refuses as leaderctl
// does. Straight to Postgres and again through PgBouncer in transaction mode.

#include "pg/error.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <memory>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::schema::Extension;
using leader::schema::MigrationSet;
using leader::schema::Migrator;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;

QString scalar(Connection &connection, const std::string &sql)
{
    const leader::pg::Result result = connection.exec("test query", sql, {}, Short);
    return result.isNull(0, 0) ? QString() : QString::fromStdString(std::string(result.text(0, 0)));
}

const leader::schema::Migration &migration(int version)
{
    const leader::schema::Migration *found = leader::schema::findMigration(version);
    if (!found)
        qFatal("no migration %d", version);
    return *found;
}

// ADR-114's two migrations as the application's own tool applies them: the files, nothing else.
void applyAdrAsTheApplication(Connection &owner, bool with0175 = true)
{
    for (const int version : {174, 175}) {
        if (version == 175 && !with0175)
            break;
        owner.exec("app migration", "BEGIN", {}, Short);
        owner.execScript("app migration", migration(version).up, 30s);
        owner.exec("app migration", "COMMIT", {}, Short);
    }
}

// Everything that makes the ADR's functions and view what they are, to compare before and after.
constexpr const char *AdrDefinitionsSql = R"sql(
SELECT md5(string_agg(d, E'\n' ORDER BY d)) FROM (
    SELECT pg_get_functiondef(p.oid) || coalesce(array_to_string(p.proacl, ','), '') AS d
      FROM pg_proc AS p WHERE p.pronamespace = 'public'::regnamespace
    UNION ALL
    SELECT pg_get_viewdef('leader_status'::regclass)
    UNION ALL
    SELECT string_agg(attname || ':' || format_type(atttypid, atttypmod), ',' ORDER BY attnum)
      FROM pg_attribute WHERE attrelid = 'leader_leases'::regclass AND attnum > 0
           AND NOT attisdropped
    UNION ALL
    SELECT coalesce(array_to_string(relacl, ','), '') FROM pg_class
     WHERE oid = 'leader_leases'::regclass
    UNION ALL
    SELECT tgname FROM pg_trigger WHERE tgrelid = 'leader_leases'::regclass
) AS definitions
)sql";

} // namespace

class TestMigrator final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void freshDatabaseRecordsEveryVersionInLeaderExt();
    void applicationsMigrationTableIsNeverTouched_data();
    void applicationsMigrationTableIsNeverTouched();
    void applicationsLeaseTableWithout0175IsRefused();
    void migrationRefusesWhatItLacks_data();
    void migrationRefusesWhatItLacks();
    void leaderExtOfAnotherOwnerIsRefused();
    void featuresFollowTheVersionTable();
    void everyExtensionNamesItsOutsideChanges_data();
    void everyExtensionNamesItsOutsideChanges();

private:
    std::unique_ptr<TestDatabase> m_db;
};

void TestMigrator::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("migrator");
}

void TestMigrator::init()
{
    m_db->recreate();
}

void TestMigrator::freshDatabaseRecordsEveryVersionInLeaderExt()
{
    Connection owner = m_db->connect(Login::Owner);
    QCOMPARE(Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension}),
             (std::vector<int>{174, 175, 176, 177, 178, 179, 180, 181}));
    QCOMPARE(scalar(owner, "SELECT string_agg(version::text, ',' ORDER BY version) "
                           "FROM leader_ext.migrations"),
             QStringLiteral("174,175,176,177,178,179,180,181"));
    QCOMPARE(scalar(owner, "SELECT to_regclass('schema_migrations') IS NULL"), QStringLiteral("t"));
    QVERIFY(Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension}).empty());

    for (const Login login : {Login::App, Login::Monitor}) {
        Connection reader = m_db->connect(login);
        QVERIFY(leader::schema::probeFeatures(reader).complete());
    }
    // leaderctl installed the ADR's migrations here, so it may undo them, and the version table
    // and its schema go with the last row.
    QCOMPARE(Migrator(owner).rollbackTo(174),
             (std::vector<int>{181, 180, 179, 178, 177, 176, 175, 174}));
    QCOMPARE(scalar(owner, "SELECT to_regnamespace('leader_ext') IS NULL"), QStringLiteral("t"));
}

void TestMigrator::applicationsMigrationTableIsNeverTouched_data()
{
    QTest::addColumn<QString>("table");
    // What the application's tool keeps, in the shapes the common tools give it; the last one is
    // the shape earlier leaderctl versions used, filled with the application's own versions (its
    // 0176 is not ours).
    QTest::newRow("golang-migrate") << QStringLiteral(
            "CREATE TABLE schema_migrations (version bigint PRIMARY KEY, dirty boolean NOT NULL);"
            "INSERT INTO schema_migrations VALUES (412, false)");
    QTest::newRow("rails") << QStringLiteral(
            "CREATE TABLE schema_migrations (version varchar PRIMARY KEY);"
            "INSERT INTO schema_migrations SELECT to_char(20240101000000 + g, 'FM99999999999999') "
            "FROM generate_series(1, 300) AS g");
    QTest::newRow("same shape, other versions") << QStringLiteral(
            "CREATE TABLE schema_migrations (version bigint PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT now());"
            "INSERT INTO schema_migrations (version, name) "
            "SELECT g, 'app_' || g FROM generate_series(1, 412) AS g");
}

void TestMigrator::applicationsMigrationTableIsNeverTouched()
{
    QFETCH(QString, table);
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner);
    owner.execScript("app table", table.toStdString(), Short);
    const QString adrOnly = scalar(owner, AdrDefinitionsSql);
    constexpr const char *TableSql
            = "SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM schema_migrations AS t";
    const QString before = scalar(owner, TableSql);

    Migrator migrator(owner);
    QCOMPARE(migrator.migrate({MigrationSet::Adr, MigrationSet::Extension}),
             (std::vector<int>{176, 177, 178, 179, 180, 181}));
    QCOMPARE(scalar(owner, TableSql), before);
    QCOMPARE(scalar(owner, "SELECT count(*) FROM leader_ext.migrations WHERE version < 176"),
             QStringLiteral("0"));

    // The ADR's own migrations are the application's: undone are the extensions only, and what
    // they replaced is the ADR's again, to the byte.
    QCOMPARE(migrator.rollbackTo(174), (std::vector<int>{181, 180, 179, 178, 177, 176}));
    QCOMPARE(scalar(owner, AdrDefinitionsSql), adrOnly);
    QCOMPARE(scalar(owner, "SELECT to_regnamespace('leader_ext') IS NULL"), QStringLiteral("t"));
    QCOMPARE(scalar(owner, TableSql), before);
}

void TestMigrator::applicationsLeaseTableWithout0175IsRefused()
{
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner, false);
    try {
        Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension});
        QFAIL("the application's lease table was migrated behind its tool");
    } catch (const leader::schema::SchemaError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains("lacks ADR-114's migration 0175")
                         && message.contains("application's migrations"),
                 error.what());
    }
    QCOMPARE(scalar(owner, "SELECT to_regnamespace('leader_ext') IS NULL"), QStringLiteral("t"));
}

void TestMigrator::migrationRefusesWhatItLacks_data()
{
    QTest::addColumn<int>("installed"); // 0: nothing; 175: the ADR only; else up to that one
    QTest::addColumn<int>("version");
    QTest::addColumn<bool>("up");
    QTest::addColumn<QString>("message");
    QTest::newRow("no ADR schema")
            << 0 << 176 << true << QStringLiteral("needs ADR-114's migrations 0174 and 0175");
    QTest::newRow("out of order") << 175 << 178 << true
                                  << QStringLiteral("needs leader_ext 0177 first");
    QTest::newRow("twice") << 181 << 177 << true << QStringLiteral("is applied already");
    QTest::newRow("undo under a later one")
            << 181 << 177 << false
            << QStringLiteral("cannot be undone while a later extension is applied");
    QTest::newRow("undo what is not there")
            << 175 << 176 << false << QStringLiteral("is not applied");
}

void TestMigrator::migrationRefusesWhatItLacks()
{
    QFETCH(int, installed);
    QFETCH(int, version);
    QFETCH(bool, up);
    QFETCH(QString, message);
    Connection owner = m_db->connect(Login::Owner);
    if (installed >= 175)
        applyAdrAsTheApplication(owner);
    if (installed > 175)
        QVERIFY(!Migrator(owner).migrate({MigrationSet::Extension}).empty());
    const leader::schema::Migration &m = migration(version);
    // The composed SQL exactly as leaderctl runs it and --print-sql writes it for another tool.
    owner.exec("test", "BEGIN", {}, Short);
    try {
        owner.execScript("test", up ? leader::schema::composeUp(m) : leader::schema::composeDown(m),
                         30s);
        QFAIL("the migration ran");
    } catch (const leader::pg::Error &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
    }
    owner.exec("test", "ROLLBACK", {}, Short);
}

void TestMigrator::leaderExtOfAnotherOwnerIsRefused()
{
    // An app login that may create schemas plants leader_ext first: the owner's migrations would
    // then create definer functions in a schema the app role controls. Checked once: without
    // leader_ext among the schemas the check reads, both refusals go and the migration runs.
    Connection admin = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(admin);
    admin.exec("grant",
               "GRANT CREATE ON DATABASE \"" + m_db->name() + "\" TO "
                       + leader::test::loginName(Login::App),
               {}, Short);
    Connection app = m_db->connect(Login::App);
    app.exec("plant", "CREATE SCHEMA leader_ext", {}, Short);

    try {
        Migrator(admin).migrate({MigrationSet::Extension});
        QFAIL("the migrator ran into a schema the app login owns");
    } catch (const leader::schema::SchemaError &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains("ALTER SCHEMA leader_ext OWNER TO"),
                 error.what());
    }
    admin.exec("test", "BEGIN", {}, Short);
    try {
        admin.execScript("test", leader::schema::composeUp(migration(176)), 30s);
        QFAIL("the printed migration ran into a schema the app login owns");
    } catch (const leader::pg::Error &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains("ALTER SCHEMA leader_ext OWNER TO"),
                 error.what());
    }
    admin.exec("test", "ROLLBACK", {}, Short);
}

void TestMigrator::featuresFollowTheVersionTable()
{
    Connection owner = m_db->connect(Login::Owner);
    Connection monitor = m_db->connect(Login::Monitor);
    QVERIFY(!leader::schema::probeFeatures(monitor).adr());

    applyAdrAsTheApplication(owner);
    leader::schema::LeaseFeatures features = leader::schema::probeFeatures(monitor);
    QVERIFY(features.adr());
    QCOMPARE(features.extension, 0);
    QVERIFY(!features.has(Extension::PauseNotify));
    QVERIFY(!features.legacyLayout);

    Migrator migrator(owner);
    migrator.migrate({MigrationSet::Extension});
    QVERIFY(leader::schema::probeFeatures(monitor).complete());
    QCOMPARE(migrator.rollbackTo(179), (std::vector<int>{181, 180, 179}));
    features = leader::schema::probeFeatures(monitor);
    QCOMPARE(features.extension, 178);
    QVERIFY(features.has(Extension::ReplicaRegistry));
    QVERIFY(!features.has(Extension::HolderSession));
    try {
        leader::schema::requireExtension(monitor, features, "the early take switch",
                                         Extension::EarlyTakeSwitch);
        QFAIL("a missing extension was accepted");
    } catch (const leader::schema::SchemaError &error) {
        QCOMPARE(QString::fromUtf8(error.what()),
                 QStringLiteral("the early take switch needs the extension leader_ext 0180 (the "
                                "early take switch); add it with leaderctl migrate, or through "
                                "your own migration tool: leaderctl migrate --print-sql --format "
                                "FORMAT --out DIR"));
    }

    // What an earlier leaderctl left in the lease schema reads as the legacy layout.
    migrator.rollbackTo(176);
    owner.exec("legacy", "CREATE TABLE public.leader_pause_log (id bigint)", {}, Short);
    features = leader::schema::probeFeatures(monitor);
    QCOMPARE(features.extension, 0);
    QVERIFY(features.legacyLayout);
}

void TestMigrator::everyExtensionNamesItsOutsideChanges_data()
{
    QTest::addColumn<int>("version");
    QTest::addColumn<bool>("up");
    for (const leader::schema::Migration &m : leader::schema::embeddedMigrations()) {
        if (m.set != MigrationSet::Extension)
            continue;
        for (const bool up : {true, false})
            QTest::addRow("%d %s", m.version, up ? "up" : "down") << m.version << up;
    }
}

void TestMigrator::everyExtensionNamesItsOutsideChanges()
{
    QFETCH(int, version);
    QFETCH(bool, up);
    const leader::schema::Migration &m = migration(version);
    const std::string_view text = up ? m.up : m.down;
    // "nothing" is a statement too: a file without the header has not been looked at.
    QVERIFY2(text.starts_with("-- outside leader_ext: "),
             "the file does not start with its header");
}

QTEST_GUILESS_MAIN(TestMigrator)
#include "tst_migrator.moc"
