#include "registrymodel.h"

#include "models/plaintext.h"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <tuple>
#include <utility>

namespace leader::console {

RegistryModel::RegistryModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

RegistryModel::~RegistryModel() = default;

int RegistryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RegistryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RegistryModel::standingName(Standing standing)
{
    switch (standing) {
    case Standing::Holding:
        return tr("holding");
    case Standing::Eligible:
        return tr("eligible");
    case Standing::Gone:
        return tr("gone");
    }
    return {};
}

QString RegistryModel::stateText(const Row &row)
{
    // A drained replica is alive but takes nothing over: "eligible" beside "drained" misleads.
    QString text = standingName(row.standing);
    if (row.standing == Standing::Eligible && row.drain)
        text = row.drain == DrainState::Drained ? tr("drained") : tr("draining");
    // A gone replica's leases are past taking early or not: only a living one's note matters.
    if (row.earlyTakeOffUntil.isValid() && row.standing != Standing::Gone)
        text = tr("%1 · early take off").arg(text);
    return text;
}

QString RegistryModel::formatUptime(double seconds)
{
    const qint64 whole = seconds > 0 ? qint64(seconds) : 0;
    if (whole < 60)
        return tr("%1 s").arg(whole);
    const qint64 minutes = whole / 60;
    if (minutes < 60)
        return tr("%1 min").arg(minutes);
    const qint64 hours = minutes / 60;
    if (hours < 24)
        return tr("%1 h %2 min").arg(hours).arg(minutes % 60);
    return tr("%1 d %2 h").arg(hours / 24).arg(hours % 24);
}

QString RegistryModel::upText(const Row &row)
{
    // A gone replica is not up: how long it ran is in the tooltip's start and its last beat.
    return row.standing == Standing::Gone ? QString() : formatUptime(row.upSeconds);
}

QVariant RegistryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Role:
            return row.role;
        case Replica:
            return row.name;
        case State:
            return stateText(row);
        case Holder:
            return row.holderId;
        case Host:
            return row.host;
        case Pid:
            return row.pid;
        case Version:
            return row.version;
        case Up:
            return upText(row);
        case LastSeen:
            return tr("%1 s ago").arg(qRound(row.lastSeenAgeSeconds));
        case Drain:
            return row.drain ? drainStateName(*row.drain) : QString();
        case DrainedBy:
            return row.drainedBy;
        }
        break;
    case StandingRole:
        if (index.column() == State)
            return int(row.standing);
        break;
    case Qt::ForegroundRole:
        // Greyed as the palette greys what is not there; the State column says "gone" in words.
        if (row.standing == Standing::Gone)
            return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Pid || index.column() == Up || index.column() == LastSeen)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case PlainToolTipRole:
        if (index.column() == State && row.earlyTakeOffUntil.isValid()
            && row.standing != Standing::Gone)
            return tr("Early take off until %1 UTC (database clock): %2. It names no marker "
                      "meanwhile, so its leases end at their expiry only: at its death a role it "
                      "holds is taken after the lease expires, not at once.")
                    .arg(row.earlyTakeOffUntil.toUTC().toString(
                                 QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                         row.earlyTakeOffReason);
        if (index.column() == State) {
            switch (row.standing) {
            case Standing::Holding:
                return tr("Holds %1's lease in the latest leader_status rows").arg(row.role);
            case Standing::Eligible:
                if (row.drain == DrainState::Drained)
                    return tr("Alive and runs %1, but drained: it takes no tick until undrained")
                            .arg(row.role);
                if (row.drain)
                    return tr("Alive and runs %1, but draining: it starts no new tick until "
                              "undrained")
                            .arg(row.role);
                return tr("Alive and runs %1: it can take over when the holder goes away")
                        .arg(row.role);
            case Standing::Gone:
                return row.markerEnded
                               ? tr("The database ended its marker session: its process died. "
                                    "It cannot take over")
                               : tr("Not seen for 35 s (database clock): killed, frozen or cut "
                                    "off, without a clean stop");
            }
        }
        if (index.column() == Replica)
            return row.name.isEmpty() ? tr("No name recorded (a replica or registry older than "
                                           "leader_ext 0182): holder %1")
                                                .arg(row.holderId)
                                      : tr("Holder %1").arg(row.holderId);
        if (index.column() == Up && row.startedAt.isValid())
            return tr("Started %1 UTC (database clock); a short time up on every read is a "
                      "replica restarting")
                    .arg(row.startedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
        if (index.column() == LastSeen)
            return tr("Seconds since its last beat on the database clock; replicas beat every "
                      "15 s");
        if (index.column() == Drain && row.drain)
            return row.drain == DrainState::Drained
                           ? tr("Drained: it starts no tick of any role and runs none")
                           : tr("Draining: it starts no new tick; its running ticks end as they "
                                "would");
        if (index.column() == DrainedBy && !row.drainedBy.isEmpty())
            return tr("Why: %1").arg(row.drainReason);
        break;
    default:
        break;
    }
    return {};
}

QVariant RegistryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Role:
        return tr("Role");
    case Replica:
        return tr("Replica");
    case State:
        return tr("State");
    case Holder:
        return tr("Holder id");
    case Host:
        return tr("Host");
    case Pid:
        return tr("PID");
    case Version:
        return tr("Version");
    case Up:
        return tr("Up");
    case LastSeen:
        return tr("Last seen");
    case Drain:
        return tr("Drain");
    case DrainedBy:
        return tr("Drained by");
    default:
        return {};
    }
}

QString RegistryModel::replicaAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).name : QString();
}

bool RegistryModel::isDrainedAt(int row) const
{
    return row >= 0 && row < m_rows.size() && !m_rows.at(row).drainedBy.isEmpty();
}

void RegistryModel::setReplicas(const QList<RegistryEntry> &replicas)
{
    m_replicas = replicas;
    rebuild();
}

void RegistryModel::setStatus(const StatusSnapshot &snapshot)
{
    QHash<QString, QString> holders;
    for (const RoleStatus &status : snapshot.roles) {
        if (!status.holderId.isEmpty())
            holders.insert(status.role, status.holderId);
    }
    if (holders == m_holders)
        return; // the common poll: nobody took a role over
    m_holders = holders;
    rebuild();
}

void RegistryModel::clear()
{
    beginResetModel();
    m_replicas.clear();
    m_holders.clear();
    m_rows.clear();
    endResetModel();
    if (m_counts != Counts{}) {
        m_counts = {};
        Q_EMIT countsChanged();
    }
}

void RegistryModel::rebuild()
{
    QList<Row> next;
    Counts counts;
    for (const RegistryEntry &replica : std::as_const(m_replicas)) {
        bool living = replica.alive;
        for (const QString &role : replica.roles) {
            // A lease is proof of life on its own: a holder the view calls gone (its beats cut
            // off, its ticks not) still holds the role. Not when its marker session ended: its
            // process died, and its lease only waits to be taken.
            const Standing standing
                    = m_holders.value(role) == replica.holderId && !replica.markerEnded
                              ? Standing::Holding
                              : (replica.alive ? Standing::Eligible : Standing::Gone);
            living = living || standing != Standing::Gone;
            const double up = replica.startedAt.isValid() && replica.lastSeen.isValid()
                                      ? replica.startedAt.msecsTo(replica.lastSeen) / 1000.0
                                                + replica.lastSeenAgeSeconds
                                      : 0;
            next.append({role, replica.name, replica.holderId, replica.host, replica.pid,
                         replica.version, standing, replica.markerEnded, replica.lastSeenAgeSeconds,
                         replica.startedAt, up, replica.drain, replica.drainedBy,
                         replica.drainReason, replica.earlyTakeOffUntil,
                         replica.earlyTakeOffReason});
        }
        ++(living ? counts.alive : counts.gone);
    }
    // The living first: who can take over is what an operator looks for.
    std::ranges::sort(next, [](const Row &a, const Row &b) {
        const bool aGone = a.standing == Standing::Gone;
        const bool bGone = b.standing == Standing::Gone;
        return std::tie(aGone, a.role, a.standing, a.host, a.holderId)
               < std::tie(bGone, b.role, b.standing, b.host, b.holderId);
    });

    const auto sameKey = [](const Row &a, const Row &b) {
        return a.role == b.role && a.holderId == b.holderId;
    };
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (std::ranges::any_of(next,
                                [&](const Row &wanted) { return sameKey(wanted, m_rows.at(row)); }))
            continue;
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        endRemoveRows();
    }
    for (int row = 0; row < next.size(); ++row) {
        int at = -1;
        for (int i = row; i < m_rows.size() && at < 0; ++i) {
            if (sameKey(m_rows.at(i), next.at(row)))
                at = i;
        }
        if (at < 0) {
            beginInsertRows({}, row, row);
            m_rows.insert(row, next.at(row));
            endInsertRows();
            continue;
        }
        if (at != row) {
            beginMoveRows({}, at, at, {}, row);
            m_rows.move(at, row);
            endMoveRows();
        }
        updateRow(row, next.at(row));
    }
    if (counts != m_counts) {
        m_counts = counts;
        Q_EMIT countsChanged();
    }
}

void RegistryModel::updateRow(int row, const Row &next)
{
    Row &current = m_rows[row];
    const bool greyed = (current.standing == Standing::Gone) != (next.standing == Standing::Gone);
    QList<std::pair<int, QList<int>>> cells; // column, roles
    if (current.standing != next.standing || current.markerEnded != next.markerEnded)
        cells.emplace_back(State, QList<int>{Qt::DisplayRole, Qt::ToolTipRole, StandingRole});
    else if (stateText(current) != stateText(next))
        cells.emplace_back(State, QList<int>{Qt::DisplayRole, Qt::ToolTipRole});
    else if (current.earlyTakeOffUntil != next.earlyTakeOffUntil
             || current.earlyTakeOffReason != next.earlyTakeOffReason)
        cells.emplace_back(State, QList<int>{Qt::ToolTipRole});
    if (current.name != next.name)
        cells.emplace_back(Replica, QList<int>{Qt::DisplayRole, Qt::ToolTipRole});
    if (current.host != next.host)
        cells.emplace_back(Host, QList<int>{Qt::DisplayRole});
    if (current.pid != next.pid)
        cells.emplace_back(Pid, QList<int>{Qt::DisplayRole});
    if (current.version != next.version)
        cells.emplace_back(Version, QList<int>{Qt::DisplayRole});
    if (upText(current) != upText(next) || current.startedAt != next.startedAt)
        cells.emplace_back(Up, QList<int>{Qt::DisplayRole, Qt::ToolTipRole});
    // As shown: whole seconds.
    if (qRound(current.lastSeenAgeSeconds) != qRound(next.lastSeenAgeSeconds))
        cells.emplace_back(LastSeen, QList<int>{Qt::DisplayRole});
    if (current.drain != next.drain)
        cells.emplace_back(Drain, QList<int>{Qt::DisplayRole, Qt::ToolTipRole});
    if (current.drainedBy != next.drainedBy || current.drainReason != next.drainReason)
        cells.emplace_back(DrainedBy, QList<int>{Qt::DisplayRole, Qt::ToolTipRole});
    current = next;
    if (greyed)
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1), {Qt::ForegroundRole});
    for (const auto &[column, roles] : std::as_const(cells))
        Q_EMIT dataChanged(index(row, column), index(row, column), roles);
}

} // namespace leader::console
