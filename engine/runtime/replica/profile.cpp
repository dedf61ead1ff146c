#include "profile.h"

#include "lease/roles.h"

#include <algorithm>
#include <charconv>

namespace leader::replica {

namespace {

using namespace std::chrono_literals;

constexpr std::chrono::milliseconds MaxDuration = std::chrono::hours(24 * 366);

std::string_view trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

// Takes the next line off text, without its comment and surrounding blanks.
std::string_view nextLine(std::string_view &text)
{
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
        line = line.substr(0, hash);
    return trimmed(line);
}

constexpr std::string_view EarlyTakeKey = "early_take";

// A line that sets the replica as a whole rather than a role: "early_take = off".
bool isReplicaSetting(std::string_view line)
{
    const auto equals = line.find('=');
    return equals != std::string_view::npos && trimmed(line.substr(0, equals)) == EarlyTakeKey;
}

} // namespace

std::vector<RoleProfile> demoProfile()
{
    // Each role at its default interval (lease::RoleTable), with the work its tick simulates.
    const auto at
            = [](lease::Role role, roles::RoleOptions options, std::chrono::milliseconds minTick) {
                  return RoleProfile{std::string(lease::nameOf(role)), lease::defaultInterval(role),
                                     options, minTick};
              };
    return {
            at(lease::Role::Billing, {.perItemLatency = 250ms, .batchSize = 10}, 30s),
            at(lease::Role::Dunning, {.perItemLatency = 300ms, .batchSize = 10}, 3s),
            at(lease::Role::WebhookOutbox, {.perItemLatency = 20ms, .batchSize = 50}, 1s),
            at(lease::Role::EmailOutbox, {.perItemLatency = 50ms, .batchSize = 20}, 1s),
            at(lease::Role::WebhookDelivery, {.perItemLatency = 50ms, .batchSize = 20}, 1s),
    };
}

std::chrono::milliseconds parseDuration(std::string_view text)
{
    text = trimmed(text);
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    const std::string_view unit(end, text.data() + text.size() - end);
    if (error != std::errc() || value < 0 || end == text.data())
        throw std::invalid_argument("not a duration");
    long long perUnit = 0;
    if (unit == "ms")
        perUnit = 1;
    else if (unit == "s")
        perUnit = 1000;
    else if (unit == "m")
        perUnit = 60 * 1000;
    else if (unit == "h")
        perUnit = 3600 * 1000;
    else
        throw std::invalid_argument("not a duration");
    // A longer interval would overflow the milliseconds here, or the database's interval type.
    if (value > MaxDuration.count() / perUnit)
        throw std::invalid_argument("longer than a year");
    return std::chrono::milliseconds(value * perUnit);
}

std::vector<RoleProfile> parseProfile(std::string_view text, std::vector<RoleProfile> base)
{
    int lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        const std::string_view line = nextLine(text);
        if (line.empty() || isReplicaSetting(line))
            continue;
        const std::string where = "line " + std::to_string(lineNumber) + ": ";
        const auto equals = line.find('=');
        const auto dot = line.find('.');
        if (equals == std::string_view::npos || dot == std::string_view::npos || dot > equals)
            throw ProfileError(where + "expected role.key = value, e.g. billing.interval = 60s");
        const std::string_view role = trimmed(line.substr(0, dot));
        const std::string_view key = trimmed(line.substr(dot + 1, equals - dot - 1));
        const std::string_view value = trimmed(line.substr(equals + 1));
        const auto profile = std::find_if(base.begin(), base.end(),
                                          [&](const RoleProfile &p) { return p.role == role; });
        if (profile == base.end())
            throw ProfileError(where + "unknown role \"" + std::string(role) + "\"; the roles are "
                               + lease::roleList());
        try {
            if (key == "interval")
                profile->interval = parseDuration(value);
            else if (key == "min_tick")
                profile->minTick = parseDuration(value);
            else if (key == "item_latency")
                profile->options.perItemLatency = parseDuration(value);
            else if (key == "batch") {
                int batch = 0;
                const auto [end, error]
                        = std::from_chars(value.data(), value.data() + value.size(), batch);
                if (error != std::errc() || end != value.data() + value.size() || batch <= 0)
                    throw std::invalid_argument("batch");
                profile->options.batchSize = batch;
            } else {
                throw ProfileError(where + "unknown key \"" + std::string(key)
                                   + "\"; the keys are interval, min_tick, item_latency, batch");
            }
        } catch (const std::invalid_argument &) {
            throw ProfileError(where + "\"" + std::string(value) + "\" is not a valid "
                               + std::string(key)
                               + (key == "batch" ? "; write a positive whole number"
                                                 : "; write a duration such as 500ms, 3s, 2m"));
        }
    }
    return base;
}

std::optional<bool> parseEarlyTake(std::string_view text)
{
    std::optional<bool> earlyTake;
    int lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        const std::string_view line = nextLine(text);
        if (!isReplicaSetting(line))
            continue;
        const std::string_view value = trimmed(line.substr(line.find('=') + 1));
        if (value != "on" && value != "off")
            throw ProfileError("line " + std::to_string(lineNumber) + ": \"" + std::string(value)
                               + "\" is not a valid early_take; write on or off");
        earlyTake = value == "on";
    }
    return earlyTake;
}

std::vector<RoleProfile> selectRoles(const std::vector<RoleProfile> &profiles,
                                     const std::vector<std::string> &roles)
{
    std::vector<RoleProfile> selected;
    for (const std::string &role : roles) {
        if (!lease::isKnownRole(role))
            throw ProfileError("unknown role \"" + role + "\"; the roles are " + lease::roleList());
        const auto profile = std::find_if(profiles.begin(), profiles.end(),
                                          [&](const RoleProfile &p) { return p.role == role; });
        if (profile != profiles.end()
            && std::none_of(selected.begin(), selected.end(),
                            [&](const RoleProfile &p) { return p.role == role; }))
            selected.push_back(*profile);
    }
    return selected;
}

} // namespace leader::replica
