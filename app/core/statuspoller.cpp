#include "statuspoller.h"

#include "core/demoengine.h"
#include "core/outsideholders.h"
#include "monitor/databaseidentity.h"
#include "monitor/statusreader.h"

#include <QDateTime>
#include <QMetaType>
#include <QTimer>

#include <array>
#include <variant>

namespace leader::console {

namespace {

constexpr std::array RetryDelaysMs{1000, 2000, 5000};

QString qtext(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QDateTime utcFromEpoch(const std::optional<double> &seconds)
{
    if (!seconds)
        return {};
    return QDateTime::fromMSecsSinceEpoch(qRound64(*seconds * 1000), Qt::UTC);
}

// adrFleet: the database has extension 0189, so countsOursOnly is its word and not a default.
RoleStatus roleStatus(const monitor::RoleRow &row, bool adrFleet)
{
    RoleStatus status;
    status.role = qtext(row.role);
    status.state = parseRoleState(qtext(row.state));
    status.holderId = qtext(row.holderId);
    status.token = row.token;
    status.acquiredAt = utcFromEpoch(row.acquiredAt);
    status.expiresInSeconds = row.expiresInSeconds;
    status.lastTickEndedAt = utcFromEpoch(row.lastTickEndedAt);
    status.lastTickHolder = qtext(row.lastTickHolder);
    status.lastTickAgeSeconds = row.lastTickAgeSeconds;
    status.pausedAt = utcFromEpoch(row.pausedAt);
    status.pausedBy = qtext(row.pausedBy);
    status.pauseReason = qtext(row.pauseReason);
    status.notBefore = utcFromEpoch(row.notBefore);
    status.notBeforeInSeconds = row.notBeforeInSeconds;
    status.pausedUntil = utcFromEpoch(row.pausedUntil);
    status.pauseRemainingSeconds = row.pauseRemainingSeconds;
    status.tookOver = parseTookOver(qtext(row.tookOver));
    status.earlyTake = row.earlyTake;
    if (row.lastOutcome)
        status.lastOutcome = fromEngine(*row.lastOutcome);
    if (row.lastLossReason)
        status.lastLossReason = fromEngine(*row.lastLossReason);
    status.lastDurationSeconds = row.lastDurationSeconds;
    status.lastEndedAt = utcFromEpoch(row.lastEndedAt);
    status.lastHolder = qtext(row.lastHolder);
    status.lastFailedStep = qtext(row.lastFailedStep);
    status.lastError = qtext(row.lastError);
    if (row.lastHour)
        status.lastHour = TickCounts{row.lastHour->completed, row.lastHour->lost,
                                     row.lastHour->failed, row.lastHour->interrupted};
    status.holderOutside = row.holderOutside;
    status.holderLastDurationSeconds = row.holderLastDurationSeconds;
    if (adrFleet)
        status.countsOursOnly = row.countsOursOnly;
    return status;
}

RoleBacklog roleBacklog(const monitor::BacklogRow &row)
{
    return RoleBacklog{qtext(row.what), row.pending, row.oldestAgeSeconds, qtext(row.error)};
}

std::vector<std::string> stdStrings(const QStringList &list)
{
    std::vector<std::string> strings;
    strings.reserve(std::size_t(list.size()));
    for (const QString &text : list)
        strings.push_back(text.toStdString());
    return strings;
}

DatabaseFeatures featuresOf(const schema::LeaseFeatures &features)
{
    return {features.leaseTable, features.notBefore, features.extension, features.extensionsHidden,
            features.legacyLayout};
}

// The engine's instants: ISO 8601, UTC, milliseconds, printed by the database.
QDateTime utcFromIso(const std::string &text)
{
    return QDateTime::fromString(qtext(text), Qt::ISODateWithMs).toUTC();
}

} // namespace

StatusPoller::StatusPoller(QObject *parent)
    : QObject(parent)
    , m_pollTimer(new QTimer(this))
    , m_retryTimer(new QTimer(this))
{
    qRegisterMetaType<StatusSnapshot>();
    qRegisterMetaType<ConnectionState>();
    qRegisterMetaType<Privileges>();
    qRegisterMetaType<ConnectionProfile>();
    qRegisterMetaType<PauseLogSince>();
    qRegisterMetaType<PauseLogResult>();
    qRegisterMetaType<ActionResult>();
    qRegisterMetaType<RegistrySnapshot>();
    qRegisterMetaType<DrainResult>();
    qRegisterMetaType<HandoverResult>();
    qRegisterMetaType<DatabaseIdentity>();
    m_retryTimer->setSingleShot(true);
    connect(m_pollTimer, &QTimer::timeout, this, &StatusPoller::poll);
    connect(m_retryTimer, &QTimer::timeout, this, &StatusPoller::connectNow);
}

StatusPoller::~StatusPoller() = default;

int StatusPoller::retryDelayMs(int attempt)
{
    return RetryDelaysMs.at(qBound(0, attempt, int(RetryDelaysMs.size()) - 1));
}

void StatusPoller::abandon()
{
    m_abandon.request_stop();
}

void StatusPoller::setTarget(const ConnectionProfile &profile)
{
    m_retryTimer->stop();
    m_pollTimer->stop();
    closeConnection();
    m_target = profile;
    m_everConnected = false;
    m_immediateRetryUsed = false;
    m_retryAttempt = 0;
    m_lastFailure.clear();
    connectNow();
}

void StatusPoller::setInterval(int milliseconds)
{
    m_intervalMs = qMax(0, milliseconds);
    updateTimer();
}

void StatusPoller::setSuspended(bool suspended)
{
    if (suspended == m_suspended)
        return;
    m_suspended = suspended;
    if (suspended) {
        m_pollTimer->stop();
        m_retryTimer->stop();
        return;
    }
    if (m_connected) {
        poll();
        updateTimer();
    } else if (m_target) {
        connectNow();
    }
}

void StatusPoller::pollNow()
{
    m_sinceRegistryRead.invalidate();
    if (m_connected)
        poll();
    else if (m_target && !m_suspended)
        connectNow(); // an operator asking now need not wait out the backoff
}

void StatusPoller::pause(const QStringList &roles, const QString &by, const QString &reason,
                         const PauseEnd &end)
{
    ActionResult result{PauseAction::Pause, roles};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT actionFinished(result);
        return;
    }
    lease::PauseEnd until;
    if (!end.duration.isEmpty()) {
        const std::optional<std::string> interval
                = lease::intervalFromDuration(end.duration.toStdString());
        if (!interval) {
            result.error = QStringLiteral("\"%1\" is not a duration such as 15m, 1h or 4h")
                                   .arg(end.duration);
            Q_EMIT actionFinished(result);
            return;
        }
        until.after = *interval;
    } else if (end.at.isValid()) {
        // With its offset (Z), so the session's TimeZone cannot move it.
        until.at = end.at.toUTC().toString(Qt::ISODateWithMs).toStdString();
    }
    const monitor::Outcome<std::vector<lease::PauseRecord>> outcome
            = m_reader->pause(stdStrings(roles), by.toStdString(), reason.toStdString(), until);
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome))
        return actionFailed(result, *failure);
    for (const lease::PauseRecord &record : std::get<std::vector<lease::PauseRecord>>(outcome)) {
        result.changes.append({qtext(record.role), record.byThisCall, utcFromIso(record.pausedAt),
                               qtext(record.pausedBy), qtext(record.reason),
                               record.until ? utcFromIso(*record.until) : QDateTime(),
                               record.notified});
    }
    result.ok = true;
    Q_EMIT actionFinished(result);
    poll(); // the new state shows at once, not at the next tick of the timer
}

void StatusPoller::unpause(const QStringList &roles, const QString &by, const QString &reason)
{
    ActionResult result{PauseAction::Unpause, roles};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT actionFinished(result);
        return;
    }
    const monitor::Outcome<std::vector<lease::UnpauseRecord>> outcome
            = m_reader->unpause(stdStrings(roles), by.toStdString(), reason.toStdString());
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome))
        return actionFailed(result, *failure);
    for (const lease::UnpauseRecord &record : std::get<std::vector<lease::UnpauseRecord>>(outcome))
        result.changes.append({qtext(record.role), record.wasPaused});
    result.ok = true;
    Q_EMIT actionFinished(result);
    poll();
}

void StatusPoller::checkDrain(const QString &replica)
{
    DrainResult result{DrainAction::Check, replica};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT drainFinished(result);
        return;
    }
    const monitor::Outcome<std::vector<std::string>> outcome
            = m_reader->drainOrphans(replica.toStdString());
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        result.error = qtext(failure->message);
    } else {
        for (const std::string &role : std::get<std::vector<std::string>>(outcome))
            result.orphans.append(qtext(role));
        result.outside = outsideOfReplica(replica);
        result.ok = true;
    }
    Q_EMIT drainFinished(result);
}

void StatusPoller::drain(const QString &replica, const QString &by, const QString &reason,
                         bool force)
{
    DrainResult result{DrainAction::Drain, replica};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT drainFinished(result);
        return;
    }
    const monitor::Outcome<lease::DrainRecord> outcome
            = m_reader->drain(replica.toStdString(), by.toStdString(), reason.toStdString(), force);
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        result.error = qtext(failure->message);
        result.refused = failure->kind == pg::FailureKind::Refused;
        Q_EMIT drainFinished(result);
        return;
    }
    const lease::DrainRecord &record = std::get<lease::DrainRecord>(outcome);
    for (const std::string &role : record.orphaned)
        result.orphans.append(qtext(role));
    result.changed = record.byThisCall;
    result.outside = outsideOfReplica(replica);
    result.ok = true;
    Q_EMIT drainFinished(result);
    readRegistry(); // the Drain column shows it at once
}

void StatusPoller::handOver(const QString &role, const QString &by, const QString &reason,
                            const QString &toReplica)
{
    HandoverResult result{role, toReplica};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT handoverFinished(result);
        return;
    }
    const monitor::Outcome<lease::HandoverRecord> outcome = m_reader->handOver(
            role.toStdString(), by.toStdString(), reason.toStdString(),
            toReplica.isEmpty() ? std::nullopt : std::optional(toReplica.toStdString()));
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        result.error = qtext(failure->message);
        result.refused = failure->kind == pg::FailureKind::Refused;
        Q_EMIT handoverFinished(result);
        return;
    }
    const lease::HandoverRecord &record = std::get<lease::HandoverRecord>(outcome);
    result.fromHolder = qtext(record.fromHolder);
    result.at = utcFromIso(record.at);
    // Read after the request, as leaderctl handover does: whether the holder asked is one of them
    // and how far its tick is.
    if (offers(m_privileges.features, ExtensionFeature::OutsideHolders))
        result.outside
                = readOutsideHoldersOfRole(m_target->conninfo(), m_abandon.get_token(), role);
    result.ok = true;
    Q_EMIT handoverFinished(result);
    poll(); // the holder's release shows as soon as it comes
}

OutsideHolders StatusPoller::outsideOfReplica(const QString &replica)
{
    if (!offers(m_privileges.features, ExtensionFeature::OutsideHolders))
        return {};
    return readOutsideHoldersOfReplica(m_target->conninfo(), m_abandon.get_token(), replica);
}

void StatusPoller::undrain(const QString &replica, const QString &by, const QString &reason)
{
    DrainResult result{DrainAction::Undrain, replica};
    if (!m_connected) {
        result.error = notConnectedMessage();
        Q_EMIT drainFinished(result);
        return;
    }
    const monitor::Outcome<bool> outcome
            = m_reader->undrain(replica.toStdString(), by.toStdString(), reason.toStdString());
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        result.error = qtext(failure->message);
        Q_EMIT drainFinished(result);
        return;
    }
    result.changed = std::get<bool>(outcome);
    result.ok = true;
    Q_EMIT drainFinished(result);
    readRegistry();
}

void StatusPoller::readPauseLog(PauseLogSince since)
{
    if (!m_connected) {
        Q_EMIT pauseLogRead(PauseLogResult{.error = notConnectedMessage()});
        return;
    }
    Q_EMIT pauseLogRead(console::readPauseLog(m_target->conninfo(), m_abandon.get_token(), since));
}

void StatusPoller::actionFailed(ActionResult result, const monitor::Failure &failure)
{
    result.error = qtext(failure.message);
    Q_EMIT actionFinished(result);
    if (failure.sessionLost)
        lost(result.error);
}

void StatusPoller::stop()
{
    m_target.reset();
    m_pollTimer->stop();
    m_retryTimer->stop();
    const bool wasActive = m_connected || m_reader;
    closeConnection();
    if (wasActive)
        Q_EMIT connectionChanged(ConnectionState::Disconnected,
                                 connectionStateName(ConnectionState::Disconnected));
}

void StatusPoller::connectNow()
{
    m_retryTimer->stop();
    if (!m_target || m_suspended || m_abandon.stop_requested())
        return; // setSuspended(false) connects
    closeConnection();
    Q_EMIT connectionChanged(ConnectionState::Connecting,
                             m_everConnected
                                     ? QStringLiteral("reconnecting: ") + m_lastFailure
                                     : QStringLiteral("connecting to ") + m_target->describe());

    m_reader = std::make_unique<monitor::StatusReader>(
            m_target->conninfo().toStdString(), m_abandon.get_token(),
            std::chrono::milliseconds(StatementTimeoutMs));
    const monitor::Outcome<monitor::Access> opened = m_reader->open();
    if (const auto *failure = std::get_if<monitor::Failure>(&opened)) {
        closeConnection();
        scheduleRetry(qtext(failure->message));
        return;
    }
    const monitor::Access &access = std::get<monitor::Access>(opened);
    m_privileges = Privileges{access.canPause, access.canUnpause, qtext(access.readOnlyReason),
                              qtext(access.schemaWarning), featuresOf(access.features)};
    Q_EMIT privilegesChanged(m_privileges);
    Q_EMIT identified(readIdentity());

    m_connected = true;
    m_sessionKey = m_reader->sessionKey();
    m_sinceRegistryRead.invalidate(); // perhaps another database, or one migrated meanwhile
    if (m_everConnected) {
        const double downSeconds = m_downSince.isValid() ? m_downSince.elapsed() / 1000.0 : 0;
        Q_EMIT connectionChanged(ConnectionState::Reconnected,
                                 connectedMessage(ConnectionState::Reconnected, downSeconds));
    } else {
        Q_EMIT connectionChanged(ConnectionState::Connected,
                                 connectedMessage(ConnectionState::Connected, -1));
    }
    m_everConnected = true;
    updateTimer();
    poll();
}

DatabaseIdentity StatusPoller::readIdentity()
{
    const monitor::Outcome<monitor::DatabaseIdentity> outcome = monitor::readDatabaseIdentity(
            m_target->conninfo().toStdString(), m_abandon.get_token(),
            std::chrono::milliseconds(StatementTimeoutMs));
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        qWarning("leader-console: which database this is could not be read (%s); its history is "
                 "kept under the address it was opened with",
                 failure->message.c_str());
        return {};
    }
    const monitor::DatabaseIdentity &identity = std::get<monitor::DatabaseIdentity>(outcome);
    return {qtext(identity.systemIdentifier), qtext(identity.serverAddress),
            qtext(identity.database)};
}

QString StatusPoller::connectedMessage(ConnectionState state, double downSeconds) const
{
    QString message = connectionStateName(state) + QStringLiteral(" to ") + m_target->describe();
    if (downSeconds >= 0)
        message += QStringLiteral(" after %1 s").arg(QString::number(downSeconds, 'f', 1));
    // Which server of a host list answered: after a failover, the promoted one.
    if (m_target->host.contains(QLatin1Char(',')))
        message += QStringLiteral(", answered by ") + qtext(m_reader->answeredBy());
    return message;
}

void StatusPoller::scheduleRetry(const QString &reason)
{
    m_connected = false;
    m_lastFailure = reason;
    m_pollTimer->stop();
    if (!m_downSince.isValid())
        m_downSince.start();
    Q_EMIT connectionChanged(ConnectionState::Failed, reason);
    if (m_target && !m_suspended && !m_abandon.stop_requested()) {
        const int delayMs = retryDelayMs(m_retryAttempt++);
        m_retryTimer->start(delayMs);
        Q_EMIT retryScheduled(delayMs);
    }
}

void StatusPoller::poll()
{
    if (!m_connected)
        return;
    const qint64 sentAtMs = QDateTime::currentMSecsSinceEpoch();
    QElapsedTimer roundTrip;
    roundTrip.start();
    const monitor::Outcome<monitor::StatusRows> outcome = m_reader->poll();
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        if (failure->sessionLost)
            lost(qtext(failure->message));
        else
            Q_EMIT pollFailed(qtext(failure->message));
        return;
    }
    const monitor::StatusRows &rows = std::get<monitor::StatusRows>(outcome);
    // An extension added or removed under this console (the reader probes now and then): the
    // window's controls follow without a reconnect.
    if (featuresOf(rows.features) != m_privileges.features) {
        m_privileges.features = featuresOf(rows.features);
        m_privileges.schemaWarning = qtext(monitor::extensionsSummary(rows.features));
        Q_EMIT privilegesChanged(m_privileges);
    }
    StatusSnapshot result;
    result.roundTripMs = roundTrip.nsecsElapsed() / 1e6;
    result.receivedAt = QDateTime::currentDateTimeUtc();
    result.databaseTime = utcFromEpoch(rows.observedAt);
    for (const monitor::RoleRow &row : rows.roles)
        result.roles.append(roleStatus(row, rows.features.has(schema::Extension::AdrFleet)));
    // The backlog's rows by role (both ordered by role, but a source may name a role the lease
    // table does not have yet: that one shows nowhere).
    for (const monitor::BacklogRow &row : rows.backlog) {
        const QString role = qtext(row.role);
        for (RoleStatus &status : result.roles) {
            if (status.role == role) {
                status.backlog = roleBacklog(row);
                break;
            }
        }
    }
    result.backlogError = qtext(rows.backlogError);
    if (result.databaseTime.isValid())
        result.clockDriftMs = double(result.databaseTime.toMSecsSinceEpoch())
                              - (double(sentAtMs) + result.roundTripMs / 2);
    // The poll succeeded on a session opened for it: the last one was ended by the server (a
    // restart, a failover) while idle. Said as a reconnect, since it may be another server now;
    // not while that session is already gone again (ended just after its answer: which server
    // answered is unknown, and the next poll opens another).
    if (const std::string key = m_reader->sessionKey(); !key.empty() && key != m_sessionKey) {
        m_sessionKey = key;
        const double downSeconds = m_downSince.isValid() ? m_downSince.elapsed() / 1000.0
                                                         : m_sinceGoodPoll.elapsed() / 1000.0;
        Q_EMIT connectionChanged(ConnectionState::Reconnected,
                                 connectedMessage(ConnectionState::Reconnected, downSeconds));
    }
    m_sinceGoodPoll.start();
    m_immediateRetryUsed = false;
    m_retryAttempt = 0;
    m_downSince.invalidate();
    Q_EMIT snapshot(result);
    // Half an interval of slack, so a 1 s interval reads it every fifth poll, not every sixth.
    if (!m_sinceRegistryRead.isValid()
        || m_sinceRegistryRead.elapsed() >= RegistryEveryMs - m_intervalMs / 2)
        readRegistry();
}

void StatusPoller::readRegistry()
{
    m_sinceRegistryRead.start();
    const monitor::Outcome<monitor::ReplicaList> outcome = m_reader->replicas();
    RegistrySnapshot registry;
    if (const auto *failure = std::get_if<monitor::Failure>(&outcome)) {
        // A lost session is the next poll's to find and reconnect, through the one path that
        // marks the rows stale and backs off.
        registry.error = qtext(failure->message);
        Q_EMIT registryRead(registry);
        return;
    }
    const monitor::ReplicaList &list = std::get<monitor::ReplicaList>(outcome);
    registry.available = list.available;
    registry.unavailable = qtext(list.unavailable);
    registry.replicas.reserve(qsizetype(list.replicas.size()));
    for (const monitor::ReplicaRow &row : list.replicas) {
        QStringList roles;
        for (const std::string &role : row.roles)
            roles.append(qtext(role));
        registry.replicas.append(
                {qtext(row.holderId), qtext(row.host), row.pid, qtext(row.version), roles,
                 utcFromIso(row.startedAt), utcFromIso(row.lastSeen), row.lastSeenAgeSeconds,
                 row.alive, row.markerEnded, qtext(row.name),
                 row.drain ? std::optional(fromEngine(*row.drain)) : std::nullopt,
                 qtext(row.drainedBy), qtext(row.drainReason), utcFromIso(row.earlyTakeOffUntil),
                 qtext(row.earlyTakeOffReason)});
    }
    Q_EMIT registryRead(registry);
}

void StatusPoller::lost(const QString &reason)
{
    Q_EMIT pollFailed(reason);
    closeConnection();
    m_lastFailure = reason;
    if (!m_downSince.isValid())
        m_downSince.start();
    // A restarted backend or a laptop waking up is usually back at once: one immediate attempt,
    // then the backoff, so a connection that dies on every poll cannot spin.
    if (!m_immediateRetryUsed) {
        m_immediateRetryUsed = true;
        connectNow();
    } else {
        scheduleRetry(reason);
    }
}

void StatusPoller::closeConnection()
{
    m_connected = false;
    m_reader.reset();
}

void StatusPoller::updateTimer()
{
    if (m_connected && !m_suspended && m_intervalMs > 0)
        m_pollTimer->start(m_intervalMs);
    else
        m_pollTimer->stop();
}

QString StatusPoller::notConnectedMessage() const
{
    return m_lastFailure.isEmpty() ? QStringLiteral("not connected")
                                   : QStringLiteral("not connected: ") + m_lastFailure;
}

} // namespace leader::console
