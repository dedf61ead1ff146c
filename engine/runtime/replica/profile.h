#pragma once

#include "roles/role.h"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace leader::replica {

// How one role runs on a replica: its tick interval and its simulated work.
struct RoleProfile
{
    std::string role;
    std::chrono::milliseconds interval{1000};
    roles::RoleOptions options;
    // The tick keeps working for at least this long: after its body it pauses (RepeatEvery) and
    // runs the body again, claiming what has fallen due since, as a long billing run drains its
    // queue. A tick can so be caught mid-way, with claims still coming, whatever work is due.
    std::chrono::milliseconds minTick{0};
};

// A profile file is wrong; what() names the line and what to write instead.
class ProfileError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The demo profile: a billing tick lasts about 30 s (every minute), dunning a few seconds, and
// the three outbox roles about a second each, so a takeover can be seen mid-tick.
std::vector<RoleProfile> demoProfile();

// Reads "role.key = value" lines over base (blank lines and # comments allowed); keys interval,
// min_tick, item_latency (durations: 500ms, 3s, 2m, 1h) and batch (a positive integer). Throws
// ProfileError.
std::vector<RoleProfile> parseProfile(std::string_view text, std::vector<RoleProfile> base);

// The replica-wide line of a profile file, "early_take = on" or "off" (ReplicaOptions::earlyTake);
// nullopt when the file has none, the last one when it has several. parseProfile skips it. Throws
// ProfileError for another value.
std::optional<bool> parseEarlyTake(std::string_view text);

// "500ms", "3s", "2m", "1h", at most a year; throws std::invalid_argument.
std::chrono::milliseconds parseDuration(std::string_view text);

// Keeps the profiles of the named roles, in the order given. Throws ProfileError for a name that
// is not one of the five roles.
std::vector<RoleProfile> selectRoles(const std::vector<RoleProfile> &profiles,
                                     const std::vector<std::string> &roles);

} // namespace leader::replica
