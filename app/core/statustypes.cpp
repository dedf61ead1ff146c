#include "statustypes.h"

#include "core/demoengine.h"
#include "lease/pausecontrol.h"
#include "log/nametable.h"

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
static_assert(namesEveryValue(ServerTexts, {RoleState::Unknown})); // the view has no such text

constexpr std::array<std::pair<TookOver, QLatin1StringView>, 2> TookOverTexts{{
        {TookOver::Expired, QLatin1StringView("expired")},
        {TookOver::SessionEnded, QLatin1StringView("session_ended")},
}};
static_assert(namesEveryValue(TookOverTexts, {TookOver::None})); // the view's empty took_over

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
static_assert(namesEveryValue<ConnectionState>(ConnectionStates,
                                               [](const ConnectionStateNames &names) {
                                                   return names.state;
                                               }));

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

lease::Outcome toEngine(TickOutcome outcome)
{
    switch (outcome) {
    case TickOutcome::Completed:
        return lease::Outcome::Completed;
    case TickOutcome::Interrupted:
        return lease::Outcome::Interrupted;
    case TickOutcome::Failed:
        return lease::Outcome::Failed;
    case TickOutcome::Lost:
        return lease::Outcome::Lost;
    }
    Q_UNREACHABLE();
}

TickOutcome fromEngine(lease::Outcome outcome)
{
    switch (outcome) {
    case lease::Outcome::Completed:
        return TickOutcome::Completed;
    case lease::Outcome::Interrupted:
        return TickOutcome::Interrupted;
    case lease::Outcome::Failed:
        return TickOutcome::Failed;
    case lease::Outcome::Lost:
        return TickOutcome::Lost;
    }
    Q_UNREACHABLE();
}

lease::LossReason toEngine(LossReason reason)
{
    switch (reason) {
    case LossReason::TakenOver:
        return lease::LossReason::TakenOver;
    case LossReason::Released:
        return lease::LossReason::Released;
    case LossReason::Paused:
        return lease::LossReason::Paused;
    case LossReason::HeartbeatTimeout:
        return lease::LossReason::HeartbeatTimeout;
    case LossReason::MarkerLost:
        return lease::LossReason::MarkerLost;
    case LossReason::Panicked:
        return lease::LossReason::Panicked;
    }
    Q_UNREACHABLE();
}

LossReason fromEngine(lease::LossReason reason)
{
    switch (reason) {
    case lease::LossReason::TakenOver:
        return LossReason::TakenOver;
    case lease::LossReason::Released:
        return LossReason::Released;
    case lease::LossReason::Paused:
        return LossReason::Paused;
    case lease::LossReason::HeartbeatTimeout:
        return LossReason::HeartbeatTimeout;
    case lease::LossReason::MarkerLost:
        return LossReason::MarkerLost;
    case lease::LossReason::Panicked:
        return LossReason::Panicked;
    }
    Q_UNREACHABLE();
}

QString tickOutcomeName(TickOutcome outcome)
{
    return QLatin1StringView(lease::nameOf(toEngine(outcome)));
}

QString lossReasonName(LossReason reason)
{
    return QLatin1StringView(lease::nameOf(toEngine(reason)));
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
