#include "sessionstatusbar.h"

#include "core/extensionnotes.h"

#include <QLabel>
#include <QRegularExpression>
#include <QStatusBar>
#include <QStringList>

namespace leader::console {

namespace {

// A server's message on one line without what the banner says already: the target, restated by
// the engine ("cannot connect to user@db1:5432/app: ") and by libpq ("connection to server at
// "db1" (10.0.0.5), port 5432 failed: ", or "on socket …"), and libpq's generic hint ("Is the
// server running on that host…?"). The tooltip keeps all of it.
QString withoutRestatedTarget(const QString &message)
{
    static const QRegularExpression restated(
            QStringLiteral(R"(cannot connect to \S+: )"
                           R"(|connection to server (at "[^"]*"( \([^)]*\))?, port \d+)"
                           R"(|on socket "[^"]*") failed: )"
                           R"(|(; )?Is the server running [^?]*\?)"));
    return QString(message).remove(restated).simplified();
}

} // namespace

SessionStatusBar::SessionStatusBar(QStatusBar *bar)
    : QObject(bar)
    , m_bar(bar)
    , m_connection(new QLabel(tr("Not connected")))
    , m_latency(new QLabel)
    , m_drift(new QLabel)
    , m_earlyTake(new QLabel)
{
    m_connection->setObjectName(QStringLiteral("connectionLabel"));
    m_connection->setTextFormat(Qt::PlainText); // it quotes the server's error
    m_latency->setObjectName(QStringLiteral("latencyLabel"));
    m_latency->setToolTip(tr("Round trip of the last leader_status poll"));
    m_drift->setObjectName(QStringLiteral("driftLabel"));
    m_drift->setToolTip(tr("The database clock minus this workstation's. Ages and expiries are "
                           "computed on the database clock, so drift does not skew them."));
    m_earlyTake->setObjectName(QStringLiteral("earlyTakeLabel"));
    m_earlyTakeTip = tr(
            "The takeover at a holder's death (leader_leases.early_take): on, a role whose "
            "holder's process died runs elsewhere about 0.2 s later; off, only once its lease "
            "expired (10 s after its last heartbeat). leaderctl early-take on|off switches it.");
    m_earlyTake->setToolTip(m_earlyTakeTip);
    m_earlyTake->hide(); // until a schema with the switch answers
    bar->addWidget(m_connection, 1);
    bar->addPermanentWidget(m_earlyTake);
    bar->addPermanentWidget(m_latency);
    bar->addPermanentWidget(m_drift);
}

SessionStatusBar::~SessionStatusBar() = default;

QString SessionStatusBar::showConnection(ConnectionState state, const QString &message,
                                         const QString &target)
{
    m_state = state;
    m_target = target;
    if (isConnected(state))
        m_connectProblem.clear();
    else if (state == ConnectionState::Failed)
        m_connectProblem = message;
    switch (state) {
    case ConnectionState::Connected:
        m_connection->setText(tr("Connected to %1").arg(target));
        break;
    case ConnectionState::Reconnected:
        // The poller's message says more than the state ("reconnected … after 4 s").
        m_connection->setText(tr("%1: %2").arg(target, message));
        break;
    case ConnectionState::Connecting:
        m_connection->setText(message.isEmpty() ? tr("Connecting to %1…").arg(target) : message);
        break;
    case ConnectionState::Failed:
        m_connection->setText(tr("%1: %2").arg(target, message));
        break;
    case ConnectionState::Disconnected:
        m_connection->setText(tr("Not connected"));
        break;
    }
    return m_connection->text();
}

void SessionStatusBar::showStep(const QString &text)
{
    m_connection->setText(text);
}

void SessionStatusBar::showSnapshot(const StatusSnapshot &snapshot)
{
    m_lastProblem.clear();
    m_latency->setText(tr("poll %1 ms").arg(snapshot.roundTripMs, 0, 'f', 1));
    m_drift->setText(tr("db clock %1%2 ms")
                             .arg(snapshot.clockDriftMs >= 0 ? QStringLiteral("+") : QString())
                             .arg(snapshot.clockDriftMs, 0, 'f', 0));
    QStringList off;
    bool known = false;
    for (const RoleStatus &role : snapshot.roles) {
        known = known || role.earlyTake.has_value();
        if (role.earlyTake == false)
            off << role.role;
    }
    // The ADR's own takeover, as ADR-114 has it: nothing to warn about, but said once where the
    // switch would be.
    if (!known && !m_expiryOnly.isEmpty()) {
        m_earlyTake->setVisible(true);
        m_earlyTake->setText(tr("takeover at expiry"));
        m_earlyTake->setToolTip(
                tr("A role whose holder died runs elsewhere once its lease expired (10 s after "
                   "its last heartbeat). %1")
                        .arg(m_expiryOnly));
        return;
    }
    m_earlyTake->setToolTip(m_earlyTakeTip);
    m_earlyTake->setVisible(known);
    if (off.isEmpty())
        m_earlyTake->setText(tr("early take on"));
    else if (off.size() == snapshot.roles.size())
        m_earlyTake->setText(tr("early take off"));
    else
        m_earlyTake->setText(tr("early take off: %1").arg(off.join(QStringLiteral(", "))));
}

void SessionStatusBar::showStale()
{
    m_latency->setText(tr("poll —"));
    m_drift->setText(tr("db clock —"));
}

void SessionStatusBar::showFeatures(const DatabaseFeatures &features)
{
    m_expiryOnly = extensionNeeded(features, ExtensionFeature::TakeoverAtDeath);
    if (!m_expiryOnly.isEmpty())
        m_expiryOnly[0] = m_expiryOnly[0].toUpper();
}

void SessionStatusBar::showPollProblem(const QString &message)
{
    m_lastProblem = message;
    m_bar->showMessage(tr("Poll failed: %1").arg(message), 10000);
}

QString SessionStatusBar::staleReason() const
{
    QString cause;
    QString next = tr("retrying"); // the poller reconnects and polls again by itself
    if (m_state == ConnectionState::Disconnected) {
        cause = tr("not connected");
        next.clear();
    } else if (!isConnected(m_state)) {
        cause = m_connectProblem.isEmpty() ? tr("connecting")
                                           : withoutRestatedTarget(m_connectProblem);
    } else if (!m_lastProblem.isEmpty()) {
        cause = tr("poll failed: %1").arg(withoutRestatedTarget(m_lastProblem));
    } else {
        cause = tr("no answer within two poll intervals");
        next = tr("still waiting");
    }
    const QString line = m_target.isEmpty() ? cause : tr("%1: %2").arg(m_target, cause);
    return next.isEmpty() ? line : tr("%1 — %2").arg(next, line);
}

QString SessionStatusBar::staleDetail() const
{
    if (!isConnected(m_state))
        return m_connection->text();
    if (!m_lastProblem.isEmpty())
        return tr("Poll failed: %1").arg(m_lastProblem);
    return tr("No answer from the database within two poll intervals.");
}

} // namespace leader::console
