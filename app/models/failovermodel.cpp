#include "failovermodel.h"

#include "models/plaintext.h"
#include "models/tones.h"

#include <QGuiApplication>
#include <QPalette>

namespace leader::console {

FailoverModel::FailoverModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

int FailoverModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FailoverModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString FailoverModel::clockText(const QDateTime &time) const
{
    return TimeRule::clock(time, zone(), true);
}

QString FailoverModel::fullText(const QDateTime &time) const
{
    return time.isValid() ? TimeRule::full(time, zone()) : QStringLiteral("—");
}

void FailoverModel::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void FailoverModel::timeRuleChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, LastHeartbeat, Acquired);
    if (m_rows.isEmpty())
        return;
    const int last = rowCount() - 1;
    // Both time columns; the fault time the tooltips of Role and Fault name, the gap's ends Gap's.
    Q_EMIT dataChanged(index(0, LastHeartbeat), index(last, Acquired),
                       {Qt::DisplayRole, Qt::ToolTipRole});
    Q_EMIT dataChanged(index(0, Role), index(last, Fault), {Qt::ToolTipRole});
    Q_EMIT dataChanged(index(0, Gap), index(last, Gap), {Qt::ToolTipRole});
}

std::optional<double> FailoverModel::afterFault(const Failover &row)
{
    if (!row.faultAt.isValid() || !row.acquiredAt.isValid())
        return std::nullopt;
    return std::max<qint64>(0, row.faultAt.msecsTo(row.acquiredAt)) / 1000.0;
}

QString FailoverModel::formatGap(double seconds)
{
    return QString::number(seconds, 'f', 2) + QStringLiteral(" s");
}

QString FailoverModel::boundText(const Failover &failover)
{
    return failover.withinBound() ? tr("≤ %1 s ✓").arg(RunningElsewhereBoundSeconds) : tr("missed");
}

QString FailoverModel::gapToolTip(const Failover &row) const
{
    // After a clean stop the gap runs from the release, not from a last heartbeat.
    const bool released = !row.lastHeartbeatAt.isValid() && row.releasedAt.isValid();
    const QString from = released
                                 ? tr("released %1").arg(clockText(row.releasedAt))
                                 : tr("last heartbeat %1 (its last expires_at minus the lease TTL)")
                                           .arg(clockText(row.lastHeartbeatAt));
    return tr("%1 to acquired_at %2 of token %3: %4 (database clock, %5)")
            .arg(from, clockText(row.acquiredAt))
            .arg(row.successorToken)
            .arg(formatGap(row.gapSeconds), TimeRule::zoneName(zone()));
}

QVariant FailoverModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const Failover &row = m_rows.at(index.row());
    // After a clean stop the gap runs from the release, not from a last heartbeat.
    const bool released = !row.lastHeartbeatAt.isValid() && row.releasedAt.isValid();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Role:
            return row.role;
        case Fault:
            return row.fault;
        case Victim:
            return row.victim;
        case Successor:
            return row.successor;
        case Gap:
            return formatGap(row.gapSeconds);
        case Bound:
            return boundText(row);
        case AfterFault:
            return afterFault(row) ? formatGap(*afterFault(row)) : QString();
        case LastHeartbeat:
            return released ? tr("released %1").arg(clockText(row.releasedAt))
                            : clockText(row.lastHeartbeatAt);
        case Acquired:
            return clockText(row.acquiredAt);
        }
        break;
    case RawRole:
        switch (index.column()) {
        case Role:
        case Fault:
        case Victim:
        case Successor:
            return data(index, Qt::DisplayRole); // the text columns sort and export as shown
        case Gap:
            return row.gapSeconds;
        case Bound:
            return row.withinBound();
        case AfterFault:
            return afterFault(row) ? QVariant(*afterFault(row)) : QVariant();
        case LastHeartbeat:
            return released ? row.releasedAt : row.lastHeartbeatAt;
        case Acquired:
            return row.acquiredAt;
        }
        break;
    case PlainToolTipRole:
        switch (index.column()) {
        case Victim:
            return tr("%1, holder %2, token %3")
                    .arg(row.victim, row.victimHolder)
                    .arg(row.victimToken);
        case Successor:
            return tr("%1, holder %2, token %3")
                    .arg(row.successor, row.successorHolder)
                    .arg(row.successorToken);
        case Gap:
            return gapToolTip(row);
        case AfterFault:
            return afterFault(row) ? tr("From the fault, %1, to the successor's acquired_at "
                                        "(database clock)")
                                             .arg(fullText(row.faultAt))
                                   : QString();
        case LastHeartbeat:
            return released ? tr("Released at %1 (database clock)").arg(fullText(row.releasedAt))
                            : tr("The victim's last expires_at minus the lease TTL: %1 "
                                 "(database clock)")
                                      .arg(fullText(row.lastHeartbeatAt));
        case Acquired:
            return tr("acquired_at of token %1: %2 (database clock)")
                    .arg(row.successorToken)
                    .arg(fullText(row.acquiredAt));
        case Bound: {
            const QString verdict = row.withinBound()
                                            ? (row.gapSeconds <= AcquirableBoundSeconds
                                                       ? tr("met, within both")
                                                       : tr("met, though past the %1 s "
                                                            "acquirable bound")
                                                                 .arg(AcquirableBoundSeconds))
                                            : tr("missed");
            return tr("ADR-114: acquirable ≤ %1 s after the last heartbeat, running elsewhere "
                      "≤ %2 s. This takeover's gap, %3: %4")
                    .arg(AcquirableBoundSeconds)
                    .arg(RunningElsewhereBoundSeconds)
                    .arg(formatGap(row.gapSeconds), verdict);
        }
        default:
            return tr("Fault at %1 (database clock); token %2 (%3) to token %4 (%5)")
                    .arg(fullText(row.faultAt))
                    .arg(row.victimToken)
                    .arg(row.victimHolder)
                    .arg(row.successorToken)
                    .arg(row.successorHolder);
        }
    case Qt::TextAlignmentRole:
        if (index.column() == Gap)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ForegroundRole:
        // On the alert fill the palette's own text is the legible one (as in the status table).
        if (index.column() == Bound) {
            return row.withinBound() ? toneText(Tone::Good, QGuiApplication::palette())
                                     : QGuiApplication::palette().color(QPalette::Text);
        }
        break;
    case Qt::BackgroundRole:
        if (index.column() == Bound && !row.withinBound())
            return toneFill(Tone::Alert, QGuiApplication::palette());
        break;
    default:
        break;
    }
    return {};
}

QVariant FailoverModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        if (section == Gap)
            return tr("From the victim's last heartbeat (or its release) to the successor's "
                      "acquired_at, on the database clock");
        if (section == Bound)
            return tr("ADR-114: running elsewhere ≤ %1 s after the last heartbeat")
                    .arg(RunningElsewhereBoundSeconds);
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Role:
        return tr("Role");
    case Fault:
        return tr("Fault");
    case Victim:
        return tr("Victim");
    case Successor:
        return tr("Successor");
    case Gap:
        return tr("Gap");
    case Bound:
        return tr("Bound");
    case AfterFault:
        return tr("After fault");
    case LastHeartbeat:
        return TimeRule::header(tr("Last heartbeat"), zone());
    case Acquired:
        return TimeRule::header(tr("Acquired"), zone());
    default:
        return {};
    }
}

void FailoverModel::append(const Failover &failover)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(failover);
    endInsertRows();
}

void FailoverModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    endRemoveRows();
}

} // namespace leader::console
