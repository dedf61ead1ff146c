#include "mainwindow.h"

#include "agechart.h"
#include "alertcontroller.h"
#include "connectiondialog.h"
#include "core/consolesession.h"
#include "core/passwordstore.h"
#include "core/profilestore.h"
#include "core/statusdiff.h"
#include "core/timerule.h"
#include "eventlogpane.h"
#include "exportcontroller.h"
#include "failurepanel.h"
#include "holdertimelineview.h"
#include "models/eventlogmodel.h"
#include "models/failovermodel.h"
#include "models/holdertimeline.h"
#include "models/replicamodel.h"
#include "models/statusmodel.h"
#include "pausecontroller.h"
#include "statuspane.h"
#include "tableview.h"
#include "theme.h"
#include "thresholdsdialog.h"

#include <QActionGroup>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace leader::console {

namespace {

constexpr int ChartRefreshEveryMs = 1000;
const QList<int> IntervalChoicesMs{0, 1000, 2000, 5000, 10000, 30000};

QString intervalText(int milliseconds)
{
    return milliseconds == 0 ? QObject::tr("Off") : QObject::tr("%1 s").arg(milliseconds / 1000);
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
    m_session = new ConsoleSession(this);
    m_session->setObjectName(QStringLiteral("consoleSession"));
    m_timeRule = new TimeRule(this);
    m_timeRule->restore();
    m_statusModel = new StatusModel(this);
    m_statusModel->setObjectName(QStringLiteral("statusModel"));
    m_statusModel->setThresholds(m_thresholds);
    m_timeline = new HolderTimeline(this);
    m_failovers = new FailoverModel(this);
    m_failovers->setObjectName(QStringLiteral("failoverModel"));
    m_events = new EventLogModel(this);
    m_events->setObjectName(QStringLiteral("eventLogModel"));
    m_replicas = new ReplicaModel(this);
    m_replicas->setObjectName(QStringLiteral("replicaModel"));
    m_statusModel->setTimeRule(m_timeRule);
    m_timeline->setTimeRule(m_timeRule);
    m_failovers->setTimeRule(m_timeRule);
    m_events->setTimeRule(m_timeRule);
    m_passwords = new PasswordStore(this);
    m_alerts = new AlertController(this);
    m_alerts->setThresholds(m_thresholds);
    m_exports = new ExportController(this);
    m_statusPane = new StatusPane(m_statusModel, m_timeRule);
    m_pauses
            = new PauseController(this, m_session, m_statusModel, m_statusPane, m_options.readOnly);
    connect(m_pauses, &PauseController::requested, this,
            [this](const QString &role, const QString &event, const QString &detail) {
                logLocal(event, detail, role);
            });

    buildActions();
    buildCentral();
    buildDocks();
    buildStatusBar();
    restoreSettings();
    connectSession();
    updateTitle();

    connect(m_passwords, &PasswordStore::unavailable, this, [this](const QString &reason) {
        logLocal(QStringLiteral("keychain"), tr("passwords are not remembered: %1").arg(reason));
    });
    connect(m_alerts, &AlertController::alerted, this,
            [this](const QString &role, const QString &text) {
                logLocal(QStringLiteral("alert"), text, role);
                statusBar()->showMessage(text, 15000);
            });
    connect(m_exports, &ExportController::exported, this,
            [this](const QString &message) { statusBar()->showMessage(message, 5000); });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = fileMenu->addAction(tr("&Connect to a database…"), this,
                                                 [this] { openConnectionDialog({}); });
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
    fileMenu->addSeparator();
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *roleMenu = menuBar()->addMenu(tr("&Role"));
    roleMenu->addAction(m_pauses->pauseAction());
    roleMenu->addAction(m_pauses->unpauseAction());
    roleMenu->addSeparator();
    QAction *refreshAction
            = roleMenu->addAction(tr("&Refresh now"), m_session, &ConsoleSession::refresh);
    refreshAction->setShortcut(QKeySequence::Refresh);
    roleMenu->addAction(tr("Age &thresholds…"), this, &MainWindow::editThresholds);

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
    // One zone for every time the window shows; exports carry the offset either way.
    QMenu *zoneMenu = viewMenu->addMenu(tr("Time &zone"));
    auto *zones = new QActionGroup(this);
    for (const TimeZoneMode zone : {TimeZoneMode::Local, TimeZoneMode::Utc}) {
        QAction *action = zoneMenu->addAction(TimeRule::zoneName(zone), this,
                                              [this, zone] { m_timeRule->setMode(zone); });
        action->setObjectName(zone == TimeZoneMode::Utc ? QStringLiteral("utcAction")
                                                        : QStringLiteral("localTimeAction"));
        action->setCheckable(true);
        action->setChecked(zone == m_timeRule->mode());
        zones->addAction(action);
    }
    m_viewMenu = viewMenu;

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
    toolbar->addAction(exportStatusAction);
}

void MainWindow::buildCentral()
{
    m_chart = new AgeChart;
    m_chart->setObjectName(QStringLiteral("ageChart"));
    m_chart->setHistory(&m_history);
    m_chart->setTimeRule(m_timeRule);
    applyChartThresholds();
    auto *timelineView = new HolderTimelineView;
    timelineView->setModel(m_timeline);
    timelineView->setObjectName(QStringLiteral("holderTimeline"));
    connect(m_chart, &AgeChart::windowChanged, timelineView, &HolderTimelineView::setWindow);

    auto *failoverView = makeTableView(QStringLiteral("failoverView"), m_failovers);
    auto *failoverPage = new QWidget;
    auto *failoverLayout = new QVBoxLayout(failoverPage);
    auto *failoverNote = new QLabel(
            tr("Each takeover (a new holder after the previous lease expired unreleased, not a "
               "normal hand-over): the previous holder's last heartbeat (its last expiry minus the "
               "10 s lease) to the successor's acquired_at, both on the database clock. ADR-114 "
               "bound: acquirable ≤ 10 s after the last heartbeat."));
    failoverNote->setWordWrap(true);
    failoverLayout->addWidget(failoverNote);
    failoverLayout->addWidget(failoverView);

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->addTab(m_chart, tr("Last tick age"));
    m_tabs->addTab(timelineView, tr("Holders"));

    // In the demo, takeovers follow faults from the panel, so they sit beside it (buildDocks);
    // against a database they are a tab of their own.
    m_failoverPage = failoverPage;
    if (isDemo() && !m_options.readOnly) {
        m_failoverPage->setParent(this);
        m_failoverPage->hide();
    } else {
        m_tabs->addTab(m_failoverPage, tr("Takeovers"));
    }

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("centralSplitter"));
    splitter->addWidget(m_statusPane);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);
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
        connect(m_failurePanel, &FailurePanel::faultRequested, m_session, &ConsoleSession::inject);
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

void MainWindow::connectSession()
{
    connect(m_session, &ConsoleSession::snapshot, this, &MainWindow::onSnapshot);
    connect(m_session, &ConsoleSession::connectionChanged, this, &MainWindow::onConnectionChanged);
    connect(m_session, &ConsoleSession::privilegesChanged, this,
            [this](const Privileges &privileges) {
                m_pauses->setPrivileges(privileges);
                if (!privileges.canPause && !privileges.reason.isEmpty())
                    logLocal(QStringLiteral("privileges"), privileges.reason, {}, true);
                if (!privileges.schemaWarning.isEmpty())
                    logLocal(QStringLiteral("schema"), privileges.schemaWarning, {}, true);
            });
    connect(m_session, &ConsoleSession::actionFinished, this, &MainWindow::onActionFinished);
    connect(m_session, &ConsoleSession::pollProblem, this, [this](const QString &message) {
        m_lastProblem = message;
        logLocal(QStringLiteral("poll failed"), message, {}, true);
        statusBar()->showMessage(tr("Poll failed: %1").arg(message), 10000);
        m_statusPane->setStaleReason(staleReason());
    });
    connect(m_session, &ConsoleSession::staleChanged, this,
            [this](bool stale, const QDateTime &asOf) {
                m_statusPane->setStaleReason(staleReason());
                m_statusPane->setStale(stale, asOf);
                m_alerts->setStale(stale, asOf);
            });
    connect(m_session, &ConsoleSession::demoProgress, this, [this](const QString &step) {
        m_connectionLabel->setText(step);
        logLocal(QStringLiteral("demo"), step);
    });
    connect(m_session, &ConsoleSession::demoStarted, this, [this](ConnectionProfile monitor) {
        monitor.password.clear(); // the window only names it
        m_target = monitor;
        m_hasTarget = true;
        if (m_options.drillAfterSeconds > 0)
            QTimer::singleShot(m_options.drillAfterSeconds * 1000, m_session,
                               &ConsoleSession::runDrill);
    });
    connect(m_session, &ConsoleSession::drillVictim, this,
            [this](const QString &replica, const QStringList &leading) {
                if (m_failurePanel)
                    m_failurePanel->selectReplica(replica);
                logLocal(QStringLiteral("drill"),
                         tr("killing %1 (leads %2)")
                                 .arg(replica, leading.join(QStringLiteral(", "))));
                m_tabs->setCurrentIndex(0);
            });
    connect(m_session, &ConsoleSession::demoFailed, this, [this](const QString &message) {
        m_connectionLabel->setText(tr("Demo failed: %1").arg(message));
        logLocal(QStringLiteral("error"), message);
        if (m_closing)
            return;
        // Window-modal and not exec()'d: the event loop (and a closing window) is never held up.
        auto *box = new QMessageBox(QMessageBox::Critical, tr("The demo could not start"), message,
                                    QMessageBox::Close, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(m_session, &ConsoleSession::demoStopped, this, [this] {
        if (!m_closing)
            logLocal(QStringLiteral("demo"), tr("the embedded demo stopped"));
    });
    connect(m_session, &ConsoleSession::replicasChanged, this,
            [this](const QList<ReplicaInfo> &replicas) {
                m_replicaInfos = replicas;
                m_replicas->setReplicas(replicas);
            });
    connect(m_session, &ConsoleSession::demoEvent, m_events, &EventLogModel::appendOrRepeat);
    connect(m_session, &ConsoleSession::failoverMeasured, this, &MainWindow::onFailover);
    connect(m_session, &ConsoleSession::finished, this, &QWidget::close);
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
    m_session->setInterval(m_intervalBox->currentData().toInt());
    applyTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
}

void MainWindow::start()
{
    switch (m_options.mode) {
    case ConsoleOptions::Mode::Demo:
        m_connectionLabel->setText(tr("Starting the embedded demo…"));
        m_session->startDemo(m_options.demoDirectory);
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

void MainWindow::connectTo(const ConnectionProfile &profile)
{
    if (m_hasTarget && !(profile == m_target)) {
        // Another database: its history is not this one's.
        m_history.clear();
        m_holderChanges.clear();
        m_timeline->clear();
        m_statusModel->clear();
        m_alerts->reset();
        m_chart->refresh();
    }
    m_target = profile;
    m_hasTarget = true;
    m_haveSnapshot = false;
    m_pauses->setPrivileges(Privileges{});
    updateTitle();
    m_session->connectTo(profile);
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
        if (m_session->isDemoRunning()) {
            const auto answer = QMessageBox::question(
                    this, tr("Leave the demo?"),
                    tr("Connecting to %1 stops the embedded demo (its replicas release their "
                       "roles). Continue?")
                            .arg(profile.describe()));
            if (answer != QMessageBox::Yes)
                return;
            m_session->stopDemo();
            if (m_failureDock) {
                m_failureDock->hide();
                m_tabs->addTab(m_failoverPage, tr("Takeovers"));
            }
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
    // The window system adds the application's name: QGuiApplication::applicationDisplayName.
    QString title = target;
    if (m_options.readOnly)
        title += tr(" — read-only");
    setWindowTitle(title);
    m_pauses->setTarget(isDemo() ? tr("the demo") : m_target.describe());
    m_alerts->setTitle(tr("Leader Console — %1").arg(title));
}

QString MainWindow::staleReason() const
{
    if (m_connectionState != ConnectionState::Connected)
        return m_connectionLabel->text();
    if (!m_lastProblem.isEmpty())
        return tr("Poll failed: %1").arg(m_lastProblem);
    return tr("No answer from the database within two poll intervals.");
}

void MainWindow::onSnapshot(const StatusSnapshot &snapshot)
{
    const QList<HolderChange> changes = m_holderChanges.append(snapshot);
    if (m_haveSnapshot) {
        for (const EventLogEntry &entry :
             changesBetween(m_lastSnapshot, snapshot, &m_thresholds, changes))
            m_events->append(entry);
    }
    // The demo measures its own takeovers from the faults it injects, with the fault named.
    if (!m_session->isDemoRunning()) {
        for (const HolderChange &change : changes) {
            if (const std::optional<Failover> takeover = takeoverFrom(change))
                onFailover(*takeover);
        }
    }
    m_alerts->onSnapshot(snapshot);
    m_lastSnapshot = snapshot;
    m_haveSnapshot = true;
    m_lastProblem.clear();
    m_statusPane->setSnapshot(snapshot);
    m_history.append(snapshot, changes);
    m_timeline->append(snapshot, changes);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastChartRefreshMs >= ChartRefreshEveryMs && m_chart->isVisible()) {
        m_chart->refresh();
        m_lastChartRefreshMs = now;
    }
    m_latencyLabel->setText(tr("poll %1 ms").arg(snapshot.roundTripMs, 0, 'f', 1));
    m_driftLabel->setText(tr("db clock %1%2 ms")
                                  .arg(snapshot.clockDriftMs >= 0 ? QStringLiteral("+") : QString())
                                  .arg(snapshot.clockDriftMs, 0, 'f', 0));
    m_pauses->update();
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
        logLocal(QStringLiteral("connection"), m_connectionLabel->text());
        break;
    case ConnectionState::Connecting:
        // Not logged: a retry's failure follows and says why, once however often it repeats.
        m_connectionLabel->setText(message.isEmpty() ? tr("Connecting to %1…").arg(target)
                                                     : message);
        break;
    case ConnectionState::Failed:
        m_connectionLabel->setText(tr("%1: %2").arg(target, message));
        logLocal(QStringLiteral("connection"), m_connectionLabel->text(), {}, true);
        break;
    case ConnectionState::Disconnected:
        m_connectionLabel->setText(tr("Not connected"));
        break;
    }
    // A real database refusing the first attempt: reopen the dialog with the reason. Later
    // failures (a restart, a sleep) are retried by the poller and only reported.
    if (state == ConnectionState::Failed && !isDemo() && before != ConnectionState::Connected
        && !m_haveSnapshot && !m_closing)
        openConnectionDialog(message);
    m_statusPane->setStaleReason(staleReason());
    m_pauses->setConnected(state == ConnectionState::Connected);
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

void MainWindow::logLocal(const QString &event, const QString &detail, const QString &role,
                          bool collapseRepeats)
{
    EventLogEntry entry;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.source = QStringLiteral("console");
    entry.role = role;
    entry.event = event;
    entry.detail = detail;
    if (collapseRepeats)
        m_events->appendOrRepeat(entry);
    else
        m_events->append(entry);
}

void MainWindow::setInterval(int milliseconds)
{
    QSettings().setValue(QStringLiteral("poll/intervalMs"), milliseconds);
    m_session->setInterval(milliseconds);
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
        m_alerts->setThresholds(m_thresholds);
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

void MainWindow::takeScreenshot()
{
    m_chart->refresh();
    const QPixmap pixmap = grab();
    if (!pixmap.save(m_options.screenshotPath))
        qWarning("leader-console: cannot write the screenshot to %s",
                 qPrintable(m_options.screenshotPath));
    close();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_session->phase() == ConsoleSession::Phase::Finished
        || m_session->phase() == ConsoleSession::Phase::Idle) {
        event->accept();
        return;
    }
    // The session ends its workers within its bound (the demo's replicas release their roles and
    // its server stops) and then emits finished, which closes the window for good.
    event->ignore();
    if (m_closing)
        return;
    m_closing = true;
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    setEnabled(false);
    if (isDemo())
        m_connectionLabel->setText(
                tr("Stopping the demo: releasing the roles, stopping the cluster…"));
    m_session->shutdown();
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange)
        m_session->setSuspended(isMinimized());
}

} // namespace leader::console
