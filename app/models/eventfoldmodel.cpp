#include "eventfoldmodel.h"

#include "models/eventlogmodel.h"
#include "models/plaintext.h"

#include <algorithm>

namespace leader::console {

namespace {

QStringList sorted(const QSet<QString> &set)
{
    QStringList list(set.cbegin(), set.cend());
    list.sort();
    return list;
}

} // namespace

EventFoldModel::EventFoldModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void EventFoldModel::setLog(EventLogModel *log)
{
    if (log == m_log)
        return;
    for (const QMetaObject::Connection &connection : std::as_const(m_connections))
        disconnect(connection);
    m_connections.clear();
    beginResetModel();
    m_log = log;
    m_roles.clear();
    m_kinds.clear();
    rebuild();
    endResetModel();
    if (!log)
        return;
    m_connections.append(connect(
            log, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &, int first, int last) { onRowsInserted(first, last); }));
    m_connections.append(
            connect(log, &QAbstractItemModel::rowsRemoved, this,
                    [this](const QModelIndex &, int first, int) { onRowsRemoved(first); }));
    m_connections.append(
            connect(log, &QAbstractItemModel::dataChanged, this, &EventFoldModel::onDataChanged));
    m_connections.append(connect(log, &QAbstractItemModel::headerDataChanged, this,
                                 &EventFoldModel::onHeaderDataChanged));
    // The log gone first (its window closing): nothing left to show.
    m_connections.append(connect(log, &QObject::destroyed, this, [this] {
        beginResetModel();
        rebuild();
        endResetModel();
    }));
    Q_EMIT vocabularyChanged();
}

void EventFoldModel::setShowRoutine(bool show)
{
    if (show == m_showRoutine)
        return;
    beginResetModel();
    m_showRoutine = show;
    rebuild();
    endResetModel();
}

QStringList EventFoldModel::roles() const
{
    return sorted(m_roles);
}

QStringList EventFoldModel::kinds() const
{
    return sorted(m_kinds);
}

void EventFoldModel::rebuild()
{
    m_rows.clear();
    m_open.clear();
    if (!m_log)
        return;
    for (int row = 0; row < m_log->rowCount(); ++row)
        take(row, false);
}

void EventFoldModel::take(int logRow, bool notify)
{
    const EventLogEntry &entry = m_log->entry(logRow);
    const qint64 sequence = m_log->firstSequence() + logRow;
    const qsizetype words = m_roles.size() + m_kinds.size();
    if (!entry.role.isEmpty())
        m_roles.insert(entry.role);
    m_kinds.insert(eventKindName(entry.event));
    if (notify && m_roles.size() + m_kinds.size() != words)
        Q_EMIT vocabularyChanged();

    const auto append = [&](Row row) {
        const int at = int(m_rows.size());
        if (notify)
            beginInsertRows({}, at, at);
        m_rows.append(std::move(row));
        if (notify)
            endInsertRows();
    };
    if (m_showRoutine || severityOf(entry) != EventSeverity::Routine) {
        // Routine events after this line count on a line after it.
        m_open.remove(entry.role);
        append(Row{sequence});
        return;
    }
    const auto count = [&entry](Row &fold) {
        ++fold.folded;
        fold.lastTime = entry.time;
        fold.lastSource = entry.source;
        fold.lastEvent = entry.event;
        fold.lastDetail = entry.detail;
        fold.lastToken = entry.token;
        if (!fold.sources.contains(entry.source)) {
            fold.sources.append(entry.source);
            fold.sources.sort();
        }
        ++fold.kinds[eventKindName(entry.event)];
    };
    if (const auto open = m_open.constFind(entry.role); open != m_open.cend()) {
        if (const int at = rowOf(*open); at >= 0) {
            count(m_rows[at]);
            // The time and the severity stay; the count, the last event, the sources change.
            if (notify)
                Q_EMIT dataChanged(index(at, EventLogModel::Source),
                                   index(at, EventLogModel::Detail));
            return;
        }
    }
    Row fold;
    fold.sequence = sequence;
    fold.role = entry.role;
    fold.firstTime = entry.time;
    count(fold);
    m_open.insert(entry.role, sequence);
    append(std::move(fold));
}

int EventFoldModel::rowOf(qint64 sequence) const
{
    const auto it
            = std::lower_bound(m_rows.cbegin(), m_rows.cend(), sequence,
                               [](const Row &row, qint64 wanted) { return row.sequence < wanted; });
    return it != m_rows.cend() && it->sequence == sequence ? int(it - m_rows.cbegin()) : -1;
}

void EventFoldModel::onRowsInserted(int first, int last)
{
    for (int row = first; row <= last; ++row)
        take(row, true);
}

void EventFoldModel::onRowsRemoved(int first)
{
    // The log only drops its oldest rows (capacity) or all of them (clear): the lines of the
    // entries gone go too, a folded line with its first entry.
    if (first != 0) {
        beginResetModel();
        rebuild();
        endResetModel();
        return;
    }
    const qint64 kept = m_log->firstSequence();
    const auto firstKept = std::find_if(m_rows.cbegin(), m_rows.cend(),
                                        [kept](const Row &row) { return row.sequence >= kept; });
    const int gone = int(firstKept - m_rows.cbegin());
    if (gone == 0)
        return;
    beginRemoveRows({}, 0, gone - 1);
    m_rows.remove(0, gone);
    m_open.removeIf([kept](const auto &open) { return open.value() < kept; });
    endRemoveRows();
}

void EventFoldModel::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                                   const QList<int> &roles)
{
    const qint64 top = m_log->firstSequence() + topLeft.row();
    const qint64 bottom = m_log->firstSequence() + bottomRight.row();
    const auto from
            = std::lower_bound(m_rows.cbegin(), m_rows.cend(), top,
                               [](const Row &row, qint64 wanted) { return row.sequence < wanted; });
    const auto to
            = std::upper_bound(from, m_rows.cend(), bottom,
                               [](qint64 wanted, const Row &row) { return wanted < row.sequence; });
    if (from == to)
        return;
    Q_EMIT dataChanged(index(int(from - m_rows.cbegin()), topLeft.column()),
                       index(int(to - m_rows.cbegin()) - 1, bottomRight.column()), roles);
}

void EventFoldModel::onHeaderDataChanged(Qt::Orientation orientation, int first, int last)
{
    Q_EMIT headerDataChanged(orientation, first, last);
    // The zone changed: a folded line's detail names its last time in it.
    if (orientation == Qt::Horizontal && !m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, EventLogModel::Detail),
                           index(rowCount() - 1, EventLogModel::Detail));
}

int EventFoldModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventFoldModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : EventLogModel::ColumnCount;
}

QVariant EventFoldModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    if (row.folded > 0)
        return foldedData(row, index.column(), role);
    if (role == FoldedCountRole)
        return 0;
    const qint64 logRow = row.sequence - m_log->firstSequence();
    if (logRow < 0 || logRow >= m_log->rowCount())
        return {}; // between the log's removal and ours
    return m_log->index(int(logRow), index.column()).data(role);
}

QVariant EventFoldModel::foldedData(const Row &row, int column, int role) const
{
    const TimeZoneMode zone = m_log->zone();
    if (role == FoldedCountRole)
        return row.folded;
    if (role == EventLogModel::KindsRole)
        return QStringList(row.kinds.keys());
    if (role == Qt::ToolTipRole)
        return plainToolTip(foldedData(row, column, PlainToolTipRole));
    if (role == PlainToolTipRole) {
        const QString of = row.role.isEmpty() ? tr("no role") : row.role;
        // Spelt out: the console ships no translation that would turn "(s)" into words.
        if (row.folded == 1)
            return tr("1 routine event of %1 at %2, folded into this line: \"Show routine\" "
                      "lists it")
                    .arg(of, TimeRule::full(row.lastTime, zone));
        return tr("%1 routine events of %2 from %3 to %4, folded into this line: \"Show "
                  "routine\" lists each")
                .arg(QString::number(row.folded), of, TimeRule::full(row.firstTime, zone),
                     TimeRule::full(row.lastTime, zone));
    }
    if (column == EventLogModel::Severity)
        return EventLogModel::severityData(EventSeverity::Routine, role);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case EventLogModel::Time:
            return TimeRule::clock(row.firstTime, zone, true);
        case EventLogModel::Source:
            return row.sources.join(QStringLiteral(", "));
        case EventLogModel::Role:
            return row.role;
        case EventLogModel::Event:
            return tr("routine ×%1").arg(row.folded);
        case EventLogModel::Token:
            return row.lastToken ? QString::number(row.lastToken) : QString();
        case EventLogModel::Detail: {
            QStringList counts;
            for (auto it = row.kinds.cbegin(); it != row.kinds.cend(); ++it)
                counts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
            const QString last
                    = QStringLiteral("%1 %2 %3")
                              .arg(row.lastSource, eventKindName(row.lastEvent), row.lastDetail)
                              .trimmed();
            // The latest first: what the role does now, then how often it did what.
            return tr("last at %1: %2; in all %3")
                    .arg(TimeRule::clock(row.lastTime, zone), last,
                         counts.join(QStringLiteral(", ")));
        }
        }
        break;
    case ExportRole:
        if (column == EventLogModel::Time)
            return TimeRule::iso8601(row.firstTime, zone);
        break;
    case EventLogModel::RawRole:
        switch (column) {
        case EventLogModel::Time:
            return row.firstTime;
        case EventLogModel::Token:
            return row.lastToken;
        default:
            return foldedData(row, column, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        if (column == EventLogModel::Token)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant EventFoldModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == ExportNoteRole)
        return m_showRoutine ? tr("every event")
                             : tr("notable and alert events, each role's routine events "
                                  "folded into one counting line");
    if (orientation == Qt::Horizontal && m_log)
        return m_log->headerData(section, orientation, role);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace leader::console
