#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace leader::console {

// A replica's drain (extension 0183): a drained one takes no role over, a draining one still
// runs a tick (lease::DrainState, mirrored by the poller).
enum class DrainState { Draining, Drained };
QString drainStateName(DrainState state); // the view's text: "draining", "drained"

// One replica of the registry (extension 0178), its instants, age and liveness the database's.
struct RegistryEntry
{
    QString holderId; // hostname:pid:8hex, as leader_status.holder_id names it
    QString host;
    int pid = 0;
    QString version;
    QStringList roles; // the roles it runs: those it could take over
    QDateTime startedAt;
    QDateTime lastSeen;
    double lastSeenAgeSeconds = 0;
    bool alive = false; // seen within 35 s, as leader_replicas_status decides, and no marker ended
    // The database ended its marker session (monitor::ReplicaRow::markerEnded): its process died.
    bool markerEnded = false;
    QString name; // its --id (extension 0182); empty: not recorded
    // Extension 0183: its drain, none when not drained; who drained it (as typed) and why.
    std::optional<DrainState> drain;
    QString drainedBy;
    QString drainReason;
    // Extension 0189: it names no marker until then (its marker session kept being ended while it
    // ran), and why; invalid when it names one. Its leases end at their expiry only meanwhile.
    QDateTime earlyTakeOffUntil;
    QString earlyTakeOffReason;
};

// A holder of a role outside the replica registry (extension 0189's leader_outside_holders): a
// replica that speaks only the ADR, or another tool's ACQUIRE. It takes no drain and no hand-over
// request. Ages and durations on the database clock.
struct OutsideHolder
{
    QString role;
    QString holderId;
    double lastSeenAgeSeconds = 0; // since its last ACQUIRE or RELEASE of the role
    bool holdsNow = false;
    double heldForSeconds = 0;             // while it holds: since its ACQUIRE
    std::optional<double> lastTickSeconds; // its last tick of the role seen to end
};

// Those seen in the last hour, as one read found them: most recently seen first.
struct OutsideHolders
{
    QList<OutsideHolder> holders;
    QString error; // one line when the read failed; holders is then empty
};

// One read of the registry, every few polls.
struct RegistrySnapshot
{
    // False on a database without the registry (extension 0178): the panel says so, and nothing
    // is an error.
    bool available = false;
    QString unavailable; // then: what it needs and how to add it, one line
    QList<RegistryEntry> replicas;
    QString error; // one line when the read failed; replicas is then empty
};

// What the Replicas tab asks of a replica's drain (extension 0183), and the answer.
enum class DrainAction {
    Check, // which roles draining it would leave with no eligible replica (read only)
    Drain, // refused, nothing written, when such a role exists and force is not given
    Undrain,
};

struct DrainResult
{
    DrainAction action = DrainAction::Check;
    QString replica; // its --id
    bool ok = false;
    QString error; // when not ok: one line; nothing was changed
    // Check: the roles draining it would leave with no eligible replica; Drain: those it left so,
    // forced, or (refused) those it would have.
    QStringList orphans;
    bool refused = false; // Drain: refused for orphans, since force was not given
    bool changed = false; // Drain: drained by this call; Undrain: it was drained
    // Check and Drain, with extension 0189: the holders outside the registry seen in the last hour
    // on the roles the replica runs. They take no drain, so those roles are not orphaned.
    OutsideHolders outside;
};

// A role handed over now from the status table (extension 0185), and how it went.
struct HandoverResult
{
    QString role;
    QString toReplica; // its --id; empty: any replica but the holder
    bool ok = false;
    QString error;        // when not ok: one line; nothing was written
    bool refused = false; // not held, paused, or a target not live, drained or holding it
    QString fromHolder;   // the holder asked to stop
    QDateTime at;         // the database's instant of the request
    // With extension 0189, read after the request: the holders outside the registry seen on the
    // role in the last hour. They ignore it: fromHolder among them runs its tick to its end.
    OutsideHolders outside;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::RegistrySnapshot)
Q_DECLARE_METATYPE(leader::console::HandoverResult)
Q_DECLARE_METATYPE(leader::console::DrainResult)
