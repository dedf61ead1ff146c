#include "statusreader.h"

#include "lease/constants.h"
#include "lease/replicaregistry.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "pg/failurekind.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <regex>

namespace leader::monitor {

namespace {

using namespace std::chrono_literals;

// Instants come back as epoch seconds (float8), so neither the session's TimeZone nor its
// DateStyle can change what the console shows. The extensions' columns (0177's pause end, 0179's
// took_over, 0180's early_take, 0184's last tick and hour, 0189's holders outside the registry) are
// read through to_jsonb: NULL where the view lacks them, so the same statement polls the ADR's
// leader_status and every extended one, also when an extension is added or removed under a
// connected console. With 0189 the extended view is leader_ext.leader_status, and the ADR's
// leader_status has the ADR's columns only (/*view*/ names which).
constexpr auto PollSql = R"sql(
SELECT role, state, holder_id, holder_token,
       extract(epoch FROM acquired_at)::float8, expires_in_seconds::float8,
       extract(epoch FROM last_tick_ended_at)::float8, last_tick_holder,
       last_tick_age_seconds::float8, extract(epoch FROM paused_at)::float8, paused_by,
       pause_reason, extract(epoch FROM not_before)::float8, not_before_in_seconds::float8,
       extract(epoch FROM observed_at)::float8,
       extract(epoch FROM (to_jsonb(s) ->> 'paused_until')::timestamptz)::float8,
       (to_jsonb(s) ->> 'pause_remaining_seconds')::float8,
       to_jsonb(s) ->> 'took_over',
       (to_jsonb(s) ->> 'early_take')::boolean,
       to_jsonb(s) ->> 'last_outcome', to_jsonb(s) ->> 'last_loss_reason',
       (to_jsonb(s) ->> 'last_duration_seconds')::float8,
       extract(epoch FROM (to_jsonb(s) ->> 'last_ended_at')::timestamptz)::float8,
       to_jsonb(s) ->> 'last_holder', to_jsonb(s) ->> 'last_failed_step',
       to_jsonb(s) ->> 'last_error',
       (to_jsonb(s) ->> 'completed_last_hour')::int, (to_jsonb(s) ->> 'lost_last_hour')::int,
       (to_jsonb(s) ->> 'failed_last_hour')::int, (to_jsonb(s) ->> 'interrupted_last_hour')::int,
       (to_jsonb(s) ->> 'holder_outside')::boolean,
       (to_jsonb(s) ->> 'holder_last_duration_seconds')::float8,
       (to_jsonb(s) ->> 'counts_ours_only')::boolean
  FROM /*view*/ AS s
 ORDER BY role
)sql";

const std::string &pollSql(bool extendedView)
{
    static const auto with = [](std::string_view view) {
        std::string text(PollSql);
        text.replace(text.find("/*view*/"), std::string_view("/*view*/").size(), view);
        return text;
    };
    static const std::string adr = with("leader_status");
    static const std::string extended = with("leader_ext.leader_status");
    return extendedView ? extended : adr;
}

// Ages in seconds on the database clock, as leader_backlog computes them.
constexpr auto BacklogSql = R"sql(
SELECT role, what, pending, oldest_pending_age_seconds, error FROM leader_ext.leader_backlog()
)sql";

// to_regclass/to_regprocedure return NULL instead of failing, so one statement tells a missing
// SELECT and a read-only login apart. $1, $2: the pause and unpause functions pause() and
// unpause() call; $3: whether they live in leader_ext (USAGE on it is needed too); $4 the view
// poll() reads.
constexpr auto AccessSql
        = "SELECT current_user::text, current_database()::text,"
          " coalesce(has_table_privilege(to_regclass($4)::oid, 'SELECT'), false),"
          " coalesce(has_function_privilege(to_regprocedure($1)::oid, 'EXECUTE'), false),"
          " coalesce(has_function_privilege(to_regprocedure($2)::oid, 'EXECUTE'), false),"
          " NOT $3::boolean OR coalesce(has_schema_privilege("
          "(SELECT oid FROM pg_namespace WHERE nspname = 'leader_ext'), 'USAGE'), false)";

constexpr auto MigrateHint = "run `leaderctl migrate --database URL` as the database owner";

// libpq's connect messages carry "FATAL:  " and "ERROR:  " prefixes; the operator needs neither.
std::string withoutSeverity(std::string text)
{
    static const std::regex severity(R"(\b(ERROR|FATAL|PANIC):\s+)");
    static const std::regex spaces(R"(\s+)");
    text = std::regex_replace(text, severity, "");
    return std::regex_replace(text, spaces, " ");
}

std::optional<double> optionalDouble(const pg::Result &result, int row, int column)
{
    if (result.isNull(row, column))
        return std::nullopt;
    return result.toDouble(row, column);
}

// libpq sends text parameters as C strings: a NUL would cut one short without a word.
bool hasNul(const std::vector<std::string> &roles, std::initializer_list<const std::string *> texts)
{
    const auto nul = [](const std::string &text) {
        return text.find('\0') != std::string::npos;
    };
    return std::ranges::any_of(roles, nul)
           || std::ranges::any_of(texts, [&](const std::string *text) { return nul(*text); });
}

} // namespace

std::vector<BacklogRow> readBacklog(pg::Connection &connection, std::chrono::milliseconds timeout)
{
    const pg::Result result = connection.exec("backlog", BacklogSql, {}, timeout);
    std::vector<BacklogRow> rows;
    rows.reserve(static_cast<std::size_t>(result.rows()));
    for (int row = 0; row < result.rows(); ++row) {
        BacklogRow &backlog = rows.emplace_back();
        backlog.role = std::string(result.text(row, 0));
        backlog.what = std::string(result.text(row, 1));
        if (!result.isNull(row, 2))
            backlog.pending = result.toInt64(row, 2);
        backlog.oldestAgeSeconds = optionalDouble(result, row, 3);
        backlog.error = std::string(result.text(row, 4));
    }
    return rows;
}

std::string extensionsSummary(const schema::LeaseFeatures &features)
{
    using schema::Extension;
    if (!features.adr() || features.complete())
        return {};
    if (features.extensionsHidden)
        return "this login may not read leader_ext, so only the ADR's features are used; connect "
               "as a login holding hardcount_app or hardcount_monitor for the extensions' ones";
    if (features.legacyLayout)
        return "the extensions are where an earlier leaderctl put them (beside the lease table, "
               "tracked in schema_migrations), and only the ADR's features are used until "
               "leaderctl migrate moves them into leader_ext";
    const std::string heartbeat = std::to_string(lease::HeartbeatEvery / 1s);
    const std::array<std::pair<Extension, std::string>, 15> adds{{
            {Extension::PauseNotify, "the pause wake NOTIFY (without it a holder stops at its next "
                                     "heartbeat, within "
                                             + heartbeat + " s)"},
            {Extension::PauseLog, "the pause log and pauses that end by themselves"},
            {Extension::ReplicaRegistry, "the replicas registry"},
            {Extension::HolderSession, "the takeover at process death"},
            {Extension::EarlyTakeSwitch, "the early take switch"},
            {Extension::DefinerHardening, "the hardened definer functions"},
            {Extension::ReplicaNames, "the replicas' names and their death at once for every "
                                      "reader"},
            {Extension::ReplicaDrain, "the replica drain"},
            {Extension::TickDetails, "what each tick did (outcome, duration, failed step, error, "
                                     "the hour's counts)"},
            {Extension::Handover, "the handover of a role now"},
            {Extension::Backlog, "each role's backlog (how much work waits)"},
            // Nothing a reader sees: what a fleet of hundreds of replicas costs the server.
            {Extension::RegistryLockScan, "the registry read at one lock scan per query"},
            {Extension::BoardRead, "the read-first poll's read planned once per server session"},
            {Extension::AdrFleet, "pauses with an end that end for replicas that speak only the "
                                  "ADR too"},
            {Extension::SecondReview, "hand-overs only leader_handover may ask for and backlog "
                                      "sources run only if leader_ext's owner owns them"},
    }};
    std::string added;
    for (const auto &[extension, what] : adds)
        if (!features.has(extension))
            added += (added.empty() ? "" : ", ") + what;
    const int first = std::max(features.extension + 1, static_cast<int>(Extension::PauseNotify));
    const bool one = first == schema::LatestExtension;
    const std::string versions = one ? "the extension leader_ext 0" + std::to_string(first)
                                     : "the extensions leader_ext 0" + std::to_string(first)
                                                 + " to 0"
                                                 + std::to_string(schema::LatestExtension);
    // leader-replica uses the later ones where they are, and starts without them.
    const std::string needed
            = features.has(schema::ReplicaNeeds)
                      ? std::string()
                      : std::string("; leader-replica needs ") + (one ? "it" : "them");
    return versions + " would add " + added + needed + ". Add " + (one ? "it" : "them")
           + " with leaderctl migrate, or through your own migration tool: leaderctl migrate "
             "--print-sql --format FORMAT --out DIR";
}

StatusReader::StatusReader(std::string conninfo, std::stop_token stop,
                           std::chrono::milliseconds statementTimeout)
    : m_conninfo(std::move(conninfo))
    , m_statementTimeout(statementTimeout)
    , m_connection(std::make_unique<pg::Connection>(pg::ConnectOptions{
              .url = m_conninfo, .applicationName = "leader-console", .stop = std::move(stop)}))
{}

StatusReader::~StatusReader() = default;

Outcome<Access> StatusReader::open()
{
    try {
        m_connection->open();
        m_features = schema::probeFeatures(*m_connection);
        m_featuresProbedAt = std::chrono::steady_clock::now();
        try {
            schema::requireAdr(*m_connection, m_features);
        } catch (const schema::SchemaError &error) {
            close();
            // What is missing, and how to add it.
            return Failure{error.what(), {}, true, pg::FailureKind::Schema};
        }
        const bool withLog = m_features.has(schema::Extension::PauseLog);
        const std::string pauseFunction
                = withLog ? "leader_ext.leader_pause(text,text,text,timestamptz)"
                          : "leader_pause(text,text,text)";
        const std::string unpauseFunction
                = withLog ? "leader_ext.leader_unpause(text,text,text)" : "leader_unpause(text)";
        const std::string view = m_features.has(schema::Extension::AdrFleet)
                                         ? "leader_ext.leader_status"
                                         : "leader_status";
        const pg::Result row = m_connection->exec(
                "privileges", AccessSql,
                {pauseFunction, unpauseFunction, withLog ? "true" : "false", view},
                m_statementTimeout);
        const std::string user(row.text(0, 0));
        if (!row.toBool(0, 2)) {
            close();
            return Failure{"privilege missing: " + user + " may not read " + view
                                   + "; GRANT hardcount_monitor TO " + user
                                   + " (or GRANT SELECT ON " + view + " TO " + user + ")",
                           {},
                           true,
                           pg::FailureKind::Privilege};
        }
        const bool schemaUsage = row.toBool(0, 5);
        Access access{user, row.toBool(0, 3) && schemaUsage, row.toBool(0, 4) && schemaUsage,
                      {},   extensionsSummary(m_features),   m_features};
        std::string missing;
        if (!access.canPause)
            missing = pauseFunction.substr(0, pauseFunction.find('('));
        if (!access.canUnpause)
            missing += (missing.empty() ? "" : " or ")
                       + unpauseFunction.substr(0, unpauseFunction.find('('));
        if (!missing.empty())
            access.readOnlyReason = "read-only: " + user + " has no EXECUTE on " + missing
                                    + (schemaUsage ? "" : " (no USAGE on the schema leader_ext)");
        // The server may end the session just after its last answer (a primary stopping as it was
        // reached): not opened, so the caller retries rather than calls it connected.
        if (!isOpen())
            return Failure{"the session ended as it opened", {}, true, pg::FailureKind::Closed};
        return access;
    } catch (const pg::Error &error) {
        close();
        Failure failed = failure(error);
        failed.sessionLost = true;
        return failed;
    }
}

void StatusReader::close()
{
    m_connection->close();
}

bool StatusReader::isOpen() const
{
    return m_connection->isOpen();
}

std::string StatusReader::answeredBy() const
{
    if (!isOpen())
        return {};
    const char *host = PQhost(m_connection->handle());
    const char *port = PQport(m_connection->handle());
    return std::string(host ? host : "") + ":" + (port ? port : "");
}

std::string StatusReader::sessionKey() const
{
    if (!isOpen())
        return {};
    return answeredBy() + "#" + std::to_string(PQbackendPID(m_connection->handle()));
}

Outcome<StatusRows> StatusReader::poll()
{
    try {
        const auto now = std::chrono::steady_clock::now();
        if (now - m_featuresProbedAt >= FeaturesProbedEvery) {
            m_features = schema::probeFeatures(*m_connection);
            m_featuresProbedAt = now;
        }
        const bool extendedView = m_features.has(schema::Extension::AdrFleet);
        const pg::Result result = [&] {
            try {
                return m_connection->exec("poll", pollSql(extendedView), {}, m_statementTimeout);
            } catch (const pg::Error &error) {
                // 0189 undone under this reader: read the ADR's view, and probe again.
                if (!extendedView || error.sqlstate() != pg::sqlstate::UndefinedTable)
                    throw;
                m_features = schema::probeFeatures(*m_connection);
                m_featuresProbedAt = std::chrono::steady_clock::now();
                return m_connection->exec("poll", pollSql(false), {}, m_statementTimeout);
            }
        }();
        StatusRows rows;
        rows.features = m_features;
        for (int row = 0; row < result.rows(); ++row) {
            RoleRow role;
            role.role = std::string(result.text(row, 0));
            role.state = std::string(result.text(row, 1));
            role.holderId = std::string(result.text(row, 2));
            role.token = result.isNull(row, 3) ? 0 : result.toInt64(row, 3);
            role.acquiredAt = optionalDouble(result, row, 4);
            role.expiresInSeconds = optionalDouble(result, row, 5);
            role.lastTickEndedAt = optionalDouble(result, row, 6);
            role.lastTickHolder = std::string(result.text(row, 7));
            role.lastTickAgeSeconds = optionalDouble(result, row, 8);
            role.pausedAt = optionalDouble(result, row, 9);
            role.pausedBy = std::string(result.text(row, 10));
            role.pauseReason = std::string(result.text(row, 11));
            role.notBefore = optionalDouble(result, row, 12);
            role.notBeforeInSeconds = optionalDouble(result, row, 13);
            rows.observedAt = optionalDouble(result, row, 14);
            role.pausedUntil = optionalDouble(result, row, 15);
            role.pauseRemainingSeconds = optionalDouble(result, row, 16);
            role.tookOver = std::string(result.text(row, 17));
            if (!result.isNull(row, 18))
                role.earlyTake = result.toBool(row, 18);
            role.lastOutcome = lease::outcomeFromName(result.text(row, 19));
            role.lastLossReason = lease::lossReasonFromName(result.text(row, 20));
            role.lastDurationSeconds = optionalDouble(result, row, 21);
            role.lastEndedAt = optionalDouble(result, row, 22);
            role.lastHolder = std::string(result.text(row, 23));
            role.lastFailedStep = std::string(result.text(row, 24));
            role.lastError = std::string(result.text(row, 25));
            if (!result.isNull(row, 26))
                role.lastHour = RoleRow::HourCounts{static_cast<int>(result.toInt64(row, 26)),
                                                    static_cast<int>(result.toInt64(row, 27)),
                                                    static_cast<int>(result.toInt64(row, 28)),
                                                    static_cast<int>(result.toInt64(row, 29))};
            if (!result.isNull(row, 30))
                role.holderOutside = result.toBool(row, 30);
            role.holderLastDurationSeconds = optionalDouble(result, row, 31);
            role.countsOursOnly = !result.isNull(row, 32) && result.toBool(row, 32);
            rows.roles.push_back(std::move(role));
        }
        // A second statement on the same session; its failure fails nothing else (a lost session
        // is still lost for the next call, which reconnects or says so).
        if (m_features.has(schema::Extension::Backlog)) {
            try {
                rows.backlog = readBacklog(*m_connection, m_statementTimeout);
            } catch (const pg::Error &error) {
                rows.backlogError = "the backlog could not be read: " + failure(error).message;
            }
        }
        return rows;
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<ReplicaList> StatusReader::replicas()
{
    try {
        ReplicaList list;
        // Read whatever the features say: a login that may not read leader_ext gets its
        // refusal, not "needs the extension".
        const std::optional<std::vector<lease::RegisteredReplica>> listed = lease::listReplicas(
                *m_connection, m_features.has(schema::Extension::ReplicaNames),
                m_features.has(schema::Extension::ReplicaDrain),
                m_features.has(schema::Extension::AdrFleet));
        if (!listed) {
            list.unavailable = schema::extensionNeeded("the replica registry",
                                                       schema::Extension::ReplicaRegistry);
            return list;
        }
        list.available = true;
        list.replicas.reserve(listed->size());
        if (const std::string session = sessionKey(); session != m_markersSeenOn) {
            m_markersSeen.clear();
            m_markersSeenOn = session;
        }
        std::set<std::string> seen;
        for (const lease::RegisteredReplica &registered : *listed) {
            ReplicaRow &row = list.replicas.emplace_back();
            row.holderId = registered.replica.holderId;
            row.host = registered.replica.host;
            row.pid = registered.replica.pid;
            row.version = registered.replica.version;
            row.roles = registered.replica.roles;
            row.startedAt = registered.startedAt;
            row.lastSeen = registered.lastSeen;
            row.lastSeenAgeSeconds = registered.lastSeenAgeSeconds;
            row.name = registered.replica.name;
            // A recorded marker not held is an ended one for any reader, even one that never
            // saw it held (0182); without the record, only what this reader saw tells.
            row.markerEnded = !registered.markerHeld
                              && (registered.markerRecorded
                                  || m_markersSeen.contains(registered.replica.holderId));
            row.alive = registered.state == lease::ReplicaState::Alive && !row.markerEnded;
            row.drain = registered.drain;
            row.drainedBy = registered.drainedBy;
            row.drainReason = registered.drainReason;
            row.earlyTakeOffUntil = registered.earlyTakeOffUntil;
            row.earlyTakeOffReason = registered.earlyTakeOffReason;
            // Once seen, remembered while it is registered: a marker ends only with its session.
            if (registered.markerHeld || row.markerEnded)
                seen.insert(registered.replica.holderId);
        }
        m_markersSeen = std::move(seen);
        return list;
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<std::vector<lease::PauseRecord>> StatusReader::pause(const std::vector<std::string> &roles,
                                                             const std::string &by,
                                                             const std::string &reason,
                                                             const lease::PauseEnd &end)
{
    // An unknown role is the database's to refuse, inside the transaction: the roles before it
    // are rolled back with it, which is what all-or-nothing means.
    if (roles.empty())
        return Failure{"no role given", {}, false};
    if (hasNul(roles, {&by, &reason, &end.after, &end.at}))
        return Failure{"roles, who, why and the end may not contain NUL characters", {}, false};
    try {
        return lease::pauseRoles(*m_connection, m_features, roles, by, reason, end);
    } catch (const schema::SchemaError &error) {
        return Failure{error.what(), {}, false, pg::FailureKind::Schema}; // an end without 0177
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<std::vector<lease::UnpauseRecord>>
StatusReader::unpause(const std::vector<std::string> &roles, const std::string &by,
                      const std::string &reason)
{
    if (roles.empty())
        return Failure{"no role given", {}, false};
    if (hasNul(roles, {&by, &reason}))
        return Failure{"roles, who and why may not contain NUL characters", {}, false};
    try {
        return lease::unpauseRoles(*m_connection, m_features, roles, by, reason);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<lease::DrainRecord> StatusReader::drain(const std::string &name, const std::string &by,
                                                const std::string &reason, bool force)
{
    if (hasNul({name}, {&by, &reason}))
        return Failure{"the replica, who and why may not contain NUL characters", {}, false};
    try {
        return lease::drainReplica(*m_connection, name, by, reason, force);
    } catch (const lease::DrainRefused &refused) {
        return Failure{refused.what(), pg::sqlstate::ObjectNotInPrerequisiteState, false,
                       pg::FailureKind::Refused};
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<bool> StatusReader::undrain(const std::string &name, const std::string &by,
                                    const std::string &reason)
{
    if (hasNul({name}, {&by, &reason}))
        return Failure{"the replica, who and why may not contain NUL characters", {}, false};
    try {
        return lease::undrainReplica(*m_connection, name, by, reason);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<std::vector<std::string>> StatusReader::drainOrphans(const std::string &name)
{
    try {
        return lease::drainOrphans(*m_connection, name);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<lease::HandoverRecord> StatusReader::handOver(const std::string &role,
                                                      const std::string &by,
                                                      const std::string &reason,
                                                      const std::optional<std::string> &toReplica)
{
    if (hasNul({role, toReplica.value_or(std::string())}, {&by, &reason}))
        return Failure{"the role, replica, who and why may not contain NUL characters", {}, false};
    try {
        return lease::handOver(*m_connection, role, by, reason, toReplica);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Failure StatusReader::failure(const pg::Error &error)
{
    const std::string code = error.sqlstate();
    std::string detail = withoutSeverity(error.what());
    const pg::FailureKind kind
            = pg::classify(code, detail, error.isTransport(), error.deadlineExceeded());
    // The engine names the statement's target before libpq's reason; a connect failure keeps it.
    std::string message;
    switch (kind) {
    case pg::FailureKind::Authentication:
        message = "authentication failed: " + detail;
        break;
    case pg::FailureKind::DatabaseMissing:
        message = "database missing: " + detail;
        break;
    case pg::FailureKind::Unreachable:
        message = "cannot reach the server: " + detail;
        break;
    case pg::FailureKind::Timeout:
        message = "the server did not answer in time: " + detail;
        break;
    case pg::FailureKind::Closed:
        message = "the server closed the connection: " + detail;
        break;
    case pg::FailureKind::Schema:
        message = "the lease schema is missing or out of date (" + detail + "): " + MigrateHint;
        break;
    case pg::FailureKind::Privilege:
        message = "privilege missing: " + detail;
        break;
    case pg::FailureKind::Refused:
    case pg::FailureKind::Other:
        message = detail;
        break;
    }
    if (!code.empty()) {
        const std::string_view meaning = pg::sqlstateMeaning(code);
        message += meaning.empty() ? " (SQLSTATE " + code + ")"
                                   : " (SQLSTATE " + code + ": " + std::string(meaning) + ")";
    }
    // A read-only refusal ends the session in pg::Connection too (a standby or a demoted
    // primary), though a ROLLBACK after it may already have opened another.
    const bool lost = error.isTransport() || error.notStarted() || !isOpen()
                      || pg::closedByServer(code, detail)
                      || code == pg::sqlstate::ReadOnlySqlTransaction;
    return Failure{pg::redactSecrets(message, m_conninfo), code, lost, kind};
}

} // namespace leader::monitor
