#include "historytabs.h"

#include "agechart.h"
#include "core/historystore.h"
#include "holdertimelineview.h"
#include "models/agethresholds.h"
#include "models/holdertimeline.h"

#include <QDateTime>
#include <QVBoxLayout>

namespace leader::console {

namespace {

constexpr int ChartRefreshEveryMs = 1000;

} // namespace

HistoryTabs::HistoryTabs(const TimeRule *timeRule, QWidget *parent)
    : QTabWidget(parent)
    , m_timeline(new HolderTimeline(this))
    , m_chart(new AgeChart)
    , m_backlogPage(new QWidget)
    , m_backlogChart(new AgeChart(m_backlogPage))
{
    setObjectName(QStringLiteral("tabs"));
    m_timeline->setTimeRule(timeRule);
    m_chart->setObjectName(QStringLiteral("ageChart"));
    m_chart->setHistory(&m_history);
    m_chart->setTimeRule(timeRule);
    m_backlogChart->setObjectName(QStringLiteral("backlogChart"));
    m_backlogChart->setHistory(&m_backlogHistory);
    m_backlogChart->setTimeRule(timeRule);
    auto *timelineView = new HolderTimelineView;
    timelineView->setModel(m_timeline);
    timelineView->setObjectName(QStringLiteral("holderTimeline"));
    // One window for all three: a backlog that climbs is read against the ages and holders.
    connect(m_chart, &AgeChart::windowChanged, timelineView, &HolderTimelineView::setWindow);
    connect(m_chart, &AgeChart::windowChanged, m_backlogChart, &AgeChart::setWindow);
    connect(m_backlogChart, &AgeChart::windowChanged, m_chart, &AgeChart::setWindow);
    // The backlog chart in a page of its own: findChild<AgeChart *>() (the drill report's) looks at
    // the tab stack's own children before their children, so it finds the age chart whatever
    // their order, which changes (the current tab is raised to the end of it).
    auto *backlogLayout = new QVBoxLayout(m_backlogPage);
    backlogLayout->setContentsMargins(0, 0, 0, 0);
    backlogLayout->addWidget(m_backlogChart);
    addTab(m_chart, tr("Last tick age"));
    // Added and taken away again: the tab stack owns the page from here on.
    addTab(m_backlogPage, tr("Backlog"));
    addTab(timelineView, tr("Holders"));
    showBacklogTab(false);
    // A chart is not redrawn while hidden: one shown again is redrawn at once, not at the next
    // poll.
    connect(this, &QTabWidget::currentChanged, this, [this] {
        if (currentWidget() == m_chart)
            m_chart->refresh();
        else if (currentWidget() == m_backlogPage)
            m_backlogChart->refresh();
    });
}

HistoryTabs::~HistoryTabs() = default;

void HistoryTabs::append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    m_history.append(snapshot, changes);
    m_backlogHistory.append(snapshot, changes);
    m_timeline->append(snapshot, changes);
    if (m_store)
        m_store->record(snapshot, changes);
    // Kept while a poll cannot read the backlog (backlogError): the tab does not blink with it.
    showBacklogTab(!m_backlogHistory.roles().isEmpty());
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastRefreshMs < ChartRefreshEveryMs)
        return;
    for (AgeChart *chart : {m_chart, m_backlogChart}) {
        if (chart->isVisible()) {
            chart->refresh();
            m_lastRefreshMs = now;
        }
    }
}

void HistoryTabs::clear()
{
    m_history.clear();
    m_backlogHistory.clear();
    m_timeline->clear();
    showBacklogTab(false);
    m_chart->refresh();
    m_backlogChart->refresh();
}

bool HistoryTabs::hasBacklogTab() const
{
    return indexOf(m_backlogPage) >= 0;
}

void HistoryTabs::showBacklogTab(bool show)
{
    if (show == hasBacklogTab())
        return;
    if (show)
        insertTab(indexOf(m_chart) + 1, m_backlogPage, tr("Backlog"));
    else
        removeTab(indexOf(m_backlogPage)); // still the tab stack's child, hidden
}

void HistoryTabs::setThresholds(const AgeThresholds &thresholds)
{
    for (const QString &role : thresholds.roles())
        m_chart->setThreshold(role, thresholds.threshold(role).alertSeconds);
}

void HistoryTabs::refresh()
{
    m_chart->refresh();
    m_backlogChart->refresh();
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
