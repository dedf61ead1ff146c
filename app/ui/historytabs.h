#pragma once

#include "core/holderchange.h"
#include "core/statustypes.h"
#include "core/tickhistory.h"

#include <QTabWidget>

#include <memory>

namespace leader::console {

class AgeChart;
class AgeThresholds;
class HistoryStore;
struct HistoryKey;
struct HistorySettings;
class HolderTimeline;
class TimeRule;

// The tabs under the status table: each role's last-tick age, its backlog and the holders over the
// polls' history, which this widget keeps; the window may add the takeovers as a tab of their own.
// The Backlog tab is there only once a role has had a backlog source (extension 0186,
// docs/backlog.md), until clear(). Only the age history is kept on disk (keepOnDisk): the
// backlog's starts with the session.
class HistoryTabs final : public QTabWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryTabs)

public:
    explicit HistoryTabs(const TimeRule *timeRule, QWidget *parent = nullptr);
    ~HistoryTabs() override;

    // One poll and the holder changes classified from it. A chart is redrawn at most once a
    // second, and only while it shows.
    void append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes);
    void clear(); // another database: its history is not this one's
    // Each role's alert line, drawn from the next refresh() (five warning lines more would hide
    // the curves).
    void setThresholds(const AgeThresholds &thresholds);
    void refresh(); // redraws the charts now
    void showChart();
    // The demo's hosted replicas: the Holders tab names their holders (r2) as they come and go.
    void addHolderNames(const QHash<QString, QString> &holderIdToName);
    // Keeps the age chart's history on disk under key (HistoryStore::keyFor) and shows what the
    // file holds of the last 24 h at once; an empty key or settings.keep false keeps nothing. A
    // problem with the file is one line through problem().
    void keepOnDisk(const HistoryKey &key, const HistorySettings &settings);
    void setDiskBounds(const HistorySettings &settings);
    // Whether the Backlog tab is among the tabs: a role has had a backlog source since clear().
    bool hasBacklogTab() const;

Q_SIGNALS:
    void problem(const QString &line);

private:
    void showBacklogTab(bool show);

    TickHistory m_history;
    TickHistory m_backlogHistory{HistoryValue::BacklogPending};
    HolderTimeline *m_timeline;
    AgeChart *m_chart;
    QWidget *m_backlogPage;
    AgeChart *m_backlogChart;
    qint64 m_lastRefreshMs = 0;
    std::unique_ptr<HistoryStore> m_store;
    QString m_storeKey;
};

} // namespace leader::console
