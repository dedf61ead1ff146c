#pragma once

#include "core/extensionnotes.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace leader::console {

// leader_status.state (migration 0175's CASE), parsed once by the poller so nothing downstream
// compares strings. Unknown is a text this console does not know (a newer schema).
enum class RoleState { Led, Free, NeverRan, Cooling, Paused, Unknown };

RoleState parseRoleState(QStringView serverText);
// The view's own text ("never ran"), for exports; "unknown" for Unknown.
QString roleStateText(RoleState state);
// What the window shows (translatable).
QString roleStateDisplayName(RoleState state);

// How a led row was taken (migration 0179's took_over): past the old lease's expiry, or before it
// because the previous holder's session had ended (its process died). None for a free row, on an
// older schema, and for a text this build does not know.
enum class TookOver { None, Expired, SessionEnded };
TookOver parseTookOver(QStringView serverText); // "expired", "session_ended", or empty
QString tookOverServerText(TookOver tookOver);  // parseTookOver's inverse

// How a role's last recorded tick ended (migration 0184), and why a lost one was lost: the
// engine's lease::Outcome and lease::LossReason, mirrored one for one by the poller.
enum class TickOutcome { Completed, Interrupted, Failed, Lost };
enum class LossReason { TakenOver, Released, Paused, HeartbeatTimeout, MarkerLost, Panicked };
// The engine's names, which leaderctl and the exports print: "completed", "taken_over".
QString tickOutcomeName(TickOutcome outcome);
QString lossReasonName(LossReason reason);

// Ticks of one role by outcome (migration 0184).
struct TickCounts
{
    int completed = 0;
    int lost = 0;
    int failed = 0;
    int interrupted = 0;

    friend bool operator==(const TickCounts &, const TickCounts &) = default;
};

// How much work waits for a role, as its registered source counts it (migration 0186's
// leader_ext.leader_backlog(); docs/backlog.md), read with each poll.
struct RoleBacklog
{
    QString what;                  // plural: "due subscriptions", "pending outbox rows"
    std::optional<qint64> pending; // empty: the source failed, error says why
    // The oldest pending item's age on the database clock; empty when nothing is pending.
    std::optional<double> oldestAgeSeconds;
    QString error; // the source's SQLSTATE and first line, secrets masked

    friend bool operator==(const RoleBacklog &, const RoleBacklog &) = default;
};

// One row of leader_status, as the database computed it (ages and expiries on its clock).
struct RoleStatus
{
    QString role;
    RoleState state = RoleState::Unknown;
    QString holderId;
    qint64 token = 0;
    QDateTime acquiredAt;
    std::optional<double> expiresInSeconds;
    QDateTime lastTickEndedAt;
    QString lastTickHolder;
    std::optional<double> lastTickAgeSeconds;
    QDateTime pausedAt;
    QString pausedBy;
    QString pauseReason;
    QDateTime notBefore;
    std::optional<double> notBeforeInSeconds;
    // A pause that ends by itself: its end and the seconds left, both computed by the database.
    // Invalid and empty for a pause until unpaused, and on a schema without migration 0177.
    QDateTime pausedUntil;
    std::optional<double> pauseRemainingSeconds;
    // How the led row was taken (migration 0179).
    TookOver tookOver = TookOver::None;
    // Whether the role is taken at its holder's death or only at its expiry (migration 0180's
    // early_take); nullopt on an older schema.
    std::optional<bool> earlyTake;
    // The last recorded tick, whatever its outcome (migration 0184): lastOutcome is none on an
    // older schema and before a tick was recorded. The error is its first line, secrets masked.
    std::optional<TickOutcome> lastOutcome;
    std::optional<LossReason> lastLossReason; // when lost
    std::optional<double> lastDurationSeconds;
    QDateTime lastEndedAt;
    QString lastHolder;
    QString lastFailedStep;
    QString lastError;
    // Ticks in the last hour of the database clock, to the minute; nullopt on an older schema.
    std::optional<TickCounts> lastHour;
    // Extension 0189 (nullopt without it). While led: whether the holder is outside the replica
    // registry (a replica that speaks only the ADR: it takes no hand-over request and no drain),
    // and how long its previous tick of the role lasted, when one was seen.
    std::optional<bool> holderOutside;
    std::optional<double> holderLastDurationSeconds;
    // Holders outside the registry led the role in the last hour: they record no tick, so
    // lastHour counts this project's replicas only.
    std::optional<bool> countsOursOnly;
    // nullopt: no backlog source registered for the role, or no migration 0186.
    std::optional<RoleBacklog> backlog;

    friend bool operator==(const RoleStatus &, const RoleStatus &) = default;
};

// One poll of leader_status.
struct StatusSnapshot
{
    QList<RoleStatus> roles; // ordered by role
    QDateTime databaseTime;  // the view's observed_at: now() on the database
    QDateTime receivedAt;    // the workstation's clock when the rows arrived
    double roundTripMs = 0;  // the poll's statement round trip
    double clockDriftMs = 0; // database clock minus the workstation's, at the round trip's middle
    // The backlog could not be read this poll (one line); the rows' backlog is then empty. Not a
    // failure of the poll.
    QString backlogError;
};

// The poller's session to its target (StatusPoller::connectionChanged).
enum class ConnectionState {
    Disconnected, // not connected and not trying (no target, or stopped)
    Connecting,   // first attempt, or reconnecting after a failure
    Connected,    // this target's first session
    // Connected again, after a session of this target's failed or the server ended it (a
    // restart, a failover): its message says how long the console was without one.
    Reconnected,
    Failed, // the last attempt failed; the poller retries by itself
};

// The console has a session and polls on it: Connected or Reconnected.
constexpr bool isConnected(ConnectionState state)
{
    return state == ConnectionState::Connected || state == ConnectionState::Reconnected;
}
// The state's name in the poller's messages and the tests' output: "disconnected", "connecting",
// "connected", "reconnected", "failed".
QLatin1StringView connectionStateName(ConnectionState state);
// What a list of databases shows for it (translatable): "connected" for both sessions,
// "failed, retrying" for Failed.
QString connectionStateDisplayName(ConnectionState state);

// When a pause ends: after a duration ("15m", "1h", "4h"), at an instant, or neither (until
// unpaused). The database computes the end on its own clock and refuses one not after its now().
struct PauseEnd
{
    QString duration;
    QDateTime at;
};

// One role of a pause or unpause request, as the database answered it.
struct RoleChange
{
    QString role;
    // Pause: this request paused it (else the fields below are the pause in force before it).
    // Unpause: it was paused and no longer is.
    bool changed = false;
    QDateTime pausedAt;
    QString pausedBy;
    QString reason;
    QDateTime until; // invalid: until unpaused
    // Pause: this request's wake NOTIFY stopped the holder at once (extension 0176); false: the
    // holder stops at its next heartbeat, within 3 s.
    bool notified = false;
};

// What the operator does to a role, and what a line of the pause log records: an Expire is a
// pause that ended by itself (lease::PauseAction, whose table names them).
enum class PauseAction { Pause, Unpause, Expire };
QString pauseActionName(PauseAction action); // "pause", "unpause", "expire"

// How a pause or unpause of several roles went: all of them changed together, or nothing did.
struct ActionResult
{
    PauseAction action = PauseAction::Pause; // Pause or Unpause
    QStringList roles;
    bool ok = false;
    QString error;             // when not ok: one line; nothing was changed
    QList<RoleChange> changes; // when ok: one per role, in the order asked
};

// What the connected login may do, asked of the database (has_function_privilege), not found by
// failing.
struct Privileges
{
    bool canPause = false;
    bool canUnpause = false;
    QString reason; // when a write is not allowed: one line saying why
    // The extensions the database lacks, what that leaves out and how to add them, one line
    // (monitor::extensionsSummary); empty with every one. Not a failure.
    QString schemaWarning;
    // What the database offers beyond ADR-114's 0174 and 0175 (the extensions in leader_ext): the
    // console pauses and unpauses on the ADR's functions alone, and says what the rest needs.
    DatabaseFeatures features;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::RoleState)
Q_DECLARE_METATYPE(leader::console::RoleStatus)
Q_DECLARE_METATYPE(leader::console::StatusSnapshot)
Q_DECLARE_METATYPE(leader::console::ConnectionState)
Q_DECLARE_METATYPE(leader::console::Privileges)
Q_DECLARE_METATYPE(leader::console::ActionResult)
