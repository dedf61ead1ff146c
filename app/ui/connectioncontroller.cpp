#include "connectioncontroller.h"

#include "connectionbanner.h"
#include "connectiondialog.h"
#include "core/consolesession.h"
#include "core/passwordstore.h"
#include "core/profilestore.h"
#include "stackedwidgets.h"

#include <QMessageBox>

namespace leader::console {

ConnectionController::ConnectionController(QWidget *window, ConsoleSession *session, bool demo)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_passwords(new PasswordStore(this))
    , m_banner(new ConnectionBanner(window))
    , m_demo(demo)
{
    connect(m_passwords, &PasswordStore::unavailable, this,
            &ConnectionController::keychainUnavailable);
    connect(session, &ConsoleSession::demoStarted, this, [this](ConnectionProfile monitor) {
        monitor.password.clear(); // the window only names it
        m_target = monitor;
        m_hasTarget = true;
    });
    connect(session, &ConsoleSession::connectionChanged, this,
            &ConnectionController::onConnectionChanged);
    connect(session, &ConsoleSession::retryScheduled, m_banner, &ConnectionBanner::setRetryIn);
    connect(m_banner, &ConnectionBanner::retryRequested, session, &ConsoleSession::refresh);
    connect(m_banner, &ConnectionBanner::editRequested, this,
            [this] { openDialog(m_banner->reason()); });
}

ConnectionController::~ConnectionController() = default;

QString ConnectionController::title() const
{
    if (m_demo)
        return tr("demo");
    if (!m_hasTarget)
        return tr("not connected");
    return m_target.name.isEmpty()
                   ? m_target.describe()
                   : m_target.name + QLatin1String(" (") + m_target.describe() + QLatin1Char(')');
}

QString ConnectionController::connectionName() const
{
    return m_demo ? tr("demo (%1)").arg(m_target.describe()) : m_target.describe();
}

void ConnectionController::connectToUrl(const QString &url)
{
    QString error;
    const std::optional<ConnectionProfile> profile = ConnectionProfile::fromUrl(url, &error);
    if (!profile) {
        openDialog(error);
        return;
    }
    connectTo(*profile);
}

void ConnectionController::connectToProfile(const QString &name)
{
    ProfileStore store;
    const std::optional<ConnectionProfile> profile = store.load(name);
    if (!profile) {
        openDialog(tr("no saved profile named \"%1\"").arg(name));
        return;
    }
    // The password, if remembered, comes from the keychain; the connection is made either way
    // (a server with trust or .pgpass needs none) and a refusal reopens the dialog.
    connect(
            m_passwords, &PasswordStore::passwordRead, this,
            [this, profile = *profile](const QString &name, const QString &password,
                                       bool found) mutable {
                if (name != profile.name || m_hasTarget)
                    return;
                if (found)
                    profile.password = password;
                connectTo(profile);
            },
            Qt::SingleShotConnection);
    m_passwords->read(profile->name);
}

void ConnectionController::connectTo(const ConnectionProfile &profile)
{
    const bool anotherDatabase = m_hasTarget && !(profile == m_target);
    m_target = profile;
    m_hasTarget = true;
    m_dialogAttempt = DialogAttempt::None;
    m_banner->setConnectionState(ConnectionState::Disconnected, {}); // the last target's trouble
    Q_EMIT connecting(anotherDatabase);
    m_session->connectTo(profile);
}

void ConnectionController::openDialog(const QString &error)
{
    if (m_dialog) {
        m_dialog->setError(error);
        m_dialog->raise();
        return;
    }
    auto *dialog = new ConnectionDialog(nullptr, m_passwords, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (m_hasTarget && !m_demo)
        dialog->setProfile(m_target);
    if (!error.isEmpty())
        dialog->setError(error);
    m_dialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const ConnectionProfile profile = dialog->profile();
        if (m_session->isDemoRunning()) {
            const auto answer = QMessageBox::question(
                    m_window, tr("Leave the demo?"),
                    tr("Connecting to %1 stops the embedded demo (its replicas release their "
                       "roles). Continue?")
                            .arg(profile.describe()));
            if (answer != QMessageBox::Yes)
                return;
            m_session->stopDemo();
            Q_EMIT demoLeft();
        }
        m_demo = false;
        connectTo(profile);
        m_dialogAttempt = DialogAttempt::Sent;
    });
    dialog->open();
}

QWidget *ConnectionController::wrap(QWidget *central)
{
    // Below the views, not above: the status table keeps its place when an outage starts (the
    // stale mark's promise); the chart below it gives up the line.
    return stackedWidgets({central, m_banner});
}

void ConnectionController::onConnectionChanged(ConnectionState state, const QString &message)
{
    m_banner->setConnectionState(state, message);
    // Only the operator's Connect in the dialog is answered in the dialog, once: a dialog that
    // reopened on every retry blocked the fleet's other tabs and the window's close until someone
    // dismissed it, again and again.
    switch (state) {
    case ConnectionState::Connecting:
        if (m_dialogAttempt == DialogAttempt::Sent)
            m_dialogAttempt = DialogAttempt::Trying;
        break;
    case ConnectionState::Failed:
        if (m_dialogAttempt != DialogAttempt::Trying)
            break;
        m_dialogAttempt = DialogAttempt::None;
        if (m_session->phase() == ConsoleSession::Phase::Running)
            openDialog(message);
        break;
    case ConnectionState::Connected:
    case ConnectionState::Reconnected:
    case ConnectionState::Disconnected:
        m_dialogAttempt = DialogAttempt::None;
        break;
    }
}

} // namespace leader::console
