#include "leasewatch.h"

#include "pg/connection.h"
#include "pg/error.h"

namespace bench::chaos {

namespace {

using namespace std::chrono_literals;

// Short enough that no tick goes unseen: an outbox tick lasts at least its 1 s min_tick, and a
// tick taken early lasts until its successor's grace at the least.
constexpr auto PollEvery = 100ms;
constexpr auto RetryEvery = 500ms;
constexpr auto StatementTimeout = 2s;

} // namespace

LeaseWatch::LeaseWatch(std::string url)
    : m_url(std::move(url))
    , m_thread(&LeaseWatch::loop, this)
{}

LeaseWatch::~LeaseWatch()
{
    stop();
}

TookOver LeaseWatch::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    return m_seen;
}

void LeaseWatch::loop()
{
    leader::pg::Connection connection({.url = m_url, .applicationName = "chaos-bench lease watch"});
    for (auto wait = PollEvery;; wait = PollEvery) {
        try {
            const leader::pg::Result rows = connection.exec(
                    "took over",
                    "SELECT role, holder_token, coalesce(took_over, '') FROM leader_leases "
                    "WHERE holder_id IS NOT NULL",
                    {}, StatementTimeout);
            const std::lock_guard lock(m_mutex);
            for (int row = 0; row < rows.rows(); ++row)
                m_seen.try_emplace({std::string(rows.text(row, 0)), rows.toInt64(row, 1)},
                                   rows.text(row, 2));
        } catch (const leader::pg::Error &) {
            // A database event: the next poll reconnects.
            connection.close();
            wait = RetryEvery;
        }
        std::unique_lock lock(m_mutex);
        if (m_wake.wait_for(lock, wait, [this] { return m_stopping; }))
            return;
    }
}

} // namespace bench::chaos
