#pragma once

#include "core/demotypes.h"
#include "core/registrytypes.h"
#include "core/statustypes.h"

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace leader::console {

class ConsoleSession;
class HandoverDialog;
class ProductionGuard;
class StatusModel;
class StatusPane;

// Role > Hand over… for one held role (extension 0185): its holder ends its tick at the next step
// boundary and releases it, and the replica chosen takes the next tick (docs/handover.md). A
// holder outside the registry (extension 0189) takes no request: the dialog and the line after
// say when its tick ends instead, and that the holders outside the registry ignore the
// preference. The action is enabled only when the selection (one led role), the connection, the
// login's privileges, the database's extensions and the production guard allow it, the tooltip
// saying why not; outside the demo only, as Drain is, since the targets are the registry's. How
// it went lands in the event log and the status bar.
class HandoverController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HandoverController)

public:
    HandoverController(QWidget *window, ConsoleSession *session, StatusModel *model,
                       StatusPane *pane, bool readOnly);
    ~HandoverController() override;

    QAction *handoverAction() const { return m_handover; }

    // How the dialog names the database; demo: the action is hidden.
    void setTarget(const QString &target, bool demo);
    void setConnected(bool connected);
    void setPrivileges(const Privileges &privileges);
    void setGuard(const ProductionGuard *guard);
    void update();

Q_SIGNALS:
    void logged(const QString &role, leader::console::EventKind event, const QString &detail);
    void finished(const QString &line);

private:
    void open();
    void onFinished(const HandoverResult &result);
    // What the request does to the holder asked: it stops at its next step, or (outside the
    // registry) its tick ends when its work does.
    QString askedText(const HandoverResult &result) const;
    // The holders outside the registry, other than the one asked, that may take the next tick
    // first: empty when none was seen.
    static QString othersText(const HandoverResult &result);
    // The replicas that could take role from holderId: live, undrained, running it, named.
    QStringList candidates(const QString &role, const QString &holderId) const;
    QString nameOf(const QString &holderId) const;

    QWidget *m_window;
    ConsoleSession *m_session;
    StatusModel *m_model;
    StatusPane *m_pane;
    const bool m_readOnly;
    const ProductionGuard *m_guard = nullptr;
    QString m_target;
    bool m_demo = false;
    bool m_connected = false;
    Privileges m_privileges;
    RegistrySnapshot m_registry;
    QAction *m_handover;
    QPointer<HandoverDialog> m_dialog;
};

} // namespace leader::console
