#pragma once

#include "log/nametable.h"

#include <array>
#include <string_view>

// What kind of failure an error from the server or libpq is: the one place that learns it from
// SQLSTATEs and libpq's English texts, so that callers and the console compare a kind.
namespace leader::pg {

enum class FailureKind {
    Other,           // none of these: the text says what happened
    Authentication,  // the login was refused: 28P01, 28000, or libpq's and PgBouncer's wording
    DatabaseMissing, // 3D000, or libpq's "database ... does not exist"
    Unreachable,     // no session was made: refused, unknown host, no route, connect timeout
    Timeout,         // the client-side deadline passed before the server answered
    Closed,          // the server or the network ended the session: 57P*, 08*, a broken link
    Schema,          // the lease schema lacks a table, function or column: 42P01, 42883, 42703
    Privilege,       // 42501, or a privilege found missing before a statement was sent
    // 55000 (object_not_in_prerequisite_state): the database refused the request as things
    // stand, nothing was written: a drain orphaning roles, a hand-over of a role not held.
    Refused,
};

inline constexpr std::array<Named<FailureKind>, 9> FailureKindNames{{
        {FailureKind::Other, "other"},
        {FailureKind::Authentication, "authentication"},
        {FailureKind::DatabaseMissing, "database_missing"},
        {FailureKind::Unreachable, "unreachable"},
        {FailureKind::Timeout, "timeout"},
        {FailureKind::Closed, "closed"},
        {FailureKind::Schema, "schema"},
        {FailureKind::Privilege, "privilege"},
        {FailureKind::Refused, "refused"},
}};
static_assert(namesEveryValue(FailureKindNames));

constexpr std::string_view nameOf(FailureKind kind)
{
    return nameIn<FailureKind>(FailureKindNames, kind);
}

// The kind of an Error: its SQLSTATE, state (empty when libpq failed before the server answered)
// and its text, whether the link broke (isTransport) and whether the deadline passed. Where
// several match, the earliest in the enum's order wins: libpq reports a refused login or connect
// as a transport error, whose text says more than the flag.
FailureKind classify(std::string_view state, std::string_view message, bool transport = false,
                     bool deadlineExceeded = false);

// Whether the server or the network ended the session (the SQLSTATE or libpq's words): the next
// statement needs a new one.
bool closedByServer(std::string_view state, std::string_view message);

// Whether an ended session's SQLSTATE announced the server going away: 57P01 (a shutdown, or
// pg_terminate_backend), 57P02 (a crash restart), 57P03 (not taking sessions now).
bool announcesServerEnd(std::string_view state);

// Whether a failed connect's message says the server itself is not taking sessions because its
// life is ending or beginning: libpq's text of the server's 57P03 (shutting down, starting up, in
// recovery) or of a refused connection (no postmaster). Matched on libpq's and the server's
// English texts; a server whose lc_messages is another language is not recognised, which only
// costs the lease holders their tick across a restart (cancelled as if the server lived on).
bool serverNotAccepting(std::string_view message);

// A few words for the SQLSTATEs an operator meets ("insufficient privilege"); empty for others.
std::string_view sqlstateMeaning(std::string_view state);

} // namespace leader::pg
