#pragma once

#include "core/statustypes.h"

#include <QDeadlineTimer>
#include <QFrame>

class QLabel;
class QPushButton;
class QTimer;

namespace leader::console {

// A connection the poller keeps retrying, said inside the window: "Cannot connect — retrying in
// 4 s: <reason>" with Retry now and Edit…, counting down to the poller's next attempt and gone
// once the database answers. It never opens a window itself: a failure in the background is for
// the operator to read, not to dismiss, and a dialog would block the fleet's other tabs.
class ConnectionBanner final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionBanner)

public:
    explicit ConnectionBanner(QWidget *parent = nullptr);
    ~ConnectionBanner() override;

    // The session's connectionChanged: a Failed shows the banner, a connection or Disconnected
    // hides it, a Connecting after a failure says the retry is under way.
    void setConnectionState(ConnectionState state, const QString &message);
    // The session's retryScheduled: the countdown to the poller's next attempt.
    void setRetryIn(int milliseconds);

    bool isFailing() const { return m_failing; }
    // Whole seconds to the next attempt, rounded up; -1 while none is scheduled or under way.
    int secondsToRetry() const;
    QString text() const { return m_line; } // the whole line; empty while hidden
    QString reason() const { return m_reason; }

Q_SIGNALS:
    void retryRequested();
    void editRequested();
    void changed(); // text() or isFailing() changed: the fleet marks the database's tab

protected:
    bool eventFilter(QObject *watched, QEvent *event) override; // the label's width: elide again
    void paintEvent(QPaintEvent *event) override;

private:
    void updateLine();
    void elide();

    QLabel *m_label;
    QPushButton *m_retry;
    QPushButton *m_edit;
    QTimer *m_tick; // fires when the countdown's shown second changes
    bool m_failing = false;
    bool m_attempting = false; // a retry is under way (Connecting, or Retry now pressed)
    bool m_retryScheduled = false;
    QDeadlineTimer m_retryAt;
    QString m_reason;
    QString m_line;
};

} // namespace leader::console
