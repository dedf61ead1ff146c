// The migrator on the product's own database (issue 32): ADR-114's 0174 and 0175 belong to the
// application and its migration tool; the extensions live in leader_ext with their own version
// table, and no other tool's table is read or written. Each extension migration refuses, in its own
// SQL, what it needs and does not find, so a file printed for another tool refuses as leaderctl
// does. Straight to Postgres and again through PgBouncer in transaction mode.

#include "pg/error.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "schema/scriptformat.h"
#include "testdatabase.h"

#include <QFile>
#include <QRegularExpression>
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

// The lease schema and leader_ext as a catalog sees them: every function (body, settings, owner,
// grants), relation, column (type, default, grants), constraint, index, trigger and comment. Two
// databases with the same fingerprint have the same schema dump, up to the order of columns.
constexpr const char *SchemaFingerprintSql = R"sql(
WITH ns AS (
    SELECT oid, nspname FROM pg_namespace WHERE nspname IN ('public', 'leader_ext')
), rel AS (
    SELECT c.oid, ns.nspname || '.' || c.relname AS name, c.relkind, c.relacl, c.relowner
      FROM pg_class AS c JOIN ns ON ns.oid = c.relnamespace
)
SELECT md5(string_agg(d, E'\n' ORDER BY d)) FROM (
    SELECT n.nspname || ' ' || pg_get_functiondef(p.oid) || ' acl ' || coalesce(p.proacl::text, '')
           || ' owner ' || pg_get_userbyid(p.proowner) || ' '
           || coalesce(obj_description(p.oid, 'pg_proc'), '') AS d
      FROM pg_proc AS p JOIN ns AS n ON n.oid = p.pronamespace
    UNION ALL
    SELECT 'schema ' || n.nspname || ' ' || coalesce(obj_description(n.oid, 'pg_namespace'), '')
           || coalesce(n.nspacl::text, '') || pg_get_userbyid(n.nspowner)
      FROM pg_namespace AS n JOIN ns USING (oid)
    UNION ALL
    SELECT name || ' ' || relkind::text || ' ' || coalesce(relacl::text, '') || ' '
           || pg_get_userbyid(relowner) || ' '
           || CASE WHEN relkind = 'v' THEN pg_get_viewdef(oid) ELSE '' END || ' '
           || coalesce(obj_description(oid, 'pg_class'), '')
      FROM rel WHERE relkind IN ('r', 'v', 'S')
    UNION ALL
    SELECT rel.name || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' '
           || a.attnotnull || ' ' || coalesce(a.attacl::text, '') || ' '
           || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '') || ' ' || a.attidentity::text || ' '
           || coalesce(col_description(a.attrelid, a.attnum), '')
      FROM pg_attribute AS a JOIN rel ON rel.oid = a.attrelid
      LEFT JOIN pg_attrdef AS ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
     WHERE a.attnum > 0 AND NOT a.attisdropped AND rel.relkind IN ('r', 'v')
    UNION ALL
    SELECT rel.name || ' constraint ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
      FROM pg_constraint AS c JOIN rel ON rel.oid = c.conrelid
    UNION ALL
    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index AS i JOIN rel ON rel.oid = i.indrelid
    UNION ALL
    SELECT pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text
      FROM pg_trigger AS t JOIN rel ON rel.oid = t.tgrelid WHERE NOT t.tgisinternal
) AS definitions
)sql";

// The extensions as an earlier leaderctl installed them up to `version`: the frozen files of that
// release (tests/fixtures/legacy-extensions) in the lease schema, tracked in its schema_migrations.
void installLegacy(Connection &owner, int version)
{
    owner.execScript("legacy install", R"sql(
CREATE TABLE schema_migrations (
    version    bigint PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO schema_migrations (version, name, applied_at)
VALUES (174, 'leader_leases', '2026-11-02 10:00+00'), (175, 'not_before', '2026-11-02 10:00+00');
)sql",
                     Short);
    const QDir fixtures(QStringLiteral(LEGACY_FIXTURES));
    for (const QString &file :
         fixtures.entryList({QStringLiteral("*.up.sql")}, QDir::Files, QDir::Name)) {
        const int fileVersion = file.left(4).toInt();
        if (fileVersion > version)
            break;
        QFile sql(fixtures.filePath(file));
        if (!sql.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(sql.fileName()));
        owner.exec("legacy install", "BEGIN", {}, Short);
        owner.execScript("legacy install", sql.readAll().toStdString(), 30s);
        owner.exec("legacy install",
                   "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                   {fileVersion, file.mid(5, file.size() - 5 - 7).toStdString()}, Short);
        owner.exec("legacy install", "COMMIT", {}, Short);
    }
}

} // namespace

class TestMigrator final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
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
    void eachMissingExtensionIsNamed_data();
    void eachMissingExtensionIsNamed();
    void legacyInstallMovesIntoLeaderExt_data();
    void legacyInstallMovesIntoLeaderExt();
    void printedFilesFollowEachTool_data();
    void printedFilesFollowEachTool();
    void printedFilesApplyAsLeaderctlDoes_data();
    void printedFilesApplyAsLeaderctlDoes();
    void everyExtensionNamesItsOutsideChanges_data();
    void everyExtensionNamesItsOutsideChanges();
    void eachExtensionUndoesToTheSchemaBefore_data();
    void eachExtensionUndoesToTheSchemaBefore();

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
             (std::vector<int>{174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187,
                               188, 189, 190}));
    QCOMPARE(scalar(owner, "SELECT string_agg(version::text, ',' ORDER BY version) "
                           "FROM leader_ext.migrations"),
             QStringLiteral("174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190"));
    QCOMPARE(scalar(owner, "SELECT to_regclass('schema_migrations') IS NULL"), QStringLiteral("t"));
    QVERIFY(Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension}).empty());

    for (const Login login : {Login::App, Login::Monitor}) {
        Connection reader = m_db->connect(login);
        QVERIFY(leader::schema::probeFeatures(reader).complete());
    }
    // leaderctl installed the ADR's migrations here, so it may undo them, and the version table
    // and its schema go with the last row.
    QCOMPARE(Migrator(owner).rollbackTo(174),
             (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183, 182, 181, 180, 179, 178, 177,
                               176, 175, 174}));
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
             (std::vector<int>{176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189,
                               190}));
    QCOMPARE(scalar(owner, TableSql), before);
    QCOMPARE(scalar(owner, "SELECT count(*) FROM leader_ext.migrations WHERE version < 176"),
             QStringLiteral("0"));

    // The ADR's own migrations are the application's: undone are the extensions only, and what
    // they replaced is the ADR's again, to the byte.
    QCOMPARE(migrator.rollbackTo(174), (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183,
                                                         182, 181, 180, 179, 178, 177, 176}));
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
    // A login holding neither grant role sees the ADR's objects (PUBLIC may look them up) but not
    // leader_ext: that is said as such, not as a missing extension.
    Connection nobody = m_db->connect(Login::Nobody);
    features = leader::schema::probeFeatures(nobody);
    QVERIFY(features.extensionsHidden);
    QCOMPARE(features.extension, 0);
    try {
        leader::schema::requireExtension(nobody, features, "the pause history",
                                         Extension::PauseLog);
        QFAIL("a login that cannot read leader_ext was told nothing");
    } catch (const leader::schema::SchemaError &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains("may not read"), error.what());
    }
    QVERIFY(!leader::schema::probeFeatures(monitor).extensionsHidden);
    QCOMPARE(migrator.rollbackTo(179),
             (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183, 182, 181, 180, 179}));
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

void TestMigrator::eachMissingExtensionIsNamed_data()
{
    QTest::addColumn<int>("version");
    for (int version = 176; version <= leader::schema::LatestExtension; ++version)
        QTest::addRow("%d", version) << version;
}

void TestMigrator::eachMissingExtensionIsNamed()
{
    // The one line a missing extension is refused with names it.
    QFETCH(int, version);
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner);
    Migrator migrator(owner);
    migrator.migrate({MigrationSet::Extension});
    migrator.rollbackTo(version);
    Connection app = m_db->connect(Login::App);
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(app);
    QCOMPARE(features.extension, version == 176 ? 0 : version - 1);
    QVERIFY(!features.complete());
    try {
        leader::schema::requireExtension(app, features, "leader-replica",
                                         static_cast<Extension>(version));
        QFAIL("a missing extension was accepted");
    } catch (const leader::schema::SchemaError &error) {
        QVERIFY2(QString::fromUtf8(error.what())
                         .startsWith(
                                 QStringLiteral("leader-replica needs the extension leader_ext 0%1")
                                         .arg(version)),
                 error.what());
    }
}

void TestMigrator::legacyInstallMovesIntoLeaderExt_data()
{
    QTest::addColumn<int>("version");
    // What earlier leaderctl versions installed: 0176 to 0181.
    for (const leader::schema::Migration &legacy : leader::schema::legacyExtensionDowns())
        QTest::addRow("%d", legacy.version) << legacy.version;
}

void TestMigrator::legacyInstallMovesIntoLeaderExt()
{
    QFETCH(int, version);
    // The last release before leader_ext also ran the demo's cluster.
    const bool last = version == leader::schema::legacyExtensionDowns().back().version;
    // What a fresh install through the application's tool and leaderctl migrate gives.
    QString fresh;
    {
        Connection owner = m_db->connect(Login::Owner);
        applyAdrAsTheApplication(owner);
        if (last)
            Migrator(owner).migrate({MigrationSet::Extension, MigrationSet::Demo});
        else
            Migrator(owner).migrate({MigrationSet::Extension});
        fresh = scalar(owner, SchemaFingerprintSql);
    }
    m_db->recreate();
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner);
    installLegacy(owner, version);
    // The demo's cluster of an earlier build: its domain tracked in the same table.
    if (last) {
        for (const int demo : {1001, 1002}) {
            owner.exec("legacy demo", "BEGIN", {}, Short);
            owner.execScript("legacy demo", migration(demo).up, 30s);
            owner.exec("legacy demo",
                       "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                       {demo, std::string(migration(demo).name)}, Short);
            owner.exec("legacy demo", "COMMIT", {}, Short);
        }
    }
    if (version >= 177) {
        owner.execScript("legacy use", R"sql(
SELECT leader_pause('billing', 'alice@ops', 'ledger freeze', now() + interval '1 hour');
SELECT leader_pause('dunning', 'bob@ops', 'mail outage');
SELECT leader_unpause('dunning', 'bob@ops', 'mail back');
SELECT leader_pause('webhook_delivery', 'carol@ops', 'short', now() + interval '1 hour');
-- Its end passed with no replica to clear it: the earlier 0177 down failed on such a row
-- (checked: without the move clearing paused_until first, the move fails here).
UPDATE leader_leases SET paused_until = now() - interval '1 minute'
 WHERE role = 'webhook_delivery';
)sql",
                         Short);
    }
    if (version >= 180)
        owner.exec("legacy use",
                   "UPDATE leader_leases SET early_take = false WHERE role = 'email_outbox'", {},
                   Short);
    const QString log
            = version >= 177 ? scalar(
                      owner,
                      "SELECT string_agg(id || action || role || coalesce(by, '') || at, ',' "
                      "ORDER BY id) FROM leader_pause_log")
                             : QString();
    // The pauses' ends in force; 0189 holds them in not_before, and its view shows them.
    const QString until = version >= 177 ? scalar(owner, "SELECT string_agg(role || paused_until, "
                                                         "',' ORDER BY role) FROM leader_leases "
                                                         "WHERE paused_until > now()")
                                         : QString();
    // The pause whose end passed is ended by 0189, and its expiry logged at that end.
    const QString expired
            = version >= 177 ? scalar(owner, "SELECT (max(g.id) + 1) || 'expirewebhook_delivery' "
                                             "|| (SELECT paused_until FROM leader_leases WHERE "
                                             "role = 'webhook_delivery') FROM leader_pause_log g")
                             : QString();

    // The owner reads the old schema_migrations; from 0177 on anyone sees the old objects.
    QVERIFY(leader::schema::probeFeatures(owner).legacyLayout);
    Connection monitor = m_db->connect(Login::Monitor);
    QCOMPARE(leader::schema::probeFeatures(monitor).legacyLayout, version >= 177);
    std::vector<int> rest;
    for (int v = version + 1; v <= leader::schema::LatestExtension; ++v)
        rest.push_back(v);
    QCOMPARE(Migrator(owner).migrate({MigrationSet::Adr, MigrationSet::Extension}), rest);
    if (last) {
        QCOMPARE(scalar(owner, "SELECT string_agg(version::text, ',' ORDER BY version) FROM "
                               "leader_ext.migrations WHERE version > 1000"),
                 QStringLiteral("1001,1002"));
        // The demo's later migrations (1003, its backlog sources), as leaderctl migrate --demo
        // adds them.
        QCOMPARE(Migrator(owner).migrate({MigrationSet::Demo}), (std::vector<int>{1003}));
    }

    QVERIFY(leader::schema::probeFeatures(monitor).complete());
    QCOMPARE(scalar(owner, "SELECT to_regclass('schema_migrations') IS NULL"), QStringLiteral("t"));
    QCOMPARE(scalar(owner, SchemaFingerprintSql), fresh);
    // The ADR's rows keep their instant: leaderctl applied them, so it may undo them later.
    QCOMPARE(scalar(owner, "SELECT applied_at = '2026-11-02 10:00+00' FROM leader_ext.migrations "
                           "WHERE version = 174"),
             QStringLiteral("t"));
    if (version >= 177) {
        QCOMPARE(scalar(owner, "SELECT string_agg(id || action || role || coalesce(by, '') || at, "
                               "',' ORDER BY id) FROM leader_ext.leader_pause_log"),
                 log + QLatin1Char(',') + expired);
        QCOMPARE(scalar(owner, "SELECT string_agg(role || paused_until, ',' ORDER BY role) FROM "
                               "leader_ext.leader_status WHERE paused_until IS NOT NULL"),
                 until);
        // The sequence goes on after the moved rows.
        owner.exec("after", "SELECT leader_unpause('billing')", {}, Short);
        QCOMPARE(scalar(owner, "SELECT count(DISTINCT id) = count(*) FROM "
                               "leader_ext.leader_pause_log"),
                 QStringLiteral("t"));
    }
    if (version >= 180)
        QCOMPARE(scalar(owner, "SELECT early_take FROM leader_leases WHERE role = 'email_outbox'"),
                 QStringLiteral("f"));
}

void TestMigrator::printedFilesFollowEachTool_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QStringList>("names"); // of leader_ext 0176, then the last file
    QTest::addColumn<QStringList>("markers");
    QTest::newRow("plain") << QStringLiteral("plain")
                           << QStringList{"0176_pause_notify.up.sql", "0176_pause_notify.down.sql"}
                           << QStringList{"BEGIN;\n", "COMMIT;\n"};
    QTest::newRow("sql-migrate") << QStringLiteral("sql-migrate")
                                 << QStringList{"0176_pause_notify.sql", "0190_second_review.sql"}
                                 << QStringList{"-- +migrate Up\n-- +migrate StatementBegin\n",
                                                "-- +migrate StatementEnd\n\n-- +migrate Down\n"};
    QTest::newRow("golang-migrate")
            << QStringLiteral("golang-migrate")
            << QStringList{"0176_pause_notify.up.sql", "0176_pause_notify.down.sql"}
            << QStringList{"BEGIN;\n", "COMMIT;\n"};
    QTest::newRow("goose") << QStringLiteral("goose")
                           << QStringList{"0176_pause_notify.sql", "0190_second_review.sql"}
                           << QStringList{"-- +goose Up\n-- +goose StatementBegin\n",
                                          "-- +goose StatementEnd\n\n-- +goose Down\n"};
    QTest::newRow("flyway") << QStringLiteral("flyway")
                            << QStringList{"V0176__pause_notify.sql", "U0176__pause_notify.sql"}
                            << QStringList{"pg_advisory_xact_lock",
                                           "INSERT INTO leader_ext.migrations"};
}

void TestMigrator::printedFilesFollowEachTool()
{
    QFETCH(QString, format);
    QFETCH(QStringList, names);
    QFETCH(QStringList, markers);
    const auto parsed = leader::schema::parseScriptFormat(format.toStdString());
    QVERIFY(parsed);
    const std::vector<leader::schema::ScriptFile> files
            = leader::schema::extensionScripts(*parsed, 0);
    QCOMPARE(QString::fromStdString(files.front().name), names.front());
    QCOMPARE(QString::fromStdString(files.back().name), names.back());
    for (const QString &marker : markers)
        QVERIFY2(QString::fromStdString(files.front().text).contains(marker), qPrintable(marker));
    // --to stops there, down files included.
    for (const leader::schema::ScriptFile &file : leader::schema::extensionScripts(*parsed, 178))
        QVERIFY2(!QString::fromStdString(file.name).contains(QRegularExpression(
                         "0179|0180|0181|0182|0183|0184|0185|0186|0187|0188|0189|0190")),
                 file.name.c_str());
}

void TestMigrator::printedFilesApplyAsLeaderctlDoes_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("plain") << QStringLiteral("plain");
    QTest::newRow("flyway") << QStringLiteral("flyway");
}

void TestMigrator::printedFilesApplyAsLeaderctlDoes()
{
    // The files run as their tool runs them (plain and golang-migrate's as they are; Flyway's in
    // a transaction it opens), then their down files in the order written: the schema is
    // leaderctl migrate's, then the ADR's again. sql-migrate's are run by sql-migrate itself in
    // tests/ops/sql-migrate-roundtrip.sh.
    QFETCH(QString, format);
    QString leaderctl;
    {
        Connection owner = m_db->connect(Login::Owner);
        applyAdrAsTheApplication(owner);
        Migrator(owner).migrate({MigrationSet::Extension});
        leaderctl = scalar(owner, SchemaFingerprintSql);
    }
    m_db->recreate();
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner);
    const QString adrOnly = scalar(owner, SchemaFingerprintSql);
    const auto parsed = leader::schema::parseScriptFormat(format.toStdString());
    const bool toolOpensTransaction = *parsed == leader::schema::ScriptFormat::Flyway;
    bool downs = false;
    for (const leader::schema::ScriptFile &file : leader::schema::extensionScripts(*parsed, 0)) {
        const bool down = file.name.ends_with(".down.sql") || file.name.starts_with("U");
        if (down && !downs) {
            QCOMPARE(scalar(owner, SchemaFingerprintSql), leaderctl);
            downs = true;
        }
        if (toolOpensTransaction)
            owner.exec("tool", "BEGIN", {}, Short);
        owner.execScript("tool", file.text, 30s);
        if (toolOpensTransaction)
            owner.exec("tool", "COMMIT", {}, Short);
    }
    QVERIFY(downs);
    QCOMPARE(scalar(owner, SchemaFingerprintSql), adrOnly);
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

void TestMigrator::eachExtensionUndoesToTheSchemaBefore_data()
{
    QTest::addColumn<int>("version");
    for (const leader::schema::Migration &m : leader::schema::embeddedMigrations()) {
        if (m.set == MigrationSet::Extension)
            QTest::addRow("%d", m.version) << m.version;
    }
}

// Up and down of one extension on the schema the ones before it make: the catalog is that
// schema's again, every function's body, settings and grants included. For 0182 that is 0181's
// leader_replica_seen to the byte and 0178's view (checked once: with the down's function in 0178's
// form, search_path FROM CURRENT, the fingerprints differ).
void TestMigrator::eachExtensionUndoesToTheSchemaBefore()
{
    QFETCH(int, version);
    Connection owner = m_db->connect(Login::Owner);
    applyAdrAsTheApplication(owner);
    const auto run = [&owner](const std::string &sql) {
        owner.exec("test", "BEGIN", {}, Short);
        owner.execScript("test", sql, 30s);
        owner.exec("test", "COMMIT", {}, Short);
    };
    for (int before = 176; before < version; ++before)
        run(leader::schema::composeUp(migration(before)));
    const QString schemaBefore = scalar(owner, SchemaFingerprintSql);
    run(leader::schema::composeUp(migration(version)));
    QVERIFY(scalar(owner, SchemaFingerprintSql) != schemaBefore);
    run(leader::schema::composeDown(migration(version)));
    QCOMPARE(scalar(owner, SchemaFingerprintSql), schemaBefore);
}

QTEST_GUILESS_MAIN(TestMigrator)
#include "tst_migrator.moc"
