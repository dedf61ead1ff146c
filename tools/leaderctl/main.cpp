// leaderctl: the operator's command line over the lease table.

#include "demo/auditor.h"
#include "demo/bootstrap.h"
#include "demo/demorunner.h"
#include "demo/workload.h"
#include "draincommands.h"
#include "earlytake.h"
#include "embedded/cluster.h"
#include "handovercommand.h"
#include "lease/defaultwho.h"
#include "lease/pausecontrol.h"
#include "lease/roles.h"
#include "lease/textbounds.h"
#include "log/json.h"
#include "log/log.h"
#include "migratecommand.h"
#include "monitor/statusreader.h"
#include "output.h"
#include "pausecommands.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "platform/control.h"
#include "platform/process.h"
#include "replicacommands.h"
#include "roles/demoschema.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;

enum ExitCode {
    Ok = 0,
    Failed = 1,          // the database refused or failed the operation
    Usage = 2,           // wrong arguments
    SchemaProblem = 3,   // lease (or demo) schema missing, or migrations this build lacks
    Unreachable = 4,     // cannot connect
    InvariantFailed = 5, // audit: at least one invariant does not hold
};

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

leader::pg::Connection connect(const std::string &url)
{
    leader::pg::Connection connection({.url = url, .applicationName = "leaderctl"});
    connection.open();
    return connection;
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

// "12 due subscriptions, oldest 3m05s"; "error" when the source failed (its line follows the
// table).
std::string backlogCell(const leader::monitor::BacklogRow &source)
{
    if (!source.pending)
        return "error";
    std::string cell = std::to_string(*source.pending) + " " + source.what;
    if (source.oldestAgeSeconds)
        cell += ", oldest " + leaderctl::formatAge(*source.oldestAgeSeconds);
    return cell;
}

std::string backlogJson(const leader::monitor::BacklogRow &source)
{
    char age[32] = "null";
    if (source.oldestAgeSeconds)
        std::snprintf(age, sizeof age, "%.3f", *source.oldestAgeSeconds);
    return "{\"what\":" + leader::log::jsonQuoted(source.what) + ",\"pending\":"
           + (source.pending ? std::to_string(*source.pending) : std::string("null"))
           + ",\"oldest_pending_age_seconds\":" + age + ",\"error\":"
           + (source.error.empty() ? std::string("null") : leader::log::jsonQuoted(source.error))
           + "}";
}

// The replicas that name no marker for now (0189): their marker session kept being ended while
// they ran, so their leases end at expiry only. A registry the login may not read says nothing.
void printEarlyTakeOff(leader::pg::Connection &connection,
                       const leader::schema::LeaseFeatures &features)
{
    if (!features.has(leader::schema::Extension::AdrFleet))
        return;
    try {
        const leader::pg::Result off = connection.exec("early take off", R"sql(
SELECT coalesce(name, holder_id),
       to_char(early_take_off_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       early_take_off_reason
  FROM leader_ext.leader_replicas_status
 WHERE early_take_off_until IS NOT NULL AND state = 'alive'
 ORDER BY 1
)sql",
                                                       {}, 5s);
        for (int row = 0; row < off.rows(); ++row)
            std::cout << "early take off on " << leaderctl::printable(off.text(row, 0)) << " until "
                      << off.text(row, 1) << ": " << leaderctl::printable(off.text(row, 2))
                      << "; its leases end at their expiry only\n";
    } catch (const leader::pg::Error &error) {
        if (error.kind() != leader::pg::ErrorKind::Definite)
            throw;
    }
}

int printStatus(leader::pg::Connection &connection, bool json)
{
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
    leader::schema::requireAdr(connection, features);
    // The extensions' columns through to_jsonb: NULL where the ADR's leader_status lacks them. With
    // 0189 they are leader_ext.leader_status's, and the ADR's view has the ADR's columns only.
    const bool extendedView = features.has(leader::schema::Extension::AdrFleet);
    std::string statusSql = R"sql(
SELECT role, state, holder_id, holder_token::text,
       to_char(acquired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       expires_in_seconds::text, last_tick_age_seconds::text,
       to_char(last_tick_ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       paused_by, to_char(paused_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       pause_reason, to_char(not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       to_char((to_jsonb(s) ->> 'paused_until')::timestamptz AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       round((to_jsonb(s) ->> 'pause_remaining_seconds')::numeric, 3)::text,
       CASE to_jsonb(s) ->> 'early_take' WHEN 'true' THEN 'on' WHEN 'false' THEN 'off' END,
       (to_jsonb(s) ->> 'last_outcome')
           || coalesce(' (' || (to_jsonb(s) ->> 'last_loss_reason') || ')', ''),
       round((to_jsonb(s) ->> 'last_duration_seconds')::numeric, 3)::text,
       to_jsonb(s) ->> 'completed_last_hour', to_jsonb(s) ->> 'lost_last_hour',
       to_jsonb(s) ->> 'failed_last_hour', to_jsonb(s) ->> 'interrupted_last_hour',
       to_jsonb(s) ->> 'last_failed_step', to_jsonb(s) ->> 'last_error',
       to_jsonb(s) ->> 'last_outcome', to_jsonb(s) ->> 'last_loss_reason',
       (to_jsonb(s) ->> 'completed_last_hour') || '/' || (to_jsonb(s) ->> 'lost_last_hour') || '/'
           || (to_jsonb(s) ->> 'failed_last_hour')
           || CASE to_jsonb(s) ->> 'counts_ours_only' WHEN 'true' THEN ' ours only' ELSE '' END,
       to_jsonb(s) ->> 'counts_ours_only', to_jsonb(s) ->> 'holder_outside',
       round((to_jsonb(s) ->> 'holder_last_duration_seconds')::numeric, 3)::text
  FROM /*view*/ AS s
 ORDER BY array_position(ARRAY['billing', 'dunning', 'webhook_outbox', 'email_outbox',
                               'webhook_delivery'], role)
)sql";
    statusSql.replace(statusSql.find("/*view*/"), 8,
                      extendedView ? "leader_ext.leader_status" : "leader_status");
    const leader::pg::Result result = connection.exec("status", statusSql, {}, 5s);
    // Column 12 is observed_at, once for the whole document.
    static const std::vector<std::pair<int, std::string>> keys{{0, "role"},
                                                               {1, "state"},
                                                               {2, "holder_id"},
                                                               {3, "holder_token"},
                                                               {4, "acquired_at"},
                                                               {5, "expires_in_s"},
                                                               {6, "last_tick_age_s"},
                                                               {7, "last_tick_ended_at"},
                                                               {8, "paused_by"},
                                                               {9, "paused_at"},
                                                               {10, "pause_reason"},
                                                               {13, "paused_until"},
                                                               {14, "pause_remaining_s"},
                                                               {11, "not_before"},
                                                               {15, "early_take"},
                                                               {24, "last_outcome"},
                                                               {25, "last_loss_reason"},
                                                               {17, "last_duration_s"},
                                                               {22, "last_failed_step"},
                                                               {23, "last_error"},
                                                               {18, "completed_last_hour"},
                                                               {19, "lost_last_hour"},
                                                               {20, "failed_last_hour"},
                                                               {21, "interrupted_last_hour"},
                                                               {27, "counts_ours_only"},
                                                               {28, "holder_outside"}};
    static const std::set<int> numeric{3, 5, 6, 14, 17, 18, 19, 20, 21};
    static const std::set<int> booleans{27, 28};
    const std::string missing = leader::monitor::extensionsSummary(features);
    // Each role's backlog (extension 0186), a second statement; its failure fails nothing else.
    const bool withBacklog = features.has(leader::schema::Extension::Backlog);
    std::map<std::string, leader::monitor::BacklogRow> backlog;
    std::string backlogError;
    if (withBacklog) {
        try {
            for (leader::monitor::BacklogRow &row : leader::monitor::readBacklog(connection, 5s))
                backlog.emplace(row.role, std::move(row));
        } catch (const leader::pg::Error &error) {
            backlogError = leader::pg::explain(error);
        }
    }
    const auto backlogOf
            = [&backlog](std::string_view role) -> const leader::monitor::BacklogRow * {
        const auto found = backlog.find(std::string(role));
        return found == backlog.end() ? nullptr : &found->second;
    };
    if (json) {
        std::cout << "{\"observed_at\":"
                  << (result.rows() ? leader::log::jsonQuoted(std::string(result.text(0, 12)))
                                    : std::string("null"))
                  << ",\"server\":" << leader::log::jsonQuoted(connection.target())
                  << ",\"extension\":" << features.extension << ",\"extensions_missing\":"
                  << (missing.empty() ? std::string("null") : leader::log::jsonQuoted(missing))
                  << ",\"roles\":[";
        for (int row = 0; row < result.rows(); ++row) {
            std::cout << (row ? "," : "") << "{";
            for (std::size_t key = 0; key < keys.size(); ++key) {
                const auto &[c, name] = keys[key];
                std::cout << (key ? "," : "") << leader::log::jsonQuoted(name) << ":";
                if (result.isNull(row, c))
                    std::cout << "null";
                else if (c == 15) // early_take: a boolean
                    std::cout << (result.text(row, c) == "on" ? "true" : "false");
                else if (booleans.contains(c))
                    std::cout << result.text(row, c);
                else if (numeric.contains(c))
                    std::cout << result.text(row, c);
                else
                    std::cout << leader::log::jsonQuoted(std::string(result.text(row, c)));
            }
            if (withBacklog) {
                std::cout << ",\"backlog\":";
                if (const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0)))
                    std::cout << backlogJson(*source);
                else
                    std::cout << "null";
            }
            std::cout << "}";
        }
        std::cout << "]";
        if (withBacklog)
            std::cout << ",\"backlog_error\":"
                      << (backlogError.empty() ? std::string("null")
                                               : leader::log::jsonQuoted(backlogError));
        std::cout << "}\n";
        return Ok;
    }
    // A pause's end and the early take's switch only where the extensions that add them are.
    const bool pauseEnds = features.has(leader::schema::Extension::PauseLog);
    const bool earlyTake = features.has(leader::schema::Extension::EarlyTakeSwitch);
    const bool tickDetails = features.has(leader::schema::Extension::TickDetails);
    std::vector<std::string> headers{
            "ROLE",         "STATE",           "HOLDER",    "TOKEN", "ACQUIRED (UTC)",
            "EXPIRES IN s", "LAST TICK AGE s", "PAUSED BY", "REASON"};
    std::vector<int> columns{0, 1, 2, 3, 4, 5, 6, 8, 10};
    if (pauseEnds) {
        headers.push_back("PAUSED UNTIL (UTC)");
        columns.push_back(13);
    }
    headers.push_back("NOT BEFORE (UTC)");
    columns.push_back(11);
    if (earlyTake) {
        headers.push_back("EARLY TAKE");
        columns.push_back(15);
    }
    if (tickDetails) {
        // The last tick whatever its outcome, and the hour's completed/lost/failed ticks.
        for (const auto &[header, column] : std::vector<std::pair<std::string, int>>{
                     {"OUTCOME", 16}, {"TOOK s", 17}, {"HOUR C/L/F", 26}}) {
            headers.push_back(header);
            columns.push_back(column);
        }
    }
    if (withBacklog)
        headers.push_back("BACKLOG");
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (int row = 0; row < result.rows(); ++row) {
        std::vector<std::optional<std::string>> cells;
        for (int column : columns)
            cells.push_back(result.optionalText(row, column));
        if (withBacklog) {
            const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0));
            cells.push_back(!backlogError.empty() ? std::optional<std::string>("error")
                            : source              ? std::optional(backlogCell(*source))
                                                  : std::nullopt);
        }
        rows.push_back(std::move(cells));
    }
    std::cout << leaderctl::formatTable(headers, rows);
    // A source's error is too long for a column too.
    for (int row = 0; row < result.rows(); ++row) {
        const leader::monitor::BacklogRow *source = backlogOf(result.text(row, 0));
        if (source && !source->error.empty())
            std::cout << result.text(row, 0)
                      << ": backlog source failed: " << leaderctl::printable(source->error) << "\n";
    }
    if (!backlogError.empty())
        std::cout << "leaderctl: the backlog could not be read: "
                  << leaderctl::printable(backlogError) << "\n";
    // A failed step and its error are too long for a column: one line each, under the table.
    for (int row = 0; tickDetails && row < result.rows(); ++row) {
        if (result.isNull(row, 22) && result.isNull(row, 23))
            continue;
        std::cout << result.text(row, 0) << ": last tick " << result.text(row, 24);
        if (!result.isNull(row, 22))
            std::cout << " in step \"" << result.text(row, 22) << "\"";
        if (!result.isNull(row, 23))
            std::cout << ": " << result.text(row, 23);
        std::cout << "\n";
    }
    // A holder outside the registry (0189): a replica that speaks only the ADR, or another tool.
    for (int row = 0; row < result.rows(); ++row) {
        if (result.text(row, 28) != "true")
            continue;
        std::cout << result.text(row, 0) << ": held by "
                  << leaderctl::printable(result.text(row, 2))
                  << ", outside the replica registry (a replica that speaks only the ADR): it "
                     "takes no hand-over request and no drain";
        if (!result.isNull(row, 29))
            std::cout << "; its last tick of the role lasted " << result.text(row, 29) << " s";
        std::cout << "\n";
    }
    for (int row = 0; tickDetails && row < result.rows(); ++row)
        if (result.text(row, 27) == "true")
            std::cout << result.text(row, 0)
                      << ": the hour's counts are ours only: holders outside the registry led "
                         "it too, and record no tick\n";
    printEarlyTakeOff(connection, features);
    // The server that answered: with a multi-host URL, the one libpq chose (the new primary
    // after a failover, with target_session_attrs=read-write).
    if (result.rows())
        std::cout << "database clock: " << result.text(0, 12) << " on " << connection.target()
                  << "\n";
    if (!missing.empty())
        std::cout << "leaderctl: " << missing << "\n";
    return Ok;
}

void printApplied(const std::string &target, const std::vector<int> &applied)
{
    if (applied.empty()) {
        std::cout << "leaderctl: " << target << " is up to date\n";
        return;
    }
    for (const leader::schema::Migration &migration : leader::schema::embeddedMigrations()) {
        if (std::find(applied.begin(), applied.end(), migration.version) != applied.end())
            std::cout << "leaderctl: applied migration " << std::setw(4) << std::setfill('0')
                      << migration.version << " " << migration.name << "\n";
    }
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

int demo(const Arguments &arguments)
{
    const std::filesystem::path directory = demoDirectory(arguments);
    leader::demo::DemoCluster demo = leader::demo::startDemoCluster(
            directory, [](const std::string &step) { std::cout << "leaderctl: " << step << "\n"; });
    leader::embedded::Cluster &cluster = *demo.cluster;
    leader::pg::Connection connection = connect(cluster.url(leader::demo::DemoDatabase));
    printApplied(connection.target(), demo.applied);
    printStatus(connection, false);
    if (arguments.hasFlag("--keep-running")) {
        // The server is pg_ctl's daemon, in a session of its own: it outlives this process once
        // the cluster object no longer stops it on the way out.
        cluster.detach();
        std::string dir;
        if (!arguments.option("--dir").empty()) {
            dir = " --dir '";
            for (const char c : directory.string())
                dir += c == '\'' ? std::string("'\\''") : std::string(1, c);
            dir += "'";
        }
        std::cout << "leaderctl: the cluster keeps running; connect with: psql '"
                  << cluster.url(leader::demo::DemoDatabase)
                  << "'; stop it with: leaderctl demo --stop" << dir << "\n";
        return Ok;
    }
    cluster.stop();
    std::cout << "leaderctl: demo cluster stopped (run with --keep-running to explore it)\n";
    return Ok;
}

int stopDemo(const Arguments &arguments)
{
    const std::filesystem::path directory = demoDirectory(arguments);
    leader::embedded::Cluster cluster(leader::embedded::ClusterOptions{.directory = directory});
    if (!cluster.attach()) {
        std::cout << "leaderctl: no demo cluster runs in " << directory.string() << "\n";
        return Ok;
    }
    cluster.stop();
    std::cout << "leaderctl: demo cluster in " << directory.string() << " stopped\n";
    return Ok;
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

int workload(leader::pg::Connection &connection, const leader::demo::WorkloadOptions &options)
{
    std::cout << "leaderctl: creating up to " << options.count << " tenants at "
              << options.ratePerSecond << "/s for at most "
              << std::chrono::duration<double>(options.duration).count() << " s\n"
              << std::flush;
    const auto started = std::chrono::steady_clock::now();
    leader::demo::Workload workload(connection, options);
    const leader::demo::WorkloadCounts counts = workload.run();
    const double seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "leaderctl: created " << counts.tenants << " tenants, " << counts.subscriptions
              << " subscriptions (" << counts.declining << " with a declining first charge), "
              << counts.webhookEvents << " webhook events and " << counts.emails << " emails in "
              << std::fixed << std::setprecision(1) << seconds << " s ("
              << (counts.end == leader::demo::WorkloadEnd::Count ? "count reached"
                                                                 : "duration reached")
              << ")\n";
    return Ok;
}

std::string infoText(const leader::demo::InvariantResult &invariant)
{
    std::string text;
    for (const auto &[label, value] : invariant.info) {
        std::string words = label;
        std::replace(words.begin(), words.end(), '_', ' ');
        text += (text.empty() ? "" : ", ") + words + " " + std::to_string(value);
    }
    return text;
}

int audit(leader::pg::Connection &connection, bool json)
{
    const leader::demo::AuditReport report = leader::demo::audit(connection);
    std::vector<const leader::demo::InvariantResult *> failed;
    for (const leader::demo::InvariantResult &invariant : report.invariants) {
        if (!invariant.holds)
            failed.push_back(&invariant);
    }
    if (json) {
        std::cout << "{\"holds\":" << (failed.empty() ? "true" : "false") << ",\"invariants\":[";
        for (std::size_t i = 0; i < report.invariants.size(); ++i) {
            const leader::demo::InvariantResult &invariant = report.invariants[i];
            std::cout << (i ? "," : "") << "{\"role\":" << leader::log::jsonQuoted(invariant.role)
                      << ",\"name\":" << leader::log::jsonQuoted(invariant.name)
                      << ",\"holds\":" << (invariant.holds ? "true" : "false")
                      << ",\"offending\":" << invariant.offending << ",\"samples\":[";
            for (std::size_t s = 0; s < invariant.samples.size(); ++s)
                std::cout << (s ? "," : "") << leader::log::jsonQuoted(invariant.samples[s]);
            std::cout << "],\"info\":{";
            for (std::size_t n = 0; n < invariant.info.size(); ++n)
                std::cout << (n ? "," : "") << leader::log::jsonQuoted(invariant.info[n].first)
                          << ":" << invariant.info[n].second;
            std::cout << "}}";
        }
        std::cout << "]}\n";
    } else {
        std::string role;
        for (const leader::demo::InvariantResult &invariant : report.invariants) {
            if (invariant.role != role) {
                role = invariant.role;
                std::cout << role << "\n";
            }
            std::cout << "  " << (invariant.holds ? "\u2713 " : "\u2717 ") << invariant.name;
            if (!invariant.holds)
                std::cout << ": " << invariant.offending << " offending";
            if (!invariant.info.empty())
                std::cout << " (" << infoText(invariant) << ")";
            std::cout << "\n";
            for (const std::string &sample : invariant.samples)
                std::cout << "      " << sample << "\n";
            if (invariant.offending > static_cast<std::int64_t>(invariant.samples.size()))
                std::cout << "      ... and "
                          << invariant.offending
                                     - static_cast<std::int64_t>(invariant.samples.size())
                          << " more\n";
        }
        std::cout << "audit: " << report.invariants.size() - failed.size() << " of "
                  << report.invariants.size() << " invariants hold\n";
    }
    if (failed.empty())
        return Ok;
    std::string names;
    for (const leader::demo::InvariantResult *invariant : failed)
        names += (names.empty() ? "" : "; ") + invariant->role + ": " + invariant->name;
    std::cerr << "leaderctl: " << failed.size()
              << (failed.size() == 1 ? " invariant fails: " : " invariants fail: ") << names
              << "\n";
    return InvariantFailed;
}

std::string padded(const std::string &text, std::size_t width)
{
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// What `demo --run` prints: one line an event, a replica's state as it changes. The runner calls
// it from its threads one call at a time, so lines never interleave.
class DemoPrinter final : public leader::demo::DemoListener
{
public:
    void progress(const std::string &step) override
    {
        std::cout << "leaderctl: " << step << "\n" << std::flush;
    }
    void event(const leader::demo::DemoEvent &event) override
    {
        std::string line = leader::log::utcTimestamp(event.time) + "  " + padded(event.source, 8)
                           + " " + padded(event.role.empty() ? "-" : event.role, 16) + " "
                           + std::string(leader::demo::nameOf(event.event));
        if (event.token != 0)
            line += " token " + std::to_string(event.token);
        if (!event.detail.empty())
            line += ": " + event.detail;
        std::cout << line << "\n" << std::flush;
    }
    void replicasChanged(const std::vector<leader::demo::ReplicaStatus> &replicas) override
    {
        for (const leader::demo::ReplicaStatus &replica : replicas) {
            const std::string state
                    = std::string(leader::demo::nameOf(replica.state)) + " as " + replica.holderId;
            if (std::exchange(m_states[replica.id], state) != state)
                std::cout << leader::log::utcTimestamp(std::chrono::system_clock::now()) << "  "
                          << padded(replica.id, 8) << " " << padded("-", 16) << " " << state << "\n"
                          << std::flush;
        }
    }
    // The runner's "takeover" event has already said it in a line.
    void takeoverMeasured(const leader::demo::Takeover &) override {}

private:
    std::map<std::string, std::string> m_states;
};

int runDemo(const Arguments &arguments)
{
    const double replicas = positiveNumber(arguments, "--replicas", 3);
    if (replicas != static_cast<double>(static_cast<int>(replicas)))
        throw UsageError("--replicas must be a whole number, not '" + arguments.option("--replicas")
                         + "'");
    std::optional<std::chrono::milliseconds> limit;
    if (!arguments.option("--seconds").empty())
        limit = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::duration<double>(positiveNumber(arguments, "--seconds", 0)));
    // Before any thread starts, so that SIGINT and SIGTERM reach waitForTermination below.
    leader::platform::blockTerminationSignals();

    DemoPrinter printer;
    leader::demo::DemoRunner runner(
            {.directory = demoDirectory(arguments), .replicas = static_cast<int>(replicas)},
            printer);
    const leader::demo::DemoRunner::StartResult started = runner.start();
    if (!started.error.empty()) {
        std::cerr << "leaderctl: " << started.error << "\n";
        return Failed;
    }
    std::cout << "leaderctl: the demo runs; look inside with psql '" << started.endpoint.socketUrl
              << "'; Ctrl+C stops it\n"
              << std::flush;

    std::atomic<bool> timedOut = false;
    std::jthread timer;
    if (limit)
        timer = std::jthread([&timedOut, limit = *limit](std::stop_token stop) {
            std::mutex mutex;
            std::condition_variable_any wake;
            std::unique_lock lock(mutex);
            if (wake.wait_for(lock, stop, limit, [] { return false; }) || stop.stop_requested())
                return;
            timedOut = true;
            leader::platform::requestTermination();
        });
    const std::string signal = leader::platform::waitForTermination();
    timer = {};
    std::cout << "leaderctl: " << (timedOut ? "--seconds " + arguments.option("--seconds") : signal)
              << ": stopping the demo\n"
              << std::flush;

    const auto stopping = std::chrono::steady_clock::now();
    runner.stopReplicas();
    const auto replicasStopped = std::chrono::steady_clock::now();
    // The server stays up for the auditor; every lease is released by now.
    leader::pg::Connection connection = connect(started.endpoint.socketUrl);
    const int audited = audit(connection, false);
    const auto serverStopping = std::chrono::steady_clock::now();
    runner.stop();
    const auto serverStopped = std::chrono::steady_clock::now();
    const auto seconds = [](std::chrono::steady_clock::duration duration) {
        std::ostringstream text;
        text << std::fixed << std::setprecision(2)
             << std::chrono::duration<double>(duration).count();
        return text.str();
    };
    std::cout << "leaderctl: demo stopped in "
              << seconds((replicasStopped - stopping) + (serverStopped - serverStopping))
              << " s (replicas " << seconds(replicasStopped - stopping) << " s)\n";
    return audited;
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
            return stopDemo(arguments);
        return arguments.hasFlag("--run") ? runDemo(arguments) : demo(arguments);
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
        leader::pg::Connection connection = connect(url);
        return printStatus(connection, arguments.hasFlag("--json"));
    }
    if (arguments.command == "replicas") {
        if (!arguments.positional.empty())
            throw UsageError("replicas takes no argument");
        leader::pg::Connection connection = connect(url);
        leaderctl::replicas(connection, arguments.hasFlag("--json"));
        return Ok;
    }
    if (arguments.command == "migrate") {
        leader::pg::Connection connection = connect(url);
        leaderctl::migrate(connection, arguments.hasFlag("--demo"));
        return Ok;
    }
    if (arguments.command == "workload") {
        const leader::demo::WorkloadOptions options = workloadOptions(arguments);
        leader::pg::Connection connection = connect(url);
        leader::roles::requireDemoSchema(connection);
        return workload(connection, options);
    }
    if (arguments.command == "audit") {
        leader::pg::Connection connection = connect(url);
        leader::roles::requireDemoSchema(connection);
        return audit(connection, arguments.hasFlag("--json"));
    }
    if (arguments.command == "pause") {
        const std::vector<std::string> roles = requireRoles(arguments);
        const std::string reason = arguments.option("--reason");
        if (reason.empty())
            throw UsageError("pause needs --reason WHY, e.g. --reason 'SMTP key rotation'");
        const std::string by = arguments.option("--by").empty() ? leader::lease::defaultWho()
                                                                : arguments.option("--by");
        const leader::lease::PauseEnd end = pauseEnd(arguments);
        leader::pg::Connection connection = connect(url);
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
        leader::pg::Connection connection = connect(url);
        leaderctl::earlyTake(connection, roles, on);
        return Ok;
    }
    if (arguments.command == "unpause") {
        const std::vector<std::string> roles = requireRoles(arguments);
        leader::pg::Connection connection = connect(url);
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
            leader::pg::Connection connection = connect(url);
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
        leader::pg::Connection connection = connect(url);
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
        leader::pg::Connection connection = connect(url);
        return leaderctl::handover(connection, options);
    }
    if (arguments.command == "history") {
        const leader::lease::PauseLogQuery query = historyQuery(arguments);
        leader::pg::Connection connection = connect(url);
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
