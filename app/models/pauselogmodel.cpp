#include "pauselogmodel.h"

#include "models/eventlogmodel.h"
#include "models/plaintext.h"

namespace leader::console {

namespace {

bool endsAPause(const PauseLogEntry &row)
{
    return row.action != PauseAction::Pause;
}

} // namespace

PauseLogModel::PauseLogModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

int PauseLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PauseLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

// With the date: the log spans days, unlike the live tables' clocks.
QString PauseLogModel::cellTime(const QDateTime &time) const
{
    if (!time.isValid())
        return {};
    return TimeRule::inZone(time, zone()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QVariant PauseLogModel::display(const PauseLogEntry &row, int column) const
{
    switch (column) {
    case Time:
        return cellTime(row.at);
    case Role:
        return row.role;
    case Action:
        return pauseActionName(row.action);
    case Login:
        return row.login;
    case By:
        return row.by;
    case Reason:
        return row.reason;
    case Until:
        if (endsAPause(row))
            return QString();
        return row.until.isValid() ? cellTime(row.until) : tr("until unpaused");
    case EndedPause:
        if (!endsAPause(row))
            return QString();
        // Only a pause made before migration 0177 has no row to point at.
        return row.endedPause.isValid() ? cellTime(row.endedPause) : tr("before the log");
    default:
        return {};
    }
}

QVariant PauseLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const PauseLogEntry &row = m_rows.at(index.row());
    const auto timeOf = [&row](int column) -> const QDateTime * {
        switch (column) {
        case Time:
            return &row.at;
        case Until:
            return &row.until;
        case EndedPause:
            return &row.endedPause;
        default:
            return nullptr;
        }
    };
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case ExportRole:
        if (const QDateTime *time = timeOf(index.column()))
            return TimeRule::iso8601(*time, zone());
        break;
    case RawRole:
        if (const QDateTime *time = timeOf(index.column()))
            return *time;
        return display(row, index.column());
    case PlainToolTipRole:
        if (const QDateTime *time = timeOf(index.column()); time && time->isValid())
            return tr("%1 (database clock)").arg(TimeRule::full(*time, zone()));
        if (index.column() == Reason && !row.reason.isEmpty())
            return row.reason;
        if (index.column() == Login)
            return tr("The database login that made the change (session_user)");
        break;
    default:
        break;
    }
    return {};
}

QVariant PauseLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return TimeRule::header(tr("Time"), zone());
    case Role:
        return tr("Role");
    case Action:
        return tr("Action");
    case Login:
        return tr("Login");
    case By:
        return tr("By");
    case Reason:
        return tr("Reason");
    case Until:
        return TimeRule::header(tr("Until"), zone());
    case EndedPause:
        return TimeRule::header(tr("Ended pause"), zone());
    default:
        return {};
    }
}

void PauseLogModel::setEntries(const QList<PauseLogEntry> &entries)
{
    beginResetModel();
    m_rows = entries;
    endResetModel();
}

void PauseLogModel::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void PauseLogModel::timeRuleChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, Time, Time);
    Q_EMIT headerDataChanged(Qt::Horizontal, Until, EndedPause);
    if (m_rows.isEmpty())
        return;
    const int last = rowCount() - 1;
    const QList<int> roles{Qt::DisplayRole, Qt::ToolTipRole, ExportRole};
    Q_EMIT dataChanged(index(0, Time), index(last, Time), roles);
    Q_EMIT dataChanged(index(0, Until), index(last, EndedPause), roles);
}

} // namespace leader::console
