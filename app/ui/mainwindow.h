#pragma once

#include "core/commandline.h"
#include "core/connectionprofile.h"
#include "core/demotypes.h"
#include "core/statustypes.h"
#include "models/agethresholds.h"
#include "models/tickhistory.h"

#include <QMainWindow>
#include <QPointer>
#include <QThread>

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QSystemTrayIcon;
class QTabWidget;
class QTableView;

namespace leader::console {

class AgeChart;
class ConnectionDialog;
class DemoHost;
class EventLogFilter;
class EventLogModel;
class FailoverModel;
class FailurePanel;
class HolderTimeline;
class HolderTimelineView;
class PasswordStore;
class PauseDialog;
class ReplicaModel;
class StatusModel;
class StatusPoller;

// The console's one window: the status table, the chart and the holder timeline, the failovers,
// the event log and, for the demo, the failure panel. The database is reached only from the
// poller's thread and the demo host's thread; this class never waits on either.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(ConsoleOptions options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts the demo, or connects to the database the options name.
    void start();

    // Everything one poll shows: the table, the chart, the timeline, the log, the alerts. Public
    // so the console benchmark can replay a day of polls.
    void onSnapshot(const StatusSnapshot &snapshot);

    // For tests and the screenshot drill.
    StatusModel *statusModel() const { return m_statusModel; }
    FailoverModel *failoverModel() const { return m_failovers; }
    EventLogModel *eventLogModel() const { return m_events; }
    ReplicaModel *replicaModel() const { return m_replicas; }
    FailurePanel *failurePanel() const { return m_failurePanel; }
    QAction *pauseAction() const { return m_pauseAction; }
    QAction *unpauseAction() const { return m_unpauseAction; }
    bool selectRole(const QString &role);
    QString selectedRole() const;
    const Privileges &privileges() const { return m_privileges; }
    ConnectionState connectionState() const { return m_connectionState; }
    bool isDemo() const { return m_options.mode == ConsoleOptions::Mode::Demo; }

Q_SIGNALS:
    void demoStarted();
    void demoFailed(const QString &message);
    void shutdownFinished();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void buildActions();
    void buildCentral();
    void buildDocks();
    void buildStatusBar();
    void restoreSettings();
    void startPoller();
    void startDemo();
    void connectTo(const ConnectionProfile &profile);
    void openConnectionDialog(const QString &error);
    void updateTitle();
    void updateWriteActions();

    void onConnectionChanged(ConnectionState state, const QString &message);
    void onPrivileges(const Privileges &privileges);
    void onActionFinished(const QString &role, const QString &action, bool ok,
                          const QString &message);
    void onDemoStarted(const ConnectionProfile &monitor);
    void onDemoFailed(const QString &message);
    void onFailover(const Failover &failover);
    void onReplicas(const QList<ReplicaInfo> &replicas);
    void appendLog(const EventLogEntry &entry);
    void logLocal(const QString &event, const QString &detail, const QString &role = {});

    void requestPauseChange(bool pause);
    void setInterval(int milliseconds);
    void exportStatus();
    void exportEvents();
    void editThresholds();
    void applyChartThresholds();
    void runDrill();
    void takeScreenshot();
    void notifyAlert(const QString &role, double ageSeconds);
    void finishShutdown();

    ConsoleOptions m_options;
    ConnectionProfile m_target;
    bool m_hasTarget = false;

    QThread m_pollThread;
    StatusPoller *m_poller = nullptr; // lives in m_pollThread
    QThread m_demoThread;
    DemoHost *m_demo = nullptr; // lives in m_demoThread
    bool m_demoRunning = false;
    bool m_shuttingDown = false;
    bool m_shutdownDone = false;

    AgeThresholds m_thresholds;
    TickHistory m_history;
    StatusSnapshot m_lastSnapshot;
    bool m_haveSnapshot = false;
    Privileges m_privileges;
    ConnectionState m_connectionState = ConnectionState::Disconnected;
    QList<ReplicaInfo> m_replicaInfos;

    StatusModel *m_statusModel = nullptr;
    QSortFilterProxyModel *m_statusProxy = nullptr;
    QTableView *m_statusView = nullptr;
    QTabWidget *m_tabs = nullptr;
    AgeChart *m_chart = nullptr;
    HolderTimeline *m_timeline = nullptr;
    HolderTimelineView *m_timelineView = nullptr;
    FailoverModel *m_failovers = nullptr;
    EventLogModel *m_events = nullptr;
    EventLogFilter *m_eventFilter = nullptr;
    ReplicaModel *m_replicas = nullptr;
    FailurePanel *m_failurePanel = nullptr;
    QDockWidget *m_failureDock = nullptr;
    QWidget *m_failoverPage = nullptr; // in the failure dock; not shown without it
    QMenu *m_viewMenu = nullptr;
    PasswordStore *m_passwords = nullptr;
    QPointer<PauseDialog> m_pauseDialog;
    QPointer<ConnectionDialog> m_connectionDialog;

    QAction *m_connectAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_unpauseAction = nullptr;
    QAction *m_refreshAction = nullptr;
    QAction *m_exportStatusAction = nullptr;
    QAction *m_thresholdsAction = nullptr;
    QComboBox *m_intervalBox = nullptr;
    QLabel *m_connectionLabel = nullptr;
    QLabel *m_latencyLabel = nullptr;
    QLabel *m_driftLabel = nullptr;
    QSystemTrayIcon *m_tray = nullptr;
    qint64 m_lastChartRefreshMs = 0;
};

} // namespace leader::console
