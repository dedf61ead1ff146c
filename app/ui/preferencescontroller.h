#pragma once

#include "core/historystore.h"

#include <QObject>

class QAction;
class QMenu;
class QWidget;

namespace leader::console {

// Preferences…: the history settings in QSettings and the dialog that edits them. A window adds
// the menu entry with addAction() and follows changed() (HistoryStore::setBounds for open stores;
// keep applies to databases opened afterwards).
class PreferencesController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PreferencesController)

public:
    explicit PreferencesController(QWidget *window); // loads the saved settings
    ~PreferencesController() override;

    const HistorySettings &historySettings() const { return m_history; }
    // "Preferences…" (the platform's shortcut) at the end of menu, opening edit().
    QAction *addAction(QMenu *menu);
    // Opens the dialog (window-modal, not exec()'d); OK saves and emits changed() if different.
    void edit();

Q_SIGNALS:
    void changed(const leader::console::HistorySettings &settings);

private:
    QWidget *m_window;
    HistorySettings m_history;
};

} // namespace leader::console
