#include "statusmodel.h"

#include "core/demotypes.h"
#include "models/health.h"
#include "models/plaintext.h"
#include "models/tones.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <cmath>

namespace leader::console {

namespace {

// Inside StatusModel, Health names the column.
using HealthLevel = leader::console::Health;

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
const QList<int> HealthLookRoles{Qt::ForegroundRole, Qt::BackgroundRole};

// Thresholds in whole seconds where they are whole ("135 s"), as the thresholds dialog sets them.
QString seconds(double value)
{
    return StatusModel::tr("%1 s").arg(QString::number(value, 'g', 6));
}

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
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    if (m_stale && role == Qt::ForegroundRole)
        return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    if (m_stale && (role == Qt::BackgroundRole || role == Qt::DecorationRole))
        return {};
    const RoleStatus &status = m_snapshot.roles.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(status, column);
    case PlainToolTipRole:
        return toolTip(status, column);
    case RawRole:
        return raw(status, column);
    case Qt::TextAlignmentRole:
        if (column == Token || column == ExpiresIn || column == LastTickAge || column == NotBefore
            || column == Took)
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
            return int(rowAgeLevel(status));
        return {};
    case Qt::ForegroundRole:
        // On a tone's fill the palette's own text is the legible one.
        if (column == State && isPaused(status))
            return currentPalette().color(QPalette::Text);
        if (column == Health) {
            // Stale never gets here: the whole table is drawn disabled above.
            return health(status) == HealthLevel::Ok ? toneText(Tone::Good, currentPalette())
                                                     : currentPalette().color(QPalette::Text);
        }
        if (column == LastOutcome) {
            // A failed tick is a defect to look at; a lost one may be an operator's pause.
            if (status.lastOutcome == TickOutcome::Failed)
                return toneText(Tone::Alert, currentPalette());
            if (status.lastOutcome == TickOutcome::Lost)
                return toneText(Tone::Warning, currentPalette());
            return {};
        }
        // A source that failed says nothing about the work: not an alarm, but not a count.
        if (column == Backlog)
            return status.backlog && !status.backlog->pending
                           ? toneText(Tone::Warning, currentPalette())
                           : QVariant();
        if (column == LastTickAge) {
            // "never" in grey, the palette's text on a level's fill.
            if (!status.lastTickAgeSeconds)
                return toneText(Tone::Neutral, currentPalette());
            const AgeLevel level = rowAgeLevel(status);
            if (level == AgeLevel::Warning || level == AgeLevel::Alert)
                return currentPalette().color(QPalette::Text);
        }
        return {};
    case Qt::BackgroundRole:
        if (column == State && isPaused(status))
            return toneFill(Tone::Warning, currentPalette());
        if (column == Health) {
            // The same fills as the paused state and the late last-tick age.
            switch (health(status)) {
            case HealthLevel::Paused:
            case HealthLevel::Warn:
                return toneFill(Tone::Warning, currentPalette());
            case HealthLevel::Alert:
                return toneFill(Tone::Alert, currentPalette());
            case HealthLevel::Ok:
            case HealthLevel::Starting:
            case HealthLevel::Stale:
                break;
            }
        }
        if (column == LastTickAge) {
            // A paused or starting role's age is no alarm (Neutral): no fill that would say so.
            switch (rowAgeLevel(status)) {
            case AgeLevel::Warning:
                return toneFill(Tone::Warning, currentPalette());
            case AgeLevel::Alert:
                return toneFill(Tone::Alert, currentPalette());
            case AgeLevel::Ok:
            case AgeLevel::Unknown:
            case AgeLevel::Neutral:
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
        case Health:
            return tr("Health");
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
        case LastOutcome:
            return tr("Outcome");
        case Took:
            return tr("Took");
        case Backlog:
            return tr("Backlog");
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case Health:
            return tr("The role at a glance: ok, starting (not due yet: never ran or just "
                      "unpaused), paused, warn (late or never ran), alert (stalled) or stale (the "
                      "rows are not live)");
        case Holder:
            return tr("The replica leading this tick (hostname:pid:id; a hosted replica by its "
                      "name); \"outside:\" first, a holder outside the replica registry, which "
                      "takes no hand-over request and no drain");
        case Token:
            return tr("The fencing token: one more per acquisition");
        case ExpiresIn:
            return tr("When the lease runs out unless renewed, on the database clock");
        case LastTickAge:
            return tr("Time since the last completed tick, on the database clock");
        case NotBefore:
            return tr("Cooldown after a lost or failed tick: no acquisition before then");
        case LastOutcome:
            return tr("How the last tick ended, whatever its outcome: completed, interrupted, "
                      "failed, or lost and why (needs extension 0184); double-click a row for its "
                      "details");
        case Took:
            return tr("How long the last tick's work ran");
        case Backlog:
            return tr("How much work waits for the role, as the source registered for it counts "
                      "it, and how long the oldest item has waited (needs extension 0186 and a "
                      "source; docs/backlog.md)");
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
        m_origins.observe(snapshot);
        endResetModel();
        return;
    }

    const AgeOrigins originsBefore = m_origins;
    m_origins.observe(snapshot);
    const StatusSnapshot before = std::exchange(m_snapshot, snapshot);
    for (int row = 0; row < int(m_snapshot.roles.size()); ++row) {
        const RoleStatus &was = before.roles.at(row);
        const RoleStatus &now = m_snapshot.roles.at(row);
        // Time alone moves a role out of its first interval: a never-ran role's cells stay put.
        const bool healthMoved = healthOf(was, m_thresholds, m_stale, originsBefore) != health(now);
        const bool levelMoved
                = leader::console::ageLevelOf(was, m_thresholds, originsBefore) != rowAgeLevel(now);
        // Without a reading of its own, the Backlog tooltip says why the whole read failed.
        const bool backlogErrorMoved
                = !now.backlog && before.backlogError != m_snapshot.backlogError;
        int first = -1;
        int last = -1;
        QList<int> roles;
        for (int column = 0; column < ColumnCount; ++column) {
            const bool moved = (column == Health && healthMoved)
                               || (column == LastTickAge && levelMoved)
                               || (column == Backlog && backlogErrorMoved);
            if (!moved && !cellDiffers(was, now, column))
                continue;
            if (first < 0)
                first = column;
            last = column;
            if (roles.isEmpty())
                roles = TextRoles;
            if (column == State)
                roles += StateLookRoles;
            if (column == LastOutcome || column == Backlog)
                roles += Qt::ForegroundRole;
            if (column == Health && healthMoved)
                roles += HealthLookRoles;
            if (column == LastTickAge && levelMoved)
                roles += AgeLookRoles;
        }
        if (first < 0)
            continue;
        std::sort(roles.begin(), roles.end());
        roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
        Q_EMIT dataChanged(index(row, first), index(row, last), roles);
    }
}

void StatusModel::clear()
{
    beginResetModel();
    m_snapshot = {};
    m_origins.clear();
    endResetModel();
}

void StatusModel::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    if (rowCount() == 0)
        return;
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                       {Qt::ForegroundRole, Qt::BackgroundRole, Qt::DecorationRole});
    // Every row's health turns stale or back: its text as well as its look.
    Q_EMIT dataChanged(index(0, Health), index(rowCount() - 1, Health), TextRoles);
}

void StatusModel::setThresholds(const AgeThresholds &thresholds)
{
    if (thresholds == m_thresholds)
        return;
    const AgeThresholds before = std::exchange(m_thresholds, thresholds);
    if (m_snapshot.roles.isEmpty())
        return;
    Q_EMIT dataChanged(index(0, LastTickAge), index(rowCount() - 1, LastTickAge),
                       AgeLookRoles + QList<int>{Qt::ToolTipRole});
    // Health: only the rows whose thresholds (named in the tooltip) or level moved.
    for (int row = 0; row < rowCount(); ++row) {
        const RoleStatus &status = m_snapshot.roles.at(row);
        const bool levelMoved = healthOf(status, before, m_stale, m_origins) != health(status);
        if (!levelMoved && before.threshold(status.role) == thresholds.threshold(status.role)
            && before.roleIntervals().value(status.role)
                       == thresholds.roleIntervals().value(status.role)) {
            continue;
        }
        Q_EMIT dataChanged(index(row, Health), index(row, Health),
                           levelMoved ? TextRoles + HealthLookRoles : QList<int>{Qt::ToolTipRole});
    }
}

void StatusModel::setHolderNames(const QHash<QString, QString> &holderIdToName)
{
    if (holderIdToName == m_holderNames)
        return;
    const QHash<QString, QString> before = std::exchange(m_holderNames, holderIdToName);
    for (int row = 0; row < rowCount(); ++row) {
        const QString &id = m_snapshot.roles.at(row).holderId;
        if (!id.isEmpty() && before.value(id) != m_holderNames.value(id))
            Q_EMIT dataChanged(index(row, Holder), index(row, Holder), TextRoles);
        // The last tick's tooltips name its holder.
        const QString &last = m_snapshot.roles.at(row).lastHolder;
        if (!last.isEmpty() && before.value(last) != m_holderNames.value(last))
            Q_EMIT dataChanged(index(row, LastOutcome), index(row, Took), {Qt::ToolTipRole});
    }
}

void StatusModel::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void StatusModel::timeRuleChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, Acquired, Acquired);
    Q_EMIT headerDataChanged(Qt::Horizontal, PausedAt, PausedAt);
    if (m_snapshot.roles.isEmpty())
        return;
    const int last = rowCount() - 1;
    const QList<int> text{Qt::DisplayRole, Qt::ToolTipRole};
    const QList<int> tip{Qt::ToolTipRole};
    // The cells that show a time, and the tooltips that name one.
    Q_EMIT dataChanged(index(0, State), index(last, State), tip);
    Q_EMIT dataChanged(index(0, Acquired), index(last, Acquired), text);
    Q_EMIT dataChanged(index(0, LastTickAge), index(last, LastTickAge), tip);
    Q_EMIT dataChanged(index(0, PausedAt), index(last, PausedAt), text);
    Q_EMIT dataChanged(index(0, NotBefore), index(last, NotBefore), tip);
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
    return rowAgeLevel(m_snapshot.roles.at(row));
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

QString StatusModel::healthText(HealthLevel health)
{
    switch (health) {
    case HealthLevel::Ok:
        return tr("ok");
    case HealthLevel::Starting:
        return tr("starting");
    case HealthLevel::Paused:
        return tr("paused");
    case HealthLevel::Warn:
        return tr("warn");
    case HealthLevel::Alert:
        return tr("alert");
    case HealthLevel::Stale:
        return tr("stale");
    }
    return {};
}

HealthLevel StatusModel::health(const RoleStatus &status) const
{
    return healthOf(status, m_thresholds, m_stale, m_origins);
}

AgeLevel StatusModel::rowAgeLevel(const RoleStatus &status) const
{
    return leader::console::ageLevelOf(status, m_thresholds, m_origins);
}

QString StatusModel::thresholdsText(const QString &role) const
{
    const AgeThreshold limits = m_thresholds.threshold(role);
    const auto interval = m_thresholds.roleIntervals().constFind(role);
    if (interval != m_thresholds.roleIntervals().cend()
        && limits == AgeThresholds::forInterval(*interval)) {
        return tr("Warns at %1 (2 × the %2 interval + 15 s), alerts at %3 (4 × interval + 30 s).")
                .arg(seconds(limits.warnSeconds), seconds(*interval), seconds(limits.alertSeconds));
    }
    return tr("Warns at %1, alerts at %2 (set in Role → Age thresholds).")
            .arg(seconds(limits.warnSeconds), seconds(limits.alertSeconds));
}

QString StatusModel::healthToolTip(const RoleStatus &status) const
{
    const QString limits = thresholdsText(status.role);
    const QString age
            = status.lastTickAgeSeconds ? formatSeconds(*status.lastTickAgeSeconds) : QString();
    // Not run since its pause ended: judged from then, not from the tick before the pause.
    const std::optional<double> since = m_origins.sinceOrigin(status);
    switch (health(status)) {
    case HealthLevel::Ok:
        return tr("ok: last tick %1 ago. %2").arg(age, limits);
    case HealthLevel::Starting:
        if (m_origins.isUnpause(status.role))
            return tr("Starting: unpaused and not due yet; until its next tick its age counts "
                      "from the pause's end. %1")
                    .arg(limits);
        return tr("Starting: no tick completed yet and not due yet; its age counts from when the "
                  "console first saw the role. %1")
                .arg(limits);
    case HealthLevel::Paused:
        return tr("Paused: stopped on purpose, so its last tick ages and that is no alarm; it "
                  "runs again once unpaused (the State cell says by whom and until when).");
    case HealthLevel::Warn:
        if (!status.lastTickAgeSeconds)
            return tr("Warn: no tick has completed yet, so nothing shows the role runs. %1")
                    .arg(limits);
        if (since)
            return tr("Warn: no tick in %1 since its pause ended (last tick %2 ago). %3")
                    .arg(formatSeconds(*since), age, limits);
        return tr("Warn: last tick %1 ago, a tick or a takeover late. %2").arg(age, limits);
    case HealthLevel::Alert:
        if (since)
            return tr("Alert: no tick in %1 since its pause ended (last tick %2 ago): stalled. "
                      "%3")
                    .arg(formatSeconds(*since), age, limits);
        return tr("Alert: last tick %1 ago: stalled, ticks or takeovers failed in a row. %2")
                .arg(age, limits);
    case HealthLevel::Stale:
        return tr("Stale: the console cannot read the database; this row is the last one "
                  "received and says nothing sure about now.");
    }
    return {};
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
    case Health:
        return healthText(health(status));
    case Holder:
        return holderText(status);
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
    case LastOutcome:
        return outcomeText(status);
    case Took:
        return status.lastDurationSeconds ? formatSeconds(*status.lastDurationSeconds) : QString();
    case Backlog:
        return status.backlog ? backlogText(*status.backlog) : QString();
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
    case Health:
        return int(health(status));
    case Holder:
        return m_holderNames.value(status.holderId, status.holderId);
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
    case LastOutcome:
        return outcomeText(status);
    case Took:
        return optionalSeconds(status.lastDurationSeconds);
    case Backlog:
        return status.backlog && status.backlog->pending ? QVariant(*status.backlog->pending)
                                                         : QVariant();
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
    case Health:
        return healthToolTip(status);
    case Holder: {
        if (status.holderOutside == true)
            return outsideHolderText(status);
        const QString name = m_holderNames.value(status.holderId);
        return name.isEmpty() ? status.holderId : tr("%1: holder %2").arg(name, status.holderId);
    }
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
    case LastOutcome:
    case Took: {
        if (!status.lastOutcome && status.countsOursOnly == true)
            return tr("no tick recorded yet by our replicas\n%1").arg(oursOnlyText());
        if (!status.lastOutcome)
            return status.lastHour ? tr("no tick recorded yet")
                                   : tr("the database does not record ticks (extension 0184)");
        QString tip = tr("%1, ended %2 by %3")
                              .arg(outcomeText(status), fullTime(status.lastEndedAt),
                                   m_holderNames.value(status.lastHolder, status.lastHolder));
        if (!status.lastFailedStep.isEmpty())
            tip += tr("\nfailed step: %1").arg(status.lastFailedStep);
        if (!status.lastError.isEmpty())
            tip += tr("\nerror: %1").arg(status.lastError);
        if (status.lastHour)
            tip += tr("\nlast hour: %1").arg(hourText(status));
        if (status.countsOursOnly == true)
            tip += QLatin1Char('\n') + oursOnlyText();
        return tip;
    }
    case Backlog:
        if (status.backlog)
            return backlogDetail(*status.backlog);
        if (!m_snapshot.backlogError.isEmpty())
            return m_snapshot.backlogError; // the whole line, from the reader
        return tr("No backlog reported: no source is registered for this role, or the database "
                  "lacks extension 0186 (docs/backlog.md)");
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
    case Health:
        // Its text, colour and tooltip follow the state and the age (the level is the caller's).
        return before.state != after.state || before.lastTickAgeSeconds != after.lastTickAgeSeconds;
    case Holder:
        return before.holderId != after.holderId || before.holderOutside != after.holderOutside
               || before.holderLastDurationSeconds != after.holderLastDurationSeconds;
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
    case LastOutcome:
    case Took:
        // Both tooltips say the whole last tick and the hour.
        return before.lastOutcome != after.lastOutcome
               || before.lastLossReason != after.lastLossReason
               || before.lastDurationSeconds != after.lastDurationSeconds
               || before.lastEndedAt != after.lastEndedAt || before.lastHolder != after.lastHolder
               || before.lastFailedStep != after.lastFailedStep
               || before.lastError != after.lastError || before.lastHour != after.lastHour
               || before.countsOursOnly != after.countsOursOnly;
    case Backlog:
        return before.backlog != after.backlog;
    case ColumnCount:
        break;
    }
    return false;
}

QString StatusModel::outcomeText(const RoleStatus &status)
{
    if (!status.lastOutcome)
        return {};
    const QString outcome = tickOutcomeName(*status.lastOutcome);
    if (!status.lastLossReason)
        return outcome;
    return tr("%1 (%2)").arg(outcome, lossReasonName(*status.lastLossReason));
}

QString StatusModel::formatShortAge(double seconds)
{
    if (!std::isfinite(seconds))
        return {};
    const qint64 whole = qMax<qint64>(0, qRound64(seconds));
    const auto two = [](qint64 value) {
        return QStringLiteral("%1").arg(value, 2, 10, QLatin1Char('0'));
    };
    if (whole < 60)
        return tr("%1s").arg(whole);
    if (whole < 3600)
        return tr("%1m %2s").arg(whole / 60).arg(two(whole % 60));
    if (whole < 86400)
        return tr("%1h %2m").arg(whole / 3600).arg(two(whole % 3600 / 60));
    return tr("%1d %2h").arg(whole / 86400).arg(two(whole % 86400 / 3600));
}

QString StatusModel::backlogText(const RoleBacklog &backlog)
{
    if (!backlog.pending)
        return tr("error");
    if (*backlog.pending == 0 || !backlog.oldestAgeSeconds)
        return QString::number(*backlog.pending);
    return tr("%1 · oldest %2")
            .arg(QString::number(*backlog.pending), formatShortAge(*backlog.oldestAgeSeconds));
}

QString StatusModel::backlogDetail(const RoleBacklog &backlog)
{
    if (!backlog.pending)
        return backlog.error.isEmpty() ? tr("The backlog's source gave no count")
                                       : tr("The backlog's source failed: %1").arg(backlog.error);
    if (*backlog.pending == 0)
        return tr("No %1 waiting").arg(backlog.what);
    const QString waiting = tr("%1 %2 waiting").arg(*backlog.pending).arg(backlog.what);
    if (!backlog.oldestAgeSeconds)
        return waiting;
    return tr("%1, the oldest for %2 (on the database clock)")
            .arg(waiting, formatSeconds(*backlog.oldestAgeSeconds));
}

QString StatusModel::hourText(const RoleStatus &status)
{
    if (!status.lastHour)
        return {};
    const QString counts = tr("%1 completed, %2 lost, %3 failed, %4 interrupted")
                                   .arg(status.lastHour->completed)
                                   .arg(status.lastHour->lost)
                                   .arg(status.lastHour->failed)
                                   .arg(status.lastHour->interrupted);
    // Never a count that reads as everything while holders outside the registry ran the role.
    return status.countsOursOnly == true ? tr("%1 (ours only)").arg(counts) : counts;
}

QString StatusModel::oursOnlyText()
{
    return tr("Holders outside the replica registry (replicas that speak only the ADR) led it in "
              "the last hour too, and record no tick: the hour's counts are our replicas' only.");
}

QString StatusModel::holderText(const RoleStatus &status) const
{
    const QString holder = m_holderNames.value(status.holderId, status.holderId);
    // The mark first: the column is narrow, and a holder id is elided at its end.
    return status.holderOutside == true ? tr("outside: %1").arg(holder) : holder;
}

QString StatusModel::outsideHolderText(const RoleStatus &status)
{
    QString text = tr("%1 (outside the registry): a replica that speaks only the ADR; it takes no "
                      "hand-over request and no drain, and runs its tick to its end")
                           .arg(status.holderId);
    if (status.holderLastDurationSeconds)
        text += tr("; its last tick of the role lasted %1")
                        .arg(formatSeconds(*status.holderLastDurationSeconds));
    return text;
}

QHash<QString, QString> holderNamesOf(const QList<ReplicaInfo> &replicas)
{
    QHash<QString, QString> names;
    for (const ReplicaInfo &replica : replicas) {
        if (!replica.holderId.isEmpty())
            names.insert(replica.holderId, replica.id);
    }
    return names;
}

} // namespace leader::console
