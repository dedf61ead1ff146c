#pragma once

#include "core/statustypes.h"
#include "models/agethresholds.h"
#include "models/backlogwatch.h"
#include "models/health.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>

class QSystemTrayIcon;
class QTimer;
class QWidget;

namespace leader::console {

// When to tell the operator: a role whose last-tick age rises into its alert level (once per
// entry into it; never while paused or starting, and after a pause by the time since it ended:
// ageLevelOf()), and a role the console has had no data about for longer than that role's alert
// threshold (the pending period: a database that cannot be read may be hiding exactly the stall
// the alert exists for), and a role whose backlog grows while it is paused or starved (once a
// spell, as BacklogWatch defines it). Notifications go to the system tray when there is one (one
// icon for the process, shared by every database the fleet watches), each naming its database;
// alerted() always.
class AlertController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AlertController)

public:
    explicit AlertController(QWidget *window);
    ~AlertController() override;

    void setThresholds(const AgeThresholds &thresholds);
    // The database as the window names it: in every notification, and the tray icon's tooltip.
    void setDatabase(const QString &database);
    void onSnapshot(const StatusSnapshot &snapshot);
    // asOf: when the rows still shown were received (the workstation's clock).
    void setStale(bool stale, const QDateTime &asOf);
    void reset(); // another database: nothing carries over

Q_SIGNALS:
    void alerted(const QString &role, const QString &text);

private:
    void checkNoData();
    void notify(const QString &role, const QString &text);

    QSystemTrayIcon *m_tray = nullptr; // shared, owned by the application
    QString m_database;
    AgeThresholds m_thresholds;
    QHash<QString, AgeLevel> m_levels;
    AgeOrigins m_origins;
    QList<RoleStatus> m_lastRoles;
    BacklogWatch m_backlog;
    QTimer *m_noDataCheck = nullptr;
    QDateTime m_asOf;
    QSet<QString> m_noDataAlerted;
};

} // namespace leader::console
