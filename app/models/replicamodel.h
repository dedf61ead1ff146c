#pragma once

#include "core/demotypes.h"

#include <QAbstractTableModel>
#include <QList>

namespace leader::console {

// The hosted replicas as the failure panel lists them, in the host's order.
class ReplicaModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplicaModel)

public:
    enum Column { Replica, State, Holder, Leading, Faults, ColumnCount };
    static constexpr int IdRole = Qt::UserRole + 1; // the replica id, whatever the column

    explicit ReplicaModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Rows are matched by id: changed cells get dataChanged, new ids are inserted and gone ids
    // removed, so a view keeps its selection.
    void setReplicas(const QList<ReplicaInfo> &replicas);
    const QList<ReplicaInfo> &replicas() const { return m_rows; }

private:
    QList<ReplicaInfo> m_rows;
};

} // namespace leader::console
