#include "registrycontroller.h"

#include "connectioncontroller.h"
#include "core/consolesession.h"
#include "core/timerule.h"
#include "models/registrymodel.h"
#include "schema/features.h"
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
    connect(session, &ConsoleSession::registryChanged, this, &RegistryController::setRegistry);
    connect(session, &ConsoleSession::snapshot, m_model, &RegistryModel::setStatus);
    // Leaving the demo announces itself only when the demo was running; a demo that failed to
    // start is left by connecting elsewhere.
    connect(connection, &ConnectionController::demoLeft, this, &RegistryController::attach);
    connect(connection, &ConnectionController::connecting, this,
            [this, connection](bool anotherDatabase) {
                if (anotherDatabase)
                    m_model->clear();
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
        m_model->setReplicas({});
        QString line = registry.unavailable.isEmpty()
                               ? QString::fromStdString(schema::extensionNeeded(
                                       "the replica registry", schema::Extension::ReplicaRegistry))
                               : registry.unavailable;
        line[0] = line[0].toUpper();
        m_unavailable->setText(line);
        m_stack->setCurrentWidget(m_unavailable);
        m_state->clear();
        return;
    }
    m_model->setReplicas(registry.replicas);
    m_stack->setCurrentIndex(0);
    const qsizetype count = registry.replicas.size();
    m_state->setText(
            (count == 1 ? tr("1 replica registered") : tr("%1 replicas registered").arg(count))
            + tr(", read at %1").arg(at));
}

} // namespace leader::console
