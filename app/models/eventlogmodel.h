#pragma once

#include "core/demotypes.h"
#include "core/timerule.h"
#include "models/columnfilter.h"
#include "models/eventseverity.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>

class QIODevice;

namespace leader::console {

// What exportCsv() writes for a cell when a model gives it (times as ISO 8601 with the offset);
// the display text otherwise.
inline constexpr int ExportRole = Qt::UserRole + 100;
// A table's headerData(0, Qt::Horizontal) for this role: one line saying which view of the data
// the table is (what is folded, what is filtered); exportCsv() writes it first, as "# ...".
inline constexpr int ExportNoteRole = Qt::UserRole + 101;

// The transitions of the hosted replicas, the panel's actions and the changes the poll saw,
// oldest first, every one (EventFoldModel is the view that folds the routine ones). Bounded: past
// capacity the oldest rows go.
class EventLogModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogModel)

public:
    enum Column { Time, Severity, Source, Role, Event, Token, Detail, ColumnCount };
    // The unformatted value: QDateTime for the time, qint64 for the token, the EventSeverity as
    // an int for the severity.
    static constexpr int RawRole = Qt::UserRole + 1;
    // Any column: the row's event kinds (QStringList; a folded line stands for several).
    static constexpr int KindsRole = Qt::UserRole + 2;
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
    void appendLocal(EventKind event, const QString &detail, const QString &role = {},
                     bool collapseRepeats = false);
    void clear();
    int capacity() const { return m_capacity; }
    // Times in the rule's zone, named in the header; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);
    const EventLogEntry &entry(int row) const { return m_rows.at(row); }
    // The Severity column's data for an item role: the shape and the word to show, the bare word
    // to export, the tone as the foreground.
    static QVariant severityData(EventSeverity severity, int role);
    // Every row appended has the next sequence number; row 0's is the number of rows gone.
    qint64 firstSequence() const { return m_gone; }
    TimeZoneMode zone() const { return m_timeRule.zone(); }

private:
    QString headerToolTip(int section) const;
    void timeRuleChanged();

    int m_capacity = DefaultCapacity;
    QList<EventLogEntry> m_rows;
    qint64 m_gone = 0;
    TimeRuleBinding m_timeRule;
};

// What the event log shows: rows with the text in any column (case-insensitive), from one source,
// about one role and of one of the chosen kinds (a folded line: if it folded one of them); an
// empty criterion lets everything through.
class EventLogFilter final : public ColumnFilter
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogFilter)

public:
    explicit EventLogFilter(QObject *parent = nullptr);

    QString source() const;
    QString role() const;
    QSet<QString> kinds() const { return m_kinds; }
    void setSource(const QString &source);
    void setRole(const QString &role);
    void setKinds(const QSet<QString> &kinds);

    // ExportNoteRole: the source model's view, then this filter's criteria.
    QVariant headerData(int section, Qt::Orientation orientation,
                        int itemRole = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QSet<QString> m_kinds;
};

// Writes the model as the user sees it (its ExportNoteRole line when it has one, the header, then
// each row's ExportRole or display text) as RFC 4180 CSV:
// CRLF line ends, fields with a comma, a quote or a line break quoted, quotes doubled, UTF-8.
// False with *error set to one line when the device cannot be written.
bool exportCsv(QIODevice *device, const QAbstractItemModel *model, QString *error);

} // namespace leader::console
