#include "fleetmodel.h"

#include "core/timerule.h"
#include "models/plaintext.h"
#include "models/tones.h"

#include <QColor>
#include <QGuiApplication>

#include <algorithm>

namespace leader::console {

namespace {

const QList<int> HealthLookRoles{Qt::DisplayRole, Qt::ToolTipRole, Qt::BackgroundRole,
                                 FleetModel::HealthRole};

Tone healthTone(Health health)
{
    switch (health) {
    case Health::Ok:
    case Health::Starting: // worstHealth() counts it as ok
        return Tone::Good;
    case Health::Paused:
    case Health::Warn:
        return Tone::Warning;
    case Health::Alert:
        return Tone::Alert;
    case Health::Stale:
        break;
    }
    return Tone::Neutral;
}

} // namespace

FleetModel::FleetModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

FleetModel::~FleetModel() = default;

int FleetModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FleetModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

FleetModel::Level FleetModel::health(int row) const
{
    const Row &entry = m_rows.at(row);
    // No rows yet, or rows no longer live: nothing is known for sure.
    if (!entry.haveSnapshot)
        return Level::Stale;
    return worstHealth(entry.snapshot.roles, m_thresholds, entry.stale, entry.origins);
}

QStringList FleetModel::pausedRoles(const Row &row)
{
    QStringList roles;
    for (const RoleStatus &status : row.snapshot.roles) {
        if (status.state == RoleState::Paused)
            roles << status.role;
    }
    return roles;
}

QString FleetModel::healthText(const Row &row) const
{
    const int index = int(&row - m_rows.constData());
    const Level worst = health(index);
    if (worst != Level::Warn && worst != Level::Alert)
        return healthName(worst);
    QStringList roles;
    for (const RoleStatus &status : row.snapshot.roles) {
        if (healthOf(status, m_thresholds, row.stale, row.origins) == worst)
            roles << status.role;
    }
    return tr("%1: %2").arg(healthName(worst), roles.join(QStringLiteral(", ")));
}

QString FleetModel::healthToolTip(const Row &row) const
{
    if (!row.haveSnapshot)
        return tr("No rows read from this database yet: %1")
                .arg(row.message.isEmpty() ? connectionStateDisplayName(row.state) : row.message);
    if (row.stale)
        return tr("Not live: the rows are from %1; %2")
                .arg(TimeRule::full(row.snapshot.receivedAt, TimeZoneMode::Local),
                     row.message.isEmpty() ? connectionStateDisplayName(row.state) : row.message);
    QStringList lines;
    for (const RoleStatus &status : row.snapshot.roles) {
        const AgeThreshold threshold = m_thresholds.threshold(status.role);
        const QString age = status.lastTickAgeSeconds
                                    ? tr("%1 s").arg(*status.lastTickAgeSeconds, 0, 'f', 0)
                                    : tr("no tick yet");
        lines << tr("%1: %2 (last tick %3; warns at %4 s, alerts at %5 s)")
                         .arg(status.role,
                              healthName(healthOf(status, m_thresholds, false, row.origins)), age)
                         .arg(threshold.warnSeconds, 0, 'f', 0)
                         .arg(threshold.alertSeconds, 0, 'f', 0);
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant FleetModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const Row &row = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Database:
            return row.title;
        case Environment:
            return row.target.environment;
        case Connection:
            return connectionStateDisplayName(row.state);
        case Health:
            return healthText(row);
        case Paused:
            return pausedRoles(row).join(QStringLiteral(", "));
        case LastTakeover:
            if (!row.lastTakeover)
                return QString();
            return tr("%1: %2 → %3 in %4 s at %5")
                    .arg(row.lastTakeover->role, row.lastTakeover->victim,
                         row.lastTakeover->successor)
                    .arg(row.lastTakeover->gapSeconds, 0, 'f', 2)
                    .arg(TimeRule::clock(row.lastTakeover->acquiredAt, TimeZoneMode::Local));
        }
        break;
    case PlainToolTipRole:
        if (column == Database)
            return row.target.describe();
        if (column == Connection)
            return row.message;
        if (column == Health)
            return healthToolTip(row);
        break;
    case Qt::DecorationRole:
        if (column == Database && !row.target.bandColour().isEmpty())
            return QColor(row.target.bandColour());
        break;
    case Qt::BackgroundRole:
        if (column == Health)
            return toneFill(healthTone(health(index.row())), QGuiApplication::palette());
        break;
    case HealthRole:
        if (column == Health)
            return int(health(index.row()));
        break;
    default:
        break;
    }
    return {};
}

QVariant FleetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Database:
        return tr("Database");
    case Environment:
        return tr("Environment");
    case Connection:
        return tr("Connection");
    case Health:
        return tr("Health");
    case Paused:
        return tr("Paused");
    case LastTakeover:
        return tr("Last takeover");
    default:
        return {};
    }
}

int FleetModel::addDatabase(const QString &title, const ConnectionProfile &target)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append({title, target});
    endInsertRows();
    return row;
}

void FleetModel::removeDatabase(int row)
{
    if (row < 0 || row >= m_rows.size())
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
}

void FleetModel::changed(int row, int first, int last, const QList<int> &roles)
{
    Q_EMIT dataChanged(index(row, first), index(row, last), roles);
}

void FleetModel::setTitle(int row, const QString &title, const ConnectionProfile &target)
{
    Row &entry = m_rows[row];
    if (entry.title == title && entry.target == target)
        return;
    entry.title = title;
    entry.target = target;
    changed(row, Database, Environment, {Qt::DisplayRole, Qt::ToolTipRole, Qt::DecorationRole});
}

void FleetModel::setConnection(int row, ConnectionState state, const QString &message)
{
    Row &entry = m_rows[row];
    if (entry.state == state && entry.message == message)
        return;
    entry.state = state;
    entry.message = message;
    changed(row, Connection, Connection, {Qt::DisplayRole, Qt::ToolTipRole});
    if (!entry.haveSnapshot || entry.stale)
        changed(row, Health, Health, {Qt::ToolTipRole});
}

void FleetModel::setSnapshot(int row, const StatusSnapshot &snapshot)
{
    Row &entry = m_rows[row];
    const QString healthBefore = healthText(entry);
    const QString pausedBefore = pausedRoles(entry).join(QLatin1Char(','));
    entry.snapshot = snapshot;
    entry.origins.observe(snapshot);
    entry.haveSnapshot = true;
    if (healthText(entry) != healthBefore)
        changed(row, Health, Health, HealthLookRoles);
    else
        changed(row, Health, Health, {Qt::ToolTipRole}); // the ages in it moved
    if (pausedRoles(entry).join(QLatin1Char(',')) != pausedBefore)
        changed(row, Paused, Paused, {Qt::DisplayRole});
}

void FleetModel::setStale(int row, bool stale)
{
    Row &entry = m_rows[row];
    if (entry.stale == stale)
        return;
    entry.stale = stale;
    changed(row, Health, Health, HealthLookRoles);
}

void FleetModel::addTakeover(int row, const Failover &takeover)
{
    m_rows[row].lastTakeover = takeover;
    changed(row, LastTakeover, LastTakeover, {Qt::DisplayRole});
}

void FleetModel::setThresholds(const AgeThresholds &thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, Health), index(int(m_rows.size()) - 1, Health),
                           HealthLookRoles);
}

} // namespace leader::console
