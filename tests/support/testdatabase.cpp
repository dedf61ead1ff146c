#include "testdatabase.h"

#include "pg/error.h"
#include "schema/migrator.h"

#include <cstdlib>
#include <stdexcept>

#include <unistd.h>

namespace leader::test {

namespace {

using namespace std::chrono_literals;

std::string requiredEnv(const char *name)
{
    const char *value = std::getenv(name);
    if (!value || !*value)
        throw std::runtime_error(std::string(name)
                                 + " is not set: run the database suites through scripts/test.sh, "
                                   "which starts Postgres and PgBouncer and sets it");
    return value;
}

pg::Connection adminConnection(const std::string &adminUrl)
{
    pg::Connection connection({.url = adminUrl, .applicationName = "leader-tests admin"});
    connection.open();
    return connection;
}

} // namespace

std::string loginName(Login login)
{
    switch (login) {
    case Login::Owner:
        return "lt_owner";
    case Login::App:
        return "lt_app";
    case Login::Monitor:
        return "lt_monitor";
    case Login::Nobody:
        return "lt_nobody";
    }
    return {};
}

TestDatabase::TestDatabase(std::string_view purpose)
    : m_adminUrl(requiredEnv("LEADER_TEST_ADMIN_URL"))
    , m_host(requiredEnv("LEADER_TEST_HOST"))
    , m_password(requiredEnv("LEADER_TEST_PASSWORD"))
    , m_directPort(std::stoi(requiredEnv("LEADER_TEST_PG_PORT")))
{
    const std::string via = requiredEnv("LEADER_TEST_VIA");
    if (via != "direct" && via != "pgbouncer")
        throw std::runtime_error("LEADER_TEST_VIA must be direct or pgbouncer, not " + via);
    m_viaPgBouncer = via == "pgbouncer";
    m_targetPort
            = m_viaPgBouncer ? std::stoi(requiredEnv("LEADER_TEST_BOUNCER_PORT")) : m_directPort;
    m_name = "lt_" + std::string(purpose) + "_" + via + "_" + std::to_string(::getpid());
    recreate();
}

TestDatabase::~TestDatabase()
{
    try {
        adminConnection(m_adminUrl)
                .exec("drop test database",
                      "DROP DATABASE IF EXISTS \"" + m_name + "\" WITH (FORCE)", {}, 30s);
    } catch (const std::exception &) {
        // A leftover database is harmless: the next run of this test recreates it.
    }
}

void TestDatabase::recreate()
{
    pg::Connection admin = adminConnection(m_adminUrl);
    admin.exec("drop test database", "DROP DATABASE IF EXISTS \"" + m_name + "\" WITH (FORCE)", {},
               30s);
    admin.exec("create test database",
               "CREATE DATABASE \"" + m_name + "\" OWNER " + loginName(Login::Owner), {}, 30s);
}

std::string TestDatabase::urlFor(Login login, int port) const
{
    return "postgresql://" + loginName(login) + ":" + m_password + "@" + m_host + ":"
           + std::to_string(port) + "/" + m_name;
}

std::string TestDatabase::url(Login login) const
{
    return urlFor(login, m_targetPort);
}

std::string TestDatabase::directUrl(Login login) const
{
    return urlFor(login, m_directPort);
}

pg::Connection TestDatabase::connect(Login login) const
{
    pg::Connection connection({.url = url(login), .applicationName = "leader-tests"});
    connection.open();
    return connection;
}

pg::Connection TestDatabase::connectDirect(Login login) const
{
    pg::Connection connection({.url = directUrl(login), .applicationName = "leader-tests"});
    connection.open();
    return connection;
}

void TestDatabase::migrateLease() const
{
    pg::Connection owner = connect(Login::Owner);
    schema::Migrator(owner).migrate({schema::MigrationSet::Adr, schema::MigrationSet::Extension});
}

void TestDatabase::resetLeases() const
{
    pg::Connection owner = connect(Login::Owner);
    // 0189's pauses with an end and holders outside the registry go first: the pause's end is the
    // not_before cleared below.
    owner.exec("reset pause ends",
               "DO $$ BEGIN IF pg_catalog.to_regclass('leader_ext.leader_pause_ends') IS NOT NULL "
               "THEN DELETE FROM leader_ext.leader_pause_ends; "
               "DELETE FROM leader_ext.leader_outside_holders; END IF; END $$",
               {}, 5s);
    owner.exec("reset leases",
               "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, "
               "expires_at = NULL, last_tick_ended_at = NULL, last_tick_holder = NULL, "
               "paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL, "
               "not_before = NULL, holder_session = NULL, holder_session_incarnation = NULL",
               {}, 5s);
}

void TestDatabase::endPauseNow(std::string_view role) const
{
    pg::Connection owner = connect(Login::Owner);
    try {
        // The pause's record first: then its not_before is no pause's any more, and the write of
        // it is not taken for an unpause by hand.
        owner.exec("end the pause",
                   "WITH ended AS (UPDATE leader_ext.leader_pause_ends SET until = now() - "
                   "interval '1 millisecond', not_before = now() - interval '1 millisecond' "
                   "WHERE role = $1 RETURNING role) SELECT count(*) FROM ended",
                   {role}, 5s);
        owner.exec("end the pause",
                   "UPDATE leader_leases AS l SET not_before = e.not_before FROM "
                   "leader_ext.leader_pause_ends AS e WHERE e.role = l.role AND l.role = $1",
                   {role}, 5s);
    } catch (const pg::Error &error) {
        if (error.sqlstate() != pg::sqlstate::UndefinedTable)
            throw;
    }
    owner.exec("end the pause",
               "UPDATE leader_leases SET paused_until = now() - interval '1 millisecond' "
               "WHERE role = $1 AND paused_until IS NOT NULL",
               {role}, 5s);
}

void TestDatabase::resetDemo() const
{
    // Cascades to every demo table that refers to a tenant.
    connect(Login::Owner)
            .exec("reset demo",
                  "TRUNCATE tenants, claim_log, external_effects, fence_refusals RESTART IDENTITY "
                  "CASCADE",
                  {}, 5s);
}

void TestDatabase::migrateDemo() const
{
    pg::Connection owner = connect(Login::Owner);
    schema::Migrator(owner).migrate({schema::MigrationSet::Adr, schema::MigrationSet::Extension,
                                     schema::MigrationSet::Demo});
}

} // namespace leader::test
