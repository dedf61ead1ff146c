#pragma once

#include "core/connectionprofile.h"

#include <QObject>

class QAction;
class QLabel;
class QWidget;

namespace leader::console {

class PauseController;

// What the connection profile says this database is: a band across the window in the
// environment's colour, and for production a write lock. A production profile opens with pause
// and unpause off until the operator unlocks writes for this window (Role > Unlock writes for
// this window, confirmed), and every pause or unpause confirmation then needs the roles' names
// typed. Connecting anywhere else (or to production again) starts over. The login's privileges
// still apply on top: a read-only login stays read-only.
class ProductionGuard final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProductionGuard)

public:
    ProductionGuard(QWidget *window, PauseController *pauses);
    ~ProductionGuard() override;

    // central with the band above it: what the window sets as its central widget.
    QWidget *wrap(QWidget *central);
    QAction *unlockAction() const { return m_unlock; }

    void setProfile(const ConnectionProfile &profile);
    bool isProduction() const { return m_profile.isProduction(); }
    bool writesLocked() const { return m_locked; }

Q_SIGNALS:
    // For the event log: the lock and unlock of writes.
    void logged(const QString &detail);
    // For the other writers (the Replicas tab's Drain and Undrain): writesLocked() may differ.
    void writesLockedChanged();

private:
    void askToUnlock();
    void setLocked(bool locked);
    void updateBand();

    QWidget *m_window;
    PauseController *m_pauses;
    ConnectionProfile m_profile;
    bool m_locked = false;
    QLabel *m_band = nullptr;
    QAction *m_unlock;
};

} // namespace leader::console
