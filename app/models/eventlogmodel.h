#pragma once

#include "core/demotypes.h"
#include "core/timerule.h"
#include "models/columnfilter.h"

#include <QAbstractTableModel>
#include <QList>

class QIODevice;

namespace leader::console {

// What exportCsv() writes for a cell when a model gives it (times as ISO 8601 with the offset);
// the display text otherwise.
inline constexpr int ExportRole = Qt::UserRole + 100;

// The transitions of the hosted replicas, the panel's actions and the changes the poll saw,
// oldest first. Bounded: past capacity the oldest rows go.
class EventLogModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogModel)

public:
    enum Column { Time, Source, Role, Event, Token, Detail, ColumnCount };
    // The unformatted value: QDateTime for the time, qint64 for the token.
    static constexpr int RawRole = Qt::UserRole + 1;
    static constexpr int DefaultCapacity = 10000;

    explicit EventLogModel(QObject *parent = nullptr);
    explicit EventLogModel(int capacity, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void append(const EventLogEntry &entry);
    // The same as the latest row of its kind (source, role and event) among the last 50, with
    // the same detail and token: that row counts one more and says when it was last seen, rather
    // than a second identical line (its time stays the first, so the log stays in order).
    void appendOrRepeat(const EventLogEntry &entry);
    // A line of the console's own (source "console"), stamped now; repeats collapse when asked.
    void appendLocal(const QString &event, const QString &detail, const QString &role = {},
                     bool collapseRepeats = false);
    void clear();
    int capacity() const { return m_capacity; }
    // Times in the rule's zone, named in the header; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);
    const EventLogEntry &entry(int row) const { return m_rows.at(row); }

private:
    TimeZoneMode zone() const { return m_timeRule.zone(); }
    void timeRuleChanged();

    int m_capacity = DefaultCapacity;
    QList<EventLogEntry> m_rows;
    TimeRuleBinding m_timeRule;
};

// What the event log shows: rows with the text in any column (case-insensitive), from one source
// and about one role; an empty criterion lets everything through.
class EventLogFilter final : public ColumnFilter
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogFilter)

public:
    explicit EventLogFilter(QObject *parent = nullptr);

    QString source() const;
    QString role() const;
    void setSource(const QString &source);
    void setRole(const QString &role);
};

// Writes the model as the user sees it (header, then each row's ExportRole or display text) as
// RFC 4180 CSV:
// CRLF line ends, fields with a comma, a quote or a line break quoted, quotes doubled, UTF-8.
// False with *error set to one line when the device cannot be written.
bool exportCsv(QIODevice *device, const QAbstractItemModel *model, QString *error);

} // namespace leader::console
