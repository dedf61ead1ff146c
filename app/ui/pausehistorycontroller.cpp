#include "pausehistorycontroller.h"

#include "core/consolesession.h"
#include "exportcontroller.h"
#include "models/pauselogfilter.h"
#include "pausehistory.h"
#include "statuspane.h"

#include <QAction>
#include <QTabWidget>
#include <QTableView>

namespace leader::console {

PauseHistoryController::PauseHistoryController(ConsoleSession *session, StatusPane *pane,
                                               ExportController *exports, const TimeRule *timeRule,
                                               QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_pane(pane)
    , m_exports(exports)
    , m_timeRule(timeRule)
    , m_show(new QAction(tr("Pause &history"), this))
{
    m_show->setObjectName(QStringLiteral("pauseHistoryAction"));
    m_show->setToolTip(tr("Every pause, unpause and expiry of the selected role, from the "
                          "database's pause log"));
    connect(m_show, &QAction::triggered, this, &PauseHistoryController::show);
    pane->view()->addAction(m_show);
}

PauseHistoryController::~PauseHistoryController() = default;

void PauseHistoryController::attach(QTabWidget *tabs)
{
    m_tabs = tabs;
    m_view = new PauseHistory(m_timeRule);
    tabs->addTab(m_view, tr("Pause history"));
    connect(m_view, &PauseHistory::readRequested, m_session, &ConsoleSession::readPauseLog);
    connect(m_session, &ConsoleSession::pauseLogRead, m_view, &PauseHistory::setResult);
    connect(m_session, &ConsoleSession::actionFinished, m_view,
            [view = m_view](const ActionResult &result) {
                view->onActionFinished(result.action, result.ok);
            });
    // The first read may have come before the connection (the demo starting, a reconnect).
    connect(m_session, &ConsoleSession::connectionChanged, m_view,
            [view = m_view](ConnectionState state) {
                if (isConnected(state) && view->isVisible())
                    view->refresh();
            });
    connect(m_view, &PauseHistory::exportRequested, m_exports,
            [this] { m_exports->exportPauseLog(m_view->filter()); });
}

void PauseHistoryController::show()
{
    if (!m_view)
        return;
    // One role selected: its history; several or none: every role's.
    const QStringList roles = m_pane->selectedRoles();
    m_view->setRole(roles.size() == 1 ? roles.first() : QString());
    m_tabs->setCurrentWidget(m_view);
}

} // namespace leader::console
