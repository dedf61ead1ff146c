#include "eventlogmodel.h"

#include "models/plaintext.h"
#include "models/tones.h"

#include <QGuiApplication>
#include <QIODevice>

namespace leader::console {

QVariant EventLogModel::severityData(EventSeverity severity, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        return severityText(severity);
    case ExportRole:
        return severityName(severity);
    case EventLogModel::RawRole:
        return int(severity);
    case Qt::ForegroundRole:
        switch (severity) {
        case EventSeverity::Alert:
            return toneText(Tone::Alert, QGuiApplication::palette());
        case EventSeverity::Notable:
            return toneText(Tone::Info, QGuiApplication::palette());
        case EventSeverity::Routine:
            return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
        }
        break;
    default:
        break;
    }
    return {};
}

EventLogModel::EventLogModel(QObject *parent)
    : EventLogModel(DefaultCapacity, parent)
{}

EventLogModel::EventLogModel(int capacity, QObject *parent)
    : QAbstractTableModel(parent)
    , m_capacity(std::max(1, capacity))
{}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const EventLogEntry &row = m_rows.at(index.row());
    if (role == KindsRole)
        return QStringList{eventKindName(row.event)};
    if (index.column() == Severity && role != PlainToolTipRole)
        return severityData(severityOf(row), role);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time:
            return TimeRule::clock(row.time, zone(), true);
        case Source:
            return row.source;
        case Role:
            return row.role;
        case Event:
            return eventKindName(row.event);
        case Token:
            return row.token ? QString::number(row.token) : QString();
        case Detail:
            return row.repeats > 1 ? tr("%1 (×%2, last at %3)")
                                             .arg(row.detail)
                                             .arg(row.repeats)
                                             .arg(TimeRule::clock(row.lastTime, zone()))
                                   : row.detail;
        }
        break;
    case ExportRole:
        if (index.column() == Time)
            return TimeRule::iso8601(row.time, zone());
        break;
    case RawRole:
        switch (index.column()) {
        case Time:
            return row.time;
        case Token:
            return row.token;
        default:
            return data(index, Qt::DisplayRole);
        }
    case PlainToolTipRole:
        if (index.column() == Time)
            return row.databaseTime.isEmpty()
                           ? tr("%1 (this workstation)").arg(TimeRule::full(row.time, zone()))
                           : tr("%1 (this workstation); database: %2")
                                     .arg(TimeRule::full(row.time, zone()), row.databaseTime);
        if (index.column() == Detail && !row.detail.isEmpty())
            return row.detail;
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Token)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
        return headerToolTip(section);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return TimeRule::header(tr("Time"), zone());
    case Severity:
        return tr("Severity");
    case Source:
        return tr("Source");
    case Role:
        return tr("Role");
    case Event:
        return tr("Event");
    case Token:
        return tr("Token");
    case Detail:
        return tr("Detail");
    default:
        return {};
    }
}

QString EventLogModel::headerToolTip(int section) const
{
    switch (section) {
    case Time:
        return tr("When this workstation saw the event, in %1; a cell's tooltip adds the "
                  "database's clock")
                .arg(TimeRule::zoneName(zone()));
    case Severity:
        return tr("routine: a role acquired, released, handed over or changed state, as every "
                  "tick does; notable: takeovers, pauses, unpauses, drill faults, connections; "
                  "alert: age warnings and alerts, errors, failed polls and heartbeats");
    case Source:
        return tr("Who saw it: a hosted replica (r1, r2, …), the poll of leader_status, the "
                  "failure panel or the console itself");
    case Role:
        return tr("The role the event is about; empty when it is about none");
    case Event:
        return tr("The kind of event; \"routine ×N\" is a role's routine events folded into "
                  "one line");
    case Token:
        return tr("The lease's fencing token: a new one with each acquisition");
    case Detail:
        return tr("Outcome, reason, error or action; repeats of the same line are counted");
    default:
        return {};
    }
}

void EventLogModel::append(const EventLogEntry &entry)
{
    if (m_rows.size() >= m_capacity) {
        const int drop = int(m_rows.size()) - m_capacity + 1;
        beginRemoveRows({}, 0, drop - 1);
        m_rows.remove(0, drop);
        m_gone += drop;
        endRemoveRows();
    }
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(entry);
    endInsertRows();
}

void EventLogModel::appendLocal(EventKind event, const QString &detail, const QString &role,
                                bool collapseRepeats)
{
    EventLogEntry entry;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.source = QStringLiteral("console");
    entry.role = role;
    entry.event = event;
    entry.detail = detail;
    if (collapseRepeats)
        appendOrRepeat(entry);
    else
        append(entry);
}

void EventLogModel::appendOrRepeat(const EventLogEntry &entry)
{
    // The latest row of the same kind (source, role, event) within the last few: a retry that
    // keeps failing alike between other lines still counts on its one line.
    constexpr int LookBack = 50;
    const int stop = std::max(0, int(m_rows.size()) - LookBack);
    for (int row = int(m_rows.size()) - 1; row >= stop; --row) {
        EventLogEntry &last = m_rows[row];
        if (last.source != entry.source || last.role != entry.role || last.event != entry.event)
            continue;
        if (last.detail != entry.detail || last.token != entry.token)
            break;
        ++last.repeats;
        last.lastTime = entry.time;
        Q_EMIT dataChanged(index(row, Detail), index(row, Detail),
                           {Qt::DisplayRole, Qt::ToolTipRole});
        return;
    }
    append(entry);
}

void EventLogModel::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void EventLogModel::timeRuleChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, Time, Time);
    if (!m_rows.isEmpty()) {
        Q_EMIT dataChanged(index(0, Time), index(rowCount() - 1, Time),
                           {Qt::DisplayRole, Qt::ToolTipRole, ExportRole});
    }
}

void EventLogModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_gone += m_rows.size();
    m_rows.clear();
    endRemoveRows();
}

EventLogFilter::EventLogFilter(QObject *parent)
    : ColumnFilter(parent)
{}

QString EventLogFilter::source() const
{
    return required(EventLogModel::Source);
}

QString EventLogFilter::role() const
{
    return required(EventLogModel::Role);
}

void EventLogFilter::setSource(const QString &source)
{
    setRequired(EventLogModel::Source, source);
}

void EventLogFilter::setRole(const QString &role)
{
    setRequired(EventLogModel::Role, role);
}

void EventLogFilter::setKinds(const QSet<QString> &kinds)
{
    if (kinds == m_kinds)
        return;
    m_kinds = kinds;
    invalidateFilter();
}

bool EventLogFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_kinds.isEmpty()) {
        const QStringList kinds = sourceModel()
                                          ->index(sourceRow, EventLogModel::Event, sourceParent)
                                          .data(EventLogModel::KindsRole)
                                          .toStringList();
        if (std::none_of(kinds.cbegin(), kinds.cend(),
                         [this](const QString &kind) { return m_kinds.contains(kind); }))
            return false;
    }
    return ColumnFilter::filterAcceptsRow(sourceRow, sourceParent);
}

QVariant EventLogFilter::headerData(int section, Qt::Orientation orientation, int itemRole) const
{
    if (itemRole != ExportNoteRole || orientation != Qt::Horizontal || !sourceModel())
        return ColumnFilter::headerData(section, orientation, itemRole);
    QStringList parts;
    const QString view = sourceModel()->headerData(section, orientation, itemRole).toString();
    parts << (view.isEmpty() ? tr("every event") : view);
    if (!role().isEmpty())
        parts << tr("role %1").arg(role());
    if (!source().isEmpty())
        parts << tr("source %1").arg(source());
    if (!m_kinds.isEmpty()) {
        QStringList kinds(m_kinds.cbegin(), m_kinds.cend());
        kinds.sort();
        parts << tr("kinds %1").arg(kinds.join(QStringLiteral(", ")));
    }
    if (!text().trimmed().isEmpty())
        parts << tr("text \"%1\"").arg(text().trimmed());
    return tr("Event log as shown: %1").arg(parts.join(QStringLiteral("; ")));
}

namespace {

QByteArray csvField(const QString &value)
{
    QByteArray field = value.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n')
        || field.contains('\r')) {
        field.replace("\"", "\"\"");
        field.prepend('"');
        field.append('"');
    }
    return field;
}

} // namespace

bool exportCsv(QIODevice *device, const QAbstractItemModel *model, QString *error)
{
    const auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (!device || !model)
        return fail(QObject::tr("nothing to export to"));
    if (!device->isWritable())
        return fail(QObject::tr("the file is not open for writing"));
    const int columns = model->columnCount();
    QByteArray out;
    const auto writeRow = [&](const auto &valueAt) {
        for (int column = 0; column < columns; ++column) {
            if (column > 0)
                out.append(',');
            out.append(csvField(valueAt(column)));
        }
        out.append("\r\n");
    };
    const QString note = model->headerData(0, Qt::Horizontal, ExportNoteRole).toString();
    if (!note.isEmpty())
        out.append(csvField(QStringLiteral("# ") + note)).append("\r\n");
    writeRow([&](int column) {
        return model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    });
    for (int row = 0; row < model->rowCount(); ++row)
        writeRow([&](int column) {
            const QModelIndex cell = model->index(row, column);
            const QVariant exported = cell.data(ExportRole);
            return exported.isValid() ? exported.toString() : cell.data(Qt::DisplayRole).toString();
        });
    if (device->write(out) != out.size())
        return fail(QObject::tr("cannot write the file: %1").arg(device->errorString()));
    return true;
}

} // namespace leader::console
