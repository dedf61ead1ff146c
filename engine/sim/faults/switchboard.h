#pragma once

#include "linkproxy.h"
#include "pg/conninfo.h"
#include "replica/faulthooks.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace leader::faults {

// What can go wrong with one replica, as faithfully as one process allows. Every database
// connection of the replica is routed through route(): its statements pass the switchboard's gate,
// and, for a TCP server, its bytes pass the replica's own LinkProxy.
//   kill    every statement from now on fails at once and the link is cut and its connections
//           dropped: nothing more reaches the database, no RELEASE (a process death);
//   freeze  every statement, RENEW and RELEASE included, blocks at its start for the duration and
//           then goes out as it was, from a leader that may have been replaced (SIGSTOP, a GC
//           pause), unless it is a tick's statement and the tick's abandon passed meanwhile;
//   sever   the link stops forwarding both ways, no FIN or RST, then heals (a blackholed network);
//   slow    the link adds latency each way;
//   panic   the named step of the role's next tick throws (scheduler::StepGuard::ArmedPanic).
// Thread-safe.
class Switchboard final : public replica::FaultHooks
{
public:
    Switchboard();
    ~Switchboard() override;
    Switchboard(const Switchboard &) = delete;
    Switchboard &operator=(const Switchboard &) = delete;

    // The options to connect with: the gate installed and, when the server is reached over TCP,
    // the URL pointed at this replica's link proxy (started on first use). Throws what
    // LinkProxy::start throws.
    pg::ConnectOptions route(pg::ConnectOptions options) override;
    // Whether the link faults (sever, slow) can act: false for a Unix-domain socket.
    bool hasLink() const;

    void kill() override;
    bool isKilled() const;
    void freeze(std::chrono::milliseconds duration);
    // Throw std::logic_error when the replica has no link (see hasLink()).
    void sever(std::chrono::milliseconds duration);
    void slow(std::chrono::milliseconds latency);
    // Ends a freeze, a cut and a slow link at once; a kill stays.
    void heal();
    // Arms a panic for the role's next tick: its first step whose name starts with step throws.
    // An empty step panics the tick's first step.
    void armPanic(std::string role, std::string step) override;
    // Disarms and returns the role's armed step, if any: called by the role's runner at the start
    // of a tick.
    std::optional<std::string> takePanic(std::string_view role) override;

    // What is in force now, read at once: whether anything is (a kill, a freeze, a cut, a slow
    // link, an armed panic), and one line saying what ("normal", "frozen 12.3 s", "severed",
    // "slow 200 ms", ...). Callers test faulted; the line is for display.
    struct Condition
    {
        bool faulted = false;
        std::string description;
    };
    Condition condition() const;
    std::string describe() const { return condition().description; }

    // The gate every routed statement passes (pg::ConnectOptions::gate).
    void gate();

private:
    using Clock = std::chrono::steady_clock;

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_killed = false;
    std::optional<Clock::time_point> m_frozenUntil;
    std::map<std::string, std::string, std::less<>> m_panics;

    std::unique_ptr<LinkProxy> m_link; // created by the first route() to a TCP server
};

} // namespace leader::faults
