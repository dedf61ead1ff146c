#include "statusreader.h"

#include "lease/replicaregistry.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "schema/migrator.h"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace leader::monitor {

namespace {

using namespace std::chrono_literals;

// Instants come back as epoch seconds (float8), so neither the session's TimeZone nor its
// DateStyle can change what the console shows. The pause's end is appended when the view has it
// (migration 0177): an older Hardcount still polls.
constexpr auto PollColumns
        = "SELECT role, state, holder_id, holder_token,"
          " extract(epoch FROM acquired_at)::float8, expires_in_seconds::float8,"
          " extract(epoch FROM last_tick_ended_at)::float8, last_tick_holder,"
          " last_tick_age_seconds::float8, extract(epoch FROM paused_at)::float8, paused_by,"
          " pause_reason, extract(epoch FROM not_before)::float8, not_before_in_seconds::float8,"
          " extract(epoch FROM observed_at)::float8";
constexpr auto PollEndColumns
        = ", extract(epoch FROM paused_until)::float8, pause_remaining_seconds::float8";
// How a led role's row was taken (migration 0179), after those; then the early take's switch
// (migration 0180).
constexpr auto PollTakeoverColumn = ", took_over";
constexpr auto PollEarlyTakeColumn = ", early_take";
constexpr auto PollFrom = " FROM leader_status ORDER BY role";

// to_regclass/to_regprocedure return NULL instead of failing, so one statement tells a missing
// schema, a missing SELECT and a read-only login apart.
constexpr auto AccessSql
        = "SELECT current_user::text, current_database()::text,"
          " to_regclass('leader_status') IS NOT NULL,"
          " coalesce(has_table_privilege(to_regclass('leader_status')::oid, 'SELECT'), false),"
          " coalesce(has_function_privilege("
          "to_regprocedure('leader_pause(text,text,text)')::oid, 'EXECUTE'), false),"
          " coalesce(has_function_privilege("
          "to_regprocedure('leader_unpause(text)')::oid, 'EXECUTE'), false),"
          " EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('leader_status')"
          " AND attname = 'pause_remaining_seconds' AND NOT attisdropped)"
          " AND to_regprocedure('leader_pause(text,text,text,timestamptz)') IS NOT NULL"
          " AND to_regprocedure('leader_unpause(text,text,text)') IS NOT NULL,"
          " EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('leader_status')"
          " AND attname = 'took_over' AND NOT attisdropped),"
          " EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('leader_status')"
          " AND attname = 'early_take' AND NOT attisdropped)";

constexpr auto MigrateHint = "run `leaderctl migrate --database URL` as the database owner";
constexpr auto NeedsPauseEnds = "read-only: pausing from this console needs lease migration 0177"
                                " (several roles at once, pauses that end by themselves): ";

std::string sqlstateMeaning(const std::string &code)
{
    static const std::array<std::pair<const char *, const char *>, 15> meanings{{
            {"42501", "insufficient privilege"},
            {"22023", "invalid parameter value"},
            {"P0001", "raised by a function"},
            {"42883", "undefined function"},
            {"42P01", "undefined table"},
            {"42703", "undefined column"},
            {"3D000", "database does not exist"},
            {"28P01", "invalid password"},
            {"28000", "invalid authorization"},
            {"53300", "too many connections"},
            {"57P01", "administrator shutdown"},
            {"57P02", "crash shutdown"},
            {"57P03", "cannot connect now"},
            {"57014", "query cancelled"},
            {"25006", "read-only transaction"},
    }};
    for (const auto &[state, meaning] : meanings)
        if (code == state)
            return meaning;
    return code.starts_with("08") ? "connection exception" : "";
}

bool containsAny(const std::string &text, std::initializer_list<const char *> needles)
{
    std::string lower = text;
    std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char *needle : needles) {
        std::string wanted = needle;
        std::ranges::transform(wanted, wanted.begin(),
                               [](unsigned char c) { return std::tolower(c); });
        if (lower.find(wanted) != std::string::npos)
            return true;
    }
    return false;
}

// libpq's connect messages carry "FATAL:  " and "ERROR:  " prefixes; the operator needs neither.
std::string withoutSeverity(std::string text)
{
    static const std::regex severity(R"(\b(ERROR|FATAL|PANIC):\s+)");
    static const std::regex spaces(R"(\s+)");
    text = std::regex_replace(text, severity, "");
    return std::regex_replace(text, spaces, " ");
}

bool closedByServer(const std::string &code, const std::string &detail)
{
    return code.starts_with("57P") || code.starts_with("08")
           || containsAny(detail, {"server closed the connection", "terminating connection",
                                   "no connection to the server", "connection to server was lost",
                                   "SSL connection has been closed", "server conn crashed",
                                   "Connection reset", "Broken pipe"});
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
        const pg::Result row = m_connection->exec("privileges", AccessSql, {}, m_statementTimeout);
        const std::string user(row.text(0, 0));
        const std::string database(row.text(0, 1));
        if (!row.toBool(0, 2)) {
            close();
            return Failure{"the lease schema is missing in database " + database + ": "
                                   + MigrateHint,
                           {},
                           true};
        }
        if (!row.toBool(0, 3)) {
            close();
            return Failure{"privilege missing: " + user
                                   + " may not read leader_status; GRANT hardcount_monitor TO "
                                   + user + " (or GRANT SELECT ON leader_status TO " + user + ")",
                           {},
                           true};
        }
        m_pauseEnds = row.toBool(0, 6);
        m_takeovers = m_pauseEnds && row.toBool(0, 7);
        m_earlyTake = m_takeovers && row.toBool(0, 8);
        Access access{user, row.toBool(0, 4), row.toBool(0, 5), {}, {}, m_pauseEnds};
        std::string missing;
        if (!access.canPause)
            missing = "leader_pause";
        if (!access.canUnpause)
            missing += (missing.empty() ? "" : " or ") + std::string("leader_unpause");
        if (!missing.empty()) {
            access.readOnlyReason = "read-only: " + user + " has no EXECUTE on " + missing;
        } else if (!m_pauseEnds) {
            // This build pauses through 0177's functions (several roles, an end): said here,
            // so the window disables the actions instead of failing them.
            access.canPause = access.canUnpause = false;
            access.readOnlyReason = std::string(NeedsPauseEnds) + MigrateHint;
        }
        try {
            schema::requireLeaseSchema(*m_connection);
            schema::requireHolderSession(*m_connection);
        } catch (const schema::SchemaError &error) {
            access.schemaWarning = error.what(); // what is missing, and the command to apply it
        }
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
        const std::string sql = std::string(PollColumns) + (m_pauseEnds ? PollEndColumns : "")
                                + (m_takeovers ? PollTakeoverColumn : "")
                                + (m_earlyTake ? PollEarlyTakeColumn : "") + PollFrom;
        const pg::Result result = m_connection->exec("poll", sql, {}, m_statementTimeout);
        StatusRows rows;
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
            if (m_pauseEnds) {
                role.pausedUntil = optionalDouble(result, row, 15);
                role.pauseRemainingSeconds = optionalDouble(result, row, 16);
            }
            if (m_takeovers)
                role.tookOver = std::string(result.text(row, 17));
            if (m_earlyTake)
                role.earlyTake = result.toBool(row, 18);
            rows.roles.push_back(std::move(role));
        }
        return rows;
    } catch (const pg::Error &error) {
        // 0180 or 0179 rolled back under a connected console: the view lost early_take or
        // took_over, the polls go on without them.
        if (m_earlyTake && error.sqlstate() == pg::sqlstate::UndefinedColumn) {
            m_earlyTake = false;
            return poll();
        }
        if (m_takeovers && error.sqlstate() == pg::sqlstate::UndefinedColumn) {
            m_takeovers = false;
            return poll();
        }
        return failure(error);
    }
}

Outcome<ReplicaList> StatusReader::replicas()
{
    try {
        const std::optional<std::vector<lease::RegisteredReplica>> listed
                = lease::listReplicas(*m_connection);
        ReplicaList list;
        if (!listed)
            return list;
        list.available = true;
        list.replicas.reserve(listed->size());
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
            row.alive = registered.state == "alive";
        }
        return list;
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

std::optional<Failure> StatusReader::refuseWrite(const std::vector<std::string> &roles) const
{
    // An unknown role is the database's to refuse, inside the transaction: the roles before it
    // are rolled back with it, which is what all-or-nothing means.
    if (roles.empty())
        return Failure{"no role given", {}, false};
    if (!m_pauseEnds)
        return Failure{std::string(NeedsPauseEnds) + MigrateHint, {}, false};
    return std::nullopt;
}

Outcome<std::vector<lease::PauseRecord>> StatusReader::pause(const std::vector<std::string> &roles,
                                                             const std::string &by,
                                                             const std::string &reason,
                                                             const lease::PauseEnd &end)
{
    if (std::optional<Failure> refused = refuseWrite(roles))
        return *refused;
    if (hasNul(roles, {&by, &reason, &end.after, &end.at}))
        return Failure{"roles, who, why and the end may not contain NUL characters", {}, false};
    try {
        return lease::pauseRoles(*m_connection, roles, by, reason, end);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Outcome<std::vector<lease::UnpauseRecord>>
StatusReader::unpause(const std::vector<std::string> &roles, const std::string &by,
                      const std::string &reason)
{
    if (std::optional<Failure> refused = refuseWrite(roles))
        return *refused;
    if (hasNul(roles, {&by, &reason}))
        return Failure{"roles, who and why may not contain NUL characters", {}, false};
    try {
        return lease::unpauseRoles(*m_connection, roles, by, reason);
    } catch (const pg::Error &error) {
        return failure(error);
    }
}

Failure StatusReader::failure(const pg::Error &error)
{
    const std::string code = error.sqlstate();
    std::string detail = withoutSeverity(error.what());
    // The engine names the statement's target before libpq's reason; a connect failure keeps it.
    std::string message;
    if (code == "28P01" || code == "28000"
        || containsAny(detail, {"password authentication failed", "no password supplied",
                                "authentication failed", "password is required"})) {
        message = "authentication failed: " + detail;
    } else if (code == "3D000"
               || (detail.find("database \"") != std::string::npos
                   && detail.find("does not exist") != std::string::npos)
               || detail.find("no such database") != std::string::npos) {
        message = "database missing: " + detail;
    } else if (containsAny(detail,
                           {"Connection refused", "could not translate host name",
                            "timeout expired", "No such file or directory",
                            "Network is unreachable", "No route to host", "could not connect",
                            "Connection timed out", "within the connect timeout"})) {
        message = "cannot reach the server: " + detail;
    } else if (error.deadlineExceeded()) {
        message = "the server did not answer in time: " + detail;
    } else if (closedByServer(code, detail) || error.isTransport()) {
        message = "the server closed the connection: " + detail;
    } else if (code == "42P01" || code == "42883" || code == "42703") {
        message = "the lease schema is missing or out of date (" + detail + "): " + MigrateHint;
    } else if (code == "42501") {
        message = "privilege missing: " + detail;
    } else {
        message = detail;
    }
    if (!code.empty()) {
        const std::string meaning = sqlstateMeaning(code);
        message += meaning.empty() ? " (SQLSTATE " + code + ")"
                                   : " (SQLSTATE " + code + ": " + meaning + ")";
    }
    // A read-only refusal ends the session in pg::Connection too (a standby or a demoted
    // primary), though a ROLLBACK after it may already have opened another.
    const bool lost = error.isTransport() || error.notStarted() || !isOpen()
                      || closedByServer(code, detail)
                      || code == pg::sqlstate::ReadOnlySqlTransaction;
    return Failure{pg::redactSecrets(message, m_conninfo), code, lost};
}

} // namespace leader::monitor
