#pragma once

#include <QObject>

class QAction;
class QTabWidget;

namespace leader::console {

class ConsoleSession;
class ExportController;
class PauseHistory;
class StatusPane;
class TimeRule;

// Puts the pause History view beside the charts and connects it: its reads go to the session
// (answered from the poller's thread); it reads again when the connection comes up while it
// shows and after this console's own pause or unpause; its export goes through the
// ExportController; "Show pause history" (the Role menu and the status table's context menu)
// opens it on the selected role.
class PauseHistoryController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseHistoryController)

public:
    PauseHistoryController(ConsoleSession *session, StatusPane *pane, ExportController *exports,
                           const TimeRule *timeRule, QObject *parent);
    ~PauseHistoryController() override;

    QAction *showAction() const { return m_show; }
    // Adds the view as a tab of tabs; showAction() does nothing before.
    void attach(QTabWidget *tabs);
    PauseHistory *view() const { return m_view; }

private:
    void show();

    ConsoleSession *m_session;
    StatusPane *m_pane;
    ExportController *m_exports;
    const TimeRule *m_timeRule;
    QAction *m_show;
    QTabWidget *m_tabs = nullptr;
    PauseHistory *m_view = nullptr;
};

} // namespace leader::console
