#pragma once

#include "core/commandline.h"
#include "core/connectionprofile.h"
#include "core/demotypes.h"
#include "core/holderchange.h"
#include "core/statustypes.h"

#include <QMainWindow>

class QDockWidget;

namespace leader::console {

class AlertController;
class ConnectionController;
class ConsoleSession;
class DrillController;
class EventLogModel;
class EventLogPane;
class ExportController;
class FailoverModel;
class FailurePanel;
class HistoryTabs;
class HandoverController;
class PauseController;
class PauseHistoryController;
class PreferencesController;
class ProductionGuard;
class RegistryController;
class ReplicaModel;
class SessionStatusBar;
class StatusModel;
class StatusPane;
class TakeoversPane;
class ThresholdsController;
class TimeRule;
class ViewMenu;

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

    // For the fleet window, which shows several of these as tabs and sums them up.
    ConsoleSession *session() const { return m_session; }
    QString databaseTitle() const;
    ConnectionProfile target() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void buildActions();
    void buildCentral();
    void buildDocks();
    void connectSession();
    void restoreSettings();
    void updateTitle();
    void onConnecting(bool anotherDatabase);
    void onDemoLeft();

    void onSnapshot(const StatusSnapshot &snapshot, const QList<HolderChange> &changes);
    void onConnectionChanged(ConnectionState state, const QString &message);
    void onFailover(const Failover &failover);
    void takeScreenshot();

    ConsoleOptions m_options;
    ConsoleSession *m_session = nullptr;
    ConnectionController *m_connection = nullptr;
    bool m_haveSnapshot = false;
    bool m_closing = false;

    TimeRule *m_timeRule = nullptr;
    StatusSnapshot m_lastSnapshot;

    StatusModel *m_statusModel = nullptr;
    FailoverModel *m_failovers = nullptr;
    EventLogModel *m_events = nullptr;
    ReplicaModel *m_replicas = nullptr;

    StatusPane *m_statusPane = nullptr;
    HistoryTabs *m_history = nullptr;
    TakeoversPane *m_takeovers = nullptr;
    EventLogPane *m_logPane = nullptr;
    FailurePanel *m_failurePanel = nullptr;
    QDockWidget *m_failureDock = nullptr;
    SessionStatusBar *m_statusLine = nullptr;

    ViewMenu *m_view = nullptr;
    ThresholdsController *m_thresholds = nullptr;
    AlertController *m_alerts = nullptr;
    ExportController *m_exports = nullptr;
    PauseController *m_pauses = nullptr;
    HandoverController *m_handovers = nullptr;
    PauseHistoryController *m_pauseHistory = nullptr;
    PreferencesController *m_preferences = nullptr;
    ProductionGuard *m_guard = nullptr;
    RegistryController *m_registry = nullptr;
    DrillController *m_drill = nullptr;
};

} // namespace leader::console
