#pragma once

#include "lease/events.h"
#include "lease/outcome.h"
#include "log/nametable.h"

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// The kinds of line a leader-replica or a scale host prints about itself rather than about a
// lease; the lease transitions are leader::lease::EventKind.
enum class ProcessEvent {
    Started,   // leader-replica is up and connected
    Ready,     // the scale host started all its replicas
    Samples,   // the scale host's renew timings
    WorkEnded, // the scale host's work of one tick returned
    Fault,     // leader-replica applied a fault command
    Stopped,   // the process is stopping
};

// The one name table: what the "event" field of those lines says.
inline constexpr std::array<leader::Named<ProcessEvent>, 6> ProcessEventNames{{
        {ProcessEvent::Started, "started"},
        {ProcessEvent::Ready, "ready"},
        {ProcessEvent::Samples, "samples"},
        {ProcessEvent::WorkEnded, "work_ended"},
        {ProcessEvent::Fault, "fault"},
        {ProcessEvent::Stopped, "stopped"},
}};
static_assert(leader::namesEveryValue(ProcessEventNames));

constexpr std::string_view nameOf(ProcessEvent kind)
{
    return leader::nameIn<ProcessEvent>(ProcessEventNames, kind);
}

constexpr std::optional<ProcessEvent> processEventFromName(std::string_view name)
{
    return leader::valueIn<ProcessEvent>(ProcessEventNames, name);
}

// The fields of one leader-replica stdout line that the benchmark reads; absent ones stay empty.
struct ReplicaEvent
{
    int pid = 0; // the child that printed it: a restarted replica keeps its id, not its pid
    std::string replica;
    // What the line's "event" says: a lease transition, a line about the process itself, or
    // neither (absent or a name no table knows).
    std::optional<leader::lease::EventKind> transition;
    std::optional<ProcessEvent> process;
    std::string role;
    std::optional<std::int64_t> token;
    std::optional<leader::lease::Outcome> outcome;   // absent or a name no table knows: none
    std::optional<leader::lease::LossReason> reason; // the same
    std::string holder;
    std::optional<bool> fastWake;
    std::string ts;                    // the replica's UTC wall clock, as printed
    std::optional<double> tsEpoch;     // the same, in seconds since the epoch
    std::string dbTime;                // the statement's now(), as the database printed it
    std::optional<double> dbTimeEpoch; // the same, in seconds since the epoch
    // This host's wall clock when the line arrived, in seconds since the epoch; 0 when the reader
    // did not stamp it. For lines without db_time from a replica whose own clock is skewed.
    double receivedAt = 0;
    std::string line; // the whole line, for the logs
};

// The value of "key": in one JSON object on one line: a string (unescaped) or the bare text of a
// number, true, false or null. Tolerant by design: no JSON library for one flat object a line.
std::optional<std::string> jsonField(std::string_view line, std::string_view key);
// A JSON field's text as a whole integer; nullopt when missing or not one.
std::optional<std::int64_t> integer(const std::optional<std::string> &text);

// Seconds since the epoch of "2026-12-02T16:40:01.123Z" or of a timestamptz as Postgres prints it
// ("2026-12-02 16:40:01.123456+00"); nullopt when text is neither.
std::optional<double> parseTimestamp(std::string_view text);
// "2026-12-02T16:40:01.123456Z".
std::string formatTimestamp(double epochSeconds);
// The same, nullopt (a JSON null) for no instant.
std::optional<std::string> formatTimestamp(const std::optional<double> &epochSeconds);

ReplicaEvent parseEvent(int pid, std::string_view line);

// Every line every replica printed, in arrival order; written by the readers, read by the trials.
class EventLog final
{
public:
    using Predicate = std::function<bool(const ReplicaEvent &)>;

    void add(ReplicaEvent event);
    std::size_t size() const;
    // The lines from index from on, in arrival order.
    std::vector<ReplicaEvent> since(std::size_t from) const;
    // As find, waiting for it until deadline; throws Interrupted when a signal asked to stop.
    std::optional<ReplicaEvent> waitFor(const Predicate &matches,
                                        std::chrono::steady_clock::time_point deadline,
                                        std::size_t from = 0) const;

private:
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_added;
    std::vector<ReplicaEvent> m_events;
};

} // namespace bench
