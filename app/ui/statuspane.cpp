#include "statuspane.h"

#include "models/statusmodel.h"
#include "stalebanner.h"
#include "tableview.h"

#include <QHeaderView>
#include <QItemSelection>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace leader::console {

StatusPane::StatusPane(StatusModel *model, const TimeRule *timeRule, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(StatusModel::RawRole);
    m_view = makeTableView(QStringLiteral("statusView"), m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(StatusModel::Role, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &StatusPane::selectionChanged);

    m_banner = new StaleBanner(m_view, timeRule);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_view);
}

StatusPane::~StatusPane() = default;

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
