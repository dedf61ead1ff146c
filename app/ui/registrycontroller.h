#pragma once

#include "core/registrytypes.h"

#include <QObject>

class QLabel;
class QStackedWidget;
class QTabWidget;

namespace leader::console {

class ConnectionController;
class ConsoleSession;
class RegistryModel;
class TimeRule;

// The Replicas tab against a real database: who could take over each role, from the replica
// registry (migration 0178) the session reads every few polls, and who holds it, from each
// poll. In the demo its replicas are the failure panel's, so the tab appears only once the
// window watches a database. A database without the registry (an older Hardcount) gets one line
// in the tab instead of the table, and nothing is logged as an error.
class RegistryController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RegistryController)

public:
    RegistryController(ConsoleSession *session, ConnectionController *connection, QTabWidget *tabs,
                       const TimeRule *timeRule, QObject *parent);
    ~RegistryController() override;

private:
    void attach();
    void setRegistry(const RegistrySnapshot &registry);
    // "3 alive · 1 gone, read at …", replicas and not rows.
    void showCounts();

    QTabWidget *m_tabs;
    const TimeRule *m_timeRule;
    RegistryModel *m_model;
    // Made by attach(), owned by the tabs.
    QWidget *m_page = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_unavailable = nullptr;
    QLabel *m_state = nullptr;
    QString m_readAt; // the last good read's time, as the state line shows it
};

} // namespace leader::console
