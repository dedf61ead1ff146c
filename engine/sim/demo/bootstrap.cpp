#include "bootstrap.h"

#include "embedded/cluster.h"
#include "pg/connection.h"
#include "platform/process.h"
#include "schema/migrator.h"

#include <cstdlib>

namespace leader::demo {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 5s;
constexpr auto CreateDatabaseTimeout = 30s;

} // namespace

std::filesystem::path defaultDemoDirectory()
{
    if (platform::isRoot())
        return "/var/lib/leader-console/demo-cluster";
    if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data)
        return std::filesystem::path(data) / "leader-console" / "demo-cluster";
    const char *home = std::getenv("HOME");
    return std::filesystem::path(home ? home : "/tmp") / ".local/share/leader-console/demo-cluster";
}

DemoCluster startDemoCluster(const std::filesystem::path &directory,
                             const std::function<void(const std::string &)> &progress)
{
    const auto say = [&progress](const std::string &step) {
        if (progress)
            progress(step);
    };
    say("starting the demo cluster in " + directory.string());
    // The cluster makes the directory and its missing parents itself, never through a link.
    auto cluster
            = std::make_unique<embedded::Cluster>(embedded::ClusterOptions{.directory = directory});
    cluster->start();
    std::vector<int> applied;
    try {
        say(std::string("preparing database ") + DemoDatabase);
        {
            pg::Connection admin(
                    {.url = cluster->url("postgres"), .applicationName = "leader demo bootstrap"});
            const pg::Result exists
                    = admin.exec("demo database", "SELECT 1 FROM pg_database WHERE datname = $1",
                                 {DemoDatabase}, StatementTimeout);
            if (exists.rows() == 0)
                admin.exec("create demo database", std::string("CREATE DATABASE ") + DemoDatabase,
                           {}, CreateDatabaseTimeout);
        }
        pg::Connection connection(
                {.url = cluster->url(DemoDatabase), .applicationName = "leader demo bootstrap"});
        // Before PostgreSQL 15 every login may create objects in public, where the definer
        // functions live; the migrator refuses such a schema (docs/security.md). This is the
        // demo's own database, so it closes that itself (a no-op from 15 on).
        connection.exec("demo public schema", "REVOKE CREATE ON SCHEMA public FROM PUBLIC", {},
                        StatementTimeout);
        using schema::MigrationSet;
        applied = schema::Migrator(connection)
                          .migrate(
                                  {MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo});
    } catch (...) {
        try {
            cluster->stop();
        } catch (const std::exception &) {
            // The first failure is the one worth reporting; the destructor tries once more.
        }
        throw;
    }
    return {std::move(cluster), std::move(applied)};
}

} // namespace leader::demo
