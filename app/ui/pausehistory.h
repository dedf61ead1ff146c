#pragma once

#include "core/pauselog.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;

namespace leader::console {

class PauseLogFilter;
class PauseLogModel;
class TimeRule;

// The History view over the pause log (extension 0177): who paused, unpaused or let a pause
// expire, when, as which login and why. Every role or one, a text filter, how far back. It asks
// for the log (readRequested) when it is shown, on Refresh and when the period changes; the owner
// answers with setResult(). A database without the log gets one line saying so instead of the
// table.
class PauseHistory final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseHistory)

public:
    explicit PauseHistory(const TimeRule *timeRule, QWidget *parent = nullptr);
    ~PauseHistory() override;

    PauseLogModel *model() const { return m_model; }
    PauseLogFilter *filter() const { return m_filter; }
    PauseLogSince since() const;

    // Shows one role's rows (empty: every role).
    void setRole(const QString &role);
    void setResult(const PauseLogResult &result);
    // A pause or unpause made from this console: the log has a new row.
    void onActionFinished(PauseAction action, bool ok);
    void refresh();

Q_SIGNALS:
    void readRequested(leader::console::PauseLogSince since);
    void exportRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    const TimeRule *m_timeRule;
    PauseLogModel *m_model;
    PauseLogFilter *m_filter;
    QComboBox *m_role;
    QComboBox *m_since;
    QLineEdit *m_text;
    QLabel *m_state;
    QStackedWidget *m_stack;
    QLabel *m_unavailable;
    QPushButton *m_export; // off, saying why, where there is no log to export
};

} // namespace leader::console
