#include "events.h"

#include <algorithm>

namespace leader::lease {

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
