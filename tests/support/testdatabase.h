#pragma once

#include "pg/connection.h"

#include <string>
#include <string_view>

namespace leader::test {

// The login roles scripts/test.sh creates once per server: the owner migrates, the app holds only
// hardcount_app, the monitor only hardcount_monitor, and nobody holds nothing.
enum class Login { Owner, App, Monitor, Nobody };

std::string loginName(Login login);

// A fresh database for one test program, created through the admin URL and dropped at the end.
// Statements reach it the way LEADER_TEST_VIA says: straight to Postgres ("direct") or through
// PgBouncer in transaction mode ("pgbouncer"). Throws std::runtime_error with a one-line reason
// when the test servers are not there (run the suite through scripts/test.sh).
class TestDatabase final
{
public:
    explicit TestDatabase(std::string_view purpose);
    ~TestDatabase();
    TestDatabase(const TestDatabase &) = delete;
    TestDatabase &operator=(const TestDatabase &) = delete;

    const std::string &name() const { return m_name; }
    bool viaPgBouncer() const { return m_viaPgBouncer; }

    // A URL with the login's password, through the configured route.
    std::string url(Login login) const;
    // The route's port, and the same URL on another loopback port: a link proxy in front of it.
    int targetPort() const { return m_targetPort; }
    std::string urlOnPort(Login login, int port) const { return urlFor(login, port); }
    // Always straight to Postgres: migrations and DDL, which a transaction pooler is not for.
    std::string directUrl(Login login) const;
    pg::Connection connect(Login login) const;
    pg::Connection connectDirect(Login login) const;

    // Applies the embedded lease migrations as the owner, through the configured route: the
    // migrator is meant to be pooler-safe.
    void migrateLease() const;
    // Applies the lease and the demo (five roles' domain) migrations, the same way.
    void migrateDemo() const;
    // Leaves every lease unheld, unpaused, never ran and not cooling (tokens stay).
    void resetLeases() const;
    // As if the end of the role's pause had come: moves it just into the past, as the owner,
    // whichever form the pause has (0189's in not_before, 0177's in paused_until).
    void endPauseNow(std::string_view role) const;
    // Empties the demo domain: every tenant and what hangs off it, claims and effects.
    void resetDemo() const;
    // Drops and recreates the database, empty.
    void recreate();

private:
    std::string urlFor(Login login, int port) const;

    std::string m_name;
    std::string m_adminUrl;
    std::string m_host;
    std::string m_password;
    int m_directPort = 0;
    int m_targetPort = 0;
    bool m_viaPgBouncer = false;
};

} // namespace leader::test
