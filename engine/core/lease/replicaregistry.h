#pragma once

#include "log/nametable.h"
#include "pg/connection.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The replica registry (migration 0178): who could take over a role. Each replica refreshes its
// row every ReplicaSeenEvery and deletes it on a clean stop; both instants are the database's.
namespace leader::lease {

struct ReplicaInfo
{
    std::string holderId; // hostname:pid:8hex, as the replica's leases carry it
    std::string host;
    int pid = 0;
    std::string version;
    std::vector<std::string> roles; // the roles the replica runs
    // Recorded with migration 0182 only (schema::Extension::ReplicaNames). Its name as its
    // operator gave it (leader-replica --id); empty: none.
    std::string name;
    // The key its marker session holds (WakeListener): a row naming one reads gone as soon as no
    // session holds its lock. None without a marker.
    std::optional<std::int64_t> markerSession;
};

// leader_replicas_status.state: seen within 35 s (and, with 0182, its recorded marker held), or
// not.
enum class ReplicaState { Alive, Gone };

// With 0183: a drained replica takes no role over; a draining one still runs a tick of one.
enum class DrainState { Draining, Drained };

// The view's texts, which leaderctl replicas prints too.
inline constexpr std::array<Named<ReplicaState>, 2> ReplicaStateNames{{
        {ReplicaState::Alive, "alive"},
        {ReplicaState::Gone, "gone"},
}};
static_assert(namesEveryValue(ReplicaStateNames));

inline constexpr std::array<Named<DrainState>, 2> DrainStateNames{{
        {DrainState::Draining, "draining"},
        {DrainState::Drained, "drained"},
}};
static_assert(namesEveryValue(DrainStateNames));

constexpr std::string_view nameOf(ReplicaState state)
{
    return nameIn<ReplicaState>(ReplicaStateNames, state);
}

constexpr std::string_view nameOf(DrainState state)
{
    return nameIn<DrainState>(DrainStateNames, state);
}

// One row of leader_replicas_status. Instants ISO 8601 UTC with milliseconds, database clock.
struct RegisteredReplica
{
    ReplicaInfo replica;
    std::string startedAt;
    std::string lastSeen;
    double lastSeenAgeSeconds = 0;
    ReplicaState state = ReplicaState::Gone; // as the view decides
    std::string observedAt;
    // A session holds the replica's marker lock now (pg_locks, which every login may read): its
    // process lives. A replica without a marker (through a pooler, or with the early take off)
    // never reads true, so its absence alone proves nothing; see monitor::StatusReader::replicas.
    bool markerHeld = false;
    // With 0182: the row records a marker (replica.markerSession), so a marker not held proves its
    // process died, and the view's state says gone; for a reader that started after the death too.
    bool markerRecorded = false;
    // With 0183 (schema::Extension::ReplicaDrain): its drain as the view says, none when not
    // drained; who drained it, why, and while draining the roles whose tick still runs.
    std::optional<DrainState> drain;
    std::string drainedBy;
    std::string drainReason;
    std::vector<std::string> running;
    // With 0189 (earlyTakeOff): until when the replica names no marker (ISO 8601 UTC; empty when
    // it names one), and why. Its leases end at their expiry only meanwhile.
    std::string earlyTakeOffUntil;
    std::string earlyTakeOffReason;
};

// One statement: leader_replica_seen, which also deletes rows unseen for 24 h. named: the database
// has 0182, and the call records the replica's name and marker; else the five arguments of 0178.
// Throws pg::Error.
void replicaSeen(pg::Connection &connection, const ReplicaInfo &replica,
                 std::chrono::milliseconds timeout, const pg::StatementWindow &window = {},
                 bool named = false);
// Deletes the replica's row; false when there was none. Throws pg::Error.
bool replicaGone(pg::Connection &connection, std::string_view holderId,
                 std::chrono::milliseconds timeout, const pg::StatementWindow &window = {});
// With 0189: the replica names no marker for the next `off` (its marker kept being ended while it
// ran), and why; nullopt: it names its marker again. Throws pg::Error.
void replicaEarlyTakeOff(pg::Connection &connection, std::string_view holderId,
                         std::optional<std::chrono::milliseconds> off, std::string_view reason,
                         std::chrono::milliseconds timeout);

// Every registered replica, by host and holder id; nullopt when the database has no registry (an
// older schema, without 0178). named: the database has 0182, and the rows carry each replica's name
// and marker. Throws pg::Error for anything else, a missing privilege included.
// drains: the database has 0183 too (named then as well), and the rows carry each one's drain.
// earlyTakeOff: the database has 0189 too (named and drains then as well), and the rows say
// whether the replica names no marker for now.
std::optional<std::vector<RegisteredReplica>> listReplicas(pg::Connection &connection,
                                                           bool named = false, bool drains = false,
                                                           bool earlyTakeOff = false);

} // namespace leader::lease
