#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct pg_cancel;

namespace leader::pg {

// Cancel requests in flight. PQcancel blocks on a connection of its own to the server, which a
// blackholed link can stall until the TCP timeouts it inherits from the cancelled connection
// (tcp_user_timeout for the connect and the send, the keepalives for the wait for the server's
// close: libpq 15 applies both), so it never runs on a caller's thread. Every request runs on a
// thread this object owns: finished ones are joined when the next request starts, the rest when
// the process exits, each within those TCP bounds (or when a fault-injecting link proxy heals or
// stops). No thread is detached.
class CancelRequests final
{
public:
    static CancelRequests &instance();
    ~CancelRequests();
    CancelRequests(const CancelRequests &) = delete;
    CancelRequests &operator=(const CancelRequests &) = delete;

    // Sends the request in the background and takes ownership of cancel. The flag turns true once
    // the server has taken the request (or the attempt failed), after which a late cancel can no
    // longer hit a later statement of the same session. Null when too many requests are stuck
    // already: the caller then drops its connection instead, which ends the session as surely.
    std::shared_ptr<const std::atomic<bool>> send(pg_cancel *cancel);
    // Waits until no request is in flight, at most until deadline; returns whether none is. A
    // process that promises a bounded exit calls it before it returns from main, so that the
    // joins at exit find every thread finished.
    bool waitUntilIdle(std::chrono::steady_clock::time_point deadline);
    // Waits until the request whose flag send() returned is done, at most until deadline; returns
    // whether it is.
    bool waitFor(const std::shared_ptr<const std::atomic<bool>> &done,
                 std::chrono::steady_clock::time_point deadline);

private:
    CancelRequests() = default;

    struct Request
    {
        std::shared_ptr<std::atomic<bool>> done;
        std::thread thread;
    };
    std::mutex m_mutex;
    std::condition_variable m_finished;
    std::vector<Request> m_requests;
};

} // namespace leader::pg
