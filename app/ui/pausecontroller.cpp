#include "pausecontroller.h"

#include "core/consolesession.h"
#include "models/statusmodel.h"
#include "pausedialog.h"
#include "statuspane.h"

#include <QAction>
#include <QKeySequence>
#include <QMessageBox>
#include <QTableView>
#include <QWidget>

namespace leader::console {

PauseController::PauseController(QWidget *window, ConsoleSession *session, StatusModel *model,
                                 StatusPane *pane, bool readOnly)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_model(model)
    , m_pane(pane)
    , m_readOnly(readOnly)
    , m_pause(new QAction(tr("&Pause…"), this))
    , m_unpause(new QAction(tr("&Unpause…"), this))
{
    m_pause->setObjectName(QStringLiteral("pauseAction"));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_unpause->setObjectName(QStringLiteral("unpauseAction"));
    m_unpause->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(m_pause, &QAction::triggered, this, [this] { open(true); });
    connect(m_unpause, &QAction::triggered, this, [this] { open(false); });
    connect(pane, &StatusPane::selectionChanged, this, &PauseController::update);
    pane->view()->addAction(m_pause);
    pane->view()->addAction(m_unpause);
    connect(session, &ConsoleSession::actionFinished, this, &PauseController::onFinished);
    update();
}

PauseController::~PauseController() = default;

void PauseController::setTarget(const QString &target)
{
    m_target = target;
}

void PauseController::setConnected(bool connected)
{
    m_connected = connected;
    update();
}

void PauseController::setPrivileges(const Privileges &privileges)
{
    m_privileges = privileges;
    update();
}

void PauseController::update()
{
    m_pause->setVisible(!m_readOnly);
    m_unpause->setVisible(!m_readOnly);
    if (m_readOnly)
        return;
    const QString role = m_pane->selectedRole();
    const std::optional<RoleStatus> status = m_model->statusFor(role);
    const bool paused = status && status->state == RoleState::Paused;
    QString why;
    if (!m_connected)
        why = tr("Not connected");
    else if (role.isEmpty())
        why = tr("Select a role in the table");
    m_pause->setEnabled(why.isEmpty() && m_privileges.canPause && !paused);
    m_unpause->setEnabled(why.isEmpty() && m_privileges.canUnpause && paused);
    const QString pauseTip
            = !why.isEmpty() ? why
              : !m_privileges.canPause
                      ? m_privileges.reason
                      : (paused ? tr("%1 is already paused").arg(role)
                         : m_privileges.schemaWarning.isEmpty()
                                 ? tr("Pause %1 cluster-wide (leader_pause)").arg(role)
                                 : tr("Pause %1 cluster-wide (leader_pause). %2")
                                           .arg(role, m_privileges.schemaWarning));
    const QString unpauseTip = !why.isEmpty() ? why
                               : !m_privileges.canUnpause
                                       ? m_privileges.reason
                                       : (paused ? tr("Unpause %1 (leader_unpause)").arg(role)
                                                 : tr("%1 is not paused").arg(role));
    m_pause->setToolTip(pauseTip);
    m_unpause->setToolTip(unpauseTip);
    m_pause->setStatusTip(pauseTip);
    m_unpause->setStatusTip(unpauseTip);
}

void PauseController::open(bool pause)
{
    const QString role = m_pane->selectedRole();
    if (role.isEmpty() || m_dialog)
        return;
    auto *dialog = new PauseDialog(pause ? PauseDialog::Mode::Pause : PauseDialog::Mode::Unpause,
                                   role, m_target, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (const std::optional<RoleStatus> status = m_model->statusFor(role); !pause && status)
        dialog->setCurrentPause(status->pausedBy, status->pauseReason);
    m_dialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, pause] {
        const QString role = dialog->role();
        if (pause) {
            Q_EMIT logged(role, QStringLiteral("pause"),
                          tr("requested by %1: %2").arg(dialog->who(), dialog->why()));
            m_session->pause(role, dialog->who(), dialog->why());
        } else {
            Q_EMIT logged(role, QStringLiteral("unpause"), tr("requested"));
            m_session->unpause(role);
        }
    });
    dialog->open();
}

void PauseController::onFinished(const QString &role, const QString &action, bool ok,
                                 const QString &message)
{
    const QString line = ok ? tr("%1 %2: done").arg(action, role)
                            : tr("%1 %2 failed: %3").arg(action, role, message);
    Q_EMIT logged(role, action, ok ? message : line);
    Q_EMIT finished(line);
    if (!ok) {
        auto *box = new QMessageBox(QMessageBox::Warning, tr("%1 failed").arg(action), line,
                                    QMessageBox::Close, m_window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

} // namespace leader::console
