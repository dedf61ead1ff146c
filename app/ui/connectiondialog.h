#pragma once

#include "core/connectionprofile.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace leader::console {

class PasswordStore;
class ProfileStore;

// Where to connect: a saved profile, a pasted postgresql:// URL, or fields typed by hand. The
// password is kept in the keychain only when asked and when there is one; without a keychain the
// dialog says so and the password is asked for each time. The main window reopens the dialog with
// setError() when the poller could not connect.
class ConnectionDialog final : public QDialog
{
    Q_OBJECT

public:
    // Null stores: the dialog makes its own (the application's QSettings, a fresh PasswordStore).
    explicit ConnectionDialog(ProfileStore *profiles = nullptr, PasswordStore *passwords = nullptr,
                              QWidget *parent = nullptr);
    ~ConnectionDialog() override;

    // The chosen target, password included.
    ConnectionProfile profile() const;
    // Fills the fields (e.g. from --database or the last failed attempt); selects the saved
    // profile of that name if there is one, without reading its password over this one.
    void setProfile(const ConnectionProfile &profile);
    // Selects a saved profile (its password is read from the keychain when it was remembered).
    void selectProfile(const QString &name);

    // One line in red under the fields (host, authentication, schema or privilege failure); an
    // empty message hides it.
    void setError(const QString &message);
    QString error() const;

    bool rememberPassword() const;
    // Host and database given; one port (1-65535) for every host, or one per host.
    bool isValid() const;
    QString validationMessage() const; // empty when valid

    void accept() override; // Connect: ignored while invalid

Q_SIGNALS:
    void profilesChanged(); // a profile was saved or deleted

private:
    void buildUi();
    void reloadProfiles(const QString &select);
    void onProfileSelected(int index);
    void onUrlChanged(const QString &text);
    void onPasswordRead(const QString &name, const QString &password, bool found);
    void updateKeychainState();
    void validate();
    void save();
    void deleteProfile();
    void storePassword(const QString &name);
    QString selectedProfileName() const;

    std::unique_ptr<ProfileStore> m_ownProfiles;
    ProfileStore *m_profiles = nullptr;
    PasswordStore *m_passwords = nullptr;
    QString m_pendingRead; // the profile whose password is being read from the keychain

    QComboBox *m_profileCombo = nullptr;
    QLineEdit *m_urlEdit = nullptr;
    QLabel *m_urlError = nullptr;
    QLineEdit *m_nameEdit = nullptr;
    QLineEdit *m_hostEdit = nullptr;
    QLineEdit *m_portEdit = nullptr;
    QLineEdit *m_databaseEdit = nullptr;
    QLineEdit *m_userEdit = nullptr;
    QLineEdit *m_passwordEdit = nullptr;
    QComboBox *m_sslCombo = nullptr;
    QComboBox *m_targetCombo = nullptr;
    QComboBox *m_environmentCombo = nullptr;
    QComboBox *m_colourCombo = nullptr;
    QCheckBox *m_rememberCheck = nullptr;
    QLabel *m_keychainNote = nullptr;
    QLabel *m_validationLabel = nullptr;
    QLabel *m_errorLabel = nullptr;
    QPushButton *m_connectButton = nullptr;
    QPushButton *m_saveButton = nullptr;
    QPushButton *m_deleteButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
};

} // namespace leader::console
