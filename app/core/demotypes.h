#pragma once

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace leader::console {

// The Qt-side value types of the embedded demo, converted from the engine's (demo/runtypes.h) by
// DemoHost (core/demoengine.h). The two enums mirror the engine's, one for one.

// What the failure panel can do to a hosted replica (faults::Fault says what each does).
enum class FaultKind { Kill, Freeze, Sever, Slow, Heal, Panic, Stop, Restart };
QString faultName(FaultKind kind);

struct FaultRequest
{
    QString replica; // "r1"
    FaultKind kind = FaultKind::Kill;
    int durationMs = 0; // Freeze, Sever: how long; Slow: latency each way
    QString role;       // Panic
    QString step;       // Panic
};

enum class ReplicaState { Starting, Running, Stopping, Stopped, Killed };
QString replicaStateName(ReplicaState state); // what the failure panel writes

// A hosted replica as the failure panel shows it.
struct ReplicaInfo
{
    QString id;       // "r1"
    QString holderId; // hostname:pid:8hex, new after a restart
    ReplicaState state = ReplicaState::Starting;
    QString faults;       // Switchboard::describe(), for display: "normal", "frozen 12.3 s", ...
    QStringList leading;  // roles it holds now
    bool faulted = false; // a fault is in force (what faults describes)
};

// What a line of the event log is about: the demo's replicas and runner (demo::DemoEventKind, by
// the same names), the poll's view of the status (statusdiff), and the console's own lines.
enum class EventKind {
    // The demo's.
    Acquired,
    Released,
    ReleaseFailed,
    Lost,
    LateBeat,
    PausedObserved,
    Fault,
    Takeover,
    NoTakeover,
    FaultMissed,
    Error,
    // The poll's, besides Acquired and Takeover.
    Handover,
    AfterPause, // a new holder after a pause
    NewHolder,  // a change the poll could not classify
    Paused,
    PauseEnded,
    Unpaused,
    State,
    AgeOk,
    AgeWarning,
    AgeAlert,
    // The console's own.
    PollFailed,
    Connection,
    Alert,
    Pause,
    Unpause,
    HandOver, // an operator's request to hand a role over now (extension 0185)
    Guard,
    RoleOption, // --role named no role
    Keychain,
    Drill,
    History,
    Privileges,
    Schema,
    Backlog, // the backlog could not be read (extension 0186), or is read again
    Demo,
};
// By the one name table: what the log's Event column shows, its kind filter lists and exports
// write.
QString eventKindName(EventKind kind);
std::optional<EventKind> eventKindFromName(QStringView name);

// One transition from a hosted replica, or one change seen in the poll.
struct EventLogEntry
{
    QDateTime time; // the workstation's clock, UTC
    QString source; // "r2", "poll", "panel"
    QString role;   // empty when not about one role
    EventKind event = EventKind::Error;
    qint64 token = 0;
    QString detail;       // outcome, reason, error line, action; one line, no secret
    QString databaseTime; // the statement's now(), when known
    int repeats = 1;      // the same line again and again (a retry failing alike) counts here
    QDateTime lastTime;   // with repeats: when it was last seen (time stays the first)
};

// A role the demo's database has paused when the demo starts: the pause is its last run's (the
// cluster's directory is kept between runs, and with it every pause until it is unpaused).
struct LeftoverPause
{
    QString role;
    QString pausedBy;
    QString reason;
    QDateTime pausedAt;    // database clock
    QDateTime pausedUntil; // invalid: until unpaused
};

// A takeover that followed a fault from the panel, measured on the database clock: the victim's
// last heartbeat (its last expires_at minus the lease TTL) to the successor's acquired_at.
// ADR-114's failover bound: a dead leader's role is acquirable at most 10 s after its last
// heartbeat and running elsewhere at most 15 s after it.
inline constexpr double AcquirableBoundSeconds = 10.0;
inline constexpr double RunningElsewhereBoundSeconds = 15.0;

struct Failover
{
    QString role;
    QString fault;  // "kill r2", "freeze r1 20 s", ...
    QString victim; // replica id
    QString victimHolder;
    qint64 victimToken = 0;
    QString successor; // replica id, or the holder id when not hosted
    QString successorHolder;
    qint64 successorToken = 0;
    QDateTime faultAt;         // database clock
    QDateTime lastHeartbeatAt; // database clock; invalid after a clean stop (released instead)
    QDateTime releasedAt;      // database clock, after a clean stop
    QDateTime acquiredAt;      // database clock
    double gapSeconds = 0;     // acquiredAt minus lastHeartbeatAt (or releasedAt)

    // The new holder acquired within the ADR's bound of the old one's last heartbeat (a release
    // after a clean stop hands over at once, so it is always within).
    bool withinBound() const { return gapSeconds <= RunningElsewhereBoundSeconds; }
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::FaultRequest)
Q_DECLARE_METATYPE(leader::console::ReplicaInfo)
Q_DECLARE_METATYPE(leader::console::EventLogEntry)
Q_DECLARE_METATYPE(leader::console::Failover)
Q_DECLARE_METATYPE(leader::console::LeftoverPause)
