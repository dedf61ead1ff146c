#include "pauselog.h"

#include "monitor/pauselogreader.h"

#include <variant>

namespace leader::console {

namespace {

constexpr std::chrono::milliseconds ReadTimeout{5000};

QString qtext(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString qtext(const std::optional<std::string> &text)
{
    return text ? qtext(*text) : QString();
}

// The engine prints instants as ISO 8601 in UTC with milliseconds ("…T09:00:00.250Z"): parsed
// with Qt's fixed ISO grammar, so neither the locale nor the session's DateStyle enters.
QDateTime instant(const std::string &text)
{
    return QDateTime::fromString(qtext(text), Qt::ISODateWithMs).toUTC();
}

QDateTime instant(const std::optional<std::string> &text)
{
    return text ? instant(*text) : QDateTime();
}

PauseAction actionOf(lease::PauseAction action)
{
    switch (action) {
    case lease::PauseAction::Pause:
        return PauseAction::Pause;
    case lease::PauseAction::Unpause:
        return PauseAction::Unpause;
    case lease::PauseAction::Expire:
        return PauseAction::Expire;
    }
    Q_UNREACHABLE();
}

std::string interval(PauseLogSince since)
{
    switch (since) {
    case PauseLogSince::Hour:
        return "1 hour";
    case PauseLogSince::Day:
        return "24 hours";
    case PauseLogSince::Week:
        return "7 days";
    case PauseLogSince::All:
        break;
    }
    return {};
}

} // namespace

PauseLogResult readPauseLog(const QString &conninfo, std::stop_token stop, PauseLogSince since)
{
    monitor::PauseLogReader reader(conninfo.toStdString(), std::move(stop), ReadTimeout);
    const monitor::Outcome<monitor::PauseLog> outcome = reader.read(
            {.role = {}, .sinceAgo = interval(since), .sinceAt = {}, .limit = MaxPauseLogEntries});
    PauseLogResult result;
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        result.error = qtext(failure->message);
        return result;
    }
    const monitor::PauseLog &log = std::get<monitor::PauseLog>(outcome);
    result.unavailable = qtext(log.unavailable);
    result.truncated = log.truncated;
    result.entries.reserve(qsizetype(log.entries.size()));
    for (const lease::PauseLogEntry &entry : log.entries)
        result.entries.append({entry.id, qtext(entry.role), actionOf(entry.action),
                               instant(entry.at), qtext(entry.login), qtext(entry.by),
                               qtext(entry.reason), instant(entry.until), instant(entry.pausedAt)});
    return result;
}

} // namespace leader::console
