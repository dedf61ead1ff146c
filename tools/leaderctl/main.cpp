// leaderctl: the operator's command line over the lease table.

#include "database.h"
#include "demo/bootstrap.h"
#include "democommands.h"
#include "draincommands.h"
#include "earlytake.h"
#include "embedded/cluster.h"
#include "exitcodes.h"
#include "handovercommand.h"
#include "lease/defaultwho.h"
#include "lease/pausecontrol.h"
#include "lease/roles.h"
#include "lease/textbounds.h"
#include "migratecommand.h"
#include "output.h"
#include "pausecommands.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "replicacommands.h"
#include "roles/demoschema.h"
#include "schema/features.h"
#include "schema/migrator.h"
#include "statuscommand.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;

using enum leaderctl::ExitCode;

constexpr const char *HelpText = R"(Usage: leaderctl COMMAND [OPTIONS]

Commands:
  status    [--json]                 who leads what, on the database clock (leader_status), and
                                     what each role's last tick did (OUTCOME, TOOK s, the
                                     hour's completed/lost/failed ticks; with extension 0184)
                                     and how much work waits for it (BACKLOG: the count and the
                                     oldest item's age its registered source reports; with
                                     extension 0186, docs/backlog.md); the last line names the
                                     extensions missing, if any
  pause     ROLE... --reason WHY [--by WHO] [--for DURATION | --until TIME]
                                     pause roles cluster-wide (leader_pause), all of them or none;
                                     WHO defaults to user@host. --for 15m, 1h, 4h, 2d: the pause
                                     ends by itself that long after now, on the database clock;
                                     --until '2026-12-04 09:00+01' at that instant (both need
                                     extension 0177; without 0176 a holder stops at its next
                                     heartbeat, within 3 s)
  unpause   ROLE... [--by WHO --reason WHY]
                                     unpause roles (leader_unpause); WHO and WHY go into the
                                     pause log (extension 0177)
  history   [ROLE] [--since DURATION|TIME] [--json]
                                     the pause log (extension 0177), newest first: every pause,
                                     unpause and expiry with the database login, who and why
  replicas  [--json]                 the replicas that could take over (extension 0178's
                                     leader_ext.leader_replicas_status): holder, host, pid,
                                     version, roles, started, last seen on the database clock,
                                     alive or gone (not seen for 35 s)
  drain     REPLICA [--reason WHY] [--by WHO] [--force] [--wait [--timeout D]]
                                     drain a replica by its leader-replica --id (extension
                                     0183): it starts no new tick of any role, running ticks end
                                     as they would, and it stays drained across restarts until
                                     undrain; logged with the login, WHO and WHY. Refused (exit 6)
                                     when a role would be left with no live undrained replica,
                                     unless --force. --wait returns once it runs no tick (exit 0),
                                     or exit 7 at --timeout (default 60s) naming the roles still
                                     running
  undrain   REPLICA [--by WHO --reason WHY]
                                     undrain it: it starts ticks again at once
  handover  ROLE [--to REPLICA] [--reason WHY] [--by WHO] [--wait [--timeout D]]
                                     hand a role over now (extension 0185): its holder runs no
                                     further step of its tick (the one in flight completes) and
                                     releases it; REPLICA (a live, undrained leader-replica --id
                                     running the role) is preferred for the next tick, without
                                     --to any replica but the holder; a preferred replica that
                                     does not come is passed over after 10 s. Logged with the
                                     login, WHO and WHY. Refused (exit 6) for a role not held
                                     without --to, paused, or a replica not live or drained.
                                     --wait returns once another holder (REPLICA) acquired it and
                                     prints how long after the handover, or exit 7 at --timeout
                                     (default 60s)
  early-take on|off [ROLE...]        the takeover at process death (extension 0180), per role
                                     (all five when none is named): on, a role whose holder's
                                     process died is taken about 0.2 s later; off, only at its
                                     lease's expiry (10 s after the last heartbeat). Takes effect
                                     at once, no deploy
  migrate   [--demo]                 apply the extensions (leader_ext 0176 to 0190, in the
                                     schema leader_ext, recorded in leader_ext.migrations), and
                                     ADR-114's 0174 and 0175 where leader_leases does not exist
                                     yet; names every change outside leader_ext before making it;
                                     --demo adds the demo domain (1001 to 1003). Never touches the
                                     application's schema_migrations; a no-op when up to date
  migrate   --print-sql [--format plain|sql-migrate|golang-migrate|goose|flyway] [--to V]
            [--down] [--out DIR]     the extension migrations, as new files, for the application's
                                     own migration tool (default plain, to standard output; --down
                                     the undo direction); each file checks first what it needs
  workload  [--rate N/s] [--count N] [--duration S]
                                     create demo tenants, each with a subscription falling due, a
                                     webhook event and an email: --rate a second (default 10)
                                     until --count tenants (default 600) or --duration seconds
                                     (default 60), whichever comes first
  audit     [--json]                 check the demo domain's invariants role by role
  demo      [--dir DIR] [--keep-running]
                                     start the private demo cluster, migrate it (lease and demo
                                     sets), print its status; with --keep-running it outlives
                                     leaderctl, until demo --stop
  demo      --stop [--dir DIR]       stop the demo cluster left running in DIR
  demo      --run [--dir DIR] [--replicas N] [--seconds S]
                                     the whole demo in this terminal, as the console runs it: the
                                     cluster, N replicas (default 3) leading the five roles, the
                                     workload; prints each event until Ctrl+C, SIGTERM or S
                                     seconds, then stops the replicas (leases released), audits
                                     the demo domain as audit does and stops the cluster

Options:
  --database URL   postgresql:// URL or key=value conninfo; default DATABASE_URL, then the
                   standard PG* variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, ...).
                   A multi-host URL reaches the primary of a failover pair:
                   postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write
  --help, --version

Roles: billing, dunning, webhook_outbox, email_outbox, webhook_delivery; "all" for the five

Exit codes: 0 done; 1 the database refused or failed the operation; 2 wrong arguments;
            3 lease (or, for workload and audit, demo) schema missing or newer than this build,
            or the command needs an extension the database lacks;
            4 cannot connect (server unreachable or login refused); 5 audit (or demo --run): an
            invariant fails; 6 drain refused: a role would have no eligible replica (--force),
            or handover refused; 7 drain or handover --wait timed out.
)";

struct Arguments
{
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    std::vector<std::string> flags;

    bool hasFlag(const std::string &flag) const
    {
        return std::find(flags.begin(), flags.end(), flag) != flags.end();
    }
    std::string option(const std::string &name) const
    {
        const auto it = options.find(name);
        return it == options.end() ? std::string() : it->second;
    }
};

class UsageError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The database's bounds (leader_ext 0190), before anything connects; the text is never echoed.
void requireBoundedText(const Arguments &arguments)
{
    using leader::lease::tooLong;
    for (const auto &[option, most] :
         {std::pair<std::string, std::size_t>{"--reason", leader::lease::MaxWhoOrWhy},
          {"--by", leader::lease::MaxWhoOrWhy},
          {"--to", leader::lease::MaxReplicaName}}) {
        if (const auto message = tooLong(option, arguments.option(option), most))
            throw UsageError(*message);
    }
    for (const std::string &argument : arguments.positional) {
        if (const auto message
            = tooLong("a role or replica name", argument, leader::lease::MaxReplicaName))
            throw UsageError(*message);
    }
}

Arguments parse(int argc, char **argv)
{
    static const std::vector<std::string> valued{
            "--database", "--reason",   "--by",      "--dir",    "--rate",  "--count",
            "--duration", "--replicas", "--seconds", "--for",    "--until", "--since",
            "--format",   "--to",       "--out",     "--timeout"};
    static const std::vector<std::string> switches{
            "--json",    "--keep-running", "--demo", "--run",   "--stop", "--help",
            "--version", "--print-sql",    "--down", "--force", "--wait"};
    Arguments arguments;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) {
            if (arguments.command.empty())
                arguments.command = arg;
            else
                arguments.positional.push_back(arg);
            continue;
        }
        std::string value;
        const std::size_t equals = arg.find('=');
        const bool inlineValue = equals != std::string::npos;
        if (inlineValue) {
            value = arg.substr(equals + 1);
            arg = arg.substr(0, equals);
        }
        if (std::find(valued.begin(), valued.end(), arg) != valued.end()) {
            if (!inlineValue) {
                if (i + 1 >= argc)
                    throw UsageError(arg + " needs a value");
                value = argv[++i];
            }
            arguments.options[arg] = value;
        } else if (std::find(switches.begin(), switches.end(), arg) != switches.end()) {
            arguments.flags.push_back(arg);
        } else {
            throw UsageError("unknown option " + arg);
        }
    }
    requireBoundedText(arguments);
    return arguments;
}

// ROLE... for pause and unpause: known roles, each once, or "all" for the five.
std::vector<std::string> requireRoles(const Arguments &arguments)
{
    if (arguments.positional.empty())
        throw UsageError(arguments.command + " takes one or more roles, e.g. leaderctl "
                         + arguments.command + " email_outbox webhook_outbox");
    if (arguments.positional.size() == 1 && arguments.positional.front() == "all")
        return {leader::lease::Roles.begin(), leader::lease::Roles.end()};
    std::vector<std::string> roles;
    for (const std::string &role : arguments.positional) {
        if (!leader::lease::isKnownRole(role))
            throw UsageError("unknown role '" + role + "'; roles are " + leader::lease::roleList()
                             + ", or all");
        if (std::find(roles.begin(), roles.end(), role) == roles.end())
            roles.push_back(role);
    }
    return roles;
}

leader::lease::PauseEnd pauseEnd(const Arguments &arguments)
{
    const std::string forDuration = arguments.option("--for");
    const std::string until = arguments.option("--until");
    if (!forDuration.empty() && !until.empty())
        throw UsageError("give --for or --until, not both");
    if (forDuration.empty())
        return {.after = {}, .at = until};
    const std::optional<std::string> interval = leader::lease::intervalFromDuration(forDuration);
    if (!interval)
        throw UsageError("--for takes a whole number and a unit (s, m, h, d), e.g. --for 1h, not '"
                         + forDuration + "'");
    return {.after = *interval, .at = {}};
}

// drain's and handover's --wait [--timeout D]: the timeout keeps its default unless given.
void readWait(const Arguments &arguments, bool &wait, std::chrono::milliseconds &timeout)
{
    wait = arguments.hasFlag("--wait");
    const std::string given = arguments.option("--timeout");
    if (given.empty())
        return;
    if (!wait)
        throw UsageError("--timeout goes with --wait");
    const std::optional<std::chrono::milliseconds> parsed = leaderctl::durationFrom(given);
    if (!parsed)
        throw UsageError("--timeout takes a whole number and a unit (ms, s, m, h), e.g. "
                         "--timeout 90s, not '"
                         + given + "'");
    timeout = *parsed;
}

leader::lease::PauseLogQuery historyQuery(const Arguments &arguments)
{
    if (arguments.positional.size() > 1)
        throw UsageError("history takes at most one role");
    leader::lease::PauseLogQuery query;
    if (!arguments.positional.empty()) {
        query.role = arguments.positional.front();
        if (!leader::lease::isKnownRole(query.role))
            throw UsageError("unknown role '" + query.role + "'; roles are "
                             + leader::lease::roleList());
    }
    const std::string since = arguments.option("--since");
    if (const std::optional<std::string> interval = leader::lease::intervalFromDuration(since))
        query.sinceAgo = *interval;
    else
        query.sinceAt = since; // the server parses it, or says what it could not read
    return query;
}

leaderctl::PrintSqlOptions printSqlOptions(const Arguments &arguments)
{
    leaderctl::PrintSqlOptions options;
    if (!arguments.option("--format").empty()) {
        const auto format = leader::schema::parseScriptFormat(arguments.option("--format"));
        if (!format)
            throw UsageError("unknown --format '" + arguments.option("--format")
                             + "'; formats are plain, sql-migrate, golang-migrate, goose, flyway");
        options.format = *format;
    }
    if (!arguments.option("--to").empty()) {
        const std::string text = arguments.option("--to");
        const auto [end, error]
                = std::from_chars(text.data(), text.data() + text.size(), options.to);
        if (error != std::errc() || end != text.data() + text.size() || options.to <= 0)
            throw UsageError("--to takes a migration version, e.g. --to 0178, not '" + text + "'");
        const leader::schema::Migration *migration = leader::schema::findMigration(options.to);
        if (!migration || migration->set != leader::schema::MigrationSet::Extension)
            throw UsageError(
                    "--to " + text + " is no extension migration; they are "
                    + leader::schema::versionLabel(static_cast<int>(leader::schema::FirstExtension))
                    + " to " + leader::schema::versionLabel(leader::schema::LatestExtension));
    }
    options.down = arguments.hasFlag("--down");
    if (options.down && leader::schema::holdsBothDirections(options.format))
        throw UsageError("--down is for plain, golang-migrate and flyway: sql-migrate and goose "
                         "files hold both directions");
    options.out = arguments.option("--out");
    return options;
}

std::filesystem::path demoDirectory(const Arguments &arguments)
{
    return arguments.option("--dir").empty() ? leader::demo::defaultDemoDirectory()
                                             : std::filesystem::path(arguments.option("--dir"));
}

// A number that is the whole of text, e.g. "20"; "20/s" too when perSecond.
double positiveNumber(const Arguments &arguments, const std::string &option, double fallback,
                      bool perSecond = false)
{
    std::string text = arguments.option(option);
    if (text.empty())
        return fallback;
    if (perSecond && text.size() > 2 && text.ends_with("/s"))
        text.resize(text.size() - 2);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !(value > 0))
        throw UsageError(option + " must be a positive number, not '" + arguments.option(option)
                         + "'");
    return value;
}

leader::demo::WorkloadOptions workloadOptions(const Arguments &arguments)
{
    leader::demo::WorkloadOptions options;
    options.ratePerSecond = positiveNumber(arguments, "--rate", options.ratePerSecond, true);
    const double count = positiveNumber(arguments, "--count", static_cast<double>(options.count));
    if (count != static_cast<double>(static_cast<std::int64_t>(count)))
        throw UsageError("--count must be a whole number, not '" + arguments.option("--count")
                         + "'");
    options.count = static_cast<std::int64_t>(count);
    options.duration
            = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(
                    positiveNumber(arguments, "--duration",
                                   std::chrono::duration<double>(options.duration).count())));
    return options;
}

leaderctl::DemoOptions demoOptions(const Arguments &arguments)
{
    return {.directory = demoDirectory(arguments),
            .directoryGiven = !arguments.option("--dir").empty(),
            .keepRunning = arguments.hasFlag("--keep-running")};
}

leaderctl::DemoRunOptions demoRunOptions(const Arguments &arguments)
{
    const double replicas = positiveNumber(arguments, "--replicas", 3);
    if (replicas != static_cast<double>(static_cast<int>(replicas)))
        throw UsageError("--replicas must be a whole number, not '" + arguments.option("--replicas")
                         + "'");
    std::optional<std::chrono::milliseconds> limit;
    if (!arguments.option("--seconds").empty())
        limit = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::duration<double>(positiveNumber(arguments, "--seconds", 0)));
    return {.directory = demoDirectory(arguments),
            .replicas = static_cast<int>(replicas),
            .limit = limit,
            .limitText = arguments.option("--seconds")};
}

int run(const Arguments &arguments)
{
    if (arguments.hasFlag("--help") || arguments.command == "help") {
        std::cout << HelpText;
        return Ok;
    }
    if (arguments.hasFlag("--version")) {
        std::cout << "leaderctl " << LEADER_VERSION << "\n";
        return Ok;
    }
    if (arguments.command.empty())
        throw UsageError("no command given");
    if (arguments.command == "demo") {
        if (arguments.hasFlag("--stop"))
            return leaderctl::stopDemo(demoDirectory(arguments));
        return arguments.hasFlag("--run") ? leaderctl::runDemo(demoRunOptions(arguments))
                                          : leaderctl::demo(demoOptions(arguments));
    }

    if (arguments.command == "migrate" && arguments.hasFlag("--print-sql")) {
        if (!arguments.option("--database").empty() || arguments.hasFlag("--demo"))
            throw UsageError("--print-sql writes files and needs no database: leave out "
                             "--database and --demo");
        leaderctl::printSql(printSqlOptions(arguments));
        return Ok;
    }
    if (arguments.command == "migrate"
        && (!arguments.option("--format").empty() || !arguments.option("--to").empty()
            || !arguments.option("--out").empty() || arguments.hasFlag("--down")))
        throw UsageError("--format, --to, --down and --out go with --print-sql");

    const std::string url = leader::pg::databaseUrlFrom(arguments.option("--database"));
    if (arguments.command == "status") {
        leader::pg::Connection connection = leaderctl::connect(url);
        return leaderctl::status(connection, arguments.hasFlag("--json"));
    }
    if (arguments.command == "replicas") {
        if (!arguments.positional.empty())
            throw UsageError("replicas takes no argument");
        leader::pg::Connection connection = leaderctl::connect(url);
        leaderctl::replicas(connection, arguments.hasFlag("--json"));
        return Ok;
    }
    if (arguments.command == "migrate") {
        leader::pg::Connection connection = leaderctl::connect(url);
        leaderctl::migrate(connection, arguments.hasFlag("--demo"));
        return Ok;
    }
    if (arguments.command == "workload") {
        const leader::demo::WorkloadOptions options = workloadOptions(arguments);
        leader::pg::Connection connection = leaderctl::connect(url);
        leader::roles::requireDemoSchema(connection);
        return leaderctl::workload(connection, options);
    }
    if (arguments.command == "audit") {
        leader::pg::Connection connection = leaderctl::connect(url);
        leader::roles::requireDemoSchema(connection);
        return leaderctl::audit(connection, arguments.hasFlag("--json"));
    }
    if (arguments.command == "pause") {
        const std::vector<std::string> roles = requireRoles(arguments);
        const std::string reason = arguments.option("--reason");
        if (reason.empty())
            throw UsageError("pause needs --reason WHY, e.g. --reason 'SMTP key rotation'");
        const std::string by = arguments.option("--by").empty() ? leader::lease::defaultWho()
                                                                : arguments.option("--by");
        const leader::lease::PauseEnd end = pauseEnd(arguments);
        leader::pg::Connection connection = leaderctl::connect(url);
        const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
        leader::schema::requireAdr(connection, features);
        leaderctl::pause(connection, features, roles, by, reason, end);
        return Ok;
    }
    if (arguments.command == "early-take") {
        if (arguments.positional.empty()
            || (arguments.positional.front() != "on" && arguments.positional.front() != "off"))
            throw UsageError("early-take takes on or off, then the roles (none: all five), e.g. "
                             "leaderctl early-take off billing");
        const bool on = arguments.positional.front() == "on";
        Arguments rolesOnly = arguments;
        rolesOnly.positional.erase(rolesOnly.positional.begin());
        if (rolesOnly.positional.empty())
            rolesOnly.positional.push_back("all");
        const std::vector<std::string> roles = requireRoles(rolesOnly);
        leader::pg::Connection connection = leaderctl::connect(url);
        leaderctl::earlyTake(connection, roles, on);
        return Ok;
    }
    if (arguments.command == "unpause") {
        const std::vector<std::string> roles = requireRoles(arguments);
        leader::pg::Connection connection = leaderctl::connect(url);
        const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
        leader::schema::requireAdr(connection, features);
        leaderctl::unpause(connection, features, roles, arguments.option("--by"),
                           arguments.option("--reason"));
        return Ok;
    }
    if (arguments.command == "drain" || arguments.command == "undrain") {
        if (arguments.positional.size() != 1)
            throw UsageError(arguments.command
                             + " takes one replica, its leader-replica --id, e.g. "
                               "leaderctl "
                             + arguments.command + " r2");
        const std::string by = arguments.option("--by").empty() ? leader::lease::defaultWho()
                                                                : arguments.option("--by");
        if (arguments.command == "undrain") {
            leader::pg::Connection connection = leaderctl::connect(url);
            return leaderctl::undrain(connection, arguments.positional.front(), by,
                                      arguments.option("--reason"));
        }
        leaderctl::DrainOptions options;
        options.replica = arguments.positional.front();
        options.by = by;
        options.reason = arguments.option("--reason").empty() ? std::string("leaderctl drain")
                                                              : arguments.option("--reason");
        options.force = arguments.hasFlag("--force");
        readWait(arguments, options.wait, options.timeout);
        leader::pg::Connection connection = leaderctl::connect(url);
        return leaderctl::drain(connection, options);
    }
    if (arguments.command == "handover") {
        if (arguments.positional.size() != 1
            || !leader::lease::isKnownRole(arguments.positional[0]))
            throw UsageError("handover takes one role (" + leader::lease::roleList()
                             + "), e.g. leaderctl handover billing --to r2");
        leaderctl::HandoverOptions options;
        options.role = arguments.positional.front();
        if (arguments.options.contains("--to")) {
            if (arguments.option("--to").empty())
                throw UsageError("--to takes a replica's leader-replica --id, e.g. --to r2");
            options.to = arguments.option("--to");
        }
        options.by = arguments.option("--by").empty() ? leader::lease::defaultWho()
                                                      : arguments.option("--by");
        options.reason = arguments.option("--reason").empty() ? std::string("leaderctl handover")
                                                              : arguments.option("--reason");
        readWait(arguments, options.wait, options.timeout);
        leader::pg::Connection connection = leaderctl::connect(url);
        return leaderctl::handover(connection, options);
    }
    if (arguments.command == "history") {
        const leader::lease::PauseLogQuery query = historyQuery(arguments);
        leader::pg::Connection connection = leaderctl::connect(url);
        leaderctl::history(connection, query, arguments.hasFlag("--json"));
        return Ok;
    }
    throw UsageError("unknown command '" + arguments.command + "'");
}

} // namespace

int main(int argc, char **argv)
{
    try {
        return run(parse(argc, argv));
    } catch (const UsageError &error) {
        std::cerr << "leaderctl: " << error.what() << " (see leaderctl --help)\n";
        return Usage;
    } catch (const leader::schema::SchemaError &error) {
        std::cerr << "leaderctl: " << leaderctl::printable(error.what()) << "\n";
        return SchemaProblem;
    } catch (const leader::pg::Error &error) {
        std::cerr << "leaderctl: " << leaderctl::printable(leader::pg::explain(error)) << "\n";
        return error.isTransport() ? Unreachable : Failed;
    } catch (const leader::embedded::ClusterError &error) {
        std::cerr << "leaderctl: " << error.what() << "\n";
        return Failed;
    } catch (const std::exception &error) {
        std::cerr << "leaderctl: " << leaderctl::printable(error.what()) << "\n";
        return Failed;
    }
}
