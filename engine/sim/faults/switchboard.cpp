#include "switchboard.h"

#include "pg/error.h"

#include <charconv>
#include <stdexcept>

namespace leader::faults {

Switchboard::Switchboard() = default;

Switchboard::~Switchboard()
{
    {
        const std::lock_guard lock(m_mutex);
        m_frozenUntil.reset();
    }
    m_changed.notify_all();
    if (m_link)
        m_link->stop();
}

pg::ConnectOptions Switchboard::route(pg::ConnectOptions options)
{
    options.gate = [this] {
        gate();
    };
    const pg::Endpoint endpoint = pg::endpointOf(options.url);
    if (endpoint.unixSocket)
        return options;
    const std::lock_guard lock(m_mutex);
    if (!m_link) {
        auto link = std::make_unique<LinkProxy>(endpoint.host, endpoint.port);
        link->start();
        m_link = std::move(link);
    }
    options.url = pg::throughAddress(options.url, "127.0.0.1", m_link->port());
    return options;
}

bool Switchboard::hasLink() const
{
    const std::lock_guard lock(m_mutex);
    return m_link != nullptr;
}

void Switchboard::kill()
{
    {
        const std::lock_guard lock(m_mutex);
        m_killed = true;
        m_frozenUntil.reset();
    }
    m_changed.notify_all();
    if (m_link) {
        // Order matters: nothing may pass once the connections are gone, as after a real death.
        m_link->sever();
        m_link->dropAll();
    }
}

bool Switchboard::isKilled() const
{
    const std::lock_guard lock(m_mutex);
    return m_killed;
}

void Switchboard::freeze(std::chrono::milliseconds duration)
{
    {
        const std::lock_guard lock(m_mutex);
        m_frozenUntil = Clock::now() + duration;
    }
    m_changed.notify_all();
}

void Switchboard::sever(std::chrono::milliseconds duration)
{
    if (!hasLink())
        throw std::logic_error("this replica reaches its database over a Unix-domain socket; "
                               "the link faults need a TCP connection");
    m_link->sever(duration);
}

void Switchboard::slow(std::chrono::milliseconds latency)
{
    if (!hasLink())
        throw std::logic_error("this replica reaches its database over a Unix-domain socket; "
                               "the link faults need a TCP connection");
    m_link->slow(latency);
}

void Switchboard::heal()
{
    {
        const std::lock_guard lock(m_mutex);
        m_frozenUntil.reset();
    }
    m_changed.notify_all();
    if (hasLink() && !isKilled())
        m_link->pass();
}

void Switchboard::armPanic(std::string role, std::string step)
{
    const std::lock_guard lock(m_mutex);
    m_panics[std::move(role)] = std::move(step);
}

std::optional<std::string> Switchboard::takePanic(std::string_view role)
{
    const std::lock_guard lock(m_mutex);
    const auto found = m_panics.find(role);
    if (found == m_panics.end())
        return std::nullopt;
    std::string step = std::move(found->second);
    m_panics.erase(found);
    return step;
}

Switchboard::Condition Switchboard::condition() const
{
    const std::lock_guard lock(m_mutex);
    if (m_killed)
        return {.faulted = true, .description = "killed"};
    std::string text;
    if (m_frozenUntil && *m_frozenUntil > Clock::now()) {
        const double left = std::chrono::duration<double>(*m_frozenUntil - Clock::now()).count();
        // to_chars, not printf: the console shows this line, and its process follows the
        // user's LC_NUMERIC (a comma under de_DE.UTF-8).
        char number[32];
        const auto written
                = std::to_chars(number, number + sizeof number, left, std::chars_format::fixed, 1);
        text = "frozen " + std::string(number, written.ptr) + " s";
    }
    if (m_link) {
        if (m_link->mode() == LinkMode::Severed)
            text += text.empty() ? "severed" : ", severed";
        if (m_link->latency().count() > 0)
            text += (text.empty() ? "slow " : ", slow ") + std::to_string(m_link->latency().count())
                    + " ms";
    }
    for (const auto &[role, step] : m_panics)
        text += (text.empty() ? "" : ", ") + std::string("panic armed: ") + role
                + (step.empty() ? std::string() : " " + step);
    if (text.empty())
        return {.faulted = false, .description = "normal"};
    return {.faulted = true, .description = text};
}

void Switchboard::gate()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (m_killed)
            throw pg::Error(pg::ErrorKind::NotStarted, {}, "gate", "the replica was killed", false);
        if (!m_frozenUntil || Clock::now() >= *m_frozenUntil)
            return;
        m_changed.wait_until(lock, *m_frozenUntil);
    }
}

} // namespace leader::faults
