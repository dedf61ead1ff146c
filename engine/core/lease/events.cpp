#include "events.h"

#include <algorithm>

namespace leader::lease {

std::string_view eventName(EventKind kind)
{
    switch (kind) {
    case EventKind::Acquired:
        return "acquired";
    case EventKind::Released:
        return "released";
    case EventKind::ReleaseFailed:
        return "release_failed";
    case EventKind::Lost:
        return "lost";
    case EventKind::LateBeat:
        return "late_beat";
    case EventKind::PausedObserved:
        return "paused_observed";
    }
    return "unknown";
}

int EventBus::subscribe(Subscriber subscriber)
{
    const std::lock_guard lock(m_mutex);
    m_subscribers.emplace_back(m_nextId, std::move(subscriber));
    return m_nextId++;
}

void EventBus::unsubscribe(int id)
{
    const std::lock_guard lock(m_mutex);
    std::erase_if(m_subscribers, [id](const auto &entry) { return entry.first == id; });
}

void EventBus::publish(const TransitionEvent &event) const
{
    const std::lock_guard lock(m_mutex);
    for (const auto &[id, subscriber] : m_subscribers)
        subscriber(event);
}

} // namespace leader::lease
