#include "markerstate.h"

#include "constants.h"
#include "log/log.h"

#include <algorithm>

namespace leader::lease {

namespace {

// A row names an ended key until its holder's next RENEW, a few seconds at most: a handful of
// ended keys is all a replica needs to remember.
constexpr std::size_t RememberEnded = 16;

} // namespace

void MarkerState::connected(std::int64_t key)
{
    {
        const std::lock_guard lock(m_mutex);
        m_key = key;
        m_proven = true;
        m_aliveAt.store(Clock::now().time_since_epoch().count());
    }
    changed();
}

void MarkerState::proven(bool answered)
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_proven == answered)
            return;
        m_proven = answered;
    }
    changed();
}

void MarkerState::alive(Clock::time_point noEndBy)
{
    m_aliveAt.store(noEndBy.time_since_epoch().count());
}

void MarkerState::ended(std::int64_t key, Clock::time_point seenAt, bool announced)
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_key == key)
            m_key = 0;
        remember(key, seenAt).announced = announced;
    }
    changed();
}

MarkerState::Ended &MarkerState::remember(std::int64_t key, Clock::time_point seenAt) const
{
    while (m_ended.size() >= RememberEnded && !m_ended.contains(key)) {
        auto oldest = m_ended.begin();
        for (auto it = m_ended.begin(); it != m_ended.end(); ++it)
            if (it->second.seenAt < oldest->second.seenAt)
                oldest = it;
        m_ended.erase(oldest);
    }
    return m_ended.try_emplace(key, Ended{seenAt}).first->second;
}

void MarkerState::serverEnding(std::int64_t key)
{
    classify(key, Server::Ending);
}

void MarkerState::serverUp(std::int64_t key)
{
    classify(key, Server::Up);
}

void MarkerState::classify(std::int64_t key, Server server)
{
    {
        const std::lock_guard lock(m_mutex);
        const auto found = m_ended.find(key);
        if (found == m_ended.end() || found->second.server == server)
            return;
        found->second.server = server;
        if (server == Server::Up)
            countEnd(Clock::now());
    }
    changed();
}

void MarkerState::countEnd(Clock::time_point at)
{
    std::erase_if(m_endsWhileUp,
                  [at](Clock::time_point end) { return at - end > MarkerEndsWindow; });
    m_endsWhileUp.push_back(at);
    if (std::ssize(m_endsWhileUp) < MarkerEndsToSuspend
        || (m_suspension && at < m_suspension->until))
        return;
    const auto minutes = [](auto duration) {
        return std::to_string(std::chrono::duration_cast<std::chrono::minutes>(duration).count());
    };
    m_suspension = Suspension{
            at + MarkerSuspendFor, std::chrono::system_clock::now() + MarkerSuspendFor,
            "the marker session was ended " + std::to_string(m_endsWhileUp.size()) + " times in "
                    + minutes(MarkerEndsWindow)
                    + " min while the server lived on (a reaper, idle_session_timeout or a "
                      "proxy's idle cut?)"};
    m_endsWhileUp.clear();
    log::write(log::Level::Warning, "lease",
               "naming no marker for " + minutes(MarkerSuspendFor)
                       + " min: its leases end at their expiry only (the TTL path)",
               "reason=\"" + m_suspension->reason + "\"");
}

std::optional<MarkerState::Suspension> MarkerState::suspension() const
{
    const std::lock_guard lock(m_mutex);
    if (!m_suspension || Clock::now() >= m_suspension->until)
        return std::nullopt;
    return m_suspension;
}

void MarkerState::onChange(std::function<void()> callback)
{
    const std::lock_guard lock(m_mutex);
    m_onChange = std::move(callback);
}

void MarkerState::changed()
{
    std::function<void()> callback;
    {
        const std::lock_guard lock(m_mutex);
        callback = m_onChange;
    }
    if (callback)
        callback();
}

std::optional<std::int64_t> MarkerState::key() const
{
    const std::lock_guard lock(m_mutex);
    if (m_key == 0 || !m_proven || (m_suspension && Clock::now() < m_suspension->until))
        return std::nullopt;
    return m_key;
}

bool MarkerState::mayStart(std::int64_t named, Clock::time_point now) const
{
    if (named == 0)
        return true;
    const std::lock_guard lock(m_mutex);
    if (named == m_key)
        return now - Clock::time_point(Clock::duration(m_aliveAt.load())) <= MarkerFreshFor;
    const auto found = m_ended.find(named);
    return found != m_ended.end() && found->second.server == Server::Ending;
}

std::optional<MarkerState::Clock::time_point> MarkerState::repairBy(std::int64_t named) const
{
    if (named == 0)
        return std::nullopt;
    const std::lock_guard lock(m_mutex);
    if (named == m_key)
        return std::nullopt;
    // A key this replica never saw end (its listener stopped, say) ends for the row when first
    // asked about.
    const Ended &ended = remember(named, Clock::now());
    if (ended.server == Server::Ending || (ended.announced && ended.server == Server::Unknown))
        return std::nullopt;
    return ended.seenAt + MarkerRepairWithin;
}

} // namespace leader::lease
