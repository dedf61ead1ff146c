#include "replicamodel.h"

namespace leader::console {

ReplicaModel::ReplicaModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

int ReplicaModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ReplicaModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReplicaModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ReplicaInfo &row = m_rows.at(index.row());
    if (role == IdRole)
        return row.id;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Replica:
            return row.id;
        case State:
            return replicaStateName(row.state);
        case Holder:
            return row.holderId;
        case Leading:
            return row.leading.join(QStringLiteral(", "));
        case Faults:
            return row.faults;
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Holder)
        return tr("Holder id (hostname:pid:8hex); a restart gets a new one");
    return {};
}

QVariant ReplicaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // In the order of Column.
    static constexpr const char *titles[ColumnCount]
            = {QT_TR_NOOP("Replica"), QT_TR_NOOP("State"), QT_TR_NOOP("Holder"),
               QT_TR_NOOP("Leading"), QT_TR_NOOP("Faults")};
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 0 || section >= ColumnCount)
        return {};
    return tr(titles[section]);
}

void ReplicaModel::setReplicas(const QList<ReplicaInfo> &replicas)
{
    const auto containsId = [](const QList<ReplicaInfo> &list, const QString &id) {
        return std::any_of(list.begin(), list.end(),
                           [&id](const ReplicaInfo &info) { return info.id == id; });
    };
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (containsId(replicas, m_rows.at(row).id))
            continue;
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        endRemoveRows();
    }
    for (int row = 0; row < replicas.size(); ++row) {
        const ReplicaInfo &next = replicas.at(row);
        int at = -1;
        for (int i = row; i < m_rows.size(); ++i)
            if (m_rows.at(i).id == next.id)
                at = i;
        if (at < 0) {
            beginInsertRows({}, row, row);
            m_rows.insert(row, next);
            endInsertRows();
            continue;
        }
        if (at != row) {
            beginMoveRows({}, at, at, {}, row);
            m_rows.move(at, row);
            endMoveRows();
        }
        ReplicaInfo &current = m_rows[row];
        const bool changed[ColumnCount]
                = {false, current.state != next.state, current.holderId != next.holderId,
                   current.leading != next.leading, current.faults != next.faults};
        current = next;
        int first = -1;
        int last = -1;
        for (int column = 0; column < ColumnCount; ++column) {
            if (!changed[column])
                continue;
            if (first < 0)
                first = column;
            last = column;
        }
        if (first >= 0)
            Q_EMIT dataChanged(index(row, first), index(row, last), {Qt::DisplayRole});
    }
}

} // namespace leader::console
