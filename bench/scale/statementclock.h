#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

// The round trip of every statement this process sends, from libpq's send to its first result, by
// the kind of statement. The scale host is linked with -Wl,--wrap for PQsendQueryParams and
// PQgetResult, so the engine's own statements are timed unchanged: no hook in the engine, and the
// figure is the statement's alone (the pool and any reconnect are outside it, a pooler's queue
// inside it).
namespace bench::scale {

enum class StatementKind : std::uint8_t {
    Acquire,
    Renew,
    Release,
    Read,     // the wait read: "until acquirable", per role or for all of a replica's roles
    Registry, // leader_ext.leader_replica_seen / leader_ext.leader_replica_gone
    Other,    // the schema checks at start, a loss reason
};
inline constexpr int StatementKinds = 6;

constexpr std::string_view kindName(StatementKind kind)
{
    switch (kind) {
    case StatementKind::Acquire:
        return "acquire";
    case StatementKind::Renew:
        return "renew";
    case StatementKind::Release:
        return "release";
    case StatementKind::Read:
        return "read";
    case StatementKind::Registry:
        return "registry";
    case StatementKind::Other:
        break;
    }
    return "other";
}

struct StatementSample
{
    std::chrono::steady_clock::time_point sentAt; // CLOCK_MONOTONIC: the same in every process
    float milliseconds = 0;
    StatementKind kind = StatementKind::Other;
    bool failed = false; // the first result was an error (a cancelled deadline among them)
};

// A copy of every sample so far.
std::vector<StatementSample> statementSamples();

} // namespace bench::scale
