#pragma once

#include "core/demotypes.h"
#include "core/timerule.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace leader::console {

// The takeovers measured after faults from the panel, and those a real database's rows show
// (takeoverFrom()), newest last. The first columns say it all narrowly enough for the demo's dock:
// the fault, the victim, the successor, the gap and whether it met ADR-114's bound, the instants
// (fault, last heartbeat or release, acquired) in their tooltips. The instants' own columns come
// last, for a view with room for them.
class FailoverModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FailoverModel)

public:
    enum Column {
        Role,
        Fault,
        Victim,
        Successor,
        Gap,
        Bound,
        AfterFault,
        LastHeartbeat,
        Acquired,
        ColumnCount
    };
    // The unformatted value for sorting: QDateTime for the times, double seconds for the gap,
    // Failover::withinBound() for the bound.
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit FailoverModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void append(const Failover &failover);
    void clear();
    const Failover &failover(int row) const { return m_rows.at(row); }

    static QString formatGap(double seconds); // "9.81 s"
    // Seconds from the fault to the successor's acquired_at; none when the fault's instant is
    // not known (a takeover the polls found, not one of the demo's faults).
    static std::optional<double> afterFault(const Failover &row);
    static QString boundText(const Failover &failover); // "≤ 15 s ✓" or "missed"

    // Times in the rule's zone, named in the headers; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);

private:
    TimeZoneMode zone() const { return m_timeRule.zone(); }
    QString clockText(const QDateTime &time) const;
    QString fullText(const QDateTime &time) const;
    QString gapToolTip(const Failover &failover) const;
    void timeRuleChanged();

    QList<Failover> m_rows;
    TimeRuleBinding m_timeRule;
};

} // namespace leader::console
