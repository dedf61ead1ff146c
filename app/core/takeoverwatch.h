#pragma once

#include "demotypes.h"
#include "pg/conninfo.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

namespace leader::pg {
class Connection;
}

namespace leader::console {

// Measures the takeovers one fault causes, on the database clock, by watching leader_leases over
// its own connection (never a replica's, which the fault may have cut). arm() reads the roles the
// victim holds just before the fault; start() then polls until another holder has each of them,
// or the deadline passes. The successor's acquisition and a clean stop's release also come from
// the hosted replicas' events, since a short tick can start and end between two polls.
class TakeoverWatch final
{
    Q_DISABLE_COPY_MOVE(TakeoverWatch)

public:
    struct Options
    {
        pg::ConnectOptions database;
        QString fault; // "kill r2"
        QString victim;
        QString victimHolder;
        // A clean stop releases: the gap is measured from the release, not the last heartbeat.
        bool cleanStop = false;
        std::chrono::milliseconds pollEvery{200};
        std::chrono::milliseconds deadline{40000};
    };

    // Called on the watch's thread.
    struct Callbacks
    {
        std::function<QString(const QString &holderId)> replicaOf; // empty string: not hosted
        std::function<void(const Failover &)> measured;
        std::function<void(const QString &role, const QString &message)> missed;
        std::function<void()> finished;
    };

    TakeoverWatch(Options options, Callbacks callbacks);
    ~TakeoverWatch(); // stops the watch and joins its thread

    // Reads the roles the victim holds now and the database clock; call it just before injecting
    // the fault, on any one thread. Throws pg::Error. Returns the roles held (may be empty).
    QStringList arm();
    // Watches on a thread of its own; finished() is called once at the end, also with no roles.
    void start();
    void stop();

    // From the hosted replicas' events, any thread.
    void noteAcquired(const QString &role, qint64 token, const QString &holderId,
                      const QString &databaseTime);
    void noteReleased(const QString &role, qint64 token, const QString &databaseTime);

    static QDateTime fromEpoch(double seconds);

private:
    struct Watched
    {
        QString role;
        qint64 token = 0;
        double lastExpires = 0;
        std::optional<double> releasedAt;
        bool done = false;
    };
    struct Noted
    {
        bool acquired = false;
        QString role;
        qint64 token = 0;
        QString holderId;
        QString databaseTime;
    };

    void run();
    bool poll(); // false once every role is done
    void report(Watched &watched, qint64 token, const QString &holderId, double acquiredAt);

    Options m_options;
    Callbacks m_callbacks;
    std::stop_source m_stop; // ends a statement in flight when the watch is stopped
    std::unique_ptr<pg::Connection> m_connection;
    QList<Watched> m_watched;
    double m_faultAt = 0;

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopRequested = false;
    QList<Noted> m_noted;
    std::thread m_thread;
};

} // namespace leader::console
