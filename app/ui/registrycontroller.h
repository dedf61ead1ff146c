#pragma once

#include "core/registrytypes.h"
#include "core/statustypes.h"
#include "draindialog.h"

#include <QHash>
#include <QObject>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace leader::console {

class ConnectionController;
class ConsoleSession;
class ProductionGuard;
class RegistryModel;
class TimeRule;

// The Replicas tab against a real database: who could take over each role, from the replica
// registry (migration 0178) the session reads every few polls, and who holds it, from each
// poll. In the demo its replicas are the failure panel's, so the tab appears only once the
// window watches a database. A database without the registry (an older Hardcount) gets one line
// in the tab instead of the table, and nothing is logged as an error.
//
// Drain… and Undrain… act on the selected row's replica (extension 0183) through the session, on
// its worker thread: the drain asks first which roles it would leave with no eligible replica
// (DrainDialog then names them and needs "Drain anyway"), and a production profile needs writes
// unlocked (ProductionGuard) and the replica's name typed. A login that may not pause (the
// monitor's) sees both disabled, with the reason in their tooltip.
class RegistryController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RegistryController)

public:
    RegistryController(ConsoleSession *session, ConnectionController *connection, QTabWidget *tabs,
                       const TimeRule *timeRule, QObject *parent);
    ~RegistryController() override;

    // The window's production guard; none: every profile is a test one.
    void setGuard(const ProductionGuard *guard);

Q_SIGNALS:
    // After each good read outside the demo: holder id to replica name (its --id, extension
    // 0182), for the status table's Holder column.
    void holderNamesRead(const QHash<QString, QString> &holderIdToName);

private:
    void attach();
    void setRegistry(const RegistrySnapshot &registry);
    // "3 alive · 1 gone, read at …", replicas and not rows.
    void showCounts();
    void updateActions();
    void askToDrain(DrainDialog::Mode mode);
    void drainFinished(const DrainResult &result);
    void openDialog(DrainDialog::Mode mode, const QString &replica, const QStringList &orphans,
                    const OutsideHolders &outside = {});

    ConsoleSession *m_session;
    ConnectionController *m_connection;
    const ProductionGuard *m_guard = nullptr;
    Privileges m_privileges;
    QString m_checking; // the replica whose drain check is in flight
    QTabWidget *m_tabs;
    const TimeRule *m_timeRule;
    RegistryModel *m_model;
    // Made by attach(), owned by the tabs.
    QWidget *m_page = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_unavailable = nullptr;
    QLabel *m_state = nullptr;
    QTableView *m_table = nullptr;
    QPushButton *m_drainButton = nullptr;
    QPushButton *m_undrainButton = nullptr;
    QLabel *m_drainLine = nullptr; // the last drain action's outcome, one line
    QString m_readAt;              // the last good read's time, as the state line shows it
};

} // namespace leader::console
