#include "statustypes.h"

#include "lease/pausecontrol.h"

#include <QCoreApplication>

#include <array>
#include <utility>

namespace leader::console {

namespace {

constexpr std::array<std::pair<RoleState, QLatin1StringView>, 5> ServerTexts{{
        {RoleState::Led, QLatin1StringView("led")},
        {RoleState::Free, QLatin1StringView("free")},
        {RoleState::NeverRan, QLatin1StringView("never ran")},
        {RoleState::Cooling, QLatin1StringView("cooling")},
        {RoleState::Paused, QLatin1StringView("paused")},
}};

constexpr std::array<std::pair<TookOver, QLatin1StringView>, 2> TookOverTexts{{
        {TookOver::Expired, QLatin1StringView("expired")},
        {TookOver::SessionEnded, QLatin1StringView("session_ended")},
}};

// ConnectionState's one table: its name, and what a list of databases shows for it.
struct ConnectionStateNames
{
    ConnectionState state;
    QLatin1StringView name;
    const char *displayName;
};

constexpr std::array<ConnectionStateNames, 5> ConnectionStates{{
        {ConnectionState::Disconnected, QLatin1StringView("disconnected"),
         QT_TRANSLATE_NOOP("leader::console::ConnectionState", "disconnected")},
        {ConnectionState::Connecting, QLatin1StringView("connecting"),
         QT_TRANSLATE_NOOP("leader::console::ConnectionState", "connecting")},
        {ConnectionState::Connected, QLatin1StringView("connected"),
         QT_TRANSLATE_NOOP("leader::console::ConnectionState", "connected")},
        // A list tells a session from none; the status bar and the event log say how long the
        // console was without one.
        {ConnectionState::Reconnected, QLatin1StringView("reconnected"),
         QT_TRANSLATE_NOOP("leader::console::ConnectionState", "connected")},
        {ConnectionState::Failed, QLatin1StringView("failed"),
         QT_TRANSLATE_NOOP("leader::console::ConnectionState", "failed, retrying")},
}};

const ConnectionStateNames &namesOf(ConnectionState state)
{
    for (const ConnectionStateNames &names : ConnectionStates) {
        if (names.state == state)
            return names;
    }
    Q_UNREACHABLE();
}

} // namespace

QLatin1StringView connectionStateName(ConnectionState state)
{
    return namesOf(state).name;
}

QString connectionStateDisplayName(ConnectionState state)
{
    return QCoreApplication::translate("leader::console::ConnectionState",
                                       namesOf(state).displayName);
}

TookOver parseTookOver(QStringView serverText)
{
    for (const auto &[tookOver, text] : TookOverTexts) {
        if (serverText == text)
            return tookOver;
    }
    return TookOver::None;
}

QString tookOverServerText(TookOver tookOver)
{
    for (const auto &[candidate, text] : TookOverTexts) {
        if (candidate == tookOver)
            return text;
    }
    return {};
}

RoleState parseRoleState(QStringView serverText)
{
    for (const auto &[state, text] : ServerTexts) {
        if (serverText == text)
            return state;
    }
    return RoleState::Unknown;
}

QString roleStateText(RoleState state)
{
    for (const auto &[known, text] : ServerTexts) {
        if (known == state)
            return text;
    }
    return QStringLiteral("unknown");
}

QString pauseActionName(PauseAction action)
{
    switch (action) {
    case PauseAction::Pause:
        return QLatin1StringView(lease::nameOf(lease::PauseAction::Pause));
    case PauseAction::Unpause:
        return QLatin1StringView(lease::nameOf(lease::PauseAction::Unpause));
    case PauseAction::Expire:
        return QLatin1StringView(lease::nameOf(lease::PauseAction::Expire));
    }
    Q_UNREACHABLE();
}

QString roleStateDisplayName(RoleState state)
{
    const auto tr = [](const char *text) {
        return QCoreApplication::translate("leader::console::RoleState", text);
    };
    switch (state) {
    case RoleState::Led:
        return tr("led");
    case RoleState::Free:
        return tr("free");
    case RoleState::NeverRan:
        return tr("never ran");
    case RoleState::Cooling:
        return tr("cooling");
    case RoleState::Paused:
        return tr("paused");
    case RoleState::Unknown:
        break;
    }
    return tr("unknown");
}

} // namespace leader::console
