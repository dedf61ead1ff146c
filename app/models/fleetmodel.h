#pragma once

#include "core/connectionprofile.h"
#include "core/demotypes.h"
#include "core/statustypes.h"
#include "models/agethresholds.h"
#include "models/health.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QList>

#include <optional>

namespace leader::console {

// The fleet overview: one row per database the window watches, in the order opened, saying how
// it is at a glance (the worst role's health, the paused roles, the last takeover) so an operator
// watching many installations sees which one needs them. Each database's tab feeds its row.
// Roles starting (never ran or just unpaused, not due yet) count as ok (worstHealth()).
class FleetModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetModel)

public:
    using Level = leader::console::Health; // the Health column's enumerator hides the type
    enum Column { Database, Environment, Connection, Health, Paused, LastTakeover, ColumnCount };
    // int(leader::console::Health) on the Health column.
    static constexpr int HealthRole = Qt::UserRole + 1;

    explicit FleetModel(QObject *parent = nullptr);
    ~FleetModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Appends a row and returns it; title is what the database's tab is called.
    int addDatabase(const QString &title, const ConnectionProfile &target);
    void removeDatabase(int row);
    void setTitle(int row, const QString &title, const ConnectionProfile &target);
    void setConnection(int row, ConnectionState state, const QString &message);
    void setSnapshot(int row, const StatusSnapshot &snapshot);
    void setStale(int row, bool stale);
    void addTakeover(int row, const Failover &takeover);
    void setThresholds(const AgeThresholds &thresholds);

    Level health(int row) const;

private:
    struct Row
    {
        QString title;
        ConnectionProfile target;
        ConnectionState state = ConnectionState::Disconnected;
        QString message;
        bool haveSnapshot = false;
        StatusSnapshot snapshot;
        AgeOrigins origins; // a freshly migrated database's roles are starting, not late
        bool stale = false;
        std::optional<Failover> lastTakeover;
    };

    QString healthText(const Row &row) const;
    QString healthToolTip(const Row &row) const;
    static QStringList pausedRoles(const Row &row);
    void changed(int row, int first, int last, const QList<int> &roles);

    AgeThresholds m_thresholds = AgeThresholds::defaults();
    QList<Row> m_rows;
};

} // namespace leader::console
