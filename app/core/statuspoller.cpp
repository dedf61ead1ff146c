#include "statuspoller.h"

#include "lease/roles.h"

#include <QAtomicInt>
#include <QDateTime>
#include <QMetaType>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlField>
#include <QSqlQuery>
#include <QTimer>
#include <QVariant>

#include <libpq-fe.h>

#include <array>

namespace leader::console {

namespace {

// Ages and instants come back as epoch seconds (float8), so neither the session's TimeZone nor
// its DateStyle can change what the console shows.
constexpr auto PollSql
        = "SELECT role, state, holder_id, holder_token,"
          " extract(epoch FROM acquired_at)::float8, expires_in_seconds::float8,"
          " extract(epoch FROM last_tick_ended_at)::float8, last_tick_holder,"
          " last_tick_age_seconds::float8, extract(epoch FROM paused_at)::float8, paused_by,"
          " pause_reason, extract(epoch FROM not_before)::float8, not_before_in_seconds::float8,"
          " extract(epoch FROM observed_at)::float8"
          " FROM leader_status ORDER BY role";

// to_regclass/to_regprocedure return NULL instead of failing, so one statement tells a missing
// schema, a missing SELECT and a read-only login apart.
constexpr auto PrivilegesSql
        = "SELECT current_user::text, current_database()::text,"
          " to_regclass('leader_status') IS NOT NULL,"
          " coalesce(has_table_privilege(to_regclass('leader_status')::oid, 'SELECT'), false),"
          " coalesce(has_function_privilege("
          "to_regprocedure('leader_pause(text,text,text)')::oid, 'EXECUTE'), false),"
          " coalesce(has_function_privilege("
          "to_regprocedure('leader_unpause(text)')::oid, 'EXECUTE'), false)";

constexpr std::array RetryDelaysMs{1000, 2000, 5000};

const QString MigrateHint
        = QStringLiteral("run `leaderctl migrate --database URL` as the database owner");

QAtomicInt connectionCounter;

QString sqlStateMeaning(const QString &code)
{
    static const QHash<QString, QString> meanings{
            {QStringLiteral("42501"), QStringLiteral("insufficient privilege")},
            {QStringLiteral("22023"), QStringLiteral("invalid parameter value")},
            {QStringLiteral("P0001"), QStringLiteral("raised by a function")},
            {QStringLiteral("42883"), QStringLiteral("undefined function")},
            {QStringLiteral("42P01"), QStringLiteral("undefined table")},
            {QStringLiteral("42703"), QStringLiteral("undefined column")},
            {QStringLiteral("3D000"), QStringLiteral("database does not exist")},
            {QStringLiteral("28P01"), QStringLiteral("invalid password")},
            {QStringLiteral("28000"), QStringLiteral("invalid authorization")},
            {QStringLiteral("53300"), QStringLiteral("too many connections")},
            {QStringLiteral("57P01"), QStringLiteral("administrator shutdown")},
            {QStringLiteral("57P02"), QStringLiteral("crash shutdown")},
            {QStringLiteral("57P03"), QStringLiteral("cannot connect now")},
            {QStringLiteral("57014"), QStringLiteral("query cancelled")},
            {QStringLiteral("25006"), QStringLiteral("read-only transaction")},
    };
    if (const auto it = meanings.constFind(code); it != meanings.cend())
        return *it;
    if (code.startsWith(QLatin1String("08")))
        return QStringLiteral("connection exception");
    return {};
}

// libpq's messages run over several lines (DETAIL, HINT, CONTEXT, QPSQL's "(SQLSTATE)") and carry
// "ERROR:  " or "FATAL:  " prefixes: the first line says what happened, the SQLSTATE is added
// separately.
QString oneLine(const QString &text)
{
    static const QRegularExpression severity(QStringLiteral("\\b(ERROR|FATAL|PANIC):\\s+"));
    static const QRegularExpression spaces(QStringLiteral("\\s+"));
    for (QString line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        line = line.remove(severity).replace(spaces, QStringLiteral(" ")).trimmed();
        if (!line.isEmpty())
            return line;
    }
    return {};
}

// libpq reports a failed connect to a host list one server after another, each a "connection to
// server at ..." line: all of them say where each attempt went.
QString connectAttempts(const QString &text)
{
    QStringList attempts;
    for (const QString &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (line.startsWith(QLatin1String("connection to server")))
            attempts << oneLine(line);
    }
    return attempts.size() > 1 ? attempts.join(QStringLiteral("; ")) : oneLine(text);
}

bool containsAny(const QString &text, std::initializer_list<const char *> needles)
{
    for (const char *needle : needles) {
        if (text.contains(QLatin1String(needle), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

std::optional<double> optionalDouble(const QSqlQuery &query, int column)
{
    if (query.isNull(column))
        return std::nullopt;
    return query.value(column).toDouble();
}

QDateTime utcFromEpoch(const QSqlQuery &query, int column)
{
    if (query.isNull(column))
        return {};
    return QDateTime::fromMSecsSinceEpoch(qRound64(query.value(column).toDouble() * 1000), Qt::UTC);
}

// The session is gone (terminated, server restart, reset link), though libpq may not have noticed
// yet: PQstatus can still say OK right after the FATAL arrived.
bool closedByServer(const QString &code, const QString &detail)
{
    return code.startsWith(QLatin1String("57P")) || code.startsWith(QLatin1String("08"))
           || containsAny(detail, {"server closed the connection", "terminating connection",
                                   "no connection to the server", "connection to server was lost",
                                   "SSL connection has been closed", "server conn crashed",
                                   "Connection reset", "Broken pipe"});
}

// QPSQL's handle is a PGconn*; Qt 6.4 names its type after the struct behind libpq's typedef.
bool isLibpqHandle(const QVariant &handle)
{
    return handle.isValid()
           && (qstrcmp(handle.typeName(), "pg_conn*") == 0
               || qstrcmp(handle.typeName(), "PGconn*") == 0);
}

PGconn *libpqConnection(const QSqlDatabase &db)
{
    const QVariant handle = db.isValid() ? db.driver()->handle() : QVariant();
    return isLibpqHandle(handle) ? *static_cast<PGconn *const *>(handle.constData()) : nullptr;
}

QString knownRoles()
{
    QStringList roles;
    for (const std::string_view role : lease::Roles)
        roles.append(QString::fromLatin1(role.data(), qsizetype(role.size())));
    return roles.join(QStringLiteral(", "));
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
    m_retryTimer->setSingleShot(true);
    connect(m_pollTimer, &QTimer::timeout, this, &StatusPoller::poll);
    connect(m_retryTimer, &QTimer::timeout, this, &StatusPoller::connectNow);
}

StatusPoller::~StatusPoller()
{
    // stop() in the poller's thread is the clean way; this only keeps the connection name from
    // leaking when the owner forgot.
    closeConnection();
}

int StatusPoller::retryDelayMs(int attempt)
{
    return RetryDelaysMs.at(qBound(0, attempt, int(RetryDelaysMs.size()) - 1));
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
    if (m_connected)
        poll();
    else if (m_target && !m_suspended)
        connectNow(); // an operator asking now need not wait out the backoff
}

void StatusPoller::pause(const QString &role, const QString &by, const QString &reason)
{
    const QString action = QStringLiteral("pause");
    if (!lease::isKnownRole(role.toStdString())) {
        emit actionFinished(
                role, action, false,
                QStringLiteral("unknown role \"%1\": the roles are %2").arg(role, knownRoles()));
        return;
    }
    if (by.contains(QChar(0)) || reason.contains(QChar(0))) {
        emit actionFinished(role, action, false,
                            QStringLiteral("who and why may not contain NUL characters"));
        return;
    }
    if (!m_connected) {
        emit actionFinished(role, action, false, notConnectedMessage());
        return;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    const QString sql
            = QStringLiteral("SELECT extract(epoch FROM leader_pause(%1, %2, %3))::float8")
                      .arg(literal(db, role), literal(db, by), literal(db, reason));
    db = QSqlDatabase();
    runAction(role, action, sql);
}

void StatusPoller::unpause(const QString &role)
{
    const QString action = QStringLiteral("unpause");
    if (!lease::isKnownRole(role.toStdString())) {
        emit actionFinished(
                role, action, false,
                QStringLiteral("unknown role \"%1\": the roles are %2").arg(role, knownRoles()));
        return;
    }
    if (!m_connected) {
        emit actionFinished(role, action, false, notConnectedMessage());
        return;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    const QString sql = QStringLiteral("SELECT leader_unpause(%1)").arg(literal(db, role));
    db = QSqlDatabase();
    runAction(role, action, sql);
}

void StatusPoller::stop()
{
    m_target.reset();
    m_pollTimer->stop();
    m_retryTimer->stop();
    const bool wasActive = m_connected || !m_connectionName.isEmpty();
    closeConnection();
    if (wasActive)
        emit connectionChanged(ConnectionState::Disconnected, QStringLiteral("disconnected"));
}

void StatusPoller::connectNow()
{
    m_retryTimer->stop();
    if (!m_target || m_suspended)
        return; // setSuspended(false) connects
    closeConnection();
    emit connectionChanged(ConnectionState::Connecting,
                           m_everConnected
                                   ? QStringLiteral("reconnecting: ") + m_lastFailure
                                   : QStringLiteral("connecting to ") + m_target->describe());

    m_connectionName = QStringLiteral("leader-console-poller-%1")
                               .arg(connectionCounter.fetchAndAddRelaxed(1));
    QString failure;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), m_connectionName);
        if (!db.isValid()) {
            failure = QStringLiteral("Qt's PostgreSQL driver (QPSQL) is not installed: install "
                                     "the package libqt6sql6-psql");
        } else {
            m_target->applyTo(db);
            if (!db.open())
                failure = describeError(db.lastError());
            else if (!checkSchemaAndPrivileges(db, &failure))
                db.close();
        }
    }
    if (!failure.isEmpty()) {
        closeConnection();
        scheduleRetry(failure);
        return;
    }

    m_connected = true;
    // Which server of a host list answered: after a failover, the promoted one.
    QString answeredBy;
    if (m_target->host.contains(QLatin1Char(','))) {
        if (PGconn *connection = libpqConnection(QSqlDatabase::database(m_connectionName, false)))
            answeredBy = QStringLiteral(", answered by %1:%2")
                                 .arg(QString::fromUtf8(PQhost(connection)),
                                      QString::fromUtf8(PQport(connection)));
    }
    if (m_everConnected) {
        const double downSeconds = m_downSince.isValid() ? m_downSince.elapsed() / 1000.0 : 0;
        emit connectionChanged(ConnectionState::Connected,
                               QStringLiteral("reconnected to %1 after %2 s%3")
                                       .arg(m_target->describe(),
                                            QString::number(downSeconds, 'f', 1), answeredBy));
    } else {
        emit connectionChanged(ConnectionState::Connected,
                               QStringLiteral("connected to ") + m_target->describe() + answeredBy);
    }
    m_everConnected = true;
    updateTimer();
    poll();
}

void StatusPoller::scheduleRetry(const QString &reason)
{
    m_connected = false;
    m_lastFailure = reason;
    m_pollTimer->stop();
    if (!m_downSince.isValid())
        m_downSince.start();
    emit connectionChanged(ConnectionState::Failed, reason);
    if (m_target && !m_suspended)
        m_retryTimer->start(retryDelayMs(m_retryAttempt++));
}

bool StatusPoller::checkSchemaAndPrivileges(QSqlDatabase &db, QString *failure)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (!query.exec(QString::fromLatin1(PrivilegesSql)) || !query.next()) {
        *failure = describeError(query.lastError());
        return false;
    }
    const QString user = query.value(0).toString();
    const QString database = query.value(1).toString();
    if (!query.value(2).toBool()) {
        *failure = QStringLiteral("the lease schema is missing in database %1: %2")
                           .arg(database, MigrateHint);
        return false;
    }
    if (!query.value(3).toBool()) {
        *failure = QStringLiteral("privilege missing: %1 may not read leader_status; "
                                  "GRANT hardcount_monitor TO %1 (or GRANT SELECT ON "
                                  "leader_status TO %1)")
                           .arg(user);
        return false;
    }
    Privileges privileges;
    privileges.canPause = query.value(4).toBool();
    privileges.canUnpause = query.value(5).toBool();
    QStringList missing;
    if (!privileges.canPause)
        missing << QStringLiteral("leader_pause");
    if (!privileges.canUnpause)
        missing << QStringLiteral("leader_unpause");
    if (!missing.isEmpty()) {
        privileges.reason = QStringLiteral("read-only: %1 has no EXECUTE on %2")
                                    .arg(user, missing.join(QStringLiteral(" or ")));
    }
    emit privilegesChanged(privileges);
    return true;
}

void StatusPoller::poll()
{
    if (!m_connected)
        return;
    QString failure;
    bool broken = false;
    StatusSnapshot result;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        QSqlQuery query(db);
        query.setForwardOnly(true);
        const qint64 sentAtMs = QDateTime::currentMSecsSinceEpoch();
        QElapsedTimer roundTrip;
        roundTrip.start();
        // No statement_timeout here (it needs SET, which a transaction pooler leaks or refuses):
        // a dead server fails this within connect_timeout/keepalives/tcp_user_timeout (see
        // ConnectionProfile::applyTo), and a slow one blocks only this thread, never the GUI.
        bool ok = query.exec(QString::fromLatin1(PollSql));
        while (ok && query.next()) {
            RoleStatus status;
            status.role = query.value(0).toString();
            status.state = parseRoleState(query.value(1).toString());
            status.holderId = query.value(2).toString();
            status.token = query.value(3).toLongLong();
            status.acquiredAt = utcFromEpoch(query, 4);
            status.expiresInSeconds = optionalDouble(query, 5);
            status.lastTickEndedAt = utcFromEpoch(query, 6);
            status.lastTickHolder = query.value(7).toString();
            status.lastTickAgeSeconds = optionalDouble(query, 8);
            status.pausedAt = utcFromEpoch(query, 9);
            status.pausedBy = query.value(10).toString();
            status.pauseReason = query.value(11).toString();
            status.notBefore = utcFromEpoch(query, 12);
            status.notBeforeInSeconds = optionalDouble(query, 13);
            result.databaseTime = utcFromEpoch(query, 14);
            result.roles.append(status);
        }
        // In single-row (forward-only) mode an error can arrive after exec() succeeded.
        if (!ok || query.lastError().isValid()) {
            failure = describeError(query.lastError());
            broken = connectionBroken(db, query.lastError());
        } else {
            result.roundTripMs = roundTrip.nsecsElapsed() / 1e6;
            result.receivedAt = QDateTime::currentDateTimeUtc();
            if (result.databaseTime.isValid()) {
                result.clockDriftMs = double(result.databaseTime.toMSecsSinceEpoch())
                                      - (double(sentAtMs) + result.roundTripMs / 2);
            }
        }
    }
    if (!failure.isEmpty()) {
        if (broken)
            lost(failure);
        else
            emit pollFailed(failure);
        return;
    }
    m_immediateRetryUsed = false;
    m_retryAttempt = 0;
    m_downSince.invalidate();
    emit snapshot(result);
}

void StatusPoller::lost(const QString &reason)
{
    emit pollFailed(reason);
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
    if (m_connectionName.isEmpty())
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
    m_connectionName.clear();
}

void StatusPoller::updateTimer()
{
    if (m_connected && !m_suspended && m_intervalMs > 0)
        m_pollTimer->start(m_intervalMs);
    else
        m_pollTimer->stop();
}

bool StatusPoller::connectionBroken(QSqlDatabase &db, const QSqlError &error) const
{
    if (closedByServer(error.nativeErrorCode(), oneLine(error.databaseText()))
        || closedByServer(QString(), oneLine(error.driverText())))
        return true;
    // A write refused as read-only: the server is a standby, or a primary since demoted. A new
    // connection lets target_session_attrs (read-write) find the primary of a host list.
    if (error.nativeErrorCode() == QLatin1String("25006"))
        return true;
    if (!db.isValid() || !db.isOpen())
        return true;
    if (isLibpqHandle(db.driver()->handle())) {
        const PGconn *connection = libpqConnection(db);
        return !connection || PQstatus(connection) != CONNECTION_OK;
    }
    return false;
}

QString StatusPoller::describeError(const QSqlError &error) const
{
    QString detail = connectAttempts(error.databaseText());
    if (detail.isEmpty())
        detail = oneLine(error.driverText());
    if (detail.isEmpty())
        detail = QStringLiteral("unknown error");
    const QString code = error.nativeErrorCode();

    QString message;
    if (code == QLatin1String("28P01") || code == QLatin1String("28000")
        || containsAny(detail, {"password authentication failed", "no password supplied",
                                "authentication failed", "password is required"})) {
        message = QStringLiteral("authentication failed: ") + detail;
    } else if (code == QLatin1String("3D000")
               || (detail.contains(QLatin1String("database \""))
                   && detail.contains("does not exist"))
               || detail.contains(QLatin1String("no such database"))) {
        message = QStringLiteral("database missing: ") + detail;
    } else if (containsAny(detail, {"Connection refused", "could not translate host name",
                                    "timeout expired", "No such file or directory",
                                    "Network is unreachable", "No route to host",
                                    "could not connect", "Connection timed out"})) {
        message = QStringLiteral("cannot reach the server: ") + detail;
    } else if (closedByServer(code, detail)) {
        message = QStringLiteral("the server closed the connection: ") + detail;
    } else if (code == QLatin1String("42P01") || code == QLatin1String("42883")
               || code == QLatin1String("42703")) {
        message = QStringLiteral("the lease schema is missing or out of date (%1): %2")
                          .arg(detail, MigrateHint);
    } else if (code == QLatin1String("42501")) {
        message = QStringLiteral("privilege missing: ") + detail;
    } else {
        message = detail;
    }
    if (!code.isEmpty()) {
        const QString meaning = sqlStateMeaning(code);
        message += meaning.isEmpty() ? QStringLiteral(" (SQLSTATE %1)").arg(code)
                                     : QStringLiteral(" (SQLSTATE %1: %2)").arg(code, meaning);
    }
    if (m_target && !m_target->password.isEmpty())
        message.replace(m_target->password, QStringLiteral("***"));
    return message;
}

QString StatusPoller::literal(QSqlDatabase &db, const QString &value) const
{
    // The driver's own escaper knows whether this server treats backslashes as escapes.
    QSqlField field(QString(), QMetaType(QMetaType::QString));
    field.setValue(value);
    return db.driver()->formatValue(field);
}

QString StatusPoller::notConnectedMessage() const
{
    return m_lastFailure.isEmpty() ? QStringLiteral("not connected")
                                   : QStringLiteral("not connected: ") + m_lastFailure;
}

void StatusPoller::runAction(const QString &role, const QString &action, const QString &sql)
{
    QString failure;
    bool broken = false;
    QString message;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        QSqlQuery query(db);
        query.setForwardOnly(true);
        if (!query.exec(sql) || !query.next()) {
            failure = describeError(query.lastError());
            broken = connectionBroken(db, query.lastError());
        } else if (action == QLatin1String("pause")) {
            const QDateTime pausedAt = utcFromEpoch(query, 0);
            message = QStringLiteral("%1 paused at %2")
                              .arg(role,
                                   pausedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")));
        } else {
            message = query.value(0).toBool() ? QStringLiteral("%1 unpaused").arg(role)
                                              : QStringLiteral("%1 was not paused").arg(role);
        }
    }
    if (!failure.isEmpty()) {
        emit actionFinished(role, action, false, failure);
        if (broken)
            lost(failure);
        return;
    }
    emit actionFinished(role, action, true, message);
    poll(); // the new state shows at once, not at the next tick of the timer
}

} // namespace leader::console
