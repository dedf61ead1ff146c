#pragma once

#include "pg/conninfo.h"
#include "runtypes.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace leader::pg {
class Connection;
}

namespace leader::demo {

// Measures the takeovers one fault causes, on the database clock, by watching leader_leases over
// its own connection (never a replica's, which the fault may have cut). arm() reads the roles the
// victim holds just before the fault; start() then polls until another holder has each of them,
// or the deadline passes. The successor's acquisition and a clean stop's release also come from
// the hosted replicas' events, since a short tick can start and end between two polls.
class TakeoverWatch final
{
public:
    struct Options
    {
        pg::ConnectOptions database;
        std::string fault; // "kill r2"
        std::string victim;
        std::string victimHolder;
        // A clean stop releases: the gap is measured from the release, not the last heartbeat.
        bool cleanStop = false;
        std::chrono::milliseconds pollEvery{200};
        std::chrono::milliseconds deadline{40000};
    };

    // Called on the watch's thread.
    struct Callbacks
    {
        // The replica id of a holder id; empty: not hosted.
        std::function<std::string(const std::string &holderId)> replicaOf;
        std::function<void(const Takeover &)> measured;
        std::function<void(const std::string &role, const std::string &message)> missed;
        std::function<void()> finished; // the last call from the watch's thread
    };

    TakeoverWatch(Options options, Callbacks callbacks);
    ~TakeoverWatch(); // stops the watch and joins its thread
    TakeoverWatch(const TakeoverWatch &) = delete;
    TakeoverWatch &operator=(const TakeoverWatch &) = delete;

    // Reads the roles the victim holds now and the database clock; call it just before injecting
    // the fault, on any one thread. Throws pg::Error. Returns the roles held (may be empty).
    std::vector<std::string> arm();
    // Watches on a thread of its own; finished() is called once at the end, also with no roles.
    void start();
    // Ends the watch at once, a statement in flight included; any thread.
    void stop();

    // From the hosted replicas' events, any thread.
    void noteAcquired(const std::string &role, std::int64_t token, const std::string &holderId,
                      const std::string &databaseTime);
    void noteReleased(const std::string &role, std::int64_t token, const std::string &databaseTime);

    static Takeover::Time fromEpoch(double seconds);

private:
    struct Watched
    {
        std::string role;
        std::int64_t token = 0;
        double lastExpires = 0;
        std::optional<double> releasedAt;
        bool done = false;
    };
    struct Noted
    {
        bool acquired = false;
        std::string role;
        std::int64_t token = 0;
        std::string holderId;
        std::string databaseTime;
    };

    void run();
    bool poll(); // false once every role is done
    void report(Watched &watched, std::int64_t token, const std::string &holderId,
                double acquiredAt);

    Options m_options;
    Callbacks m_callbacks;
    std::stop_source m_stop; // ends the wait and a statement in flight
    std::unique_ptr<pg::Connection> m_connection;
    std::vector<Watched> m_watched;
    double m_faultAt = 0;

    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::vector<Noted> m_noted;
    std::jthread m_thread; // last: joined before the members it uses go
};

} // namespace leader::demo
