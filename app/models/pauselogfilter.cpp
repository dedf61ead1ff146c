#include "pauselogfilter.h"

#include "pauselogmodel.h"

namespace leader::console {

PauseLogFilter::PauseLogFilter(QObject *parent)
    : QSortFilterProxyModel(parent)
{}

void PauseLogFilter::setRole(const QString &role)
{
    if (role == m_role)
        return;
    m_role = role;
    invalidateFilter();
}

void PauseLogFilter::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

bool PauseLogFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *model = sourceModel();
    if (!model)
        return false;
    const auto cell = [&](int column) {
        return model->index(sourceRow, column, sourceParent).data(Qt::DisplayRole).toString();
    };
    if (!m_role.isEmpty() && cell(PauseLogModel::Role) != m_role)
        return false;
    const QString needle = m_text.trimmed();
    if (needle.isEmpty())
        return true;
    for (int column = 0; column < model->columnCount(sourceParent); ++column)
        if (cell(column).contains(needle, Qt::CaseInsensitive))
            return true;
    return false;
}

} // namespace leader::console
