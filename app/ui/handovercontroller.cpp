#include "handovercontroller.h"

#include "core/consolesession.h"
#include "handoverdialog.h"
#include "models/statusmodel.h"
#include "productionguard.h"
#include "statuspane.h"

#include <QAction>
#include <QMessageBox>
#include <QTableView>
#include <QWidget>

namespace leader::console {

HandoverController::HandoverController(QWidget *window, ConsoleSession *session, StatusModel *model,
                                       StatusPane *pane, bool readOnly)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_model(model)
    , m_pane(pane)
    , m_readOnly(readOnly)
    , m_handover(new QAction(tr("Hand &over…"), this))
{
    m_handover->setObjectName(QStringLiteral("handoverAction"));
    connect(m_handover, &QAction::triggered, this, &HandoverController::open);
    connect(pane, &StatusPane::selectionChanged, this, &HandoverController::update);
    pane->view()->addAction(m_handover);
    connect(session, &ConsoleSession::registryChanged, this,
            [this](const RegistrySnapshot &registry) {
                if (registry.error.isEmpty())
                    m_registry = registry;
            });
    connect(session, &ConsoleSession::handoverFinished, this, &HandoverController::onFinished);
    update();
}

HandoverController::~HandoverController() = default;

void HandoverController::setTarget(const QString &target, bool demo)
{
    m_target = target;
    m_demo = demo;
    update();
}

void HandoverController::setConnected(bool connected)
{
    m_connected = connected;
    update();
}

void HandoverController::setPrivileges(const Privileges &privileges)
{
    m_privileges = privileges;
    update();
}

void HandoverController::setGuard(const ProductionGuard *guard)
{
    m_guard = guard;
    connect(guard, &ProductionGuard::writesLockedChanged, this, &HandoverController::update);
    update();
}

void HandoverController::update()
{
    m_handover->setVisible(!m_readOnly && !m_demo);
    if (m_readOnly || m_demo)
        return;
    const QStringList roles = m_pane->selectedRoles();
    const std::optional<RoleStatus> status
            = roles.size() == 1 ? m_model->statusFor(roles.front()) : std::nullopt;
    QString why;
    if (!m_connected)
        why = tr("Not connected");
    else if (!m_privileges.canPause)
        why = m_privileges.reason.isEmpty() ? tr("This login may not change anything")
                                            : m_privileges.reason;
    else if (!offers(m_privileges.features, ExtensionFeature::Handover))
        why = extensionNeeded(ExtensionFeature::Handover);
    else if (m_guard && m_guard->writesLocked())
        why = tr("writes locked on production: Role → Unlock writes for this window");
    else if (!status)
        why = tr("Select one led role in the table");
    else if (status->state != RoleState::Led)
        why = tr("%1 is not led: there is no tick to hand over").arg(status->role);
    m_handover->setEnabled(why.isEmpty());
    m_handover->setToolTip(why.isEmpty() ? tr("Hand %1 over now: its holder stops at the next "
                                              "step and another replica takes the next tick")
                                                   .arg(status->role)
                                         : why);
}

QStringList HandoverController::candidates(const QString &role, const QString &holderId) const
{
    QStringList names;
    for (const RegistryEntry &entry : m_registry.replicas) {
        if (entry.alive && entry.drain.isEmpty() && !entry.name.isEmpty()
            && entry.holderId != holderId && entry.roles.contains(role)
            && !names.contains(entry.name))
            names.append(entry.name);
    }
    names.sort();
    return names;
}

QString HandoverController::nameOf(const QString &holderId) const
{
    for (const RegistryEntry &entry : m_registry.replicas) {
        if (entry.holderId == holderId && !entry.name.isEmpty())
            return entry.name;
    }
    return holderId;
}

void HandoverController::open()
{
    update();
    if (!m_handover->isEnabled() || m_dialog)
        return;
    const QString role = m_pane->selectedRoles().value(0);
    const std::optional<RoleStatus> status = m_model->statusFor(role);
    if (!status)
        return;
    m_dialog = new HandoverDialog(role, nameOf(status->holderId),
                                  candidates(role, status->holderId), m_target, m_window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog->setTypedConfirmation(m_guard && m_guard->isProduction());
    connect(m_dialog, &QDialog::accepted, this, [this, dialog = m_dialog] {
        const QString to
                = dialog->toReplica().isEmpty() ? tr("any other replica") : dialog->toReplica();
        Q_EMIT logged(
                dialog->role(), EventKind::HandOver,
                tr("hand over asked by %1 (%2), to %3").arg(dialog->who(), dialog->why(), to));
        m_session->handOver(dialog->role(), dialog->who(), dialog->why(), dialog->toReplica());
    });
    m_dialog->open();
}

void HandoverController::onFinished(const HandoverResult &result)
{
    const QString to = result.toReplica.isEmpty() ? tr("any other replica") : result.toReplica;
    if (!result.ok) {
        const QString line = tr("%1 was not handed over: %2").arg(result.role, result.error);
        Q_EMIT logged(result.role, EventKind::HandOver, line);
        Q_EMIT finished(line);
        // A refusal is the database's word on the state (not held, a target gone): nothing was
        // written, and the box says so.
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Hand over failed"),
                                    line + QLatin1Char('\n') + tr("Nothing was changed."),
                                    QMessageBox::Close, m_window);
        box->setObjectName(QStringLiteral("handoverFailedBox"));
        box->setTextFormat(Qt::PlainText); // the server's or the engine's words
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    // Released between the poll and the click: the request stands as a preference for the next
    // tick, and no tick was asked to stop.
    const QString line
            = result.fromHolder.isEmpty()
                      ? tr("%1 handed over: it was not held when asked, so no tick stops; %2 takes "
                           "its "
                           "next tick")
                                .arg(result.role, to)
                      : tr("%1 handed over: %2 stops at its next step; %3 takes the next tick")
                                .arg(result.role, nameOf(result.fromHolder), to);
    Q_EMIT logged(result.role, EventKind::HandOver, line);
    Q_EMIT finished(line);
}

} // namespace leader::console
