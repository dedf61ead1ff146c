#include "statusmodel.h"

#include "models/tones.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <cmath>

namespace leader::console {

namespace {

QVariant epochMs(const QDateTime &time)
{
    return time.isValid() ? QVariant(time.toMSecsSinceEpoch()) : QVariant();
}

QVariant optionalSeconds(const std::optional<double> &seconds)
{
    return seconds ? QVariant(*seconds) : QVariant();
}

bool isPaused(const RoleStatus &status)
{
    return status.state == RoleState::Paused;
}

QPalette currentPalette()
{
    return QGuiApplication::palette();
}

const QList<int> TextRoles{Qt::DisplayRole, Qt::ToolTipRole, StatusModel::RawRole};
const QList<int> StateLookRoles{Qt::DecorationRole, Qt::ForegroundRole, Qt::BackgroundRole,
                                Qt::FontRole};
const QList<int> AgeLookRoles{Qt::ForegroundRole, Qt::BackgroundRole, StatusModel::AgeLevelRole};

} // namespace

StatusModel::StatusModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

StatusModel::~StatusModel() = default;

int StatusModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_snapshot.roles.size());
}

int StatusModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StatusModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (m_stale && role == Qt::ForegroundRole)
        return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    if (m_stale && (role == Qt::BackgroundRole || role == Qt::DecorationRole))
        return {};
    const RoleStatus &status = m_snapshot.roles.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(status, column);
    case Qt::ToolTipRole:
        return toolTip(status, column);
    case RawRole:
        return raw(status, column);
    case Qt::TextAlignmentRole:
        if (column == Token || column == ExpiresIn || column == LastTickAge || column == NotBefore)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DecorationRole:
        if (column == State)
            return toneText(stateTone(status.state), currentPalette());
        return {};
    case Qt::FontRole:
        // A paused role ages on purpose: its state is what the operator must see first.
        if (column == State && isPaused(status)) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case AgeLevelRole:
        if (column == LastTickAge)
            return int(m_thresholds.level(status.role, status.lastTickAgeSeconds));
        return {};
    case Qt::ForegroundRole:
        // On a tone's fill the palette's own text is the legible one.
        if (column == State && isPaused(status))
            return currentPalette().color(QPalette::Text);
        if (column == LastTickAge) {
            switch (m_thresholds.level(status.role, status.lastTickAgeSeconds)) {
            case AgeLevel::Warning:
            case AgeLevel::Alert:
                return currentPalette().color(QPalette::Text);
            case AgeLevel::Unknown:
                return toneText(Tone::Neutral, currentPalette());
            case AgeLevel::Ok:
                break;
            }
        }
        return {};
    case Qt::BackgroundRole:
        if (column == State && isPaused(status))
            return toneFill(Tone::Warning, currentPalette());
        if (column == LastTickAge) {
            // Still coloured when paused: how long work has been held back is worth seeing.
            switch (m_thresholds.level(status.role, status.lastTickAgeSeconds)) {
            case AgeLevel::Warning:
                return toneFill(Tone::Warning, currentPalette());
            case AgeLevel::Alert:
                return toneFill(Tone::Alert, currentPalette());
            case AgeLevel::Ok:
            case AgeLevel::Unknown:
                break;
            }
        }
        return {};
    default:
        return {};
    }
}

QVariant StatusModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (Column(section)) {
        case Role:
            return tr("Role");
        case State:
            return tr("State");
        case Holder:
            return tr("Holder");
        case Token:
            return tr("Token");
        case Acquired:
            return TimeRule::header(tr("Acquired"), zone());
        case ExpiresIn:
            return tr("Expires");
        case LastTickAge:
            return tr("Last tick");
        case PausedBy:
            return tr("Paused by");
        case PausedAt:
            return TimeRule::header(tr("Paused at"), zone());
        case PauseReason:
            return tr("Reason");
        case NotBefore:
            return tr("Not before");
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case Holder:
            return tr("The replica leading this tick (hostname:pid:id)");
        case Token:
            return tr("The fencing token: one more per acquisition");
        case ExpiresIn:
            return tr("When the lease runs out unless renewed, on the database clock");
        case LastTickAge:
            return tr("Time since the last completed tick, on the database clock");
        case NotBefore:
            return tr("Cooldown after a lost or failed tick: no acquisition before then");
        default:
            break;
        }
    }
    return {};
}

void StatusModel::setSnapshot(const StatusSnapshot &snapshot)
{
    bool sameRows = snapshot.roles.size() == m_snapshot.roles.size();
    for (qsizetype row = 0; sameRows && row < snapshot.roles.size(); ++row)
        sameRows = snapshot.roles.at(row).role == m_snapshot.roles.at(row).role;
    if (!sameRows) {
        beginResetModel();
        m_snapshot = snapshot;
        endResetModel();
        return;
    }

    const StatusSnapshot before = std::exchange(m_snapshot, snapshot);
    for (int row = 0; row < int(m_snapshot.roles.size()); ++row) {
        const RoleStatus &was = before.roles.at(row);
        const RoleStatus &now = m_snapshot.roles.at(row);
        int first = -1;
        int last = -1;
        QList<int> roles;
        for (int column = 0; column < ColumnCount; ++column) {
            if (!cellDiffers(was, now, column))
                continue;
            if (first < 0)
                first = column;
            last = column;
            if (roles.isEmpty())
                roles = TextRoles;
            if (column == State)
                roles += StateLookRoles;
            if (column == LastTickAge
                && m_thresholds.level(was.role, was.lastTickAgeSeconds)
                           != m_thresholds.level(now.role, now.lastTickAgeSeconds)) {
                roles += AgeLookRoles;
            }
        }
        if (first < 0)
            continue;
        std::sort(roles.begin(), roles.end());
        roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
        emit dataChanged(index(row, first), index(row, last), roles);
    }
}

void StatusModel::clear()
{
    beginResetModel();
    m_snapshot = {};
    endResetModel();
}

void StatusModel::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                         {Qt::ForegroundRole, Qt::BackgroundRole, Qt::DecorationRole});
}

void StatusModel::setThresholds(const AgeThresholds &thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    if (!m_snapshot.roles.isEmpty()) {
        emit dataChanged(index(0, LastTickAge), index(rowCount() - 1, LastTickAge),
                         AgeLookRoles + QList<int>{Qt::ToolTipRole});
    }
}

void StatusModel::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void StatusModel::timeRuleChanged()
{
    emit headerDataChanged(Qt::Horizontal, Acquired, Acquired);
    emit headerDataChanged(Qt::Horizontal, PausedAt, PausedAt);
    if (m_snapshot.roles.isEmpty())
        return;
    const int last = rowCount() - 1;
    const QList<int> text{Qt::DisplayRole, Qt::ToolTipRole};
    const QList<int> tip{Qt::ToolTipRole};
    // The cells that show a time, and the tooltips that name one.
    emit dataChanged(index(0, State), index(last, State), tip);
    emit dataChanged(index(0, Acquired), index(last, Acquired), text);
    emit dataChanged(index(0, LastTickAge), index(last, LastTickAge), tip);
    emit dataChanged(index(0, PausedAt), index(last, PausedAt), text);
    emit dataChanged(index(0, NotBefore), index(last, NotBefore), tip);
}

QString StatusModel::fullTime(const QDateTime &time) const
{
    return TimeRule::full(time, zone());
}

QString StatusModel::roleAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    return m_snapshot.roles.at(row).role;
}

int StatusModel::rowOf(const QString &role) const
{
    for (int row = 0; row < rowCount(); ++row) {
        if (m_snapshot.roles.at(row).role == role)
            return row;
    }
    return -1;
}

std::optional<RoleStatus> StatusModel::statusFor(const QString &role) const
{
    const int row = rowOf(role);
    if (row < 0)
        return std::nullopt;
    return m_snapshot.roles.at(row);
}

AgeLevel StatusModel::ageLevel(const QString &role) const
{
    const int row = rowOf(role);
    if (row < 0)
        return AgeLevel::Unknown;
    return m_thresholds.level(role, m_snapshot.roles.at(row).lastTickAgeSeconds);
}

QString StatusModel::formatSeconds(double seconds)
{
    if (!std::isfinite(seconds))
        return {};
    const QString sign = seconds < 0 ? QStringLiteral("-") : QString();
    seconds = std::abs(seconds);
    if (seconds < 59.95)
        return sign + QString::number(seconds, 'f', 1) + QStringLiteral(" s");
    const qint64 whole = qRound64(seconds);
    if (whole < 3600)
        return sign + QStringLiteral("%1 min %2 s").arg(whole / 60).arg(whole % 60);
    return sign + QStringLiteral("%1 h %2 min").arg(whole / 3600).arg(whole % 3600 / 60);
}

QString StatusModel::formatRemaining(double seconds)
{
    // A countdown read every few seconds: whole minutes once there are any, rounded up, so it
    // never says "0 min" while the pause is still in force.
    if (!std::isfinite(seconds))
        return {};
    const qint64 whole = qMax<qint64>(0, qint64(std::ceil(seconds)));
    if (whole < 60)
        return tr("%1 s").arg(whole);
    const qint64 minutes = (whole + 59) / 60;
    if (minutes < 60)
        return tr("%1 min").arg(minutes);
    return minutes % 60 == 0 ? tr("%1 h").arg(minutes / 60)
                             : tr("%1 h %2 min").arg(minutes / 60).arg(minutes % 60);
}

QVariant StatusModel::display(const RoleStatus &status, int column) const
{
    switch (Column(column)) {
    case Role:
        return status.role;
    case State:
        // The countdown is the database's own arithmetic, fresh with each poll.
        if (isPaused(status) && status.pauseRemainingSeconds)
            return tr("%1 · %2 left")
                    .arg(roleStateDisplayName(status.state),
                         formatRemaining(*status.pauseRemainingSeconds));
        return roleStateDisplayName(status.state);
    case Holder:
        return status.holderId;
    case Token:
        return QString::number(status.token);
    case Acquired:
        return TimeRule::clock(status.acquiredAt, zone());
    case ExpiresIn:
        return status.expiresInSeconds
                       ? QStringLiteral("in ") + formatSeconds(*status.expiresInSeconds)
                       : QString();
    case LastTickAge:
        return status.lastTickAgeSeconds ? formatSeconds(*status.lastTickAgeSeconds) : tr("never");
    case PausedBy:
        return status.pausedBy;
    case PausedAt:
        return TimeRule::clock(status.pausedAt, zone());
    case PauseReason:
        return status.pauseReason;
    case NotBefore:
        return status.notBeforeInSeconds
                       ? QStringLiteral("in ") + formatSeconds(*status.notBeforeInSeconds)
                       : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant StatusModel::raw(const RoleStatus &status, int column) const
{
    switch (Column(column)) {
    case Role:
        return status.role;
    case State:
        return roleStateText(status.state);
    case Holder:
        return status.holderId;
    case Token:
        return status.token;
    case Acquired:
        return epochMs(status.acquiredAt);
    case ExpiresIn:
        return optionalSeconds(status.expiresInSeconds);
    case LastTickAge:
        return optionalSeconds(status.lastTickAgeSeconds);
    case PausedBy:
        return status.pausedBy;
    case PausedAt:
        return epochMs(status.pausedAt);
    case PauseReason:
        return status.pauseReason;
    case NotBefore:
        return optionalSeconds(status.notBeforeInSeconds);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant StatusModel::toolTip(const RoleStatus &status, int column) const
{
    switch (Column(column)) {
    case State:
        if (isPaused(status)) {
            const QString pause
                    = tr("paused by %1 at %2: %3")
                              .arg(status.pausedBy, fullTime(status.pausedAt), status.pauseReason);
            return status.pausedUntil.isValid()
                           ? tr("%1; ends by itself at %2").arg(pause, fullTime(status.pausedUntil))
                           : tr("%1; until unpaused").arg(pause);
        }
        if (status.state == RoleState::Cooling)
            return tr("cooling down after a lost or failed tick until %1")
                    .arg(fullTime(status.notBefore));
        return roleStateDisplayName(status.state);
    case Acquired:
        return fullTime(status.acquiredAt);
    case PausedAt:
        return fullTime(status.pausedAt);
    case LastTickAge: {
        const AgeThreshold limits = m_thresholds.threshold(status.role);
        const QString levels = tr("warning at %1, alert at %2")
                                       .arg(formatSeconds(limits.warnSeconds),
                                            formatSeconds(limits.alertSeconds));
        if (!status.lastTickEndedAt.isValid())
            return tr("never completed a tick; %1").arg(levels);
        return tr("last tick ended %1 by %2; %3")
                .arg(fullTime(status.lastTickEndedAt), status.lastTickHolder, levels);
    }
    case NotBefore:
        return fullTime(status.notBefore);
    default:
        return display(status, column);
    }
}

bool StatusModel::cellDiffers(const RoleStatus &before, const RoleStatus &after, int column)
{
    switch (Column(column)) {
    case Role:
        return before.role != after.role;
    case State:
        // The tooltip shows the pause and the cooldown's end.
        return before.state != after.state || before.pausedBy != after.pausedBy
               || before.pausedAt != after.pausedAt || before.pauseReason != after.pauseReason
               || before.notBefore != after.notBefore || before.pausedUntil != after.pausedUntil
               || before.pauseRemainingSeconds != after.pauseRemainingSeconds;
    case Holder:
        return before.holderId != after.holderId;
    case Token:
        return before.token != after.token;
    case Acquired:
        return before.acquiredAt != after.acquiredAt;
    case ExpiresIn:
        return before.expiresInSeconds != after.expiresInSeconds;
    case LastTickAge:
        return before.lastTickAgeSeconds != after.lastTickAgeSeconds
               || before.lastTickEndedAt != after.lastTickEndedAt
               || before.lastTickHolder != after.lastTickHolder;
    case PausedBy:
        return before.pausedBy != after.pausedBy;
    case PausedAt:
        return before.pausedAt != after.pausedAt;
    case PauseReason:
        return before.pauseReason != after.pauseReason;
    case NotBefore:
        return before.notBefore != after.notBefore
               || before.notBeforeInSeconds != after.notBeforeInSeconds;
    case ColumnCount:
        break;
    }
    return false;
}

} // namespace leader::console
