#include "pausecontroller.h"

#include "core/consolesession.h"
#include "core/extensionnotes.h"
#include "core/leasefacts.h"
#include "core/timerule.h"
#include "models/plaintext.h"
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
                                 StatusPane *pane, const TimeRule *timeRule, bool readOnly)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_model(model)
    , m_pane(pane)
    , m_timeRule(timeRule)
    , m_readOnly(readOnly)
    , m_pause(new QAction(tr("&Pause…"), this))
    , m_unpause(new QAction(tr("&Unpause…"), this))
    , m_selectOutboxes(new QAction(tr("Select &outboxes"), this))
{
    m_pause->setObjectName(QStringLiteral("pauseAction"));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_unpause->setObjectName(QStringLiteral("unpauseAction"));
    m_unpause->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_selectOutboxes->setObjectName(QStringLiteral("selectOutboxesAction"));
    m_selectOutboxes->setToolTip(tr("Select webhook_outbox and email_outbox, to pause or unpause "
                                    "both at once"));
    connect(m_pause, &QAction::triggered, this, [this] { open(true); });
    connect(m_unpause, &QAction::triggered, this, [this] { open(false); });
    connect(m_selectOutboxes, &QAction::triggered, this, [this] {
        m_pane->selectRoles(
                {leaseRoleName(LeaseRole::WebhookOutbox), leaseRoleName(LeaseRole::EmailOutbox)});
    });
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

void PauseController::setProduction(bool production, bool writesLocked)
{
    m_production = production;
    m_writesLocked = writesLocked;
    update();
}

void PauseController::update()
{
    m_pause->setVisible(!m_readOnly);
    m_unpause->setVisible(!m_readOnly);
    if (m_readOnly)
        return;
    const QStringList roles = m_pane->selectedRoles();
    std::optional<RoleStatus> paused;
    bool anyPaused = false;
    bool anyRunning = false;
    for (const QString &role : roles) {
        const std::optional<RoleStatus> status = m_model->statusFor(role);
        if (status && status->state == RoleState::Paused) {
            anyPaused = true;
            paused = paused ? paused : status;
        } else {
            anyRunning = true;
        }
    }
    const QString names = roles.join(QStringLiteral(", "));
    QString why;
    if (!m_connected)
        why = tr("Not connected");
    else if (roles.isEmpty())
        why = tr("Select one or more roles in the table");
    else if (m_writesLocked)
        why = tr("writes locked on production: Role → Unlock writes for this window");
    m_pause->setEnabled(why.isEmpty() && m_privileges.canPause && anyRunning);
    m_unpause->setEnabled(why.isEmpty() && m_privileges.canUnpause && anyPaused);
    QString pauseTip;
    if (!why.isEmpty())
        pauseTip = why;
    else if (!m_privileges.canPause)
        pauseTip = m_privileges.reason;
    else if (!anyRunning && roles.size() == 1)
        pauseTip = tr("%1 is already paused by %2 at %3: %4")
                           .arg(paused->role, paused->pausedBy,
                                TimeRule::full(paused->pausedAt, m_timeRule->mode()),
                                paused->pauseReason);
    else if (!anyRunning)
        pauseTip = tr("%1 are already paused").arg(names);
    else if (offers(m_privileges.features, ExtensionFeature::PauseWake))
        pauseTip = tr("Pause %1 cluster-wide (leader_pause)").arg(names);
    else
        pauseTip = tr("Pause %1 cluster-wide (leader_pause): each holder stops at its next "
                      "heartbeat, within 3 s")
                           .arg(names);
    const QString unpauseTip = !why.isEmpty()             ? why
                               : !m_privileges.canUnpause ? m_privileges.reason
                               : anyPaused ? tr("Unpause %1 (leader_unpause)").arg(names)
                                           : tr("%1: not paused").arg(names);
    m_pause->setToolTip(plainToolTip(pauseTip));
    m_unpause->setToolTip(plainToolTip(unpauseTip));
    m_pause->setStatusTip(pauseTip);
    m_unpause->setStatusTip(unpauseTip);
}

void PauseController::open(bool pause)
{
    const QStringList roles = m_pane->selectedRoles();
    if (roles.isEmpty() || m_dialog || m_writesLocked)
        return;
    auto *dialog = new PauseDialog(pause ? PauseDialog::Mode::Pause : PauseDialog::Mode::Unpause,
                                   roles, m_target, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setTimeZoneMode(m_timeRule->mode());
    dialog->setTypedConfirmation(m_production);
    dialog->setFeatures(m_privileges.features);
    QList<RoleStatus> paused;
    for (const QString &role : roles) {
        if (const std::optional<RoleStatus> status = m_model->statusFor(role);
            status && status->state == RoleState::Paused)
            paused << *status;
    }
    dialog->setCurrentPauses(paused);
    m_dialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, pause] {
        const QStringList roles = dialog->roles();
        const QString names = roles.join(QStringLiteral(", "));
        if (pause) {
            Q_EMIT logged(roles.size() == 1 ? names : QString(), EventKind::Pause,
                          tr("%1 requested by %2: %3").arg(names, dialog->who(), dialog->why()));
            m_session->pause(roles, dialog->who(), dialog->why(), dialog->pauseEnd());
        } else {
            const QString because
                    = dialog->why().isEmpty() ? QString() : tr(": %1").arg(dialog->why());
            // Without the pause log, leader_unpause(role) takes no who: the database's login is
            // all it knows.
            const QString by
                    = dialog->who().isEmpty() ? QString() : tr(" by %1").arg(dialog->who());
            Q_EMIT logged(roles.size() == 1 ? names : QString(), EventKind::Unpause,
                          tr("%1 requested%2%3").arg(names, by, because));
            m_session->unpause(roles, dialog->who(), dialog->why());
        }
    });
    dialog->open();
}

QString PauseController::describe(const ActionResult &result, const RoleChange &change) const
{
    const TimeZoneMode zone = m_timeRule->mode();
    if (result.action != PauseAction::Pause)
        return change.changed ? tr("%1 unpaused").arg(change.role)
                              : tr("%1 was not paused").arg(change.role);
    const QString until = change.until.isValid()
                                  ? tr("until %1").arg(TimeRule::full(change.until, zone))
                                  : tr("until unpaused");
    if (change.changed)
        return tr("%1 paused by %2, %3: %4")
                .arg(change.role, change.pausedBy, until, change.reason);
    // Whose pause is in force: this request's who and why changed nothing.
    return tr("%1 was already paused by %2 at %3, %4: %5; left as it was")
            .arg(change.role, change.pausedBy, TimeRule::full(change.pausedAt, zone), until,
                 change.reason);
}

void PauseController::onFinished(const ActionResult &result)
{
    const QString names = result.roles.join(QStringLiteral(", "));
    const QString role = result.roles.size() == 1 ? names : QString();
    const QString action = pauseActionName(result.action);
    const EventKind event
            = result.action == PauseAction::Pause ? EventKind::Pause : EventKind::Unpause;
    if (!result.ok) {
        const QString line
                = result.roles.size() == 1
                          ? tr("%1 %2 failed: %3").arg(action, names, result.error)
                          : tr("%1 %2 failed, none changed: %3").arg(action, names, result.error);
        Q_EMIT logged(role, event, line);
        Q_EMIT finished(line);
        auto *box = new QMessageBox(QMessageBox::Warning, tr("%1 failed").arg(action), line,
                                    QMessageBox::Close, m_window);
        box->setTextFormat(Qt::PlainText); // the server's or the engine's words
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    QStringList lines;
    bool unheard = false;
    for (const RoleChange &change : result.changes) {
        lines << describe(result, change);
        Q_EMIT logged(change.role, event, lines.constLast());
        unheard = unheard
                  || (result.action == PauseAction::Pause && change.changed && !change.notified);
    }
    QString line = lines.size() == 1 ? lines.constFirst() : tr("%1 %2: done").arg(action, names);
    // Without the wake NOTIFY (extension 0176) no holder hears of the pause until its next
    // heartbeat's renewal finds the row paused.
    if (unheard) {
        Q_EMIT logged(role, EventKind::Pause,
                      tr("the pause reaches the holder at its next heartbeat (within 3 s), not at "
                         "once: %1")
                              .arg(extensionNeeded(ExtensionFeature::PauseWake)));
        line += tr("; it reaches the holder at its next heartbeat (within 3 s)");
    }
    Q_EMIT finished(line);
}

} // namespace leader::console
