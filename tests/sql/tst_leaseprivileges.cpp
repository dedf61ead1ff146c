// The privilege model of docs/privileges.md, checked as real non-owner logins: lt_app holds only
// hardcount_app, lt_monitor only hardcount_monitor, lt_nobody nothing.

#include "lease/roles.h"
#include "lease/statements.h"
#include "pg/error.h"
#include "testdatabase.h"

#include <QtTest>

#include <memory>
#include <regex>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(Login)

class TestLeasePrivileges final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void appRunsTheLeaseStatements();
    void refused_data();
    void refused();
    void sixthRoleIsRejected();
    void executeAloneIsThePausePrivilege();
    void rolesSeededMatchEngineConstants();

private:
    std::unique_ptr<TestDatabase> m_db;
};

void TestLeasePrivileges::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("leaseprivileges");
    m_db->migrateLease();
}

void TestLeasePrivileges::appRunsTheLeaseStatements()
{
    // ACQUIRE is an upsert, which Postgres checks for INSERT even when the row exists: without the
    // column INSERT grant of 0174 this fails with 42501 (checked once by revoking it).
    Connection app = m_db->connect(Login::App);
    const auto acquired = leader::lease::acquire(app, "billing", "app:1:00000001", 0ms);
    QVERIFY(acquired.has_value());
    QVERIFY(leader::lease::renew(app, "billing", acquired->token, "app:1:00000001"));
    QVERIFY(leader::lease::release(app, {.role = "billing",
                                         .token = acquired->token,
                                         .holderId = "app:1:00000001",
                                         .outcome = leader::lease::Outcome::Completed}));
    leader::lease::pause(app, "billing", "app@test", "privilege check");
    QVERIFY(leader::lease::unpause(app, "billing"));
    QCOMPARE(app.exec("status", "SELECT count(*) FROM leader_status", {}, 5s).toInt64(0, 0), 5);
}

void TestLeasePrivileges::refused_data()
{
    QTest::addColumn<Login>("login");
    QTest::addColumn<QString>("sql");
    QTest::newRow("app deletes a role") << Login::App << "DELETE FROM leader_leases";
    QTest::newRow("app truncates") << Login::App << "TRUNCATE leader_leases";
    QTest::newRow("app alters the table")
            << Login::App << "ALTER TABLE leader_leases DROP CONSTRAINT leader_leases_role_known";
    QTest::newRow("app inserts a paused row")
            << Login::App
            << "INSERT INTO leader_leases (role, holder_token, paused_at, paused_by, pause_reason) "
               "VALUES ('billing', 1, now(), 'x', 'y') ON CONFLICT DO NOTHING";
    QTest::newRow("app forges a completion")
            << Login::App
            << "INSERT INTO leader_leases (role, holder_token, last_tick_ended_at) "
               "VALUES ('billing', 1, now()) ON CONFLICT DO NOTHING";
    // Since 0181 the app may UPDATE only what ACQUIRE, RENEW and RELEASE write (both rows were
    // accepted with 0181 rolled back).
    QTest::newRow("app switches the early take")
            << Login::App << "UPDATE leader_leases SET early_take = false";
    QTest::newRow("app renames a role")
            << Login::App << "UPDATE leader_leases SET role = 'dunning' WHERE role = 'billing'";
    QTest::newRow("monitor pauses") << Login::Monitor << "SELECT leader_pause('billing', 'm', 'w')";
    QTest::newRow("monitor unpauses") << Login::Monitor << "SELECT leader_unpause('billing')";
    QTest::newRow("monitor reads the table") << Login::Monitor << "SELECT * FROM leader_leases";
    QTest::newRow("monitor writes the table")
            << Login::Monitor << "UPDATE leader_leases SET not_before = NULL";
    QTest::newRow("monitor calls the fence")
            << Login::Monitor << "SELECT leader_fence('billing', 1)";
    QTest::newRow("nobody reads status") << Login::Nobody << "SELECT * FROM leader_status";
    QTest::newRow("nobody pauses") << Login::Nobody << "SELECT leader_pause('billing', 'n', 'w')";
}

void TestLeasePrivileges::refused()
{
    QFETCH(Login, login);
    QFETCH(QString, sql);
    Connection connection = m_db->connect(login);
    try {
        connection.exec("refused", sql.toStdString(), {}, 5s);
        QFAIL("the statement was allowed");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::InsufficientPrivilege));
        QVERIFY(!error.isTransport());
    }
}

void TestLeasePrivileges::sixthRoleIsRejected()
{
    Connection app = m_db->connect(Login::App);
    try {
        leader::lease::acquire(app, "payroll", "app:1:00000001", 0ms);
        QFAIL("a sixth role was created");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(error.sqlstate(), std::string(leader::pg::sqlstate::CheckViolation));
    }
    QCOMPARE(app.exec("count", "SELECT count(*) FROM leader_leases", {}, 5s).toInt64(0, 0), 5);
}

void TestLeasePrivileges::executeAloneIsThePausePrivilege()
{
    // leader_pause runs as its owner, so an operator login needs EXECUTE and nothing on the table.
    Connection owner = m_db->connect(Login::Owner);
    owner.exec("grant", "GRANT EXECUTE ON FUNCTION leader_pause(text, text, text) TO lt_nobody", {},
               5s);
    Connection nobody = m_db->connect(Login::Nobody);
    QVERIFY(!leader::lease::pause(nobody, "email_outbox", "op@test", "rotation").empty());
    QCOMPARE(owner.exec("state", "SELECT state FROM leader_status WHERE role = 'email_outbox'", {},
                        5s)
                     .text(0, 0),
             std::string_view("paused"));
    owner.exec("revoke", "REVOKE EXECUTE ON FUNCTION leader_pause(text, text, text) FROM lt_nobody",
               {}, 5s);
}

void TestLeasePrivileges::rolesSeededMatchEngineConstants()
{
    // The ADR's RolesSeededMatchGoConstants, for C++: the CHECK's list, the seeded rows and the
    // engine's constants are one list.
    Connection monitor = m_db->connect(Login::Owner);
    const std::string definition(monitor.exec("check",
                                              "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                                              "WHERE conname = 'leader_leases_role_known'",
                                              {}, 5s)
                                         .text(0, 0));
    std::vector<std::string> checked;
    const std::regex quoted("'([a-z_]+)'");
    for (std::sregex_iterator it(definition.begin(), definition.end(), quoted), end; it != end;
         ++it)
        checked.push_back((*it)[1].str());
    std::vector<std::string> seeded;
    const leader::pg::Result rows
            = monitor.exec("rows", "SELECT role FROM leader_leases ORDER BY role", {}, 5s);
    for (int row = 0; row < rows.rows(); ++row)
        seeded.emplace_back(rows.text(row, 0));
    std::vector<std::string> constants(leader::lease::Roles.begin(), leader::lease::Roles.end());

    QCOMPARE(checked, constants);
    std::sort(constants.begin(), constants.end());
    QCOMPARE(seeded, constants);
}

QTEST_GUILESS_MAIN(TestLeasePrivileges)
#include "tst_leaseprivileges.moc"
