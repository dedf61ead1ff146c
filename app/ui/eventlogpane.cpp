#include "eventlogpane.h"

#include "models/eventfoldmodel.h"
#include "models/eventlogmodel.h"
#include "tableview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace leader::console {

EventLogPane::EventLogPane(EventLogModel *model, QWidget *parent)
    : QWidget(parent)
    , m_fold(new EventFoldModel(this))
    , m_filter(new EventLogFilter(this))
{
    m_fold->setLog(model);
    m_filter->setSourceModel(m_fold);
    auto *layout = new QVBoxLayout(this);
    auto *filterRow = new QHBoxLayout;
    auto *filterEdit = new QLineEdit;
    filterEdit->setObjectName(QStringLiteral("eventFilter"));
    filterEdit->setPlaceholderText(tr("Filter: text in any column (replica, detail, …)"));
    filterEdit->setClearButtonEnabled(true);
    connect(filterEdit, &QLineEdit::textChanged, m_filter, &EventLogFilter::setText);

    m_roleBox = new QComboBox;
    m_roleBox->setObjectName(QStringLiteral("eventRoleFilter"));
    m_roleBox->setToolTip(tr("Show the events of one role only"));
    m_roleBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_roleBox, &QComboBox::currentIndexChanged, m_filter,
            [this] { m_filter->setRole(m_roleBox->currentData().toString()); });

    m_kindMenu = new QMenu(this);
    m_kindButton = new QToolButton;
    m_kindButton->setObjectName(QStringLiteral("eventKindFilter"));
    m_kindButton->setToolTip(tr("Show only the chosen kinds of event"));
    m_kindButton->setPopupMode(QToolButton::InstantPopup);
    m_kindButton->setMenu(m_kindMenu);

    m_showRoutine = new QCheckBox(tr("&Show routine"));
    m_showRoutine->setObjectName(QStringLiteral("showRoutine"));
    m_showRoutine->setToolTip(tr("Show every acquisition, release, hand-over and state change "
                                 "on its own line, not one counting line per role"));
    connect(m_showRoutine, &QCheckBox::toggled, m_fold, &EventFoldModel::setShowRoutine);

    auto *exportButton = new QPushButton(tr("Export CSV…"));
    exportButton->setToolTip(tr("Export the lines shown, with a first line naming this view"));
    connect(exportButton, &QPushButton::clicked, this, &EventLogPane::exportRequested);
    filterRow->addWidget(filterEdit, 1);
    filterRow->addWidget(m_roleBox);
    filterRow->addWidget(m_kindButton);
    filterRow->addWidget(m_showRoutine);
    filterRow->addWidget(exportButton);
    layout->addLayout(filterRow);

    m_view = makeTableView(QStringLiteral("eventView"), m_filter);
    m_view->setWordWrap(false);
    layout->addWidget(m_view);
    connect(m_filter, &QAbstractItemModel::rowsInserted, m_view, [this] {
        if (m_view->verticalScrollBar()->value() >= m_view->verticalScrollBar()->maximum() - 2)
            QTimer::singleShot(0, m_view, &QTableView::scrollToBottom);
    });
    // Folding or unfolding rebuilds the lines: the latest stay in sight.
    connect(m_filter, &QAbstractItemModel::modelReset, m_view,
            [this] { QTimer::singleShot(0, m_view, &QTableView::scrollToBottom); });
    connect(m_fold, &EventFoldModel::vocabularyChanged, this, [this] {
        updateChoices();
        fitColumns();
    });
    // The time's header names its zone, which the operator can change.
    connect(m_fold, &QAbstractItemModel::headerDataChanged, this, &EventLogPane::fitColumns);
    updateChoices();
    fitColumns();
}

EventLogPane::~EventLogPane() = default;

void EventLogPane::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        fitColumns();
}

void EventLogPane::updateChoices()
{
    const QString role = m_roleBox->currentData().toString();
    {
        const QSignalBlocker blocker(m_roleBox);
        m_roleBox->clear();
        m_roleBox->addItem(tr("All roles"), QString());
        for (const QString &name : m_fold->roles())
            m_roleBox->addItem(name, name);
        m_roleBox->setCurrentIndex(std::max(0, m_roleBox->findData(role)));
    }

    const QSet<QString> chosen = m_filter->kinds();
    m_kindMenu->clear();
    QAction *all = m_kindMenu->addAction(tr("All kinds"));
    all->setObjectName(QStringLiteral("allKinds"));
    connect(all, &QAction::triggered, this, [this] {
        for (QAction *action : m_kindMenu->actions())
            action->setChecked(false);
        onKindsChosen();
    });
    m_kindMenu->addSeparator();
    for (const QString &kind : m_fold->kinds()) {
        // The fold model lists the kinds by their names (the filter's keys), all from the table.
        const std::optional<EventKind> known = eventKindFromName(kind);
        const EventSeverity severity = known ? severityOf(*known) : EventSeverity::Notable;
        QAction *action
                = m_kindMenu->addAction(QStringLiteral("%1  %2").arg(severityText(severity), kind));
        action->setData(kind);
        action->setCheckable(true);
        action->setChecked(chosen.contains(kind));
        connect(action, &QAction::toggled, this, &EventLogPane::onKindsChosen);
    }
    onKindsChosen();
}

void EventLogPane::onKindsChosen()
{
    QSet<QString> kinds;
    for (const QAction *action : m_kindMenu->actions()) {
        if (action->isChecked())
            kinds.insert(action->data().toString());
    }
    m_filter->setKinds(kinds);
    if (kinds.isEmpty())
        m_kindButton->setText(tr("Kinds: all"));
    else if (kinds.size() == 1)
        m_kindButton->setText(tr("Kind: %1").arg(*kinds.cbegin()));
    else
        m_kindButton->setText(tr("Kinds: %1 chosen").arg(kinds.size()));
}

void EventLogPane::fitColumns()
{
    QList<QStringList> samples(EventLogModel::ColumnCount);
    samples[EventLogModel::Time] << TimeRule::clock(
            QDateTime(QDate(2000, 12, 28), QTime(20, 58, 58, 888), Qt::UTC), m_fold->log()->zone(),
            true);
    for (const EventSeverity severity :
         {EventSeverity::Routine, EventSeverity::Notable, EventSeverity::Alert})
        samples[EventLogModel::Severity] << severityText(severity);
    // A folded line's sources: the poll and the demo's three replicas.
    samples[EventLogModel::Source]
            = {QStringLiteral("workload"), QStringLiteral("poll, r1, r2, r3")};
    samples[EventLogModel::Role] = m_fold->roles();
    samples[EventLogModel::Event] = m_fold->kinds();
    samples[EventLogModel::Event] << tr("routine ×%1").arg(88888);
    // Tokens start at the epoch's milliseconds (migrations/adr/0174): 13 digits.
    samples[EventLogModel::Token] = {QStringLiteral("8888888888888")};

    // As the item delegate lays a cell out: its text between two focus-frame margins, and a
    // little slack for a font that rounds up.
    const int margin
            = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1) + 6;
    const QFontMetrics metrics = m_view->fontMetrics();
    QHeaderView *header = m_view->horizontalHeader();
    for (int column = 0; column < EventLogModel::Detail; ++column) {
        int width = header->sectionSizeHint(column);
        for (const QString &sample : std::as_const(samples[column]))
            width = std::max(width, metrics.horizontalAdvance(sample) + margin);
        m_view->setColumnWidth(column, width);
    }
}

} // namespace leader::console
