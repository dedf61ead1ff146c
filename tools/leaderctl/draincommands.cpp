#include "draincommands.h"

#include "lease/draincontrol.h"
#include "output.h"
#include "pg/connection.h"
#include "schema/features.h"
#include "schema/migrator.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <thread>

namespace leaderctl {

namespace {

using namespace std::chrono_literals;

// How often --wait reads the registry: the replica reports within one of its beats of the last
// tick's end (at once, with the wake NOTIFY), so a reading a fifth of a second late costs little.
constexpr auto WaitPoll = 200ms;

std::string joined(const std::vector<std::string> &items)
{
    std::string text;
    for (const std::string &item : items)
        text += (text.empty() ? "" : ", ") + item;
    return text;
}

void requireDrain(leader::pg::Connection &connection)
{
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
    // A login that may not read leader_ext probes as "no extension": the call below then gets its
    // own refusal (a missing privilege), not "needs the extension".
    if (!features.extensionsHidden)
        leader::schema::requireExtension(connection, features, "draining a replica",
                                         leader::schema::Extension::ReplicaDrain);
}

// Holders outside the registry (0189) take no drain: the roles they were seen running go on
// running there, which the operator must hear from the drain itself.
void printOutsideHolders(leader::pg::Connection &connection, const std::string &replica)
{
    if (!leader::schema::probeFeatures(connection).has(leader::schema::Extension::AdrFleet))
        return;
    std::map<std::string, std::vector<std::string>> byRole;
    for (const leader::lease::OutsideHolder &holder :
         leader::lease::outsideHoldersOfReplica(connection, replica)) {
        char seen[64];
        std::snprintf(seen, sizeof seen, "%.1f s ago", holder.lastSeenAgeSeconds);
        byRole[holder.role].push_back(
                holder.holder
                + (holder.holdsNow ? " (holds it now)" : " (seen " + std::string(seen) + ")"));
    }
    for (const auto &[role, holders] : byRole)
        std::cout << "leaderctl: " << printable(role)
                  << " also runs on holders outside the registry, which take no drain: "
                  << printable(joined(holders)) << "\n";
}

} // namespace

std::optional<std::chrono::milliseconds> durationFrom(std::string_view text)
{
    long long amount = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
    if (error != std::errc() || amount < 0 || end == text.data())
        return std::nullopt;
    const std::string_view unit(end, text.data() + text.size() - end);
    if (unit == "ms")
        return std::chrono::milliseconds(amount);
    if (unit == "s")
        return std::chrono::seconds(amount);
    if (unit == "m")
        return std::chrono::minutes(amount);
    if (unit == "h")
        return std::chrono::hours(amount);
    return std::nullopt;
}

int drain(leader::pg::Connection &connection, const DrainOptions &options)
{
    requireDrain(connection);
    leader::lease::DrainRecord record;
    try {
        record = leader::lease::drainReplica(connection, options.replica, options.by,
                                             options.reason, options.force);
    } catch (const leader::lease::DrainRefused &refused) {
        std::cerr << "leaderctl: " << printable(refused.what()) << "\n";
        return DrainRefusedExit;
    }
    if (record.byThisCall)
        std::cout << "leaderctl: replica " << printable(record.name) << " drained at "
                  << printable(record.drainedAt) << " by " << printable(record.drainedBy)
                  << ": it starts no new tick; running ticks end as they would\n";
    else
        std::cout << "leaderctl: replica " << printable(record.name) << " was already drained at "
                  << printable(record.drainedAt) << " by " << printable(record.drainedBy) << ": "
                  << printable(record.reason) << "; nothing changed\n";
    if (!record.orphaned.empty())
        std::cout << "leaderctl: forced: " << printable(joined(record.orphaned))
                  << " now has no eligible replica and runs nowhere until one is undrained or "
                     "started\n";
    printOutsideHolders(connection, options.replica);
    if (!options.wait)
        return 0;
    std::cout.flush(); // what was done shows at once, also in a log, while --wait waits
    const auto until = std::chrono::steady_clock::now() + options.timeout;
    for (;;) {
        const leader::lease::DrainProgress progress
                = leader::lease::drainProgress(connection, options.replica);
        if (progress.drained) {
            std::cout << "leaderctl: replica " << printable(options.replica)
                      << " drained: it runs no tick\n";
            return 0;
        }
        if (std::chrono::steady_clock::now() >= until) {
            std::cerr << "leaderctl: replica " << printable(options.replica)
                      << " is not drained after " << options.timeout / 1ms << " ms; "
                      << (progress.running.empty()
                                  ? std::string("it has not reported since the drain")
                                  : "still running " + printable(joined(progress.running)))
                      << "\n";
            return DrainTimedOutExit;
        }
        std::this_thread::sleep_for(WaitPoll);
    }
}

int undrain(leader::pg::Connection &connection, const std::string &replica, const std::string &by,
            const std::string &reason)
{
    requireDrain(connection);
    const bool was = leader::lease::undrainReplica(connection, replica, by, reason);
    std::cout << "leaderctl: replica " << printable(replica)
              << (was ? " undrained: it starts ticks again" : " was not drained; nothing changed")
              << "\n";
    return 0;
}

} // namespace leaderctl
