#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace bench::chaos {

// How each lease was taken, read from leader_leases.took_over while it was held: "expired" (the
// TTL takeover), "session_ended" (the early take at its holder's marker's end) or "" (taken
// free). A replica's acquired line does not say; the row says it until the next ACQUIRE.
using TookOver = std::map<std::pair<std::string, std::int64_t>, std::string>;

// Reads leader_leases every PollEvery on a connection of its own, as the owner, from
// construction to stop(); database events only pause it. A lease held for less than PollEvery
// may go unseen: the checks count those as unclassified.
class LeaseWatch final
{
public:
    explicit LeaseWatch(std::string url);
    ~LeaseWatch();
    LeaseWatch(const LeaseWatch &) = delete;
    LeaseWatch &operator=(const LeaseWatch &) = delete;

    // Stops the polls and returns what they saw.
    TookOver stop();

private:
    void loop();

    const std::string m_url;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    TookOver m_seen;
    std::thread m_thread;
};

} // namespace bench::chaos
