#pragma once

#include "outcome.h"
#include "pg/connection.h"
#include "pg/error.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leader::lease {

// The four statements of ADR-114 as amended (0175: not_before). Each is one autocommit statement
// on the database clock: no SET, no session state, no BEGIN, so any pooled connection serves.

// RETURNING now() lets the manager observe database-vs-host clock drift; it is never compared
// with a database timestamp to decide anything.
struct DatabaseNow
{
    std::string text;        // as the database prints it
    double epochSeconds = 0; // the same instant as a number
};

struct Acquired
{
    std::int64_t token = 0;
    DatabaseNow now;
    // The marker the row names from now on: the caller's key when the statement found its lock
    // held and the role's early take is on (migration 0180), else 0 (the lease ends at its expiry
    // only, and the holder has no marker to keep).
    std::int64_t session = 0;
};

struct Renewed
{
    DatabaseNow now;
    std::int64_t session = 0; // as Acquired::session
    // With handovers: leader_handover (extension 0185) asked this tick to hand the role over.
    bool handover = false;
};

// A holder's marker session (migration 0179): the advisory lock key its session holds for the
// life of its process, on the server incarnation where that lock was seen held. Nobody holding
// the key there any more means the holder's process is gone.
struct HolderSession
{
    std::int64_t key = 0;
    std::int64_t incarnation = 0;
};

// What ACQUIRE announces on the leader_leases channel when it records a marker ("held ROLE KEY
// INCARNATION"), so that every contender can wait for that marker's end from the instant the tick
// began; other payloads on the channel are a role's name.
struct HeldAnnouncement
{
    std::string role;
    HolderSession holder;
};
std::optional<HeldAnnouncement> parseHeldAnnouncement(std::string_view payload);

// Which extensions' columns ACQUIRE and RENEW name. handovers: 0185's (the statement honours and
// clears a handover's preference, docs/handover.md; RENEW says whether the tick is asked to hand
// over). markerTokens: 0189's holder_session_token, so that a recorded marker names this lease
// only, and only a marker recorded for the row's own token is taken early.
// handoversClearedByDatabase: 0190's trigger clears a request when the token moves, and the app
// may not write the request's columns, so ACQUIRE does not name them in its SET. The defaults are
// a database with every extension but the handover.
struct StatementShape
{
    bool handovers = false;
    bool markerTokens = true;
    bool handoversClearedByDatabase = false;
};

// 1 row: this holder leads the role for this tick. nullopt: not due, held, paused or cooling.
// session: this holder's marker key, recorded only if the statement finds it held and the role's
// early take is on; a recorded marker is announced on the leader_leases channel ("held ROLE KEY
// INCARNATION"), so that contenders can wait for its end at once. A held row whose marker nobody
// holds any more is taken before its expiry (the caller waits EarlyTakeGrace after it saw the
// marker end). heldBy, when given, is set to the marker of the live holder that kept the role
// (when it has one and the early take is on).
std::optional<Acquired> acquire(pg::Connection &connection, std::string_view role,
                                std::string_view holderId, std::chrono::milliseconds interval,
                                std::optional<std::int64_t> session = std::nullopt,
                                std::optional<HolderSession> *heldBy = nullptr,
                                StatementShape shape = {});

// The database's now() when the lease was extended, and the marker the row names from now on;
// nullopt is definite loss (taken over, released or paused). A thrown pg::Error is a missed beat,
// not a loss. session as for acquire: none un-names the marker, so that the lease ends at its
// expiry only. Renewed::handover says whether the tick is asked to hand the role over (with
// shape.handovers).
std::optional<Renewed> renew(pg::Connection &connection, std::string_view role, std::int64_t token,
                             std::string_view holderId, const pg::StatementWindow &window = {},
                             std::optional<std::int64_t> session = std::nullopt,
                             StatementShape shape = {});

// What a statement naming 0185's handover columns (acquire and renew with handovers, the board's
// read) meets once 0185 is undone under a running replica: 42703 on one of those columns, whose
// name the server quotes in any language.
bool handoverColumnsGone(const pg::Error &error);
// The same for 0189's holder_session_token.
bool markerTokenColumnGone(const pg::Error &error);
// What an ACQUIRE that clears a request itself meets once 0190 is applied under a running
// replica: 42501, the app may no longer write the request's columns.
bool handoverColumnsClosed(const pg::Error &error);

// What RELEASE needs to know of the tick it ends.
struct Release
{
    std::string_view role;
    std::int64_t token = 0;
    std::string_view holderId;
    Outcome outcome = Outcome::Completed;
    std::chrono::milliseconds interval{0};
    // How long after the tick ended this attempt goes out: a retried RELEASE shortens the
    // cooldown by it, so the cooldown still ends where it would have.
    std::chrono::milliseconds sinceEnd{0};
};

// The database's now() when this token still held the row and released it; nullopt when the
// row was no longer this holder's token.
std::optional<DatabaseNow> release(pg::Connection &connection, const Release &tick);

// What one tick did, for leader_ext.leader_tick_record (extension 0184): sent after RELEASE.
struct TickRecord
{
    std::string_view role;
    std::int64_t token = 0;
    std::string_view holderId;
    Outcome outcome = Outcome::Completed;
    std::optional<LossReason> lossReason; // when lost
    std::chrono::milliseconds duration{0};
    std::string_view failedStep; // the step guard's path of the first step that failed
    std::string_view error;      // its error's first line; the function masks secrets again
};

// true when recorded; false when the function refused it (a token not issued for the role, or
// not newer than the one recorded). A pg::Error is the caller's to ignore: a record never
// affects the lease.
bool recordTick(pg::Connection &connection, const TickRecord &tick,
                std::chrono::milliseconds timeout);

// SELECT leader_pause(...): returns paused_at as the database prints it.
std::string pause(pg::Connection &connection, std::string_view role, std::string_view by,
                  std::string_view reason);
// true when the role was paused and is now unpaused.
bool unpause(pg::Connection &connection, std::string_view role);

} // namespace leader::lease
