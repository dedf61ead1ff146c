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

#include <algorithm>

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
    if (!why.isEmpty())
        m_handover->setToolTip(why);
    else if (status->holderOutside == true)
        m_handover->setToolTip(tr("Hand %1 over: its holder is outside the replica registry and "
                                  "runs its tick to its end; another replica takes the next tick")
                                       .arg(status->role));
    else
        m_handover->setToolTip(tr("Hand %1 over now: its holder stops at the next step and "
                                  "another replica takes the next tick")
                                       .arg(status->role));
}

QStringList HandoverController::candidates(const QString &role, const QString &holderId) const
{
    QStringList names;
    for (const RegistryEntry &entry : m_registry.replicas) {
        if (entry.alive && !entry.drain && !entry.name.isEmpty() && entry.holderId != holderId
            && entry.roles.contains(role) && !names.contains(entry.name))
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
    HandoverOutside outside;
    outside.holderOutside = status->holderOutside == true;
    outside.seen = status->countsOursOnly == true;
    if (outside.holderOutside) {
        // Both instants are the database's: the poll's now and the holder's ACQUIRE.
        const QDateTime now = m_model->snapshot().databaseTime;
        if (now.isValid() && status->acquiredAt.isValid())
            outside.heldForSeconds = status->acquiredAt.msecsTo(now) / 1000.0;
        outside.lastTickSeconds = status->holderLastDurationSeconds;
    }
    m_dialog = new HandoverDialog(role, nameOf(status->holderId),
                                  candidates(role, status->holderId), m_target, outside, m_window);
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
    QString line;
    if (result.fromHolder.isEmpty()) {
        line = tr("%1 handed over: it was not held when asked, so no tick stops; %2 takes its next "
                  "tick")
                       .arg(result.role, to);
    } else {
        line = tr("%1 handed over: %2; %3 takes the next tick")
                       .arg(result.role, askedText(result), to);
    }
    line += othersText(result);
    Q_EMIT logged(result.role, EventKind::HandOver, line);
    Q_EMIT finished(line);
}

QString HandoverController::askedText(const HandoverResult &result) const
{
    // A holder outside the registry (extension 0189) speaks only the ADR: it never reads the
    // request, and its tick runs to its end.
    for (const OutsideHolder &holder : result.outside.holders) {
        if (holder.holdsNow && holder.holderId == result.fromHolder)
            return HandoverDialog::outsideHolderClause(result.fromHolder, holder.heldForSeconds,
                                                       holder.lastTickSeconds);
    }
    return tr("%1 stops at its next step").arg(nameOf(result.fromHolder));
}

QString HandoverController::othersText(const HandoverResult &result)
{
    if (!result.outside.error.isEmpty())
        return tr(" (the holders outside the replica registry could not be read: %1)")
                .arg(result.outside.error);
    const auto others = std::count_if(
            result.outside.holders.cbegin(), result.outside.holders.cend(),
            [&](const OutsideHolder &h) { return h.holderId != result.fromHolder; });
    if (others == 0)
        return {};
    if (others == 1)
        return tr(" unless the holder outside the registry seen on it in the last hour takes it "
                  "first (it ignores the preference)");
    return tr(" unless one of the %1 holders outside the registry seen on it in the last hour "
              "takes it first (they ignore the preference)")
            .arg(others);
}

} // namespace leader::console
