#include "mainwindow.h"

#include "agechart.h"
#include "connectiondialog.h"
#include "core/demohost.h"
#include "core/passwordstore.h"
#include "core/profilestore.h"
#include "core/statusdiff.h"
#include "core/statusexport.h"
#include "core/statuspoller.h"
#include "failurepanel.h"
#include "holdertimelineview.h"
#include "models/eventlogmodel.h"
#include "models/failovermodel.h"
#include "models/holdertimeline.h"
#include "models/replicamodel.h"
#include "models/statusmodel.h"
#include "pausedialog.h"
#include "theme.h"
#include "thresholdsdialog.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace leader::console {

namespace {

constexpr int ShutdownBoundMs = 20000;
constexpr int ChartRefreshEveryMs = 1000;
const QList<int> IntervalChoicesMs{0, 1000, 2000, 5000, 10000, 30000};

QString intervalText(int milliseconds)
{
    return milliseconds == 0 ? QObject::tr("Off") : QObject::tr("%1 s").arg(milliseconds / 1000);
}

QTableView *tableView(const QString &objectName, QAbstractItemModel *model)
{
    auto *view = new QTableView;
    view->setObjectName(objectName);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    return view;
}

} // namespace

MainWindow::MainWindow(ConsoleOptions options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
    , m_thresholds(AgeThresholds::defaults())
{
    setObjectName(QStringLiteral("mainWindow"));
    {
        QSettings settings;
        m_thresholds.load(settings);
    }
    m_statusModel = new StatusModel(this);
    m_statusModel->setThresholds(m_thresholds);
    m_timeline = new HolderTimeline(this);
    m_failovers = new FailoverModel(this);
    m_events = new EventLogModel(this);
    m_replicas = new ReplicaModel(this);
    m_passwords = new PasswordStore(this);

    buildActions();
    buildCentral();
    buildDocks();
    buildStatusBar();
    restoreSettings();
    updateTitle();
    updateWriteActions();

    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(windowIcon(), this);
        m_tray->setToolTip(windowTitle());
        m_tray->show();
    }
    connect(m_passwords, &PasswordStore::unavailable, this, [this](const QString &reason) {
        logLocal(QStringLiteral("keychain"), tr("passwords are not remembered: %1").arg(reason));
    });
}

MainWindow::~MainWindow()
{
    if (m_poller) {
        QMetaObject::invokeMethod(m_poller, &StatusPoller::stop, Qt::BlockingQueuedConnection);
        m_pollThread.quit();
        m_pollThread.wait();
        delete m_poller;
    }
    if (m_demo) {
        // A window closed without closeEvent (a test, a crash of the event loop): still release.
        if (!m_shutdownDone)
            QMetaObject::invokeMethod(m_demo, &DemoHost::shutdown, Qt::BlockingQueuedConnection);
        m_demoThread.quit();
        m_demoThread.wait();
        delete m_demo;
    }
}

void MainWindow::buildActions()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    m_connectAction = fileMenu->addAction(tr("&Connect to a database…"), this,
                                          [this] { openConnectionDialog({}); });
    m_connectAction->setObjectName(QStringLiteral("connectAction"));
    m_connectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    fileMenu->addSeparator();
    m_exportStatusAction
            = fileMenu->addAction(tr("&Export status…"), this, &MainWindow::exportStatus);
    m_exportStatusAction->setObjectName(QStringLiteral("exportStatusAction"));
    m_exportStatusAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    fileMenu->addAction(tr("Export event &log…"), this, &MainWindow::exportEvents);
    fileMenu->addSeparator();
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *roleMenu = menuBar()->addMenu(tr("&Role"));
    m_pauseAction = roleMenu->addAction(tr("&Pause…"), this, [this] { requestPauseChange(true); });
    m_pauseAction->setObjectName(QStringLiteral("pauseAction"));
    m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_unpauseAction
            = roleMenu->addAction(tr("&Unpause…"), this, [this] { requestPauseChange(false); });
    m_unpauseAction->setObjectName(QStringLiteral("unpauseAction"));
    m_unpauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    roleMenu->addSeparator();
    m_refreshAction = roleMenu->addAction(tr("&Refresh now"), this, [this] {
        if (m_poller)
            QMetaObject::invokeMethod(m_poller, &StatusPoller::pollNow, Qt::QueuedConnection);
    });
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    m_thresholdsAction
            = roleMenu->addAction(tr("Age &thresholds…"), this, &MainWindow::editThresholds);

    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    QMenu *themeMenu = viewMenu->addMenu(tr("&Theme"));
    auto *themes = new QActionGroup(this);
    const Theme current = themeFromName(QSettings().value(QStringLiteral("view/theme")).toString());
    for (const Theme theme : {Theme::System, Theme::Light, Theme::Dark}) {
        const QString label = theme == Theme::System  ? tr("Follow the system")
                              : theme == Theme::Light ? tr("Light")
                                                      : tr("Dark");
        QAction *action = themeMenu->addAction(label, this, [this, theme] {
            applyTheme(theme);
            QSettings().setValue(QStringLiteral("view/theme"), themeName(theme));
            if (m_chart)
                m_chart->refresh();
        });
        action->setCheckable(true);
        action->setChecked(theme == current);
        themes->addAction(action);
    }
    m_viewMenu = viewMenu;

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_connectAction);
    toolbar->addSeparator();
    toolbar->addAction(m_pauseAction);
    toolbar->addAction(m_unpauseAction);
    toolbar->addSeparator();
    toolbar->addAction(m_refreshAction);
    toolbar->addWidget(new QLabel(tr(" Refresh every ")));
    m_intervalBox = new QComboBox;
    m_intervalBox->setObjectName(QStringLiteral("intervalBox"));
    for (const int milliseconds : IntervalChoicesMs)
        m_intervalBox->addItem(intervalText(milliseconds), milliseconds);
    m_intervalBox->setToolTip(tr("How often leader_status is read. Polling pauses while the "
                                 "window is minimised."));
    toolbar->addWidget(m_intervalBox);
    connect(m_intervalBox, &QComboBox::activated, this,
            [this](int index) { setInterval(m_intervalBox->itemData(index).toInt()); });
    toolbar->addSeparator();
    toolbar->addAction(m_exportStatusAction);
}

void MainWindow::buildCentral()
{
    m_statusProxy = new QSortFilterProxyModel(this);
    m_statusProxy->setSourceModel(m_statusModel);
    m_statusProxy->setSortRole(StatusModel::RawRole);
    m_statusView = tableView(QStringLiteral("statusView"), m_statusProxy);
    m_statusView->setSortingEnabled(true);
    m_statusView->sortByColumn(StatusModel::Role, Qt::AscendingOrder);
    m_statusView->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_statusView->addAction(m_pauseAction);
    m_statusView->addAction(m_unpauseAction);
    m_statusView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_statusView->horizontalHeader()->setStretchLastSection(true);
    connect(m_statusView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::updateWriteActions);

    m_chart = new AgeChart;
    m_chart->setObjectName(QStringLiteral("ageChart"));
    m_chart->setHistory(&m_history);
    applyChartThresholds();
    m_timelineView = new HolderTimelineView;
    m_timelineView->setModel(m_timeline);
    m_timelineView->setObjectName(QStringLiteral("holderTimeline"));
    connect(m_chart, &AgeChart::windowChanged, m_timelineView, &HolderTimelineView::setWindow);

    auto *failoverView = tableView(QStringLiteral("failoverView"), m_failovers);
    auto *failoverPage = new QWidget;
    auto *failoverLayout = new QVBoxLayout(failoverPage);
    auto *failoverNote = new QLabel(
            tr("Each takeover after a fault from the failure panel: the victim's last heartbeat "
               "(its last expiry minus the 10 s lease) to the successor's acquired_at, both on the "
               "database clock. ADR-114 bound: acquirable ≤ 10 s after the last heartbeat."));
    failoverNote->setWordWrap(true);
    failoverLayout->addWidget(failoverNote);
    failoverLayout->addWidget(failoverView);

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->addTab(m_chart, tr("Last tick age"));
    m_tabs->addTab(m_timelineView, tr("Holders"));

    // Failovers follow faults from the panel, so they sit beside it where the panel exists.
    m_failoverPage = failoverPage;
    m_failoverPage->setParent(this);
    m_failoverPage->hide();

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("centralSplitter"));
    splitter->addWidget(m_statusView);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);
}

void MainWindow::buildDocks()
{
    m_eventFilter = new EventLogFilter(this);
    m_eventFilter->setSourceModel(m_events);
    auto *logPage = new QWidget;
    auto *logLayout = new QVBoxLayout(logPage);
    auto *filterRow = new QHBoxLayout;
    auto *filterEdit = new QLineEdit;
    filterEdit->setObjectName(QStringLiteral("eventFilter"));
    filterEdit->setPlaceholderText(tr("Filter: text in any column (role, replica, event, …)"));
    filterEdit->setClearButtonEnabled(true);
    connect(filterEdit, &QLineEdit::textChanged, m_eventFilter, &EventLogFilter::setText);
    auto *exportButton = new QPushButton(tr("Export CSV…"));
    connect(exportButton, &QPushButton::clicked, this, &MainWindow::exportEvents);
    filterRow->addWidget(filterEdit, 1);
    filterRow->addWidget(exportButton);
    logLayout->addLayout(filterRow);
    auto *logView = tableView(QStringLiteral("eventView"), m_eventFilter);
    logView->setWordWrap(false);
    logLayout->addWidget(logView);
    // Follow the log's tail unless the operator scrolled away from it.
    connect(m_eventFilter, &QAbstractItemModel::rowsInserted, logView, [logView] {
        if (logView->verticalScrollBar()->value() >= logView->verticalScrollBar()->maximum() - 2)
            QTimer::singleShot(0, logView, &QTableView::scrollToBottom);
    });

    auto *logDock = new QDockWidget(tr("Event log"), this);
    logDock->setObjectName(QStringLiteral("eventLogDock"));
    logDock->setWidget(logPage);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    m_viewMenu->addAction(logDock->toggleViewAction());

    if (isDemo() && !m_options.readOnly) {
        m_failurePanel = new FailurePanel(m_replicas);
        m_failurePanel->setObjectName(QStringLiteral("failurePanel"));
        m_failureDock = new QDockWidget(tr("Failure panel — hosted replicas"), this);
        m_failureDock->setObjectName(QStringLiteral("failureDock"));
        auto *dockSplitter = new QSplitter(Qt::Vertical);
        dockSplitter->addWidget(m_failurePanel);
        dockSplitter->addWidget(m_failoverPage);
        m_failoverPage->show();
        m_failureDock->setWidget(dockSplitter);
        addDockWidget(Qt::RightDockWidgetArea, m_failureDock);
        m_viewMenu->addAction(m_failureDock->toggleViewAction());
        connect(m_failurePanel, &FailurePanel::faultRequested, this,
                [this](const FaultRequest &request) {
                    if (!m_demo || !m_demoRunning)
                        return;
                    QMetaObject::invokeMethod(
                            m_demo, [demo = m_demo, request] { demo->inject(request); },
                            Qt::QueuedConnection);
                });
    }
}

void MainWindow::buildStatusBar()
{
    m_connectionLabel = new QLabel(tr("Not connected"));
    m_connectionLabel->setObjectName(QStringLiteral("connectionLabel"));
    m_latencyLabel = new QLabel;
    m_latencyLabel->setObjectName(QStringLiteral("latencyLabel"));
    m_latencyLabel->setToolTip(tr("Round trip of the last leader_status poll"));
    m_driftLabel = new QLabel;
    m_driftLabel->setObjectName(QStringLiteral("driftLabel"));
    m_driftLabel->setToolTip(tr("The database clock minus this workstation's. Ages and expiries "
                                "are computed on the database clock, so drift does not skew "
                                "them."));
    statusBar()->addWidget(m_connectionLabel, 1);
    statusBar()->addPermanentWidget(m_latencyLabel);
    statusBar()->addPermanentWidget(m_driftLabel);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1440, 900);
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    const int interval = settings.value(QStringLiteral("poll/intervalMs"), 1000).toInt();
    const int index
            = m_intervalBox->findData(IntervalChoicesMs.contains(interval) ? interval : 1000);
    m_intervalBox->setCurrentIndex(index);
    applyTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
}

void MainWindow::start()
{
    startPoller();
    switch (m_options.mode) {
    case ConsoleOptions::Mode::Demo:
        startDemo();
        break;
    case ConsoleOptions::Mode::Database: {
        QString error;
        const std::optional<ConnectionProfile> profile
                = ConnectionProfile::fromUrl(m_options.databaseUrl, &error);
        if (!profile) {
            openConnectionDialog(error);
            return;
        }
        connectTo(*profile);
        break;
    }
    case ConsoleOptions::Mode::Profile: {
        ProfileStore store;
        const std::optional<ConnectionProfile> profile = store.load(m_options.profileName);
        if (!profile) {
            openConnectionDialog(tr("no saved profile named \"%1\"").arg(m_options.profileName));
            return;
        }
        // The password, if remembered, comes from the keychain; the connection is made either way
        // (a server with trust or .pgpass needs none) and a refusal reopens the dialog.
        connect(
                m_passwords, &PasswordStore::passwordRead, this,
                [this, profile = *profile](const QString &name, const QString &password,
                                           bool found) mutable {
                    if (name != profile.name || m_hasTarget)
                        return;
                    if (found)
                        profile.password = password;
                    connectTo(profile);
                },
                Qt::SingleShotConnection);
        m_passwords->read(profile->name);
        break;
    }
    }
    if (!m_options.screenshotPath.isEmpty())
        QTimer::singleShot(m_options.screenshotAfterSeconds * 1000, this,
                           &MainWindow::takeScreenshot);
}

void MainWindow::startPoller()
{
    m_poller = new StatusPoller;
    m_poller->moveToThread(&m_pollThread);
    m_pollThread.setObjectName(QStringLiteral("status poller"));
    connect(m_poller, &StatusPoller::snapshot, this, &MainWindow::onSnapshot);
    connect(m_poller, &StatusPoller::connectionChanged, this, &MainWindow::onConnectionChanged);
    connect(m_poller, &StatusPoller::privilegesChanged, this, &MainWindow::onPrivileges);
    connect(m_poller, &StatusPoller::actionFinished, this, &MainWindow::onActionFinished);
    m_pollThread.start();
    setInterval(m_intervalBox->currentData().toInt());
}

void MainWindow::startDemo()
{
    DemoHost::Options demoOptions;
    demoOptions.directory = m_options.demoDirectory;
    m_demo = new DemoHost(demoOptions);
    m_demo->moveToThread(&m_demoThread);
    m_demoThread.setObjectName(QStringLiteral("demo host"));
    connect(m_demo, &DemoHost::progress, this, [this](const QString &step) {
        m_connectionLabel->setText(step);
        logLocal(QStringLiteral("demo"), step);
    });
    connect(m_demo, &DemoHost::started, this, &MainWindow::onDemoStarted);
    connect(m_demo, &DemoHost::failed, this, &MainWindow::onDemoFailed);
    connect(m_demo, &DemoHost::replicasChanged, this, &MainWindow::onReplicas);
    connect(m_demo, &DemoHost::event, this, &MainWindow::appendLog);
    connect(m_demo, &DemoHost::failoverMeasured, this, &MainWindow::onFailover);
    connect(m_demo, &DemoHost::stopped, this, &MainWindow::finishShutdown);
    m_demoThread.start();
    m_connectionLabel->setText(tr("Starting the embedded demo…"));
    QMetaObject::invokeMethod(m_demo, &DemoHost::start, Qt::QueuedConnection);
}

void MainWindow::onDemoStarted(const ConnectionProfile &monitor)
{
    m_demoRunning = true;
    connectTo(monitor);
    Q_EMIT demoStarted();
    if (m_options.drillAfterSeconds > 0)
        QTimer::singleShot(m_options.drillAfterSeconds * 1000, this, &MainWindow::runDrill);
}

void MainWindow::onDemoFailed(const QString &message)
{
    m_connectionLabel->setText(tr("Demo failed: %1").arg(message));
    logLocal(QStringLiteral("error"), message);
    Q_EMIT demoFailed(message);
    if (m_shuttingDown)
        return;
    // Window-modal and not exec()'d: the event loop (and a closing window) is never held up.
    auto *box = new QMessageBox(QMessageBox::Critical, tr("The demo could not start"), message,
                                QMessageBox::Close, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::connectTo(const ConnectionProfile &profile)
{
    if (m_hasTarget && !(profile == m_target)) {
        // Another database: its history is not this one's.
        m_history.clear();
        m_timeline->clear();
        m_statusModel->clear();
        m_chart->refresh();
    }
    m_target = profile;
    m_hasTarget = true;
    m_haveSnapshot = false;
    m_privileges = Privileges{};
    updateTitle();
    updateWriteActions();
    QMetaObject::invokeMethod(
            m_poller, [poller = m_poller, profile] { poller->setTarget(profile); },
            Qt::QueuedConnection);
}

void MainWindow::openConnectionDialog(const QString &error)
{
    if (m_connectionDialog) {
        m_connectionDialog->setError(error);
        m_connectionDialog->raise();
        return;
    }
    auto *dialog = new ConnectionDialog(nullptr, m_passwords, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (m_hasTarget && !isDemo())
        dialog->setProfile(m_target);
    if (!error.isEmpty())
        dialog->setError(error);
    m_connectionDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const ConnectionProfile profile = dialog->profile();
        if (m_demo && m_demoRunning) {
            const auto answer = QMessageBox::question(
                    this, tr("Leave the demo?"),
                    tr("Connecting to %1 stops the embedded demo (its replicas release their "
                       "roles). Continue?")
                            .arg(profile.describe()));
            if (answer != QMessageBox::Yes)
                return;
            m_demoRunning = false;
            QMetaObject::invokeMethod(m_demo, &DemoHost::shutdown, Qt::QueuedConnection);
            if (m_failureDock)
                m_failureDock->hide();
        }
        m_options.mode = ConsoleOptions::Mode::Database;
        connectTo(profile);
    });
    dialog->open();
}

void MainWindow::updateTitle()
{
    QString target;
    if (isDemo())
        target = tr("demo");
    else if (m_hasTarget)
        target = m_target.name.isEmpty() ? m_target.describe()
                                         : m_target.name + QLatin1String(" (") + m_target.describe()
                                                   + QLatin1Char(')');
    else
        target = tr("not connected");
    QString title = tr("Leader Console — %1").arg(target);
    if (m_options.readOnly)
        title += tr(" — read-only");
    setWindowTitle(title);
    if (m_tray)
        m_tray->setToolTip(title);
}

void MainWindow::updateWriteActions()
{
    const bool hidden = m_options.readOnly;
    m_pauseAction->setVisible(!hidden);
    m_unpauseAction->setVisible(!hidden);
    if (hidden)
        return;
    const QString role = selectedRole();
    const bool connected = m_connectionState == ConnectionState::Connected;
    const std::optional<RoleStatus> status = m_statusModel->statusFor(role);
    const bool paused = status && status->state == QLatin1String("paused");
    QString why;
    if (!connected)
        why = tr("Not connected");
    else if (role.isEmpty())
        why = tr("Select a role in the table");
    m_pauseAction->setEnabled(why.isEmpty() && m_privileges.canPause && !paused);
    m_unpauseAction->setEnabled(why.isEmpty() && m_privileges.canUnpause && paused);
    const QString pauseTip
            = !why.isEmpty() ? why
              : !m_privileges.canPause
                      ? m_privileges.reason
                      : (paused ? tr("%1 is already paused").arg(role)
                                : tr("Pause %1 cluster-wide (leader_pause)").arg(role));
    const QString unpauseTip = !why.isEmpty() ? why
                               : !m_privileges.canUnpause
                                       ? m_privileges.reason
                                       : (paused ? tr("Unpause %1 (leader_unpause)").arg(role)
                                                 : tr("%1 is not paused").arg(role));
    m_pauseAction->setToolTip(pauseTip);
    m_unpauseAction->setToolTip(unpauseTip);
    m_pauseAction->setStatusTip(pauseTip);
    m_unpauseAction->setStatusTip(unpauseTip);
}

bool MainWindow::selectRole(const QString &role)
{
    for (int row = 0; row < m_statusProxy->rowCount(); ++row) {
        const QModelIndex index = m_statusProxy->index(row, StatusModel::Role);
        if (index.data(Qt::DisplayRole).toString() == role) {
            m_statusView->selectRow(row);
            return true;
        }
    }
    return false;
}

QString MainWindow::selectedRole() const
{
    const QModelIndexList rows = m_statusView->selectionModel()->selectedRows(StatusModel::Role);
    return rows.isEmpty() ? QString() : rows.constFirst().data(Qt::DisplayRole).toString();
}

void MainWindow::onSnapshot(const StatusSnapshot &snapshot)
{
    const QString selected = selectedRole();
    if (m_haveSnapshot) {
        for (const EventLogEntry &entry : changesBetween(m_lastSnapshot, snapshot, &m_thresholds))
            appendLog(entry);
    }
    // Alerts: a role whose age level rises to alert, once per entry into it.
    for (const RoleStatus &row : snapshot.roles) {
        if (!row.lastTickAgeSeconds || row.state == QLatin1String("paused"))
            continue;
        const AgeLevel now = m_thresholds.level(row.role, row.lastTickAgeSeconds);
        AgeLevel before = AgeLevel::Unknown;
        if (m_haveSnapshot) {
            for (const RoleStatus &old : std::as_const(m_lastSnapshot.roles)) {
                if (old.role == row.role)
                    before = m_thresholds.level(old.role, old.lastTickAgeSeconds);
            }
        }
        if (now == AgeLevel::Alert && before != AgeLevel::Alert)
            notifyAlert(row.role, *row.lastTickAgeSeconds);
    }
    m_lastSnapshot = snapshot;
    m_haveSnapshot = true;
    m_statusModel->setSnapshot(snapshot);
    if (!selected.isEmpty() && selectedRole() != selected)
        selectRole(selected);
    m_history.append(snapshot);
    m_timeline->append(snapshot);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastChartRefreshMs >= ChartRefreshEveryMs && m_chart->isVisible()) {
        m_chart->refresh();
        m_lastChartRefreshMs = now;
    }
    m_latencyLabel->setText(tr("poll %1 ms").arg(snapshot.roundTripMs, 0, 'f', 1));
    m_driftLabel->setText(tr("db clock %1%2 ms")
                                  .arg(snapshot.clockDriftMs >= 0 ? QStringLiteral("+") : QString())
                                  .arg(snapshot.clockDriftMs, 0, 'f', 0));
    updateWriteActions();
}

void MainWindow::onConnectionChanged(ConnectionState state, const QString &message)
{
    const ConnectionState before = m_connectionState;
    m_connectionState = state;
    const QString target
            = isDemo() ? tr("demo (%1)").arg(m_target.describe()) : m_target.describe();
    switch (state) {
    case ConnectionState::Connected:
        // The poller's message says more after a reconnect ("reconnected … after 4 s").
        m_connectionLabel->setText(message.startsWith(QLatin1String("reconnected"))
                                           ? tr("%1: %2").arg(target, message)
                                           : tr("Connected to %1").arg(target));
        break;
    case ConnectionState::Connecting:
        m_connectionLabel->setText(message.isEmpty() ? tr("Connecting to %1…").arg(target)
                                                     : message);
        break;
    case ConnectionState::Failed:
        m_connectionLabel->setText(tr("%1: %2").arg(target, message));
        break;
    case ConnectionState::Disconnected:
        m_connectionLabel->setText(tr("Not connected"));
        break;
    }
    if (state != before || !message.isEmpty())
        logLocal(QStringLiteral("connection"), m_connectionLabel->text());
    // A real database refusing the first attempt: reopen the dialog with the reason. Later
    // failures (a restart, a sleep) are retried by the poller and only reported.
    if (state == ConnectionState::Failed && !isDemo() && before != ConnectionState::Connected
        && !m_haveSnapshot)
        openConnectionDialog(message);
    updateWriteActions();
}

void MainWindow::onPrivileges(const Privileges &privileges)
{
    m_privileges = privileges;
    if (!privileges.canPause && !privileges.reason.isEmpty())
        logLocal(QStringLiteral("privileges"), privileges.reason);
    updateWriteActions();
}

void MainWindow::onActionFinished(const QString &role, const QString &action, bool ok,
                                  const QString &message)
{
    const QString line = ok ? tr("%1 %2: done").arg(action, role)
                            : tr("%1 %2 failed: %3").arg(action, role, message);
    logLocal(action, ok ? message : line, role);
    statusBar()->showMessage(line, 10000);
    if (!ok) {
        auto *box = new QMessageBox(QMessageBox::Warning, tr("%1 failed").arg(action), line,
                                    QMessageBox::Close, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void MainWindow::onFailover(const Failover &failover)
{
    m_failovers->append(failover);
    statusBar()->showMessage(tr("Takeover of %1: %2 → %3 in %4 s")
                                     .arg(failover.role, failover.victim, failover.successor)
                                     .arg(failover.gapSeconds, 0, 'f', 2),
                             15000);
}

void MainWindow::onReplicas(const QList<ReplicaInfo> &replicas)
{
    m_replicaInfos = replicas;
    m_replicas->setReplicas(replicas);
}

void MainWindow::appendLog(const EventLogEntry &entry)
{
    m_events->append(entry);
}

void MainWindow::logLocal(const QString &event, const QString &detail, const QString &role)
{
    EventLogEntry entry;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.source = QStringLiteral("console");
    entry.role = role;
    entry.event = event;
    entry.detail = detail;
    m_events->append(entry);
}

void MainWindow::requestPauseChange(bool pause)
{
    const QString role = selectedRole();
    if (role.isEmpty() || m_pauseDialog)
        return;
    const QString target = isDemo() ? tr("the demo") : m_target.describe();
    auto *dialog = new PauseDialog(pause ? PauseDialog::Mode::Pause : PauseDialog::Mode::Unpause,
                                   role, target, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (const std::optional<RoleStatus> status = m_statusModel->statusFor(role); !pause && status)
        dialog->setCurrentPause(status->pausedBy, status->pauseReason);
    m_pauseDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, pause] {
        const QString role = dialog->role();
        if (pause) {
            const QString who = dialog->who();
            const QString why = dialog->why();
            logLocal(QStringLiteral("pause"), tr("requested by %1: %2").arg(who, why), role);
            QMetaObject::invokeMethod(
                    m_poller,
                    [poller = m_poller, role, who, why] { poller->pause(role, who, why); },
                    Qt::QueuedConnection);
        } else {
            logLocal(QStringLiteral("unpause"), tr("requested"), role);
            QMetaObject::invokeMethod(
                    m_poller, [poller = m_poller, role] { poller->unpause(role); },
                    Qt::QueuedConnection);
        }
    });
    dialog->open();
}

void MainWindow::setInterval(int milliseconds)
{
    QSettings().setValue(QStringLiteral("poll/intervalMs"), milliseconds);
    if (m_poller)
        QMetaObject::invokeMethod(
                m_poller, [poller = m_poller, milliseconds] { poller->setInterval(milliseconds); },
                Qt::QueuedConnection);
}

void MainWindow::exportStatus()
{
    if (!m_haveSnapshot) {
        statusBar()->showMessage(tr("Nothing to export yet: no poll has answered"), 5000);
        return;
    }
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export status"),
                                                      QStringLiteral("leader-status.csv"),
                                                      tr("CSV (*.csv);;JSON (*.json)"), &filter);
    if (path.isEmpty())
        return;
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                      || filter.startsWith(QLatin1String("JSON"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(json ? statusToJson(m_lastSnapshot) : statusToCsv(m_lastSnapshot)) < 0
        || !file.commit()) {
        QMessageBox::warning(this, tr("Export failed"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
        return;
    }
    statusBar()->showMessage(tr("Status exported to %1").arg(path), 5000);
}

void MainWindow::exportEvents()
{
    const QString path = QFileDialog::getSaveFileName(
            this, tr("Export event log"), QStringLiteral("leader-events.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    QString error;
    if (!file.open(QIODevice::WriteOnly) || !exportCsv(&file, m_eventFilter, &error)
        || !file.commit()) {
        QMessageBox::warning(this, tr("Export failed"),
                             tr("Could not write %1: %2")
                                     .arg(path, error.isEmpty() ? file.errorString() : error));
        return;
    }
    statusBar()->showMessage(tr("Event log exported to %1").arg(path), 5000);
}

void MainWindow::editThresholds()
{
    auto toDialog = [](const AgeThresholds &thresholds) {
        ThresholdsDialog::Thresholds map;
        for (const QString &role : ThresholdsDialog::roles()) {
            const AgeThreshold threshold = thresholds.threshold(role);
            map.insert(role, {threshold.warnSeconds, threshold.alertSeconds});
        }
        return map;
    };
    auto *dialog = new ThresholdsDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setDefaults(toDialog(AgeThresholds::defaults()));
    dialog->setThresholds(toDialog(m_thresholds));
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const ThresholdsDialog::Thresholds chosen = dialog->thresholds();
        for (auto it = chosen.cbegin(); it != chosen.cend(); ++it)
            m_thresholds.setThreshold(it.key(), AgeThreshold{it.value().first, it.value().second});
        QSettings settings;
        m_thresholds.save(settings);
        m_statusModel->setThresholds(m_thresholds);
        applyChartThresholds();
        m_chart->refresh();
    });
    dialog->open();
}

void MainWindow::applyChartThresholds()
{
    // The alert line only: five warning lines more would hide the curves.
    for (const QString &role : m_thresholds.roles())
        m_chart->setThreshold(role, m_thresholds.threshold(role).alertSeconds);
}

void MainWindow::runDrill()
{
    // The replica leading billing, else any replica leading something; retried until one is.
    const ReplicaInfo *victim = nullptr;
    for (const ReplicaInfo &replica : std::as_const(m_replicaInfos)) {
        if (replica.state == QLatin1String("running")
            && replica.leading.contains(QStringLiteral("billing")))
            victim = &replica;
    }
    for (const ReplicaInfo &replica : std::as_const(m_replicaInfos)) {
        if (!victim && replica.state == QLatin1String("running") && !replica.leading.isEmpty())
            victim = &replica;
    }
    if (!victim) {
        QTimer::singleShot(250, this, &MainWindow::runDrill);
        return;
    }
    if (m_failurePanel)
        m_failurePanel->selectReplica(victim->id);
    FaultRequest request;
    request.replica = victim->id;
    request.kind = FaultKind::Kill;
    logLocal(QStringLiteral("drill"),
             tr("killing %1 (leads %2)")
                     .arg(victim->id, victim->leading.join(QStringLiteral(", "))));
    QMetaObject::invokeMethod(
            m_demo, [demo = m_demo, request] { demo->inject(request); }, Qt::QueuedConnection);
    m_tabs->setCurrentIndex(0);
}

void MainWindow::takeScreenshot()
{
    m_chart->refresh();
    const QPixmap pixmap = grab();
    if (!pixmap.save(m_options.screenshotPath))
        qWarning("leader-console: cannot write the screenshot to %s",
                 qPrintable(m_options.screenshotPath));
    close();
}

void MainWindow::notifyAlert(const QString &role, double ageSeconds)
{
    // The event log has the alert already, from the poll's diff.
    const QString text
            = tr("%1 has not completed a tick for %2 s").arg(role).arg(ageSeconds, 0, 'f', 0);
    if (m_tray)
        m_tray->showMessage(tr("Leader Console: %1 in alert").arg(role), text,
                            QSystemTrayIcon::Warning, 10000);
    else
        statusBar()->showMessage(text, 15000);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    if (!m_demo || m_shutdownDone) {
        event->accept();
        return;
    }
    // The replicas release their roles and the cluster stops before the window goes; bounded,
    // so a wedged server cannot keep the window open.
    event->ignore();
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    m_demoRunning = false;
    setEnabled(false);
    m_connectionLabel->setText(tr("Stopping the demo: releasing the roles, stopping the "
                                  "cluster…"));
    QMetaObject::invokeMethod(m_poller, &StatusPoller::stop, Qt::QueuedConnection);
    QMetaObject::invokeMethod(m_demo, &DemoHost::shutdown, Qt::QueuedConnection);
    QTimer::singleShot(ShutdownBoundMs, this, [this] {
        if (!m_shutdownDone) {
            qWarning("leader-console: the demo did not stop within %d s; closing anyway",
                     ShutdownBoundMs / 1000);
            finishShutdown();
        }
    });
}

void MainWindow::finishShutdown()
{
    if (!m_shuttingDown) {
        // The demo stopped because the operator switched to a real database.
        m_shutdownDone = true;
        logLocal(QStringLiteral("demo"), tr("the embedded demo stopped"));
        return;
    }
    if (m_shutdownDone)
        return;
    m_shutdownDone = true;
    Q_EMIT shutdownFinished();
    close();
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange && m_poller) {
        const bool minimised = isMinimized();
        QMetaObject::invokeMethod(
                m_poller, [poller = m_poller, minimised] { poller->setSuspended(minimised); },
                Qt::QueuedConnection);
    }
}

} // namespace leader::console
