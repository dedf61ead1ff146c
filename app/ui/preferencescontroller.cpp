#include "ui/preferencescontroller.h"

#include "ui/preferencesdialog.h"

#include <QAction>
#include <QMenu>
#include <QWidget>

namespace leader::console {

PreferencesController::PreferencesController(QWidget *window)
    : QObject(window)
    , m_window(window)
    , m_history(HistorySettings::load())
{}

PreferencesController::~PreferencesController() = default;

QAction *PreferencesController::addAction(QMenu *menu)
{
    QAction *action = menu->addAction(tr("Preferences…"));
    action->setObjectName(QStringLiteral("preferencesAction"));
    action->setShortcut(QKeySequence::Preferences);
    action->setMenuRole(QAction::PreferencesRole);
    connect(action, &QAction::triggered, this, &PreferencesController::edit);
    return action;
}

void PreferencesController::edit()
{
    auto *dialog = new PreferencesDialog(m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setHistorySettings(m_history);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const HistorySettings chosen = dialog->historySettings();
        chosen.save();
        if (chosen == m_history)
            return;
        m_history = chosen;
        Q_EMIT changed(m_history);
    });
    dialog->open();
}

} // namespace leader::console
