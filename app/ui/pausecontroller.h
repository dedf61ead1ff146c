#pragma once

#include "core/statustypes.h"

#include <QObject>
#include <QPointer>

#include <functional>

class QAction;
class QWidget;

namespace leader::console {

class ConsoleSession;
class PauseDialog;
class StatusModel;
class StatusPane;

// Role > Pause and Unpause: the two actions, enabled only when the selected role, the connection
// and the login's privileges allow them (the tooltip says why not), the dialog that asks who,
// why and for confirmation before the session runs leader_pause or leader_unpause, and how that
// went (a failure also in a box).
class PauseController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseController)

public:
    PauseController(QWidget *window, ConsoleSession *session, StatusModel *model, StatusPane *pane,
                    bool readOnly);
    ~PauseController() override;

    QAction *pauseAction() const { return m_pause; }
    QAction *unpauseAction() const { return m_unpause; }

    // How the dialog names the database: "the demo", user@host:port/db.
    void setTarget(const QString &target);
    void setConnected(bool connected);
    void setPrivileges(const Privileges &privileges);
    void update();

Q_SIGNALS:
    // For the event log: a request, and how it went.
    void logged(const QString &role, const QString &event, const QString &detail);
    // For the status bar: how a request went, one line.
    void finished(const QString &line);

private:
    void open(bool pause);
    void onFinished(const QString &role, const QString &action, bool ok, const QString &message);

    QWidget *m_window;
    ConsoleSession *m_session;
    StatusModel *m_model;
    StatusPane *m_pane;
    bool m_readOnly;
    QString m_target;
    bool m_connected = false;
    Privileges m_privileges;
    QAction *m_pause;
    QAction *m_unpause;
    QPointer<PauseDialog> m_dialog;
};

} // namespace leader::console
