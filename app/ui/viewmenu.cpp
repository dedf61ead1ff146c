#include "viewmenu.h"

#include "core/timerule.h"

#include <QActionGroup>
#include <QMenu>
#include <QSettings>

namespace leader::console {

namespace {

const QString ThemeKey = QStringLiteral("view/theme");

QString themeLabel(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QObject::tr("Light");
    case Theme::Dark:
        return QObject::tr("Dark");
    case Theme::System:
        break;
    }
    return QObject::tr("Follow the system");
}

} // namespace

ViewMenu::ViewMenu(QMenu *menu, TimeRule *timeRule)
    : QObject(menu)
    , m_menu(menu)
{
    QMenu *themeMenu = menu->addMenu(tr("&Theme"));
    auto *themes = new QActionGroup(this);
    const Theme current = savedTheme();
    for (const Theme theme : {Theme::System, Theme::Light, Theme::Dark}) {
        QAction *action
                = themeMenu->addAction(themeLabel(theme), this, [this, theme] { setTheme(theme); });
        action->setObjectName(themeName(theme) + QLatin1String("ThemeAction"));
        action->setCheckable(true);
        action->setChecked(theme == current);
        themes->addAction(action);
    }
    // One zone for every time the window shows; exports carry the offset either way.
    QMenu *zoneMenu = menu->addMenu(tr("Time &zone"));
    auto *zones = new QActionGroup(this);
    for (const TimeZoneMode zone : {TimeZoneMode::Local, TimeZoneMode::Utc}) {
        QAction *action = zoneMenu->addAction(TimeRule::zoneName(zone), timeRule,
                                              [timeRule, zone] { timeRule->setMode(zone); });
        action->setObjectName(zone == TimeZoneMode::Utc ? QStringLiteral("utcAction")
                                                        : QStringLiteral("localTimeAction"));
        action->setCheckable(true);
        action->setChecked(zone == timeRule->mode());
        zones->addAction(action);
        // The rule may change elsewhere (restore()); the check mark follows it.
        connect(timeRule, &TimeRule::changed, action,
                [action, timeRule, zone] { action->setChecked(timeRule->mode() == zone); });
    }
}

ViewMenu::~ViewMenu() = default;

Theme ViewMenu::savedTheme()
{
    return themeFromName(QSettings().value(ThemeKey).toString());
}

void ViewMenu::restoreTheme()
{
    applyTheme(savedTheme());
}

void ViewMenu::addToggle(QAction *action)
{
    m_menu->addAction(action);
}

void ViewMenu::setTheme(Theme theme)
{
    applyTheme(theme);
    QSettings().setValue(ThemeKey, themeName(theme));
    Q_EMIT themeChanged(theme);
}

} // namespace leader::console
