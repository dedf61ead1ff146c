#include "alertcontroller.h"

#include <QApplication>
#include <QPointer>
#include <QSystemTrayIcon>
#include <QTimer>
#include <QWidget>

namespace leader::console {

namespace {

constexpr int NoDataCheckMs = 1000;

// One tray icon however many databases are watched: a fleet of ten must not put ten in the tray.
QSystemTrayIcon *sharedTray()
{
    static QPointer<QSystemTrayIcon> tray;
    if (!tray && QSystemTrayIcon::isSystemTrayAvailable()) {
        tray = new QSystemTrayIcon(QApplication::windowIcon(), qApp);
        tray->setToolTip(QApplication::applicationDisplayName());
        tray->show();
    }
    return tray;
}

} // namespace

AlertController::AlertController(QWidget *window)
    : QObject(window)
    , m_thresholds(AgeThresholds::defaults())
    , m_noDataCheck(new QTimer(this))
{
    m_tray = sharedTray();
    connect(m_noDataCheck, &QTimer::timeout, this, &AlertController::checkNoData);
}

AlertController::~AlertController() = default;

void AlertController::setThresholds(const AgeThresholds &thresholds)
{
    m_thresholds = thresholds;
}

void AlertController::setDatabase(const QString &database)
{
    m_database = database;
    if (m_tray)
        m_tray->setToolTip(tr("Leader Console — %1").arg(database));
}

void AlertController::onSnapshot(const StatusSnapshot &snapshot)
{
    m_origins.observe(snapshot);
    for (const RoleStatus &row : snapshot.roles) {
        const AgeLevel before = m_levels.value(row.role, AgeLevel::Unknown);
        // A paused role ages on purpose (Neutral): the pause itself is what the log reports.
        const AgeLevel now = ageLevelOf(row, m_thresholds, m_origins);
        m_levels.insert(row.role, now);
        if (now == AgeLevel::Alert && before != AgeLevel::Alert)
            notify(row.role, tr("%1 has not completed a tick for %2 s")
                                     .arg(row.role)
                                     .arg(*row.lastTickAgeSeconds, 0, 'f', 0));
    }
    for (const BacklogGrowth &growth : m_backlog.observe(snapshot, m_thresholds, m_origins))
        notify(growth.role, backlogGrowthText(growth));
    m_lastRoles = snapshot.roles;
}

void AlertController::setStale(bool stale, const QDateTime &asOf)
{
    m_asOf = asOf;
    if (!stale) {
        m_noDataCheck->stop();
        m_noDataAlerted.clear();
        return;
    }
    if (!m_noDataCheck->isActive())
        m_noDataCheck->start(NoDataCheckMs);
    checkNoData();
}

void AlertController::reset()
{
    m_levels.clear();
    m_origins.clear();
    m_lastRoles.clear();
    m_backlog.clear();
    m_noDataAlerted.clear();
    m_noDataCheck->stop();
}

void AlertController::checkNoData()
{
    if (!m_asOf.isValid())
        return;
    const double silentSeconds = m_asOf.msecsTo(QDateTime::currentDateTimeUtc()) / 1000.0;
    for (const RoleStatus &row : std::as_const(m_lastRoles)) {
        if (row.state == RoleState::Paused || m_noDataAlerted.contains(row.role))
            continue;
        const double pending = m_thresholds.threshold(row.role).alertSeconds;
        if (silentSeconds < pending)
            continue;
        m_noDataAlerted.insert(row.role);
        notify(row.role, tr("no data about %1 for %2 s (its alert threshold): the database "
                            "cannot be read, so a stall would not show")
                                 .arg(row.role)
                                 .arg(silentSeconds, 0, 'f', 0));
    }
}

void AlertController::notify(const QString &role, const QString &text)
{
    if (m_tray)
        m_tray->showMessage(tr("%1 in alert on %2").arg(role, m_database), text,
                            QSystemTrayIcon::Warning, 10000);
    Q_EMIT alerted(role, text);
}

} // namespace leader::console
