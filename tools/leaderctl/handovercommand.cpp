#include "handovercommand.h"

#include "draincommands.h"
#include "lease/draincontrol.h"
#include "lease/handovercontrol.h"
#include "output.h"
#include "pg/connection.h"
#include "pg/error.h"
#include "schema/features.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

namespace leaderctl {

namespace {

using namespace std::chrono_literals;

// How often --wait reads the row: a successor holds it for its whole tick, and the time printed
// is the database's, from the handover to the ACQUIRE, whenever it is read.
constexpr auto WaitPoll = 50ms;

std::string seconds(double value)
{
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << value;
    return text.str();
}

} // namespace

int handover(leader::pg::Connection &connection, const HandoverOptions &options)
{
    const leader::schema::LeaseFeatures features = leader::schema::probeFeatures(connection);
    // A login that may not read leader_ext probes as "no extension": the call gets its own
    // refusal (a missing privilege) instead.
    if (!features.extensionsHidden)
        leader::schema::requireExtension(connection, features, "handing a role over",
                                         leader::schema::Extension::Handover);
    leader::lease::HandoverRecord record;
    try {
        record = leader::lease::handOver(connection, options.role, options.by, options.reason,
                                         options.to);
    } catch (const leader::pg::Error &error) {
        // The function's refusals of a state (not held, paused, a target not live or drained).
        if (error.sqlstate() != leader::pg::sqlstate::ObjectNotInPrerequisiteState)
            throw;
        std::cerr << "leaderctl: " << printable(leader::pg::explain(error)) << "\n";
        return DrainRefusedExit;
    }
    // Holders outside the registry (0189) speak only the ADR: the one asked runs its tick to its
    // end, and the others ignore the preference.
    std::vector<leader::lease::OutsideHolder> outside;
    if (features.has(leader::schema::Extension::AdrFleet))
        outside = leader::lease::outsideHolders(connection, options.role);
    const auto holderOutside
            = std::find_if(outside.begin(), outside.end(), [&](const auto &holder) {
                  return holder.holdsNow && holder.holder == record.fromHolder;
              });
    std::string asked;
    if (record.fromHolder.empty()) {
        asked = "it was not held";
    } else if (holderOutside == outside.end()) {
        asked = printable(record.fromHolder) + " ends its tick at its next step";
    } else {
        asked = printable(record.fromHolder)
                + " is outside the replica registry and does not take hand-over requests: its "
                  "tick ends when its work does";
        if (holderOutside->lastTickSeconds)
            asked += ", about "
                     + seconds(std::max(0.0, *holderOutside->lastTickSeconds
                                                     - holderOutside->heldForSeconds))
                     + " s from now (its last tick lasted "
                     + seconds(*holderOutside->lastTickSeconds) + " s)";
        asked += ", or at its lease's expiry if it stops renewing";
    }
    const auto others = std::count_if(outside.begin(), outside.end(), [&](const auto &holder) {
        return holder.holder != record.fromHolder;
    });
    std::string next
            = options.to ? "replica " + printable(*options.to) + " is preferred for the next tick"
                         : std::string("another replica takes the next tick");
    if (others > 0)
        next += " unless one of the " + std::to_string(others)
                + " holders outside the registry seen on it in the last hour takes it first "
                  "(they ignore the preference)";
    std::cout << "leaderctl: " << printable(options.role) << " handed over at "
              << printable(record.at) << " by " << printable(options.by) << ": " << asked << "; "
              << next << "\n";
    if (!options.wait)
        return 0;
    std::cout.flush(); // what was done shows at once, also in a log, while --wait waits
    const auto until = std::chrono::steady_clock::now() + options.timeout;
    for (;;) {
        if (const std::optional<leader::lease::HandoverSuccessor> successor
            = leader::lease::handoverSuccessor(connection, options.role, record)) {
            std::ostringstream seconds;
            seconds << std::fixed << std::setprecision(3) << successor->secondsAfter;
            std::cout << "leaderctl: " << printable(options.role) << " acquired by "
                      << printable(successor->holder) << " " << seconds.str()
                      << " s after the handover\n";
            return 0;
        }
        if (std::chrono::steady_clock::now() >= until) {
            std::cerr << "leaderctl: no other holder acquired " << printable(options.role)
                      << " within " << options.timeout / 1ms << " ms of the handover"
                      << (options.to ? "; is replica " + printable(*options.to) + " running it?"
                                     : std::string())
                      << "\n";
            return DrainTimedOutExit;
        }
        std::this_thread::sleep_for(WaitPoll);
    }
}

} // namespace leaderctl
