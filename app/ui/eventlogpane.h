#pragma once

#include <QWidget>

namespace leader::console {

class EventLogFilter;
class EventLogModel;

// The event log as the dock shows it: a filter over every column, an export of what is shown,
// and a view that follows the tail unless the operator scrolled away from it.
class EventLogPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogPane)

public:
    explicit EventLogPane(EventLogModel *model, QWidget *parent = nullptr);
    ~EventLogPane() override;

    EventLogFilter *filter() const { return m_filter; }

Q_SIGNALS:
    void exportRequested();

private:
    EventLogFilter *m_filter;
};

} // namespace leader::console
