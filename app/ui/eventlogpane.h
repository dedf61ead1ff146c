#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QMenu;
class QTableView;
class QToolButton;

namespace leader::console {

class EventFoldModel;
class EventLogFilter;
class EventLogModel;

// The event log as the dock shows it: by default notable and alert events with each role's
// routine ones folded into a counting line, everything at one click ("Show routine"); filters by
// role, by kind and by text in any column; an export of what is shown; a view that follows the
// tail unless the operator scrolled away from it.
class EventLogPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogPane)

public:
    explicit EventLogPane(EventLogModel *model, QWidget *parent = nullptr);
    ~EventLogPane() override;

    EventLogFilter *filter() const { return m_filter; }
    EventFoldModel *foldModel() const { return m_fold; }

Q_SIGNALS:
    void exportRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void updateChoices();
    void onKindsChosen();
    // Each column but the stretched Detail as wide as its header and its widest expected value,
    // measured in the fonts in use, so neither is cut and widths do not follow each new row.
    void fitColumns();

    EventFoldModel *m_fold;
    EventLogFilter *m_filter;
    QTableView *m_view = nullptr;
    QComboBox *m_roleBox = nullptr;
    QToolButton *m_kindButton = nullptr;
    QMenu *m_kindMenu = nullptr;
    QCheckBox *m_showRoutine = nullptr;
};

} // namespace leader::console
