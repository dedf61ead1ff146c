#include "registrycontroller.h"

#include "connectioncontroller.h"
#include "core/consolesession.h"
#include "core/extensionnotes.h"
#include "core/timerule.h"
#include "models/registrymodel.h"
#include "productionguard.h"
#include "tableview.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

RegistryController::RegistryController(ConsoleSession *session, ConnectionController *connection,
                                       QTabWidget *tabs, const TimeRule *timeRule, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_connection(connection)
    , m_tabs(tabs)
    , m_timeRule(timeRule)
    , m_model(new RegistryModel(this))
{
    m_model->setObjectName(QStringLiteral("registryModel"));
    // A holder's standing moves with the polls between two reads of the registry.
    connect(m_model, &RegistryModel::countsChanged, this, &RegistryController::showCounts);
    connect(session, &ConsoleSession::registryChanged, this, &RegistryController::setRegistry);
    connect(session, &ConsoleSession::snapshot, m_model, &RegistryModel::setStatus);
    connect(session, &ConsoleSession::privilegesChanged, this,
            [this](const Privileges &privileges) {
                m_privileges = privileges;
                updateActions();
            });
    connect(session, &ConsoleSession::drainFinished, this, &RegistryController::drainFinished);
    // Leaving the demo announces itself only when the demo was running; a demo that failed to
    // start is left by connecting elsewhere.
    connect(connection, &ConnectionController::demoLeft, this, &RegistryController::attach);
    connect(connection, &ConnectionController::connecting, this,
            [this, connection](bool anotherDatabase) {
                if (anotherDatabase) {
                    m_readAt.clear();
                    m_model->clear();
                }
                if (!connection->isDemo())
                    attach();
            });
    if (!connection->isDemo())
        attach();
}

RegistryController::~RegistryController() = default;

void RegistryController::setGuard(const ProductionGuard *guard)
{
    m_guard = guard;
    connect(guard, &ProductionGuard::writesLockedChanged, this, &RegistryController::updateActions);
    updateActions();
}

void RegistryController::attach()
{
    if (m_page)
        return;
    m_page = new QWidget;
    m_page->setObjectName(QStringLiteral("registryPage"));
    QTableView *table = makeTableView(QStringLiteral("registryView"), m_model);
    table->setWordWrap(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Every column is narrow: stretched, the last would push its seconds to the far edge.
    table->horizontalHeader()->setStretchLastSection(false);
    m_unavailable = new QLabel;
    m_unavailable->setObjectName(QStringLiteral("registryUnavailable"));
    m_unavailable->setTextFormat(Qt::PlainText); // it may quote the server's error
    m_unavailable->setWordWrap(true);
    m_unavailable->setAlignment(Qt::AlignCenter);
    m_stack = new QStackedWidget;
    m_stack->addWidget(table);
    m_stack->addWidget(m_unavailable);
    m_state = new QLabel(tr("Reading the replica registry…"));
    m_state->setObjectName(QStringLiteral("registryState"));
    m_state->setTextFormat(Qt::PlainText);
    m_table = table;
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RegistryController::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RegistryController::updateActions);
    m_drainButton = new QPushButton(tr("&Drain…"));
    m_drainButton->setObjectName(QStringLiteral("drainButton"));
    m_undrainButton = new QPushButton(tr("U&ndrain…"));
    m_undrainButton->setObjectName(QStringLiteral("undrainButton"));
    connect(m_drainButton, &QPushButton::clicked, this,
            [this] { askToDrain(DrainDialog::Mode::Drain); });
    connect(m_undrainButton, &QPushButton::clicked, this,
            [this] { askToDrain(DrainDialog::Mode::Undrain); });
    m_drainLine = new QLabel;
    m_drainLine->setObjectName(QStringLiteral("drainResult"));
    m_drainLine->setTextFormat(Qt::PlainText); // it may quote the server's error
    m_drainLine->setWordWrap(true);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_state, 1);
    actions->addWidget(m_drainButton);
    actions->addWidget(m_undrainButton);
    auto *layout = new QVBoxLayout(m_page);
    layout->addWidget(m_stack, 1);
    layout->addLayout(actions);
    layout->addWidget(m_drainLine);
    updateActions();
    m_tabs->addTab(m_page, tr("Replicas"));
}

void RegistryController::setRegistry(const RegistrySnapshot &registry)
{
    if (!m_page)
        return; // the demo's replicas are the failure panel's
    const QString at = TimeRule::clock(QDateTime::currentDateTimeUtc(),
                                       m_timeRule ? m_timeRule->mode() : TimeZoneMode::Local);
    if (!registry.error.isEmpty()) {
        // The rows of the last good read stay: older, but still what the registry said.
        m_state->setText(
                tr("Could not read the replica registry at %1: %2").arg(at, registry.error));
        return;
    }
    if (!registry.available) {
        // The ADR's schema alone: the rest of the console works, so this is the engine's line
        // saying what the registry needs, not an error.
        m_readAt.clear();
        m_model->setReplicas({});
        QString line = registry.unavailable.isEmpty()
                               ? extensionNeeded(ExtensionFeature::ReplicaRegistry)
                               : registry.unavailable;
        line[0] = line[0].toUpper();
        m_unavailable->setText(line);
        m_stack->setCurrentWidget(m_unavailable);
        m_state->clear();
        return;
    }
    m_readAt = at;
    m_model->setReplicas(registry.replicas);
    m_stack->setCurrentIndex(0);
    showCounts();
    QHash<QString, QString> names;
    for (const RegistryEntry &entry : registry.replicas) {
        if (!entry.name.isEmpty())
            names.insert(entry.holderId, entry.name);
    }
    Q_EMIT holderNamesRead(names);
}

void RegistryController::updateActions()
{
    if (!m_drainButton)
        return;
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    const int row = selected.isEmpty() ? -1 : selected.front().row();
    const QString replica = m_model->replicaAt(row);
    const bool drained = m_model->isDrainedAt(row);
    QString why;
    if (!m_privileges.canPause)
        why = m_privileges.reason.isEmpty() ? tr("This login may not change anything")
                                            : m_privileges.reason;
    else if (!offers(m_privileges.features, ExtensionFeature::ReplicaDrain))
        why = extensionNeeded(ExtensionFeature::ReplicaDrain);
    else if (m_guard && m_guard->writesLocked())
        why = tr("Writes are locked on this production database: Role > Unlock writes for this "
                 "window first");
    else if (row < 0)
        why = tr("Select a replica's row first");
    else if (replica.isEmpty())
        why = tr("This replica records no name (leader_ext 0182): it cannot be drained by name");
    m_drainButton->setEnabled(why.isEmpty() && !drained);
    m_undrainButton->setEnabled(why.isEmpty() && drained);
    m_drainButton->setToolTip(why.isEmpty() ? tr("Drain %1: it starts no new tick").arg(replica)
                                            : why);
    m_undrainButton->setToolTip(why.isEmpty() ? tr("Undrain %1").arg(replica) : why);
}

void RegistryController::askToDrain(DrainDialog::Mode mode)
{
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    const QString replica
            = selected.isEmpty() ? QString() : m_model->replicaAt(selected.front().row());
    if (replica.isEmpty())
        return;
    if (m_guard && m_guard->writesLocked()) {
        m_drainLine->setText(tr("Writes are locked on this production database: Role > Unlock "
                                "writes for this window first"));
        return;
    }
    if (mode == DrainDialog::Mode::Undrain) {
        openDialog(mode, replica, {});
        return;
    }
    // Which roles it would leave with no eligible replica, asked of the database's own
    // predicate, so that the dialog can name them before anything is written.
    m_checking = replica;
    m_drainLine->setText(
            tr("Asking whether %1 is the last eligible replica of a role…").arg(replica));
    m_session->checkDrain(replica);
}

void RegistryController::openDialog(DrainDialog::Mode mode, const QString &replica,
                                    const QStringList &orphans, const OutsideHolders &outside)
{
    auto *dialog = new DrainDialog(mode, replica, orphans, m_connection->target().describe(),
                                   outside, m_page->window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setTypedConfirmation(m_guard && m_guard->isProduction());
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (dialog->mode() == DrainDialog::Mode::Drain)
            m_session->drain(dialog->replica(), dialog->who(), dialog->why(), dialog->force());
        else
            m_session->undrain(dialog->replica(), dialog->who(), dialog->why());
    });
    dialog->open();
}

void RegistryController::drainFinished(const DrainResult &result)
{
    if (!m_page)
        return;
    if (result.action == DrainAction::Check) {
        if (result.replica != m_checking)
            return;
        m_checking.clear();
        if (!result.ok) {
            m_drainLine->setText(tr("Could not drain %1: %2").arg(result.replica, result.error));
            return;
        }
        m_drainLine->clear();
        openDialog(DrainDialog::Mode::Drain, result.replica, result.orphans, result.outside);
        return;
    }
    const bool drain = result.action == DrainAction::Drain;
    if (!result.ok) {
        m_drainLine->setText((drain ? tr("Could not drain %1: %2") : tr("Could not undrain %1: %2"))
                                     .arg(result.replica, result.error));
        return;
    }
    if (drain) {
        QStringList lines{
                result.changed ? tr("Drained %1: it starts no new tick; running ticks "
                                    "end as they would")
                                         .arg(result.replica)
                               : tr("%1 was already drained; nothing changed").arg(result.replica)};
        // They take no drain: what they ran runs on.
        lines += DrainDialog::outsideLines(result.outside);
        m_drainLine->setText(lines.join(QLatin1Char('\n')));
    } else
        m_drainLine->setText(result.changed
                                     ? tr("Undrained %1: it starts ticks again").arg(result.replica)
                                     : tr("%1 was not drained").arg(result.replica));
}

void RegistryController::showCounts()
{
    if (!m_page || m_readAt.isEmpty())
        return;
    const RegistryModel::Counts counts = m_model->counts();
    if (counts.alive == 0 && counts.gone == 0) {
        m_state->setText(tr("No replica registered, read at %1").arg(m_readAt));
        return;
    }
    // Gone replicas are never counted as registered ones that could take over.
    QString line = tr("%1 alive").arg(counts.alive);
    if (counts.gone > 0)
        line += tr(" · %1 gone").arg(counts.gone);
    m_state->setText(line + tr(", read at %1").arg(m_readAt));
}

} // namespace leader::console
