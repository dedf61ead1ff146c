#include "eventjson.h"

#include "replica/replica.h"

#include <cstdio>
#include <ctime>

#include <unistd.h>

namespace leader::tools {

std::string jsonString(std::string_view text)
{
    std::string quoted = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\r':
            quoted += "\\r";
            break;
        case '\t':
            quoted += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                quoted += escaped;
            } else {
                quoted += c;
            }
        }
    }
    return quoted + "\"";
}

std::string utcTimestamp(std::chrono::system_clock::time_point when)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch())
                            .count();
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(ms % 1000));
    return text;
}

EventWriter::EventWriter(std::ostream &out, std::string replica, std::string holder)
    : m_out(out)
    , m_replica(std::move(replica))
    , m_holder(std::move(holder))
{}

void EventWriter::line(const std::string &fields, std::chrono::system_clock::time_point when)
{
    const std::string text = "{\"ts\":" + jsonString(utcTimestamp(when))
                             + ",\"replica\":" + jsonString(m_replica) + fields + "}\n";
    const std::lock_guard lock(m_mutex);
    m_out << text << std::flush;
}

void EventWriter::started(const replica::Replica &replica, std::optional<int> metricsPort,
                          const std::string &controlPath)
{
    std::string roles;
    for (const replica::RoleProfile &profile : replica.roles())
        roles += (roles.empty() ? "" : ",") + jsonString(profile.role);
    std::string fields = ",\"event\":\"started\",\"holder\":" + jsonString(m_holder)
                         + ",\"pid\":" + std::to_string(::getpid()) + ",\"roles\":[" + roles
                         + "],\"fast_wake\":" + (replica.fastWake() ? "true" : "false");
    if (metricsPort)
        fields += ",\"metrics_port\":" + std::to_string(*metricsPort);
    if (!controlPath.empty())
        fields += ",\"control\":" + jsonString(controlPath);
    line(fields);
}

void EventWriter::transition(const lease::TransitionEvent &event)
{
    std::string fields = ",\"holder\":" + jsonString(event.holderId)
                         + ",\"role\":" + jsonString(event.role)
                         + ",\"event\":" + jsonString(lease::eventName(event.kind))
                         + ",\"token\":" + std::to_string(event.token);
    if (!event.outcome.empty())
        fields += ",\"outcome\":" + jsonString(event.outcome);
    if (!event.reason.empty())
        fields += ",\"reason\":" + jsonString(event.reason);
    if (!event.detail.empty())
        fields += ",\"detail\":" + jsonString(event.detail);
    if (!event.databaseTime.empty())
        fields += ",\"db_time\":" + jsonString(event.databaseTime);
    line(fields, event.wall);
}

void EventWriter::fault(const std::string &command)
{
    line(",\"holder\":" + jsonString(m_holder)
         + ",\"event\":\"fault\",\"fault\":" + jsonString(command));
}

void EventWriter::stopped(const std::string &signal)
{
    line(",\"holder\":" + jsonString(m_holder)
         + ",\"event\":\"stopped\",\"signal\":" + jsonString(signal));
}

} // namespace leader::tools
