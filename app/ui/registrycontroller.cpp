#include "registrycontroller.h"

#include "connectioncontroller.h"
#include "core/consolesession.h"
#include "core/extensionnotes.h"
#include "core/timerule.h"
#include "models/registrymodel.h"
#include "tableview.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

RegistryController::RegistryController(ConsoleSession *session, ConnectionController *connection,
                                       QTabWidget *tabs, const TimeRule *timeRule, QObject *parent)
    : QObject(parent)
    , m_tabs(tabs)
    , m_timeRule(timeRule)
    , m_model(new RegistryModel(this))
{
    m_model->setObjectName(QStringLiteral("registryModel"));
    // A holder's standing moves with the polls between two reads of the registry.
    connect(m_model, &RegistryModel::countsChanged, this, &RegistryController::showCounts);
    connect(session, &ConsoleSession::registryChanged, this, &RegistryController::setRegistry);
    connect(session, &ConsoleSession::snapshot, m_model, &RegistryModel::setStatus);
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
    auto *layout = new QVBoxLayout(m_page);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_state);
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
