#include "platform/socketwait.h"

#include <cerrno>

#include <poll.h>

namespace leader::platform {

WaitResult waitSocket(int socket, WaitFor direction, std::chrono::milliseconds timeout)
{
    pollfd entry{socket, static_cast<short>(direction == WaitFor::Read ? POLLIN : POLLOUT), 0};
    const int millis = timeout.count() < 0 ? 0 : static_cast<int>(timeout.count());
    const int ready = ::poll(&entry, 1, millis);
    // Errors and hang-ups surface in libpq's next read; an interrupted wait is a spurious wake-up
    // after which the caller recomputes its remaining time.
    if (ready > 0 || (ready < 0 && errno == EINTR))
        return WaitResult::Ready;
    return ready == 0 ? WaitResult::TimedOut : WaitResult::Failed;
}

} // namespace leader::platform
