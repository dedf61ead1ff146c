#include "workload.h"

#include "pg/connection.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace leader::demo {

namespace {

using namespace std::chrono_literals;

// Statements stay small at high rates, and a slow rate still creates its first tenant at once.
constexpr std::int64_t MaxBatch = 500;
constexpr auto MinGap = 50ms;

// $1 first sequence number, $2 batch size, $3 period s, $4 due within s, $5 decline every.
constexpr std::string_view BatchSql = R"sql(
WITH numbered AS (
    SELECT n, CASE WHEN n % $5::int = 0 THEN 7 * (100 + n % 50)
                   ELSE 7 * (100 + n % 50) + 1 + n % 6 END AS amount
      FROM generate_series($1::bigint, $1::bigint + $2::bigint - 1) n
), t AS (
    INSERT INTO tenants (name) SELECT 'demo tenant ' || n FROM numbered ORDER BY n
    RETURNING id, name
), s AS (
    INSERT INTO subscriptions (tenant_id, amount_cents, period_seconds, period_start,
                               next_billing_at)
    SELECT t.id, numbered.amount, $3::int, now() - $3::int * interval '1 second',
           now() + random() * $4::int * interval '1 second' + interval '1 millisecond'
      FROM t JOIN numbered ON t.name = 'demo tenant ' || numbered.n
    RETURNING amount_cents
), e AS (
    INSERT INTO webhook_events (tenant_id, kind, payload)
    SELECT id, 'tenant.created', jsonb_build_object('tenant_id', id) FROM t
    RETURNING id
), m AS (
    INSERT INTO email_outbox (tenant_id, kind, recipient)
    SELECT id, 'welcome', 'owner@tenant-' || id || '.example' FROM t
    RETURNING id
)
SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM s),
       (SELECT count(*) FROM s WHERE amount_cents % 7 = 0), (SELECT count(*) FROM e),
       (SELECT count(*) FROM m)
)sql";

} // namespace

Workload::Workload(pg::Connection &connection, WorkloadOptions options)
    : m_connection(connection)
    , m_options(options)
{
    if (!(m_options.ratePerSecond > 0) || !std::isfinite(m_options.ratePerSecond))
        throw std::invalid_argument("the workload's rate must be a positive number per second");
    if (m_options.count <= 0)
        throw std::invalid_argument("the workload's count must be positive");
    if (m_options.duration <= 0ms)
        throw std::invalid_argument("the workload's duration must be positive");
    if (m_options.period <= 0s || m_options.dueWithin < 0s || m_options.declineEvery <= 0)
        throw std::invalid_argument("the workload's period and decline ratio must be positive");
}

WorkloadCounts Workload::run()
{
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = start + m_options.duration;
    WorkloadCounts counts;
    Clock::time_point wake = start;
    for (;;) {
        if (!waitUntil(std::min(deadline, wake))) {
            counts.end = WorkloadEnd::Stopped;
            return counts;
        }
        const Clock::time_point now = Clock::now();
        if (now >= deadline) {
            counts.end = WorkloadEnd::Duration;
            return counts;
        }
        // Steady rate: by elapsed time t, 1 + rate * t tenants exist, never more than count.
        const double elapsed = std::chrono::duration<double>(now - start).count();
        const auto due = std::min<std::int64_t>(
                m_options.count,
                1 + static_cast<std::int64_t>(std::floor(m_options.ratePerSecond * elapsed)));
        if (due > counts.tenants)
            insertBatch(counts.tenants + 1, std::min(due - counts.tenants, MaxBatch), counts);
        if (counts.tenants >= m_options.count) {
            counts.end = WorkloadEnd::Count;
            return counts;
        }
        const auto next
                = start
                  + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                          static_cast<double>(counts.tenants) / m_options.ratePerSecond));
        wake = std::max(next, Clock::now() + MinGap);
    }
}

void Workload::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
}

bool Workload::waitUntil(std::chrono::steady_clock::time_point until)
{
    std::unique_lock lock(m_mutex);
    return !m_wake.wait_until(lock, until, [this] { return m_stopRequested; });
}

void Workload::insertBatch(std::int64_t first, std::int64_t size, WorkloadCounts &counts)
{
    const pg::Result result
            = m_connection.exec("workload batch", BatchSql,
                                {first, size, m_options.period.count(), m_options.dueWithin.count(),
                                 m_options.declineEvery},
                                10s);
    counts.tenants += result.toInt64(0, 0);
    counts.subscriptions += result.toInt64(0, 1);
    counts.declining += result.toInt64(0, 2);
    counts.webhookEvents += result.toInt64(0, 3);
    counts.emails += result.toInt64(0, 4);
}

} // namespace leader::demo
