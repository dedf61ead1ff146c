#pragma once

#include "lease/events.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace leader::replica {
class Replica;
struct DrainStatus;
} // namespace leader::replica

namespace leader::tools {

// Writes leader-replica's event stream: one JSON object per line, flushed at once, from any
// thread. Every line has ts (UTC, milliseconds), replica and event.
class EventWriter final
{
public:
    EventWriter(std::ostream &out, std::string replica, std::string holder);

    // database: where the replica connects, every server of a multi-host URL, no password.
    void started(const replica::Replica &replica, const std::string &database,
                 std::optional<int> metricsPort, const std::string &controlPath);
    // gate: "lease" or "advisory" (leader-replica --gate); earlyTake: whether its leases name a
    // marker session (fast wake and --early-take on).
    void started(const std::vector<std::string> &roles, bool fastWake, bool earlyTake,
                 const std::string &database, std::optional<int> metricsPort,
                 const std::string &controlPath, const std::string &gate);
    void transition(const lease::TransitionEvent &event);
    void fault(const std::string &command);
    // draining (with the roles still running), drained, or undrained; local: at a SIGTERM.
    void drain(const replica::DrainStatus &status);
    void stopped(const std::string &signal);

private:
    void line(const std::string &fields,
              std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

    std::mutex m_mutex;
    std::ostream &m_out;
    const std::string m_replica;
    const std::string m_holder;
};

} // namespace leader::tools
