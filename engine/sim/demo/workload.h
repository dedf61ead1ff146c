#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace leader::pg {
class Connection;
}

namespace leader::demo {

struct WorkloadOptions
{
    // Tenants per second; each comes with one subscription, one webhook event and one email.
    double ratePerSecond = 10;
    // Both bounds always apply: the run ends at whichever comes first.
    std::int64_t count = 600;
    std::chrono::milliseconds duration{std::chrono::seconds(60)};
    // Subscriptions start one period ago and fall due within dueWithin, so billing runs at once.
    std::chrono::seconds period{60};
    std::chrono::seconds dueWithin{10};
    // One subscription in declineEvery gets an amount that is a multiple of 7, which the
    // simulated provider declines: dunning then has runs to work on.
    int declineEvery = 5;
};

enum class WorkloadEnd { Count, Duration, Stopped };

struct WorkloadCounts
{
    std::int64_t tenants = 0;
    std::int64_t subscriptions = 0;
    std::int64_t declining = 0; // subscriptions whose first charge declines
    std::int64_t webhookEvents = 0;
    std::int64_t emails = 0;
    WorkloadEnd end = WorkloadEnd::Count;
};

// Creates the demo domain's work at a steady rate. Each batch is one autocommit statement, so the
// workload runs unchanged through a transaction pooler. run() blocks on its own thread; stop() may
// be called from any thread.
class Workload final
{
public:
    // Throws std::invalid_argument for a rate, count or duration that is not positive.
    Workload(pg::Connection &connection, WorkloadOptions options);

    WorkloadCounts run();
    void stop();

private:
    bool waitUntil(std::chrono::steady_clock::time_point until); // false: stop() was called
    void insertBatch(std::int64_t first, std::int64_t size, WorkloadCounts &counts);

    pg::Connection &m_connection;
    const WorkloadOptions m_options;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopRequested = false;
};

} // namespace leader::demo
