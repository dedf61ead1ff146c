#pragma once

#include "core/demotypes.h"
#include "core/statustypes.h"

#include <QFrame>
#include <QStringList>

class QLabel;
class QPushButton;

namespace leader::console {

class ConsoleSession;

// The demo's roles still paused from its last run, said once at its start in a line above the
// status table: "Still paused from the demo's last run: billing, dunning" with Unpause all and
// Keep paused. Nothing modal comes of it: the operator may ignore it, and it goes when the roles
// are unpaused (from it or anywhere else), on Keep paused, or when the demo stops.
class LeftoverPausesBar final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LeftoverPausesBar)

public:
    explicit LeftoverPausesBar(ConsoleSession *session, QWidget *parent = nullptr);
    ~LeftoverPausesBar() override;

    // central with the bar above it: the window's hookup in one call.
    static QWidget *wrap(ConsoleSession *session, QWidget *central);

    QStringList roles() const; // still paused from the last run; empty while hidden
    QString text() const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void setPauses(const QList<LeftoverPause> &pauses);
    void onSnapshot(const StatusSnapshot &snapshot);
    void onActionFinished(const ActionResult &result);
    void unpauseAll();
    void updateLine();

    ConsoleSession *m_session;
    QLabel *m_label;
    QPushButton *m_unpause;
    QPushButton *m_keep;
    QList<LeftoverPause> m_pauses;
    QStringList m_unpausing; // the roles of the unpause sent, until its answer
    QString m_error;
    bool m_canUnpause = true; // until the connected login's privileges say otherwise
};

} // namespace leader::console
