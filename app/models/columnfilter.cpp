#include "columnfilter.h"

namespace leader::console {

ColumnFilter::ColumnFilter(QObject *parent)
    : QSortFilterProxyModel(parent)
{}

void ColumnFilter::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

void ColumnFilter::setRequired(int column, const QString &value)
{
    if (value == m_required.value(column))
        return;
    m_required.insert(column, value);
    invalidateFilter();
}

bool ColumnFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *model = sourceModel();
    if (!model)
        return false;
    const auto cell = [&](int column) {
        return model->index(sourceRow, column, sourceParent).data(Qt::DisplayRole).toString();
    };
    for (auto it = m_required.cbegin(); it != m_required.cend(); ++it)
        if (!it.value().isEmpty() && cell(it.key()) != it.value())
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
