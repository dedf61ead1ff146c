#pragma once

#include "core/connectionprofile.h"
#include "core/statustypes.h"

#include <QObject>
#include <QPointer>

class QWidget;

namespace leader::console {

class ConnectionBanner;
class ConnectionDialog;
class ConsoleSession;
class PasswordStore;

// Which database the window watches and how it gets there: a URL or a saved profile from the
// command line (the profile's password from the keychain when one was remembered), File > Connect
// and its dialog, and leaving the embedded demo for a real database. A dialog opens only from the
// operator's action: the dialog's own Connect, when its first attempt fails, reopens it with the
// reason; every other failure is the poller's to retry, shown in the banner below the window's
// views (its countdown, Retry now, Edit…).
class ConnectionController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionController)

public:
    // demo: the window starts with the embedded demo (its target comes from demoStarted).
    ConnectionController(QWidget *window, ConsoleSession *session, bool demo);
    ~ConnectionController() override;

    bool isDemo() const { return m_demo; }
    bool hasTarget() const { return m_hasTarget; }
    const ConnectionProfile &target() const { return m_target; } // no password for the demo's
    // For the window's title: "demo", "name (user@host:5432/db)", "not connected".
    QString title() const;
    // For the status bar: "demo (user@host:5432/db)", "user@host:5432/db".
    QString connectionName() const;

    // A postgresql:// URL; one that does not parse opens the dialog with the reason.
    void connectToUrl(const QString &url);
    // A saved profile; a name not saved opens the dialog with the reason.
    void connectToProfile(const QString &name);
    void connectTo(const ConnectionProfile &profile);
    // Raises the dialog if it is open, with error (empty: none) in either case.
    void openDialog(const QString &error = {});

    // central with the connection banner below it: what the window sets as its central widget.
    QWidget *wrap(QWidget *central);
    ConnectionBanner *banner() const { return m_banner; }

Q_SIGNALS:
    // Before the session connects; anotherDatabase: what was shown is not this database's.
    void connecting(bool anotherDatabase);
    // The operator left the demo for a database; the demo is stopping.
    void demoLeft();
    // Passwords are not remembered for the rest of the process; one line, never a secret.
    void keychainUnavailable(const QString &reason);

private:
    // The dialog's Connect, until its first attempt ends: Sent until the poller starts on it
    // (a Failed before that is the previous target's), then Trying.
    enum class DialogAttempt { None, Sent, Trying };

    void onConnectionChanged(ConnectionState state, const QString &message);

    QWidget *m_window;
    ConsoleSession *m_session;
    PasswordStore *m_passwords;
    ConnectionBanner *m_banner;
    bool m_demo;
    ConnectionProfile m_target;
    bool m_hasTarget = false;
    DialogAttempt m_dialogAttempt = DialogAttempt::None;
    QPointer<ConnectionDialog> m_dialog;
};

} // namespace leader::console
