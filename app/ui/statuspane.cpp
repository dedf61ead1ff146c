#include "statuspane.h"

#include "core/leasefacts.h"
#include "models/health.h"
#include "models/statusmodel.h"
#include "roledetailsdialog.h"
#include "stalebanner.h"
#include "tableview.h"

#include <QAction>
#include <QHeaderView>
#include <QItemSelection>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace leader::console {

namespace {

// A header whose title may be elided (a time column's names its zone) says it whole in its tooltip.
class StatusProxy final : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        const QVariant value = QSortFilterProxyModel::headerData(section, orientation, role);
        if (role == Qt::ToolTipRole && orientation == Qt::Horizontal && !value.isValid())
            return QSortFilterProxyModel::headerData(section, orientation, Qt::DisplayRole);
        return value;
    }
};

// The widest each column shows in practice; a longer value (a holder id that is no hosted
// replica's name, a long reason) is elided, its cell's tooltip saying it whole.
QList<ColumnWidth> statusColumnWidths(int decoration)
{
    const QString clock = QStringLiteral("23:59:59");
    const QString duration = StatusModel::formatSeconds(59 * 60 + 59);
    QString health;
    for (const Health level : {Health::Ok, Health::Starting, Health::Paused, Health::Warn,
                               Health::Alert, Health::Stale}) {
        const QString text = StatusModel::healthText(level);
        if (text.size() > health.size())
            health = text;
    }
    return {{StatusModel::Role, longestLeaseRole()},
            {StatusModel::State,
             roleStateDisplayName(RoleState::Paused) + QStringLiteral(" · ")
                     + StatusModel::formatRemaining(23 * 3600 + 59 * 60) + QStringLiteral(" left"),
             true, decoration},
            {StatusModel::Health, health},
            {StatusModel::Holder, QStringLiteral("host:12345:0b75"), false},
            {StatusModel::Token, QStringLiteral("1796493977462")},
            {StatusModel::Acquired, clock, false},
            {StatusModel::ExpiresIn, QStringLiteral("in ") + duration},
            {StatusModel::LastTickAge, duration},
            {StatusModel::PausedBy, QStringLiteral("operator@host"), false},
            {StatusModel::PausedAt, clock},
            {StatusModel::PauseReason, QStringLiteral("maintenance window, ticket"), false},
            {StatusModel::NotBefore, QStringLiteral("in ") + duration},
            {StatusModel::LastOutcome, QStringLiteral("lost (taken_over)"), false},
            {StatusModel::Took, duration},
            {StatusModel::Backlog, StatusModel::backlogText({{}, 99999, 59 * 60 + 59, {}}), false}};
}

} // namespace

StatusPane::StatusPane(StatusModel *model, const TimeRule *timeRule, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new StatusProxy(this))
    , m_filter(new QLineEdit)
{
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(StatusModel::RawRole);
    m_proxy->setFilterKeyColumn(StatusModel::Role);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view = makeTableView(QStringLiteral("statusView"), m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(StatusModel::Role, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    QHeaderView *header = m_view->horizontalHeader();
    const int decoration = m_view->iconSize().isValid()
                                   ? m_view->iconSize().width() + 4
                                   : m_view->style()->pixelMetric(QStyle::PM_SmallIconSize) + 4;
    fixColumnWidths(m_view, statusColumnWidths(decoration));
    // What an operator reads first, from the left, so a laptop shows it without scrolling: the
    // role, its state and health, who leads it, its last tick's age, who paused it, how much work
    // waits, then the last tick's outcome and how long it took, and why it is paused; the
    // lease's mechanics (expiry, token, acquired) last.
    const QList<int> order{
            StatusModel::Role,        StatusModel::State,       StatusModel::Health,
            StatusModel::Holder,      StatusModel::LastTickAge, StatusModel::PausedBy,
            StatusModel::Backlog,     StatusModel::LastOutcome, StatusModel::Took,
            StatusModel::PauseReason, StatusModel::PausedAt,    StatusModel::NotBefore,
            StatusModel::ExpiresIn,   StatusModel::Token,       StatusModel::Acquired};
    for (int visual = 0; visual < order.size(); ++visual)
        header->moveSection(header->visualIndex(order.at(visual)), visual);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &StatusPane::selectionChanged);
    // A role's tick details: double-click its row, or the row's context action.
    connect(m_view, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        openDetails(m_proxy->index(index.row(), StatusModel::Role).data().toString());
    });
    auto *details = new QAction(tr("Tick details…"), m_view);
    details->setObjectName(QStringLiteral("tickDetailsAction"));
    connect(details, &QAction::triggered, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            openDetails(m_proxy->index(current.row(), StatusModel::Role).data().toString());
    });
    m_view->addAction(details);

    m_filter->setObjectName(QStringLiteral("statusFilter"));
    m_filter->setPlaceholderText(tr("Filter roles"));
    m_filter->setToolTip(tr("Shows the roles whose name contains this text; Esc clears it"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(m_filter->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 32);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    // Esc in the filter clears it and hands the keys back to the table.
    auto *clear = new QAction(tr("Clear the filter"), m_filter);
    clear->setShortcut(QKeySequence(Qt::Key_Escape));
    clear->setShortcutContext(Qt::WidgetShortcut);
    connect(clear, &QAction::triggered, this, [this] {
        m_filter->clear();
        m_view->setFocus(Qt::ShortcutFocusReason);
    });
    m_filter->addAction(clear);

    m_banner = new StaleBanner(m_view, timeRule);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);
}

void StatusPane::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

int StatusPane::heightForRows(int rows) const
{
    return m_filter->sizeHint().height() + layout()->spacing()
           + leader::console::heightForRows(m_view, rows);
}

QSize StatusPane::sizeHint() const
{
    return {QWidget::sizeHint().width(), minimumSizeHint().height()};
}

QSize StatusPane::minimumSizeHint() const
{
    return {QWidget::minimumSizeHint().width(),
            heightForRows(5) + style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_view)};
}

StatusPane::~StatusPane() = default;

RoleDetailsDialog *StatusPane::openDetails(const QString &role)
{
    if (role.isEmpty())
        return nullptr;
    // One window a role: asked again, the open one comes to the front.
    for (RoleDetailsDialog *open : findChildren<RoleDetailsDialog *>()) {
        if (open->role() == role) {
            open->raise();
            open->activateWindow();
            return open;
        }
    }
    auto *dialog = new RoleDetailsDialog(m_model, role, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void StatusPane::setSnapshot(const StatusSnapshot &snapshot)
{
    const QStringList selected = selectedRoles();
    m_model->setSnapshot(snapshot);
    if (selectedRoles() != selected)
        selectRoles(selected);
    if (!m_pendingRole.isEmpty() && !snapshot.roles.isEmpty()) {
        const QString role = std::exchange(m_pendingRole, QString());
        if (selectRole(role))
            m_view->scrollTo(m_view->currentIndex());
        else
            Q_EMIT roleMissing(role);
    }
}

void StatusPane::selectWhenShown(const QString &role)
{
    m_pendingRole = role;
}

void StatusPane::setStale(bool stale, const QDateTime &asOf)
{
    m_model->setStale(stale);
    m_banner->setStale(stale, asOf);
}

void StatusPane::setStaleReason(const QString &why, const QString &detail)
{
    m_banner->setReason(why, detail);
}

QStringList StatusPane::selectedRoles() const
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows(StatusModel::Role);
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList roles;
    for (const QModelIndex &index : std::as_const(rows))
        roles << index.data(Qt::DisplayRole).toString();
    return roles;
}

bool StatusPane::selectRole(const QString &role)
{
    selectRoles({role});
    return selectedRoles() == QStringList{role};
}

void StatusPane::selectRoles(const QStringList &roles)
{
    QItemSelection selection;
    int current = -1;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        if (!roles.contains(m_proxy->index(row, StatusModel::Role).data().toString()))
            continue;
        selection.select(m_proxy->index(row, 0), m_proxy->index(row, StatusModel::ColumnCount - 1));
        if (current < 0)
            current = row;
    }
    QItemSelectionModel *model = m_view->selectionModel();
    model->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (current >= 0)
        model->setCurrentIndex(m_proxy->index(current, 0), QItemSelectionModel::NoUpdate);
}

} // namespace leader::console
