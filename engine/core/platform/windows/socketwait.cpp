#include "platform/socketwait.h"

#include "win32.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace leader::platform {

WaitResult waitSocket(int socket, WaitFor direction, std::chrono::milliseconds timeout)
{
    // libpq hands its SOCKET out as an int (PQsocket) and has started Winsock itself.
    WSAPOLLFD entry{static_cast<SOCKET>(static_cast<std::intptr_t>(socket)),
                    static_cast<SHORT>(direction == WaitFor::Read ? POLLRDNORM : POLLWRNORM), 0};
    const INT millis = static_cast<INT>(
            std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, INT_MAX));
    const int ready = ::WSAPoll(&entry, 1, millis);
    // Errors and hang-ups surface in libpq's next read.
    if (ready > 0)
        return WaitResult::Ready;
    return ready == 0 ? WaitResult::TimedOut : WaitResult::Failed;
}

} // namespace leader::platform
