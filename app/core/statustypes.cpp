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

} // namespace

TookOver parseTookOver(QStringView serverText)
{
    for (const auto &[tookOver, text] : TookOverTexts) {
        if (serverText == text)
            return tookOver;
    }
    return TookOver::None;
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
