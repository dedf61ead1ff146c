#pragma once

#include "core/commandline.h"
#include "core/connectionprofile.h"
#include "core/demotypes.h"
#include "core/holderchange.h"
#include "core/statustypes.h"
#include "models/agethresholds.h"
#include "models/tickhistory.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace leader::console {

class AgeChart;
class AlertController;
class ConnectionDialog;
class ConsoleSession;
class EventLogPane;
class EventLogModel;
class ExportController;
class FailoverModel;
class FailurePanel;
class HolderTimeline;
class HolderTimelineView;
class PasswordStore;
class PauseController;
class ReplicaModel;
class StatusModel;
class StatusPane;
class TimeRule;

// The console's one window: it assembles the widgets and connects them to the session (which owns
// every worker and the database) and to the models. It never waits on anything.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(ConsoleOptions options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts the demo, or connects to the database the options name.
    void start();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void buildActions();
    void buildCentral();
    void buildDocks();
    void buildStatusBar();
    void connectSession();
    void restoreSettings();
    void connectTo(const ConnectionProfile &profile);
    void openConnectionDialog(const QString &error);
    void updateTitle();
    QString staleReason() const;

    void onSnapshot(const StatusSnapshot &snapshot);
    void onConnectionChanged(ConnectionState state, const QString &message);
    void onActionFinished(const QString &role, const QString &action, bool ok,
                          const QString &message);
    void onFailover(const Failover &failover);
    void logLocal(const QString &event, const QString &detail, const QString &role = {},
                  bool collapseRepeats = false);

    bool isDemo() const { return m_options.mode == ConsoleOptions::Mode::Demo; }
    void setInterval(int milliseconds);
    void editThresholds();
    void applyChartThresholds();
    void takeScreenshot();

    ConsoleOptions m_options;
    ConsoleSession *m_session = nullptr;
    ConnectionProfile m_target;
    bool m_hasTarget = false;
    bool m_haveSnapshot = false;
    bool m_closing = false;

    AgeThresholds m_thresholds;
    TimeRule *m_timeRule = nullptr;
    TickHistory m_history;
    HolderChangeTracker m_holderChanges;
    StatusSnapshot m_lastSnapshot;
    ConnectionState m_connectionState = ConnectionState::Disconnected;
    QList<ReplicaInfo> m_replicaInfos;
    QString m_lastProblem;

    StatusModel *m_statusModel = nullptr;
    StatusPane *m_statusPane = nullptr;
    QTabWidget *m_tabs = nullptr;
    AgeChart *m_chart = nullptr;
    HolderTimeline *m_timeline = nullptr;
    FailoverModel *m_failovers = nullptr;
    EventLogModel *m_events = nullptr;
    EventLogPane *m_logPane = nullptr;
    ReplicaModel *m_replicas = nullptr;
    FailurePanel *m_failurePanel = nullptr;
    QDockWidget *m_failureDock = nullptr;
    QWidget *m_failoverPage = nullptr;
    QMenu *m_viewMenu = nullptr;
    PasswordStore *m_passwords = nullptr;
    AlertController *m_alerts = nullptr;
    ExportController *m_exports = nullptr;
    PauseController *m_pauses = nullptr;
    QPointer<ConnectionDialog> m_connectionDialog;

    QComboBox *m_intervalBox = nullptr;
    QLabel *m_connectionLabel = nullptr;
    QLabel *m_latencyLabel = nullptr;
    QLabel *m_driftLabel = nullptr;
    qint64 m_lastChartRefreshMs = 0;
};

} // namespace leader::console
