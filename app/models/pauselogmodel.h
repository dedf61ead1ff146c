#pragma once

#include "core/pauselog.h"
#include "core/timerule.h"

#include <QAbstractTableModel>
#include <QList>

namespace leader::console {

// The pause log as read last (every pause, unpause and expiry, newest first), times in the
// rule's zone, named in the headers.
class PauseLogModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseLogModel)

public:
    enum Column { Time, Role, Action, Login, By, Reason, Until, EndedPause, ColumnCount };
    // The unformatted value: QDateTime for the times, the text otherwise.
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit PauseLogModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setEntries(const QList<PauseLogEntry> &entries);
    const PauseLogEntry &entry(int row) const { return m_rows.at(row); }

    // Times in the rule's zone, named in the headers; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);

private:
    TimeZoneMode zone() const { return m_timeRule.zone(); }
    QString cellTime(const QDateTime &time) const;
    QVariant display(const PauseLogEntry &row, int column) const;
    void timeRuleChanged();

    QList<PauseLogEntry> m_rows;
    TimeRuleBinding m_timeRule;
};

} // namespace leader::console
