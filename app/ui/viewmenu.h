#pragma once

#include "theme.h"

#include <QObject>

class QAction;
class QMenu;

namespace leader::console {

class TimeRule;

// View: the theme (kept in QSettings view/theme), the one time zone for every time the window
// shows (the TimeRule keeps it) and the docks' toggles.
class ViewMenu final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ViewMenu)

public:
    // Fills menu, which owns the controller; the rule is not owned.
    ViewMenu(QMenu *menu, TimeRule *timeRule);
    ~ViewMenu() override;

    static Theme savedTheme();
    void restoreTheme(); // applies savedTheme()
    void addToggle(QAction *action);

Q_SIGNALS:
    void themeChanged(leader::console::Theme theme);

private:
    void setTheme(Theme theme);

    QMenu *m_menu;
};

} // namespace leader::console
