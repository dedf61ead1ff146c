#pragma once

#include "core/demotypes.h"
#include "core/statustypes.h"

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace leader::console {

class ConsoleSession;
class PauseDialog;
class StatusModel;
class StatusPane;
class TimeRule;

// Role > Pause and Unpause for the selected roles (one or several: one dialog, one confirmation,
// one transaction), and Role > Select outboxes. The actions are enabled only when the selection,
// the connection, the login's privileges and the production guard allow them (the tooltip says
// why not). How a request went lands in the event log one line per role (a failure also in a
// box: nothing was changed).
class PauseController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseController)

public:
    PauseController(QWidget *window, ConsoleSession *session, StatusModel *model, StatusPane *pane,
                    const TimeRule *timeRule, bool readOnly);
    ~PauseController() override;

    QAction *pauseAction() const { return m_pause; }
    QAction *unpauseAction() const { return m_unpause; }
    QAction *selectOutboxesAction() const { return m_selectOutboxes; }

    // How the dialog names the database: "the demo", user@host:port/db.
    void setTarget(const QString &target);
    void setConnected(bool connected);
    void setPrivileges(const Privileges &privileges);
    // A production profile: writes stay off while locked, and a confirmation needs the names
    // typed.
    void setProduction(bool production, bool writesLocked);
    void update();

Q_SIGNALS:
    // For the event log: a request, and how it went.
    void logged(const QString &role, leader::console::EventKind event, const QString &detail);
    // For the status bar: how a request went, one line.
    void finished(const QString &line);

private:
    void open(bool pause);
    void onFinished(const ActionResult &result);
    QString describe(const ActionResult &result, const RoleChange &change) const;

    QWidget *m_window;
    ConsoleSession *m_session;
    StatusModel *m_model;
    StatusPane *m_pane;
    const TimeRule *m_timeRule;
    bool m_readOnly;
    QString m_target;
    bool m_connected = false;
    bool m_production = false;
    bool m_writesLocked = false;
    Privileges m_privileges;
    QAction *m_pause;
    QAction *m_unpause;
    QAction *m_selectOutboxes;
    QPointer<PauseDialog> m_dialog;
};

} // namespace leader::console
