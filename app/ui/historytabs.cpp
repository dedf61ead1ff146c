#include "historytabs.h"

#include "agechart.h"
#include "core/historystore.h"
#include "holdertimelineview.h"
#include "models/agethresholds.h"
#include "models/holdertimeline.h"

#include <QDateTime>

namespace leader::console {

namespace {

constexpr int ChartRefreshEveryMs = 1000;

} // namespace

HistoryTabs::HistoryTabs(const TimeRule *timeRule, QWidget *parent)
    : QTabWidget(parent)
    , m_timeline(new HolderTimeline(this))
    , m_chart(new AgeChart)
{
    setObjectName(QStringLiteral("tabs"));
    m_timeline->setTimeRule(timeRule);
    m_chart->setObjectName(QStringLiteral("ageChart"));
    m_chart->setHistory(&m_history);
    m_chart->setTimeRule(timeRule);
    auto *timelineView = new HolderTimelineView;
    timelineView->setModel(m_timeline);
    timelineView->setObjectName(QStringLiteral("holderTimeline"));
    connect(m_chart, &AgeChart::windowChanged, timelineView, &HolderTimelineView::setWindow);
    addTab(m_chart, tr("Last tick age"));
    addTab(timelineView, tr("Holders"));
}

HistoryTabs::~HistoryTabs() = default;

void HistoryTabs::append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    m_history.append(snapshot, changes);
    m_timeline->append(snapshot, changes);
    if (m_store)
        m_store->record(snapshot, changes);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastRefreshMs >= ChartRefreshEveryMs && m_chart->isVisible()) {
        m_chart->refresh();
        m_lastRefreshMs = now;
    }
}

void HistoryTabs::clear()
{
    m_history.clear();
    m_timeline->clear();
    m_chart->refresh();
}

void HistoryTabs::setThresholds(const AgeThresholds &thresholds)
{
    for (const QString &role : thresholds.roles())
        m_chart->setThreshold(role, thresholds.threshold(role).alertSeconds);
}

void HistoryTabs::refresh()
{
    m_chart->refresh();
}

void HistoryTabs::showChart()
{
    setCurrentWidget(m_chart);
}

void HistoryTabs::addHolderNames(const QHash<QString, QString> &holderIdToName)
{
    m_timeline->addHolderNames(holderIdToName);
}

void HistoryTabs::keepOnDisk(const HistoryKey &key, const HistorySettings &settings)
{
    if (m_store && key.key == m_storeKey)
        return;      // a reconnect to the same database
    m_store.reset(); // writes what is queued to the previous database's file
    m_storeKey = key.key;
    if (key.key.isEmpty() || !settings.keep)
        return;
    m_store = std::make_unique<HistoryStore>(key, settings);
    connect(m_store.get(), &HistoryStore::restored, this, [this](const TickHistory::Saved &saved) {
        m_history.restore(saved);
        m_chart->refresh();
    });
    connect(m_store.get(), &HistoryStore::problem, this, &HistoryTabs::problem);
}

void HistoryTabs::setDiskBounds(const HistorySettings &settings)
{
    if (m_store)
        m_store->setBounds(settings.retentionMs(), settings.maxBytes());
}

} // namespace leader::console
