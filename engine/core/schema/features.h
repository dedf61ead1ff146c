#pragma once

#include <string>
#include <string_view>

namespace leader::pg {
class Connection;
}

namespace leader::schema {

// The extension migrations by what they add (migrations/ext/).
enum class Extension {
    PauseNotify = 176,     // leader_pause and leader_unpause send the wake NOTIFY
    PauseLog = 177,        // leader_ext.leader_pause_log, pauses with an end, who unpaused and why
    ReplicaRegistry = 178, // leader_ext.leader_replicas
    HolderSession = 179,   // leader_leases.holder_session: the takeover at process death
    EarlyTakeSwitch = 180, // leader_leases.early_take
    DefinerHardening = 181,
    ReplicaNames = 182, // leader_replicas.name and marker_session: who a replica is, and its death
    ReplicaDrain = 183, // leader_ext.leader_replica_drains: drain a replica by name (issue 36)
    TickDetails = 184,  // leader_ext.leader_tick_record: what each tick did, in leader_status
    Handover = 185,     // leader_ext.leader_handover: hand a role over now (issue 36)
    Backlog = 186,      // leader_ext.leader_backlog: how much work waits, per role (issue 36)
    RegistryLockScan = 187, // leader_replicas_status reads pg_locks once per query (issue 37)
    BoardRead = 188, // leader_ext.leader_board: the read-first poll's read, planned once (issue 37)
    // Beside replicas that speak only the ADR (issue 50): markers bound to their lease, pauses
    // with an end held in not_before, the ADR's leader_status again and leader_ext.leader_status.
    AdrFleet = 189,
    // The second security review (issue 51): a hand-over request is leader_handover's alone (the
    // database clears it at the next ACQUIRE), backlog sources run only if leader_ext's owner's.
    SecondReview = 190,
};
inline constexpr Extension FirstExtension = Extension::PauseNotify;
inline constexpr int LatestExtension = static_cast<int>(Extension::SecondReview);
// What leader-replica refuses to start without; a later one it uses where the database has it.
inline constexpr Extension ReplicaNeeds = Extension::DefinerHardening;

// What a database offers, probed by the ADR's objects themselves (so a schema the application's
// own migration tool applied counts) and by leader_ext.migrations, which records every extension
// migration whoever applied it (leaderctl migrate or the application's tool through
// leaderctl migrate --print-sql).
struct LeaseFeatures
{
    bool leaseTable = false; // 0174: leader_leases, leader_fence, leader_status, leader_pause
    bool notBefore = false;  // 0175: leader_leases.not_before
    // The highest extension version applied with every one before it; 0 when none, or when the
    // login may not read leader_ext (extensionsHidden).
    int extension = 0;
    // leader_ext exists, but this login lacks USAGE on it or SELECT on leader_ext.migrations: a
    // login holding neither hardcount_app nor hardcount_monitor.
    bool extensionsHidden = false;
    // The extensions sit in the lease schema as leaderctl installed them before leader_ext
    // existed (its own schema_migrations): leaderctl migrate moves them.
    bool legacyLayout = false;

    bool adr() const { return leaseTable && notBefore; }
    bool has(Extension feature) const { return extension >= static_cast<int>(feature); }
    bool complete() const { return adr() && extension >= LatestExtension && !legacyLayout; }
};

// Never throws SchemaError; a dead server or a failed query throws pg::Error.
LeaseFeatures probeFeatures(pg::Connection &connection);

// The one line that says what a feature needs and how to add it, e.g.
// "pause history needs the extension leader_ext 0177 (the pause log); add it with leaderctl
// migrate, or through your migration tool: leaderctl migrate --print-sql --format FORMAT".
std::string extensionNeeded(std::string_view feature, Extension needed);

// Throws SchemaError unless the ADR's 0174 and 0175 are in place (the message names what is
// missing and that the application's migrations or leaderctl migrate add it).
void requireAdr(pg::Connection &connection, const LeaseFeatures &features);
// Throws SchemaError with extensionNeeded(feature, needed) unless it is applied; also when the
// legacy layout is still to be moved.
void requireExtension(pg::Connection &connection, const LeaseFeatures &features,
                      std::string_view feature, Extension needed);

} // namespace leader::schema
