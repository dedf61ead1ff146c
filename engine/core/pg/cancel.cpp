#include "cancel.h"

#include <libpq-fe.h>

#include <algorithm>
#include <system_error>

namespace leader::pg {

namespace {

// More stuck requests than this means the network to the server is gone: a further one would
// only add a thread that waits out the same TCP timeouts.
constexpr std::size_t MaxInFlight = 32;

} // namespace

CancelRequests &CancelRequests::instance()
{
    static CancelRequests requests;
    return requests;
}

CancelRequests::~CancelRequests()
{
    for (Request &request : m_requests)
        request.thread.join();
}

bool CancelRequests::waitUntilIdle(std::chrono::steady_clock::time_point deadline)
{
    std::unique_lock lock(m_mutex);
    return m_finished.wait_until(lock, deadline, [this] {
        return std::all_of(m_requests.begin(), m_requests.end(),
                           [](const Request &request) { return request.done->load(); });
    });
}

bool CancelRequests::waitFor(const std::shared_ptr<const std::atomic<bool>> &done,
                             std::chrono::steady_clock::time_point deadline)
{
    std::unique_lock lock(m_mutex);
    return m_finished.wait_until(lock, deadline, [&done] { return done->load(); });
}

std::shared_ptr<const std::atomic<bool>> CancelRequests::send(pg_cancel *cancel)
{
    const std::lock_guard lock(m_mutex);
    std::erase_if(m_requests, [](Request &request) {
        if (!request.done->load())
            return false;
        request.thread.join();
        return true;
    });
    if (m_requests.size() >= MaxInFlight) {
        PQfreeCancel(cancel);
        return nullptr;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    m_requests.reserve(m_requests.size() + 1); // so that no push_back throws past a started thread
    try {
        m_requests.push_back({done, std::thread([this, cancel, done] {
                                  char error[256];
                                  PQcancel(cancel, error, sizeof error);
                                  PQfreeCancel(cancel);
                                  {
                                      const std::lock_guard lock(m_mutex);
                                      done->store(true);
                                  }
                                  m_finished.notify_all();
                              })});
    } catch (const std::system_error &) {
        PQfreeCancel(cancel); // no thread: the caller drops its connection instead
        return nullptr;
    }
    return done;
}

} // namespace leader::pg
