#pragma once

#include "lease/draincontrol.h"
#include "lease/handovercontrol.h"
#include "lease/outcome.h"
#include "lease/pausecontrol.h"
#include "lease/replicaregistry.h"
#include "pg/failurekind.h"
#include "schema/features.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <variant>
#include <vector>

// The console's facade over the engine for a real database: what an operator's workstation reads
// (leader_status, its own privileges) and writes (pause, unpause). Plain C++ and libpq, so the app
// never includes an engine/core/pg header and no engine exception crosses into Qt code: every call
// returns its value or a Failure.
namespace leader::pg {
class Connection;
class Error;
} // namespace leader::pg

namespace leader::monitor {

// One row of leader_status; instants as epoch seconds on the database clock.
struct RoleRow
{
    std::string role;
    std::string state;
    std::string holderId;
    std::int64_t token = 0;
    std::optional<double> acquiredAt;
    std::optional<double> expiresInSeconds;
    std::optional<double> lastTickEndedAt;
    std::string lastTickHolder;
    std::optional<double> lastTickAgeSeconds;
    std::optional<double> pausedAt;
    std::string pausedBy;
    std::string pauseReason;
    std::optional<double> notBefore;
    std::optional<double> notBeforeInSeconds;
    // A pause that ends by itself (extension 0177): its end, and the seconds left on the
    // database clock. Both empty without 0177, and for a pause until leader_unpause.
    std::optional<double> pausedUntil;
    std::optional<double> pauseRemainingSeconds;
    // While led (extension 0179): "expired" when it was taken past the old lease's expiry,
    // "session_ended" when taken before it because the old holder's session had ended; empty
    // when the row was free (a hand-over), and without 0179 (tell a takeover by expiry then).
    std::string tookOver;
    // Whether the role may be taken at its holder's death (extension 0180's early_take); nullopt
    // without it.
    std::optional<bool> earlyTake;
    // The last recorded tick of the role, whatever its outcome (extension 0184): outcome empty
    // without 0184 or before any tick was recorded. The error is its first line, secrets masked.
    std::optional<lease::Outcome> lastOutcome;
    std::optional<lease::LossReason> lastLossReason; // when lost
    std::optional<double> lastDurationSeconds;
    std::optional<double> lastEndedAt;
    std::string lastHolder;
    std::string lastFailedStep;
    std::string lastError;
    // Ticks recorded in the last hour of the database clock, to the minute; nullopt without 0184.
    struct HourCounts
    {
        int completed = 0;
        int lost = 0;
        int failed = 0;
        int interrupted = 0;
    };
    std::optional<HourCounts> lastHour;
    // Extension 0189. While led: whether the holder is outside the replica registry (a replica
    // that speaks only the ADR: it takes no hand-over request and no drain), nullopt without
    // 0189; and how long its previous tick of this role lasted, when it is outside and one was
    // seen.
    std::optional<bool> holderOutside;
    std::optional<double> holderLastDurationSeconds;
    // Holders outside the registry led the role in the last hour: they record no tick, so
    // lastHour counts this project's replicas' ticks only.
    bool countsOursOnly = false;
};

// How much work waits for a role, as the source its deployment registered counts it (extension
// 0186's leader_ext.leader_backlog(); docs/backlog.md): read with the status, on the same session.
struct BacklogRow
{
    std::string role;
    std::string what; // what the source counts, plural: "due subscriptions", "pending outbox rows"
    std::optional<std::int64_t> pending; // empty when the source failed
    // The oldest pending item's age on the database clock; empty when nothing is pending (or the
    // source failed, or it does not say).
    std::optional<double> oldestAgeSeconds;
    std::string error; // the source failed: its SQLSTATE and first line, secrets masked
};

// Reads leader_ext.leader_backlog() (extension 0186) on connection: one statement, each
// registered source once. A source that fails is a row with its error; the statement failing
// (a timeout, no EXECUTE, a lost session) throws pg::Error.
std::vector<BacklogRow> readBacklog(pg::Connection &connection, std::chrono::milliseconds timeout);

struct StatusRows
{
    std::vector<RoleRow> roles; // ordered by role
    // Each registered source's reading, by role; empty without 0186 or with no source registered.
    // A failed read of the backlog does not fail the poll: backlogError says why in one line.
    std::vector<BacklogRow> backlog;
    std::string backlogError;
    std::optional<double> observedAt;
    // What the database offers, probed at open() and again every FeaturesProbedEvery while
    // polling: an extension added or removed under a connected console shows without a reconnect.
    schema::LeaseFeatures features;
};

// What the connected login may do, asked of the database rather than found by failing.
struct Access
{
    std::string user;
    // EXECUTE on the functions pause() and unpause() call: the ADR's leader_pause and
    // leader_unpause, or with extension 0177 leader_ext's (and USAGE on leader_ext).
    bool canPause = false;
    bool canUnpause = false;
    std::string readOnlyReason; // when a write is not allowed: one line saying why
    // The database lacks extensions (extensionsSummary): one line saying what they would add and
    // how to add them; empty with every one. Everything the ADR offers works without them.
    std::string schemaWarning;
    // What the database offers. Without 0177 a pause has no end (pause() refuses one with
    // schema::extensionNeeded's line) and an unpause records no who and why; without 0176 a pause
    // reaches its holder at the next heartbeat (PauseRecord::notified).
    schema::LeaseFeatures features;
};

// The one line a database without every extension gets: what is missing, what that leaves out and
// how to add it; empty when every extension is there. leaderctl status ends with it too.
std::string extensionsSummary(const schema::LeaseFeatures &features);

// One replica of the registry (extension 0178's leader_ext.leader_replicas_status), as the
// database sees it:
// instants ISO 8601 UTC with milliseconds, the age and the state computed on its clock.
struct ReplicaRow
{
    std::string holderId;
    std::string host;
    int pid = 0;
    std::string version;
    std::vector<std::string> roles; // the roles it runs: those it could take over
    std::string startedAt;
    std::string lastSeen;
    double lastSeenAgeSeconds = 0;
    std::string name; // its --id, recorded with 0182; empty: none, or an older schema or replica
    // The database ended its marker session: the row records a marker (0182) no session holds,
    // or, without the record, this reader saw the marker held earlier on the same session of its
    // own (so on the same server's life) and not any more. Its process died, whatever its last
    // beat says.
    bool markerEnded = false;
    bool alive = false; // the view's "alive" and no marker ended; anything else is gone
    // With 0183: its drain, none when not drained; who drained it and why.
    std::optional<lease::DrainState> drain;
    std::string drainedBy;
    std::string drainReason;
    // With 0189: until when it names no marker (its marker session kept being ended while it ran),
    // and why; empty when it names one. Its leases end at their expiry only meanwhile.
    std::string earlyTakeOffUntil;
    std::string earlyTakeOffReason;
};

struct ReplicaList
{
    // False when the database has no registry (without extension 0178): not a failure, the rest
    // of the console works; unavailable then says what it needs and how to add it.
    bool available = false;
    std::string unavailable;
    std::vector<ReplicaRow> replicas; // by host, then start
};

struct Failure
{
    std::string message; // one line for an operator, no secret, the SQLSTATE and its meaning
    std::string sqlstate;
    // The session is gone or no use (the server closed it, restarted, became a standby): the
    // next call must reconnect. A refused statement leaves the session usable.
    bool sessionLost = false;
    // What kind of failure, for callers that act on it (pg::classify): a drain or hand-over the
    // database refused as things stand is Refused.
    pg::FailureKind kind = pg::FailureKind::Other;
};

template<typename T>
using Outcome = std::variant<T, Failure>;

class StatusReader final
{
public:
    // connectTimeout bounds a connect; statementTimeout every statement (client-side, cancelled at
    // the deadline). stop ends whichever is in flight from another thread (see ConnectOptions).
    StatusReader(std::string conninfo, std::stop_token stop,
                 std::chrono::milliseconds statementTimeout);
    ~StatusReader();
    StatusReader(const StatusReader &) = delete;
    StatusReader &operator=(const StatusReader &) = delete;

    // Connects and checks the schema and the login's privileges: a missing schema or no SELECT on
    // leader_status fails here, with what to do about it.
    Outcome<Access> open();
    void close();
    bool isOpen() const;
    // "host:port" of the server that answered, for a host list; empty otherwise.
    std::string answeredBy() const;
    // Names the session now open (server and backend); it changes when a statement had to open
    // a new one because the server ended the last (a restart, a failover), which the caller
    // would otherwise not see: the statement itself succeeded.
    std::string sessionKey() const;

    Outcome<StatusRows> poll();
    // The replica registry, on the poll's session: one statement. A replica whose marker this
    // reader has seen held reads gone once the marker is not: the database ended its session, so
    // its process died (a marker the server ended under a live replica is replaced within about
    // a second, and it reads alive again). With 0182 the row records the marker, so a first read
    // judges it the same, as leaderctl replicas does; before 0182 a first read knows no marker's
    // past and judges by the beats alone.
    Outcome<ReplicaList> replicas();
    // Pauses every role in one transaction, all or none (lease::pauseRoles): per role, whether
    // this call paused it or whose pause was in force already, and whether the wake NOTIFY
    // stopped its holder at once. An unknown role, a missing privilege or an end not after now()
    // fails the whole call and changes nothing; so does an end without extension 0177, before
    // anything is sent.
    Outcome<std::vector<lease::PauseRecord>> pause(const std::vector<std::string> &roles,
                                                   const std::string &by, const std::string &reason,
                                                   const lease::PauseEnd &end = {});
    // Unpauses every role in one transaction, recording by and reason in the pause log with
    // extension 0177 (UnpauseRecord::attributed), dropping them without it.
    Outcome<std::vector<lease::UnpauseRecord>> unpause(const std::vector<std::string> &roles,
                                                       const std::string &by,
                                                       const std::string &reason);

    // Drains a replica by name (extension 0183, lease/draincontrol): a refusal for a role left
    // with no eligible replica is a Failure of kind Refused whose message names it.
    Outcome<lease::DrainRecord> drain(const std::string &name, const std::string &by,
                                      const std::string &reason, bool force);
    Outcome<bool> undrain(const std::string &name, const std::string &by,
                          const std::string &reason);
    // The roles draining name would leave with no eligible replica (read only).
    Outcome<std::vector<std::string>> drainOrphans(const std::string &name);
    // Hands a role over now (extension 0185, lease/handovercontrol): to the replica named, or
    // to any other. A refusal (not held, paused, a target not live or drained) is a Failure of
    // kind Refused; an unknown role or replica, one whose sqlstate is "22023".
    Outcome<lease::HandoverRecord> handOver(const std::string &role, const std::string &by,
                                            const std::string &reason,
                                            const std::optional<std::string> &toReplica);

    static constexpr std::chrono::seconds FeaturesProbedEvery{15};

private:
    Failure failure(const pg::Error &error);

    std::string m_conninfo;
    std::chrono::milliseconds m_statementTimeout;
    std::unique_ptr<pg::Connection> m_connection;
    schema::LeaseFeatures m_features;
    std::chrono::steady_clock::time_point m_featuresProbedAt;
    // The holder ids whose marker replicas() has seen held, on the session m_markersSeenOn names:
    // locks live one server life, so another session starts afresh.
    std::set<std::string> m_markersSeen;
    std::string m_markersSeenOn;
};

} // namespace leader::monitor
