#include "eventjson.h"

#include "log/json.h"
#include "log/log.h"
#include "platform/process.h"
#include "replica/replica.h"

namespace leader::tools {

EventWriter::EventWriter(std::ostream &out, std::string replica, std::string holder)
    : m_out(out)
    , m_replica(std::move(replica))
    , m_holder(std::move(holder))
{}

void EventWriter::line(const std::string &fields, std::chrono::system_clock::time_point when)
{
    const std::string text = "{\"ts\":" + log::jsonQuoted(log::utcTimestamp(when))
                             + ",\"replica\":" + log::jsonQuoted(m_replica) + fields + "}\n";
    const std::lock_guard lock(m_mutex);
    m_out << text << std::flush;
}

void EventWriter::started(const replica::Replica &replica, const std::string &database,
                          std::optional<int> metricsPort, const std::string &controlPath)
{
    std::vector<std::string> roles;
    for (const replica::RoleProfile &profile : replica.roles())
        roles.push_back(profile.role);
    started(roles, replica.fastWake(), replica.fastWake() && replica.earlyTake(), database,
            metricsPort, controlPath, "lease");
}

void EventWriter::started(const std::vector<std::string> &roleNames, bool fastWake, bool earlyTake,
                          const std::string &database, std::optional<int> metricsPort,
                          const std::string &controlPath, const std::string &gate)
{
    std::string roles;
    for (const std::string &role : roleNames)
        roles += (roles.empty() ? "" : ",") + log::jsonQuoted(role);
    std::string fields = ",\"event\":\"started\",\"holder\":" + log::jsonQuoted(m_holder)
                         + ",\"pid\":" + std::to_string(leader::platform::processId())
                         + ",\"roles\":[" + roles + "],\"database\":" + log::jsonQuoted(database)
                         + ",\"fast_wake\":" + (fastWake ? "true" : "false") + ",\"early_take\":"
                         + (earlyTake ? "true" : "false") + ",\"gate\":" + log::jsonQuoted(gate);
    if (metricsPort)
        fields += ",\"metrics_port\":" + std::to_string(*metricsPort);
    if (!controlPath.empty())
        fields += ",\"control\":" + log::jsonQuoted(controlPath);
    line(fields);
}

void EventWriter::transition(const lease::TransitionEvent &event)
{
    std::string fields = ",\"holder\":" + log::jsonQuoted(event.holderId)
                         + ",\"role\":" + log::jsonQuoted(event.role)
                         + ",\"event\":" + log::jsonQuoted(nameOf(event.kind))
                         + ",\"token\":" + std::to_string(event.token);
    if (event.outcome)
        fields += ",\"outcome\":" + log::jsonQuoted(nameOf(*event.outcome));
    if (event.reason)
        fields += ",\"reason\":" + log::jsonQuoted(nameOf(*event.reason));
    if (!event.detail.empty())
        fields += ",\"detail\":" + log::jsonQuoted(event.detail);
    if (!event.databaseTime.empty())
        fields += ",\"db_time\":" + log::jsonQuoted(event.databaseTime);
    line(fields, event.wall);
}

void EventWriter::fault(const std::string &command)
{
    line(",\"holder\":" + log::jsonQuoted(m_holder)
         + ",\"event\":\"fault\",\"fault\":" + log::jsonQuoted(command));
}

void EventWriter::drain(const replica::DrainStatus &status)
{
    std::string running;
    for (const std::string &role : status.running)
        running += (running.empty() ? "" : ",") + log::jsonQuoted(role);
    const char *event = status.drained ? "drained" : status.draining ? "draining" : "undrained";
    std::string fields
            = ",\"holder\":" + log::jsonQuoted(m_holder) + ",\"event\":\"" + event + "\"";
    if (status.draining)
        fields += ",\"running\":[" + running + "],\"local\":" + (status.local ? "true" : "false");
    line(fields);
}

void EventWriter::stopped(const std::string &signal)
{
    line(",\"holder\":" + log::jsonQuoted(m_holder)
         + ",\"event\":\"stopped\",\"signal\":" + log::jsonQuoted(signal));
}

} // namespace leader::tools
