#pragma once

#include "core/registrytypes.h"
#include "core/statustypes.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

namespace leader::console {

// Who could take over, per role: one row for each registered replica and each role it runs, the
// living first (by role, holding before eligible), then the gone ones, greyed, by role. Whether a
// replica holds a role comes from the latest leader_status rows, so the two reads (the registry
// every few seconds, the status every poll) each update the rows they decide. A replica whose
// early take is off for a while (extension 0189: its marker session kept being ended, so its
// leases end at their expiry only) says so in its State cell, why and until when in the tooltip.
class RegistryModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RegistryModel)

public:
    // Replica: its --id (0182); its holder id, which leader_status names, in the tooltip and in
    // Holder.
    // Drain and Drained by: extension 0183's drain of the replica (leaderctl drain, the tab's
    // Drain action), empty while it is not drained.
    enum Column {
        Role,
        Replica,
        State,
        Holder,
        Host,
        Pid,
        Version,
        Up,
        LastSeen,
        Drain,
        DrainedBy,
        ColumnCount
    };
    enum class Standing {
        Holding,  // its holder id is the role's holder in the latest leader_status rows
        Eligible, // alive, runs the role, does not hold it
        // Its marker session ended (its process died), or not seen for 35 s (the view's word)
        // and holding nothing: a lease outlives the beats of a holder cut off from them.
        Gone,
    };
    // Replicas, not rows: a replica is gone when every row of it is.
    struct Counts
    {
        int alive = 0;
        int gone = 0;
        friend bool operator==(const Counts &, const Counts &) = default;
    };
    // Standing as an int, on the State column.
    static constexpr int StandingRole = Qt::UserRole + 1;

    explicit RegistryModel(QObject *parent = nullptr);
    ~RegistryModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString standingName(Standing standing);
    // "12 s", "5 min", "3 h 12 min", "2 d 4 h": whole units, rounded down.
    static QString formatUptime(double seconds);

    // The replica's name (--id) of a row; empty: none recorded, so it cannot be drained.
    QString replicaAt(int row) const;
    bool isDrainedAt(int row) const;

    // Rows are matched by (role, holder id): changed cells get dataChanged, new rows are inserted,
    // vanished ones removed and a row whose standing changed is moved, so a selection stays on it.
    void setReplicas(const QList<RegistryEntry> &replicas);
    void setStatus(const StatusSnapshot &snapshot);
    void clear(); // another database: neither its replicas nor its holders are this one's

    Counts counts() const { return m_counts; }

Q_SIGNALS:
    void countsChanged();

private:
    struct Row
    {
        QString role;
        QString name;
        QString holderId;
        QString host;
        int pid = 0;
        QString version;
        Standing standing = Standing::Gone;
        bool markerEnded = false;
        double lastSeenAgeSeconds = 0;
        QDateTime startedAt;
        double upSeconds = 0; // started to the database's now, on its clock
        std::optional<DrainState> drain;
        QString drainedBy;
        QString drainReason;
        QDateTime earlyTakeOffUntil; // extension 0189; invalid: it names its marker
        QString earlyTakeOffReason;
    };

    static QString upText(const Row &row);
    // The State column's word: the standing, or the drain of an eligible replica; "· early take
    // off" while the replica names no marker (extension 0189).
    static QString stateText(const Row &row);
    void rebuild();
    void updateRow(int row, const Row &next);

    QList<RegistryEntry> m_replicas;
    QHash<QString, QString> m_holders; // role → holder id, for the roles held now
    QList<Row> m_rows;
    Counts m_counts;
};

} // namespace leader::console
