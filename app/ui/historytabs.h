#pragma once

#include "core/holderchange.h"
#include "core/statustypes.h"
#include "models/tickhistory.h"

#include <QTabWidget>

namespace leader::console {

class AgeChart;
class AgeThresholds;
class HolderTimeline;
class TimeRule;

// The tabs under the status table: each role's last-tick age and the holders over the polls'
// history, which this widget keeps; the window may add the takeovers as a tab of their own.
class HistoryTabs final : public QTabWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryTabs)

public:
    explicit HistoryTabs(const TimeRule *timeRule, QWidget *parent = nullptr);
    ~HistoryTabs() override;

    // One poll and the holder changes classified from it. The chart is redrawn at most once a
    // second, and only while it shows.
    void append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes);
    void clear(); // another database: its history is not this one's
    // Each role's alert line, drawn from the next refresh() (five warning lines more would hide
    // the curves).
    void setThresholds(const AgeThresholds &thresholds);
    void refresh(); // redraws the chart now
    void showChart();
    // The demo's hosted replicas: the Holders tab names their holders (r2) as they come and go.
    void addHolderNames(const QHash<QString, QString> &holderIdToName);

private:
    TickHistory m_history;
    HolderTimeline *m_timeline;
    AgeChart *m_chart;
    qint64 m_lastRefreshMs = 0;
};

} // namespace leader::console
