#pragma once

#include "lease/events.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

namespace leader::test {

// Collects the transition events of one manager, for waiting on them from the test thread.
class EventRecorder final
{
public:
    explicit EventRecorder(lease::EventBus &bus)
    {
        bus.subscribe([this](const lease::TransitionEvent &event) {
            const std::lock_guard lock(m_mutex);
            m_events.push_back(event);
        });
    }
    std::optional<lease::TransitionEvent> last(lease::EventKind kind) const
    {
        const std::lock_guard lock(m_mutex);
        for (auto it = m_events.rbegin(); it != m_events.rend(); ++it)
            if (it->kind == kind)
                return *it;
        return std::nullopt;
    }
    int count(lease::EventKind kind) const
    {
        const std::lock_guard lock(m_mutex);
        return static_cast<int>(std::count_if(m_events.begin(), m_events.end(),
                                              [kind](const auto &e) { return e.kind == kind; }));
    }

private:
    mutable std::mutex m_mutex;
    std::vector<lease::TransitionEvent> m_events;
};

} // namespace leader::test
