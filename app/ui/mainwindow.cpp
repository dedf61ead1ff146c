#include "mainwindow.h"

#include "alertcontroller.h"
#include "closewhenidle.h"
#include "connectioncontroller.h"
#include "core/consolesession.h"
#include "core/historystore.h"
#include "core/timerule.h"
#include "drillcontroller.h"
#include "eventlogpane.h"
#include "exportcontroller.h"
#include "failurepanel.h"
#include "handovercontroller.h"
#include "historytabs.h"
#include "intervalbox.h"
#include "leftoverpausesbar.h"
#include "models/eventlogmodel.h"
#include "models/failovermodel.h"
#include "models/replicamodel.h"
#include "models/statusdiff.h"
#include "models/statusmodel.h"
#include "pausecontroller.h"
#include "pausehistorycontroller.h"
#include "preferencescontroller.h"
#include "productionguard.h"
#include "registrycontroller.h"
#include "sessionstatusbar.h"
#include "shortcutsdialog.h"
#include "statuspane.h"
#include "takeoverspane.h"
#include "thresholdscontroller.h"
#include "viewmenu.h"

#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

namespace leader::console {

MainWindow::MainWindow(ConsoleOptions options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
{
    setObjectName(QStringLiteral("mainWindow"));
    m_session = new ConsoleSession(this);
    m_session->setObjectName(QStringLiteral("consoleSession"));
    m_connection = new ConnectionController(this, m_session,
                                            m_options.mode == ConsoleOptions::Mode::Demo);
    m_thresholds = new ThresholdsController(this);
    m_timeRule = new TimeRule(this);
    m_timeRule->restore();
    m_statusModel = new StatusModel(this);
    m_statusModel->setObjectName(QStringLiteral("statusModel"));
    m_statusModel->setThresholds(m_thresholds->thresholds());
    m_failovers = new FailoverModel(this);
    m_failovers->setObjectName(QStringLiteral("failoverModel"));
    m_events = new EventLogModel(this);
    m_events->setObjectName(QStringLiteral("eventLogModel"));
    m_replicas = new ReplicaModel(this);
    m_replicas->setObjectName(QStringLiteral("replicaModel"));
    m_statusModel->setTimeRule(m_timeRule);
    m_failovers->setTimeRule(m_timeRule);
    m_events->setTimeRule(m_timeRule);
    m_alerts = new AlertController(this);
    m_alerts->setThresholds(m_thresholds->thresholds());
    m_exports = new ExportController(this);
    m_statusPane = new StatusPane(m_statusModel, m_timeRule);
    m_pauses = new PauseController(this, m_session, m_statusModel, m_statusPane, m_timeRule,
                                   m_options.readOnly);
    m_guard = new ProductionGuard(this, m_pauses);
    m_handovers = new HandoverController(this, m_session, m_statusModel, m_statusPane,
                                         m_options.readOnly);
    m_handovers->setGuard(m_guard);
    connect(m_handovers, &HandoverController::logged, this,
            [this](const QString &role, EventKind event, const QString &detail) {
                m_events->appendLocal(event, detail, role);
            });
    connect(m_handovers, &HandoverController::finished, this,
            [this](const QString &line) { statusBar()->showMessage(line, 10000); });
    connect(m_guard, &ProductionGuard::logged, this,
            [this](const QString &detail) { m_events->appendLocal(EventKind::Guard, detail); });
    m_statusPane->selectWhenShown(m_options.role);
    connect(m_statusPane, &StatusPane::roleMissing, this, [this](const QString &role) {
        m_events->appendLocal(EventKind::RoleOption,
                              tr("no role named %1 in leader_status").arg(role));
        statusBar()->showMessage(tr("No role named %1 to select").arg(role), 15000);
    });
    connect(m_pauses, &PauseController::logged, this,
            [this](const QString &role, EventKind event, const QString &detail) {
                m_events->appendLocal(event, detail, role);
            });
    connect(m_pauses, &PauseController::finished, this,
            [this](const QString &line) { statusBar()->showMessage(line, 10000); });
    m_pauseHistory
            = new PauseHistoryController(m_session, m_statusPane, m_exports, m_timeRule, this);

    m_preferences = new PreferencesController(this);
    buildActions();
    buildCentral();
    buildDocks();
    m_statusLine = new SessionStatusBar(statusBar());
    restoreSettings();
    connectSession();
    updateTitle();

    connect(m_connection, &ConnectionController::keychainUnavailable, this,
            [this](const QString &reason) {
                m_events->appendLocal(EventKind::Keychain,
                                      tr("passwords are not remembered: %1").arg(reason));
            });
    connect(m_connection, &ConnectionController::connecting, this, &MainWindow::onConnecting);
    connect(m_connection, &ConnectionController::demoLeft, this, &MainWindow::onDemoLeft);
    connect(m_thresholds, &ThresholdsController::changed, this,
            [this](const AgeThresholds &thresholds) {
                m_statusModel->setThresholds(thresholds);
                m_alerts->setThresholds(thresholds);
                m_history->setThresholds(thresholds);
                m_history->refresh();
            });
    connect(m_alerts, &AlertController::alerted, this,
            [this](const QString &role, const QString &text) {
                m_events->appendLocal(EventKind::Alert, text, role);
                statusBar()->showMessage(text, 15000);
            });
    connect(m_exports, &ExportController::exported, this,
            [this](const QString &message) { statusBar()->showMessage(message, 5000); });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = fileMenu->addAction(tr("&Connect to a database…"), m_connection,
                                                 [this] { m_connection->openDialog(); });
    connectAction->setObjectName(QStringLiteral("connectAction"));
    connectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    fileMenu->addSeparator();
    QAction *exportStatusAction = fileMenu->addAction(tr("&Export status…"), this, [this] {
        m_exports->exportStatus(m_lastSnapshot, m_haveSnapshot, m_timeRule->mode());
    });
    exportStatusAction->setObjectName(QStringLiteral("exportStatusAction"));
    exportStatusAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    fileMenu->addAction(tr("Export event &log…"), this,
                        [this] { m_exports->exportEvents(m_logPane->filter()); });
    m_preferences->addAction(fileMenu);
    fileMenu->addSeparator();
    // In the fleet this window is a tab: Quit closes the fleet's window, not one tab.
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, [this] { window()->close(); });
    quit->setShortcut(QKeySequence::Quit);

    QMenu *roleMenu = menuBar()->addMenu(tr("&Role"));
    roleMenu->addAction(m_pauses->pauseAction());
    roleMenu->addAction(m_pauses->unpauseAction());
    roleMenu->addAction(m_handovers->handoverAction());
    roleMenu->addAction(m_pauseHistory->showAction());
    roleMenu->addAction(m_pauses->selectOutboxesAction());
    roleMenu->addAction(m_guard->unlockAction());
    m_drill = new DrillController(this, m_session, m_options);
    connect(m_drill, &DrillController::logged, m_events,
            [this](const QString &detail) { m_events->appendLocal(EventKind::Drill, detail); });
    roleMenu->addAction(m_drill->runAction());
    connect(m_drill, &DrillController::victimChosen, this, [this](const QString &replica) {
        if (m_failurePanel)
            m_failurePanel->selectReplica(replica);
        m_history->showChart();
    });
    roleMenu->addSeparator();
    QAction *refreshAction
            = roleMenu->addAction(tr("&Refresh now"), m_session, &ConsoleSession::refresh);
    refreshAction->setObjectName(QStringLiteral("refreshAction"));
    refreshAction->setShortcuts(QKeySequence::Refresh);
    roleMenu->addAction(tr("Age &thresholds…"), m_thresholds, &ThresholdsController::edit);

    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    QAction *filterAction = viewMenu->addAction(tr("&Filter roles"), this,
                                                [this] { m_statusPane->focusFilter(); });
    filterAction->setObjectName(QStringLiteral("filterAction"));
    filterAction->setShortcut(QKeySequence::Find);
    // The tabs under the table from anywhere in the window, as a focused QTabWidget does itself.
    QAction *nextTab = viewMenu->addAction(tr("&Next tab"), this, [this] {
        m_history->setCurrentIndex((m_history->currentIndex() + 1) % m_history->count());
    });
    nextTab->setObjectName(QStringLiteral("nextTabAction"));
    nextTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
    QAction *previousTab = viewMenu->addAction(tr("&Previous tab"), this, [this] {
        m_history->setCurrentIndex((m_history->currentIndex() + m_history->count() - 1)
                                   % m_history->count());
    });
    previousTab->setObjectName(QStringLiteral("previousTabAction"));
    previousTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
    viewMenu->addSeparator();
    m_view = new ViewMenu(viewMenu, m_timeRule);

    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *shortcutsAction = helpMenu->addAction(tr("&Keyboard shortcuts"), this, [this] {
        auto *dialog = new ShortcutsDialog(shortcutsOf(this), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    shortcutsAction->setObjectName(QStringLiteral("shortcutsAction"));
    shortcutsAction->setShortcut(QKeySequence::HelpContents);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(connectAction);
    toolbar->addSeparator();
    toolbar->addAction(m_pauses->pauseAction());
    toolbar->addAction(m_pauses->unpauseAction());
    toolbar->addSeparator();
    toolbar->addAction(refreshAction);
    toolbar->addWidget(new QLabel(tr(" Refresh every ")));
    auto *intervalBox = new IntervalBox;
    toolbar->addWidget(intervalBox);
    m_session->setInterval(intervalBox->interval());
    connect(intervalBox, &IntervalBox::intervalChosen, m_session, &ConsoleSession::setInterval);
    toolbar->addSeparator();
    toolbar->addAction(exportStatusAction);
}

void MainWindow::buildCentral()
{
    m_history = new HistoryTabs(m_timeRule);
    m_history->setThresholds(m_thresholds->thresholds());
    connect(m_preferences, &PreferencesController::changed, m_history, &HistoryTabs::setDiskBounds);
    connect(m_history, &HistoryTabs::problem, m_events,
            [this](const QString &line) { m_events->appendLocal(EventKind::History, line); });
    connect(m_view, &ViewMenu::themeChanged, m_history, &HistoryTabs::refresh);
    m_pauseHistory->attach(m_history);
    m_registry = new RegistryController(m_session, m_connection, m_history, m_timeRule, this);
    m_registry->setGuard(m_guard);
    // Outside the demo the registry names the holders: the Holder column reads r1, not a
    // hostname:pid:8hex elided to "vm:…" (two replicas on one host read the same at 1280×800).
    connect(m_registry, &RegistryController::holderNamesRead, this,
            [this](const QHash<QString, QString> &names) {
                m_statusModel->setHolderNames(names);
                m_history->addHolderNames(names);
            });
    // In the demo, takeovers follow faults from the panel, so they sit beside it (buildDocks);
    // against a database they are a tab of their own.
    m_takeovers = new TakeoversPane(m_failovers, this);
    if (m_connection->isDemo() && !m_options.readOnly) {
        m_takeovers->hide();
    } else {
        m_takeovers->showHolderIds();
        m_history->addTab(m_takeovers, tr("Takeovers"));
    }

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("centralSplitter"));
    splitter->addWidget(m_statusPane);
    splitter->addWidget(m_history);
    // The status table keeps the height of its header and five roles, the chart takes the rest.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    setCentralWidget(
            m_guard->wrap(m_connection->wrap(LeftoverPausesBar::wrap(m_session, splitter))));
}

void MainWindow::buildDocks()
{
    m_logPane = new EventLogPane(m_events);
    connect(m_logPane, &EventLogPane::exportRequested, this,
            [this] { m_exports->exportEvents(m_logPane->filter()); });
    auto *logDock = new QDockWidget(tr("Event log"), this);
    logDock->setObjectName(QStringLiteral("eventLogDock"));
    logDock->setWidget(m_logPane);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    m_view->addToggle(logDock->toggleViewAction());
    // The failure panel's dock runs the window's whole height: the replicas, the actions and the
    // takeovers all fit beside the status table, the chart and the event log under them.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    // About eight lines of the log; the chart above it takes what is left.
    resizeDocks({logDock}, {fontMetrics().height() * 17}, Qt::Vertical);

    if (m_connection->isDemo() && !m_options.readOnly) {
        m_failurePanel = new FailurePanel(m_replicas);
        m_failurePanel->setObjectName(QStringLiteral("failurePanel"));
        m_failureDock = new QDockWidget(tr("Failure panel — hosted replicas"), this);
        m_failureDock->setObjectName(QStringLiteral("failureDock"));
        auto *dockSplitter = new QSplitter(Qt::Vertical);
        dockSplitter->setObjectName(QStringLiteral("failureSplitter"));
        dockSplitter->addWidget(m_failurePanel);
        dockSplitter->addWidget(m_takeovers);
        dockSplitter->setStretchFactor(0, 0);
        dockSplitter->setStretchFactor(1, 1);
        dockSplitter->setChildrenCollapsible(false);
        m_takeovers->show();
        m_failureDock->setWidget(dockSplitter);
        addDockWidget(Qt::RightDockWidgetArea, m_failureDock);
        // As narrow as every Failovers column allows: the rest is the status table's.
        resizeDocks({m_failureDock}, {dockSplitter->minimumSizeHint().width()}, Qt::Horizontal);
        m_view->addToggle(m_failureDock->toggleViewAction());
        connect(m_failurePanel, &FailurePanel::faultRequested, m_session, &ConsoleSession::inject);
    }
}

void MainWindow::connectSession()
{
    connect(m_session, &ConsoleSession::snapshot, this, &MainWindow::onSnapshot);
    connect(m_session, &ConsoleSession::connectionChanged, this, &MainWindow::onConnectionChanged);
    connect(m_session, &ConsoleSession::privilegesChanged, this,
            [this](const Privileges &privileges) {
                m_pauses->setPrivileges(privileges);
                m_handovers->setPrivileges(privileges);
                if (!privileges.canPause && !privileges.reason.isEmpty())
                    m_events->appendLocal(EventKind::Privileges, privileges.reason, {}, true);
                m_statusLine->showFeatures(privileges.features);
                // The extensions this database lacks, one line (collapsed when a reconnect says
                // it again): the ADR's schema alone is a database the console supports.
                if (!privileges.schemaWarning.isEmpty())
                    m_events->appendLocal(EventKind::Schema, privileges.schemaWarning, {}, true);
            });
    connect(m_session, &ConsoleSession::pollProblem, this, [this](const QString &message) {
        m_statusLine->showPollProblem(message);
        m_events->appendLocal(EventKind::PollFailed, message, {}, true);
        m_statusPane->setStaleReason(m_statusLine->staleReason(), m_statusLine->staleDetail());
    });
    connect(m_session, &ConsoleSession::staleChanged, this,
            [this](bool stale, const QDateTime &asOf) {
                if (stale)
                    m_statusLine->showStale();
                m_statusPane->setStaleReason(m_statusLine->staleReason(),
                                             m_statusLine->staleDetail());
                m_statusPane->setStale(stale, asOf);
                m_alerts->setStale(stale, asOf);
            });
    connect(m_session, &ConsoleSession::demoProgress, this, [this](const QString &step) {
        m_statusLine->showStep(step);
        m_events->appendLocal(EventKind::Demo, step);
    });
    connect(m_session, &ConsoleSession::demoFailed, this, [this](const QString &message) {
        m_statusLine->showStep(tr("Demo failed: %1").arg(message));
        m_events->appendLocal(EventKind::Error, message);
        if (m_closing)
            return;
        // Window-modal and not exec()'d: the event loop (and a closing window) is never held up.
        auto *box = new QMessageBox(QMessageBox::Critical, tr("The demo could not start"), message,
                                    QMessageBox::Close, this);
        box->setTextFormat(Qt::PlainText); // the server's or the engine's words
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(m_session, &ConsoleSession::demoStopped, this, [this] {
        if (!m_closing)
            m_events->appendLocal(EventKind::Demo, tr("the embedded demo stopped"));
    });
    // The history is the database's, however it was opened; the demo's is not worth keeping.
    connect(m_session, &ConsoleSession::databaseIdentified, this,
            [this](const DatabaseIdentity &id) {
                m_history->keepOnDisk(m_connection->isDemo()
                                              ? HistoryKey()
                                              : HistoryStore::keyFor(id, m_connection->target()),
                                      m_preferences->historySettings());
            });
    connect(m_session, &ConsoleSession::replicasChanged, m_replicas, &ReplicaModel::setReplicas);
    connect(m_session, &ConsoleSession::replicasChanged, this, [this](const QList<ReplicaInfo> &r) {
        m_statusModel->setHolderNames(holderNamesOf(r));
        m_history->addHolderNames(holderNamesOf(r));
    });
    connect(m_session, &ConsoleSession::demoEvent, m_events, &EventLogModel::appendOrRepeat);
    connect(m_session, &ConsoleSession::takeover, this, &MainWindow::onFailover);
    connect(m_session, &ConsoleSession::finished, this, &QWidget::close);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    // First start: 1440×900, or the whole of a smaller screen (a laptop's 1280×800). A size saved
    // on a larger monitor is bounded too: restoreGeometry keeps it, and the window would then hang
    // off the laptop's screen with its docks' right columns out of sight.
    const QSize available = screen()->availableSize();
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(QSize(1440, 900).boundedTo(available));
    else if (!isMaximized() && !isFullScreen() && size() != size().boundedTo(available))
        resize(size().boundedTo(available));
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    m_view->restoreTheme();
}

void MainWindow::start()
{
    switch (m_options.mode) {
    case ConsoleOptions::Mode::Demo:
        m_statusLine->showStep(tr("Starting the embedded demo…"));
        m_session->startDemo(m_options.demoDirectory);
        break;
    case ConsoleOptions::Mode::Database:
        m_connection->connectToUrl(m_options.databaseUrl);
        break;
    case ConsoleOptions::Mode::Profile:
        m_connection->connectToProfile(m_options.profileName);
        break;
    case ConsoleOptions::Mode::Fleet: // FleetWindow's: it opens one of these per database
        break;
    }
    if (!m_options.screenshotPath.isEmpty())
        QTimer::singleShot(m_options.screenshotAfterSeconds * 1000, this,
                           &MainWindow::takeScreenshot);
}

void MainWindow::onConnecting(bool anotherDatabase)
{
    if (anotherDatabase) {
        // Another database: its history is not this one's.
        m_session->forgetHolders();
        m_statusModel->clear();
        m_alerts->reset();
        m_history->clear();
    }
    m_haveSnapshot = false;
    m_pauses->setPrivileges(Privileges{});
    m_handovers->setPrivileges(Privileges{});
    m_guard->setProfile(m_connection->target());
    updateTitle();
}

void MainWindow::onDemoLeft()
{
    if (m_failureDock) {
        m_failureDock->hide();
        m_takeovers->showHolderIds();
        m_history->addTab(m_takeovers, tr("Takeovers"));
    }
}

void MainWindow::updateTitle()
{
    // The window system adds the application's name: QGuiApplication::applicationDisplayName.
    const QString title
            = m_connection->title() + (m_options.readOnly ? tr(" — read-only") : QString());
    setWindowTitle(title);
    m_pauses->setTarget(m_connection->isDemo() ? tr("the demo")
                                               : m_connection->target().describe());
    m_handovers->setTarget(m_connection->target().describe(), m_connection->isDemo());
    m_alerts->setDatabase(m_connection->title());
}

void MainWindow::onSnapshot(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    if (m_haveSnapshot) {
        for (const EventLogEntry &entry :
             changesBetween(m_lastSnapshot, snapshot, &m_thresholds->thresholds(), changes,
                            &m_statusModel->ageOrigins()))
            m_events->append(entry);
    }
    m_alerts->onSnapshot(snapshot);
    // The backlog is read with each poll, and its failing fails nothing else: said once when it
    // starts failing or its reason changes, and once when it is read again.
    if (const std::optional<QString> line = backlogReadLine(
                m_haveSnapshot ? m_lastSnapshot.backlogError : QString(), snapshot.backlogError)) {
        m_events->appendLocal(EventKind::Backlog, *line, {}, true);
        if (!snapshot.backlogError.isEmpty())
            statusBar()->showMessage(*line, 10000);
    }
    m_lastSnapshot = snapshot;
    m_haveSnapshot = true;
    m_statusPane->setSnapshot(snapshot);
    m_history->append(snapshot, changes);
    m_statusLine->showSnapshot(snapshot);
    m_pauses->update();
    m_handovers->update();
}

void MainWindow::onConnectionChanged(ConnectionState state, const QString &message)
{
    const QString line
            = m_statusLine->showConnection(state, message, m_connection->connectionName());
    // A Connecting is not logged: a retry's failure follows and says why, once however often it
    // repeats.
    if (isConnected(state))
        m_events->appendLocal(EventKind::Connection, line);
    else if (state == ConnectionState::Failed)
        m_events->appendLocal(EventKind::Connection, line, {}, true);
    m_statusPane->setStaleReason(m_statusLine->staleReason(), m_statusLine->staleDetail());
    m_pauses->setConnected(isConnected(state));
    m_handovers->setConnected(isConnected(state));
}

QString MainWindow::databaseTitle() const
{
    return m_connection->title();
}

ConnectionProfile MainWindow::target() const
{
    return m_connection->target();
}

void MainWindow::onFailover(const Failover &failover)
{
    m_failovers->append(failover);
    statusBar()->showMessage(tr("Takeover of %1: %2 → %3 in %4 s")
                                     .arg(failover.role, failover.victim, failover.successor)
                                     .arg(failover.gapSeconds, 0, 'f', 2),
                             15000);
}

void MainWindow::takeScreenshot()
{
    m_history->refresh();
    const QPixmap pixmap = grab();
    if (!pixmap.save(m_options.screenshotPath))
        qWarning("leader-console: cannot write the screenshot to %s",
                 qPrintable(m_options.screenshotPath));
    close();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // The session ends its workers within its bound (the demo's replicas release their roles and
    // its server stops) and then emits finished, which closes the window for good.
    if (!startShutdownOnClose(event, m_session->hasWorkers(), m_closing))
        return;
    // A tab of the fleet window has no geometry of its own to remember.
    if (isWindow()) {
        QSettings settings;
        settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
        settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    }
    setEnabled(false);
    if (m_connection->isDemo())
        m_statusLine->showStep(tr("Stopping the demo: releasing the roles, stopping the cluster…"));
    m_session->shutdown();
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange)
        m_session->setSuspended(isMinimized());
}

} // namespace leader::console
