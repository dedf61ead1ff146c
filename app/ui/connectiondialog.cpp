#include "ui/connectiondialog.h"

#include "core/passwordstore.h"
#include "core/profilestore.h"
#include "ui/dialogfit.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace leader::console {

namespace {

// A libpq keyword's values from its table: each shown by its label, holding its value, its meaning
// as its tooltip, which the combo's own follows.
void fillKeywordCombo(QComboBox *combo, std::span<const KeywordValue> values)
{
    for (const KeywordValue &entry : values) {
        combo->addItem(entry.label, QString(entry.value));
        combo->setItemData(combo->count() - 1, entry.meaningText(), Qt::ToolTipRole);
    }
    QObject::connect(combo, &QComboBox::currentIndexChanged, combo, [combo] {
        combo->setToolTip(combo->currentData(Qt::ToolTipRole).toString());
    });
}

QLabel *makeNote(const QString &objectName, bool red)
{
    auto label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    if (red)
        setAlertText(label);
    label->hide();
    return label;
}

void showNote(QLabel *label, const QString &text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

} // namespace

ConnectionDialog::ConnectionDialog(ProfileStore *profiles, PasswordStore *passwords,
                                   QWidget *parent)
    : QDialog(parent)
    , m_profiles(profiles)
    , m_passwords(passwords)
{
    if (!m_profiles) {
        m_ownProfiles = std::make_unique<ProfileStore>();
        m_profiles = m_ownProfiles.get();
    }
    if (!m_passwords)
        m_passwords = new PasswordStore(this);

    setObjectName(QStringLiteral("ConnectionDialog"));
    setWindowTitle(tr("Connect to a database"));
    buildUi();

    connect(m_passwords, &PasswordStore::passwordRead, this, &ConnectionDialog::onPasswordRead);
    connect(m_passwords, &PasswordStore::unavailable, this, &ConnectionDialog::updateKeychainState);
    m_passwords->probe();
    updateKeychainState();

    reloadProfiles(m_profiles->lastUsed());
    onProfileSelected(m_profileCombo->currentIndex());
    fitToContents(this);
}

ConnectionDialog::~ConnectionDialog() = default;

void ConnectionDialog::buildUi()
{
    m_profileCombo = new QComboBox;
    m_profileCombo->setObjectName(QStringLiteral("profileCombo"));

    m_urlEdit = new QLineEdit;
    m_urlEdit->setObjectName(QStringLiteral("urlEdit"));
    m_urlEdit->setPlaceholderText(tr("Paste a postgresql:// URL"));
    m_urlEdit->setClearButtonEnabled(true);
    m_urlError = makeNote(QStringLiteral("urlErrorLabel"), true);

    m_nameEdit = new QLineEdit;
    m_nameEdit->setObjectName(QStringLiteral("nameEdit"));
    m_nameEdit->setPlaceholderText(tr("Needed only to save the profile"));
    m_hostEdit = new QLineEdit;
    m_hostEdit->setObjectName(QStringLiteral("hostEdit"));
    m_hostEdit->setPlaceholderText(
            tr("Name, address or Unix-socket directory; a list (db1,db2) to follow a failover"));
    m_portEdit = new QLineEdit(QStringLiteral("5432"));
    m_portEdit->setObjectName(QStringLiteral("portEdit"));
    m_portEdit->setPlaceholderText(tr("5432, or one per host: 5432,5433"));
    m_databaseEdit = new QLineEdit;
    m_databaseEdit->setObjectName(QStringLiteral("databaseEdit"));
    m_userEdit = new QLineEdit;
    m_userEdit->setObjectName(QStringLiteral("userEdit"));
    m_passwordEdit = new QLineEdit;
    m_passwordEdit->setObjectName(QStringLiteral("passwordEdit"));
    m_passwordEdit->setEchoMode(QLineEdit::Password);

    m_sslCombo = new QComboBox;
    m_sslCombo->setObjectName(QStringLiteral("sslModeCombo"));
    fillKeywordCombo(m_sslCombo, ConnectionProfile::sslModes());

    m_targetCombo = new QComboBox;
    m_targetCombo->setObjectName(QStringLiteral("targetSessionCombo"));
    fillKeywordCombo(m_targetCombo, ConnectionProfile::targetSessionAttrsValues());

    // Editable: any label; the three usual ones offered. "production" locks writes at connect.
    m_environmentCombo = new QComboBox;
    m_environmentCombo->setObjectName(QStringLiteral("environmentCombo"));
    m_environmentCombo->setEditable(true);
    m_environmentCombo->addItems({QString(), QStringLiteral("development"),
                                  QStringLiteral("staging"), QStringLiteral("production")});
    m_environmentCombo->setToolTip(
            tr("Shown as a coloured band across the window. A production profile opens with "
               "pause and unpause locked until writes are unlocked for that window, and "
               "confirming one needs the role's name typed."));
    m_colourCombo = new QComboBox;
    m_colourCombo->setObjectName(QStringLiteral("colourCombo"));
    m_colourCombo->addItem(tr("the environment's (production red, staging orange, else blue)"),
                           QString());
    const std::pair<const char *, const char *> colours[]
            = {{QT_TR_NOOP("red"), "#c62828"},    {QT_TR_NOOP("orange"), "#ef6c00"},
               {QT_TR_NOOP("yellow"), "#f9a825"}, {QT_TR_NOOP("green"), "#2e7d32"},
               {QT_TR_NOOP("blue"), "#1565c0"},   {QT_TR_NOOP("purple"), "#6a1b9a"},
               {QT_TR_NOOP("grey"), "#616161"}};
    for (const auto &[name, hex] : colours) {
        m_colourCombo->addItem(tr(name), QString::fromLatin1(hex));
        m_colourCombo->setItemData(m_colourCombo->count() - 1, QColor(QString::fromLatin1(hex)),
                                   Qt::DecorationRole);
    }

    m_rememberCheck = new QCheckBox(tr("Remember the password in the keychain"));
    m_rememberCheck->setObjectName(QStringLiteral("rememberPasswordCheck"));
    m_keychainNote = makeNote(QStringLiteral("keychainNoteLabel"), false);
    m_validationLabel = makeNote(QStringLiteral("validationLabel"), false);
    m_errorLabel = makeNote(QStringLiteral("errorLabel"), true);

    m_connectButton = new QPushButton(tr("Connect"));
    m_connectButton->setObjectName(QStringLiteral("connectButton"));
    m_connectButton->setDefault(true);
    m_saveButton = new QPushButton(tr("Save"));
    m_saveButton->setObjectName(QStringLiteral("saveButton"));
    m_saveButton->setAutoDefault(false);
    m_deleteButton = new QPushButton(tr("Delete"));
    m_deleteButton->setObjectName(QStringLiteral("deleteButton"));
    m_deleteButton->setAutoDefault(false);
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setAutoDefault(false);

    auto buttons = new QDialogButtonBox;
    buttons->addButton(m_connectButton, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_saveButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_deleteButton, QDialogButtonBox::DestructiveRole);
    buttons->addButton(m_cancelButton, QDialogButtonBox::RejectRole);

    auto form = new QFormLayout;
    form->addRow(tr("&Profile:"), m_profileCombo);
    form->addRow(tr("&URL:"), m_urlEdit);
    form->addRow(QString(), m_urlError);
    form->addRow(tr("&Name:"), m_nameEdit);
    form->addRow(tr("&Host:"), m_hostEdit);
    form->addRow(tr("P&ort:"), m_portEdit);
    form->addRow(tr("&Database:"), m_databaseEdit);
    form->addRow(tr("U&ser:"), m_userEdit);
    form->addRow(tr("Pass&word:"), m_passwordEdit);
    form->addRow(tr("SS&L mode:"), m_sslCombo);
    form->addRow(tr("&Target session:"), m_targetCombo);
    form->addRow(tr("&Environment:"), m_environmentCombo);
    form->addRow(tr("Band &colour:"), m_colourCombo);
    form->addRow(QString(), m_rememberCheck);
    form->addRow(QString(), m_keychainNote);

    auto layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_validationLabel);
    layout->addWidget(m_errorLabel);
    layout->addWidget(buttons);

    connect(m_profileCombo, &QComboBox::currentIndexChanged, this,
            &ConnectionDialog::onProfileSelected);
    connect(m_urlEdit, &QLineEdit::textChanged, this, &ConnectionDialog::onUrlChanged);
    for (QLineEdit *edit : {m_nameEdit, m_hostEdit, m_portEdit, m_databaseEdit, m_userEdit})
        connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::validate);
    connect(m_connectButton, &QPushButton::clicked, this, &ConnectionDialog::accept);
    connect(m_saveButton, &QPushButton::clicked, this, &ConnectionDialog::save);
    connect(m_deleteButton, &QPushButton::clicked, this, &ConnectionDialog::deleteProfile);
    connect(m_cancelButton, &QPushButton::clicked, this, &ConnectionDialog::reject);
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile result;
    result.name = m_nameEdit->text().trimmed();
    result.host = m_hostEdit->text().trimmed();
    result.setPortList(m_portEdit->text());
    result.database = m_databaseEdit->text().trimmed();
    result.user = m_userEdit->text().trimmed();
    result.sslMode = m_sslCombo->currentData().toString();
    result.targetSessionAttrs = m_targetCombo->currentData().toString();
    result.password = m_passwordEdit->text();
    result.environment = m_environmentCombo->currentText().trimmed();
    result.colour = m_colourCombo->currentData().toString();
    return result;
}

void ConnectionDialog::setProfile(const ConnectionProfile &profile)
{
    {
        // Selecting the saved entry must not overwrite these fields with the stored ones.
        const QSignalBlocker blocker(m_profileCombo);
        const int index = m_profileCombo->findData(profile.name);
        m_profileCombo->setCurrentIndex(profile.name.isEmpty() || index < 0 ? 0 : index);
    }
    m_pendingRead.clear();
    m_nameEdit->setText(profile.name);
    m_hostEdit->setText(profile.host);
    m_portEdit->setText(profile.portList());
    m_databaseEdit->setText(profile.database);
    m_userEdit->setText(profile.user);
    m_passwordEdit->setText(profile.password);
    const int ssl = m_sslCombo->findData(profile.sslMode);
    m_sslCombo->setCurrentIndex(ssl < 0 ? m_sslCombo->findData(ConnectionProfile().sslMode) : ssl);
    const int target = m_targetCombo->findData(profile.targetSessionAttrs);
    m_targetCombo->setCurrentIndex(target < 0 ? 0 : target);
    m_environmentCombo->setCurrentText(profile.environment);
    const int colour = m_colourCombo->findData(profile.colour);
    if (colour < 0) // a colour written by hand into the settings file: kept, as itself
        m_colourCombo->addItem(profile.colour, profile.colour);
    m_colourCombo->setCurrentIndex(colour < 0 ? m_colourCombo->count() - 1 : colour);
    if (m_rememberCheck->isEnabled())
        m_rememberCheck->setChecked(m_profiles->remembersPassword(profile.name));
    validate();
}

void ConnectionDialog::selectProfile(const QString &name)
{
    const int index = m_profileCombo->findData(name);
    if (index >= 0)
        m_profileCombo->setCurrentIndex(index);
}

void ConnectionDialog::setError(const QString &message)
{
    showNote(m_errorLabel, message.trimmed());
}

QString ConnectionDialog::error() const
{
    return m_errorLabel->text();
}

bool ConnectionDialog::rememberPassword() const
{
    return m_rememberCheck->isEnabled() && m_rememberCheck->isChecked();
}

QString ConnectionDialog::validationMessage() const
{
    if (m_hostEdit->text().trimmed().isEmpty())
        return tr("Enter a host (a name, an address, or a Unix-socket directory).");
    if (m_databaseEdit->text().trimmed().isEmpty())
        return tr("Enter a database.");
    if (const QString problem
        = ConnectionProfile::checkPorts(m_hostEdit->text().trimmed(), m_portEdit->text());
        !problem.isEmpty())
        return tr("Give one port (1-65535) for every host, or one port per host: %1.").arg(problem);
    return {};
}

bool ConnectionDialog::isValid() const
{
    return validationMessage().isEmpty();
}

void ConnectionDialog::validate()
{
    const QString problem = validationMessage();
    const QString name = m_nameEdit->text().trimmed();
    QString hint = problem;
    if (hint.isEmpty() && !name.isEmpty() && !ProfileStore::isValidName(name))
        hint = tr("A profile name cannot contain '/' or '\\'.");
    showNote(m_validationLabel, hint);
    m_connectButton->setEnabled(problem.isEmpty());
    m_saveButton->setEnabled(problem.isEmpty() && ProfileStore::isValidName(name));
    m_deleteButton->setEnabled(!selectedProfileName().isEmpty());
}

QString ConnectionDialog::selectedProfileName() const
{
    return m_profileCombo->currentData().toString();
}

void ConnectionDialog::reloadProfiles(const QString &select)
{
    const QSignalBlocker blocker(m_profileCombo);
    m_profileCombo->clear();
    m_profileCombo->addItem(tr("New profile"), QString());
    const QStringList names = m_profiles->names();
    for (const QString &name : names)
        m_profileCombo->addItem(name, name);
    const int index = select.isEmpty() ? 0 : m_profileCombo->findData(select);
    m_profileCombo->setCurrentIndex(index < 0 ? 0 : index);
}

void ConnectionDialog::onProfileSelected(int index)
{
    const QString name = m_profileCombo->itemData(index).toString();
    ConnectionProfile profile;
    if (!name.isEmpty()) {
        if (const auto saved = m_profiles->load(name))
            profile = *saved;
    }
    setProfile(profile);
    {
        const QSignalBlocker blocker(m_profileCombo);
        m_profileCombo->setCurrentIndex(index);
    }
    validate();
    if (!name.isEmpty() && m_profiles->remembersPassword(name) && !PasswordStore::isUnavailable()) {
        m_pendingRead = name;
        m_passwords->read(name);
    }
}

void ConnectionDialog::onUrlChanged(const QString &text)
{
    const QString url = text.trimmed();
    if (url.isEmpty()) {
        showNote(m_urlError, {});
        return;
    }
    QString error;
    const std::optional<ConnectionProfile> parsed = ConnectionProfile::fromUrl(url, &error);
    if (!parsed) {
        showNote(m_urlError, error.isEmpty() ? tr("Not a postgresql:// URL.") : error);
        return;
    }
    showNote(m_urlError, {});
    ConnectionProfile filled = *parsed;
    filled.name = m_nameEdit->text().trimmed();
    // A URL says nothing of the environment: what was chosen stays.
    filled.environment = m_environmentCombo->currentText().trimmed();
    filled.colour = m_colourCombo->currentData().toString();
    if (filled.password.isEmpty())
        filled.password = m_passwordEdit->text();
    const bool remember = m_rememberCheck->isChecked();
    setProfile(filled);
    m_rememberCheck->setChecked(remember && m_rememberCheck->isEnabled());
}

void ConnectionDialog::onPasswordRead(const QString &name, const QString &password, bool found)
{
    updateKeychainState();
    if (name != m_pendingRead)
        return;
    m_pendingRead.clear();
    // Never overwrite what the user typed meanwhile.
    if (found && m_passwordEdit->text().isEmpty() && m_nameEdit->text().trimmed() == name)
        m_passwordEdit->setText(password);
}

void ConnectionDialog::updateKeychainState()
{
    if (!PasswordStore::isUnavailable()) {
        m_rememberCheck->setEnabled(true);
        m_rememberCheck->setToolTip(tr("Keep the password in the desktop keychain (service "
                                       "\"%1\"), never in the settings "
                                       "file.")
                                            .arg(PasswordStore::serviceName()));
        showNote(m_keychainNote, {});
        return;
    }
    const QString note = tr("Passwords are not remembered: no keychain (%1). The password is asked "
                            "for each time and stored nowhere.")
                                 .arg(PasswordStore::unavailableReason());
    m_rememberCheck->setChecked(false);
    m_rememberCheck->setEnabled(false);
    m_rememberCheck->setToolTip(note);
    showNote(m_keychainNote, note);
}

void ConnectionDialog::storePassword(const QString &name)
{
    if (PasswordStore::isUnavailable())
        return;
    const bool wasRemembered = m_profiles->remembersPassword(name);
    const bool remember = rememberPassword();
    m_profiles->setRemembersPassword(name, remember);
    if (remember && !m_passwordEdit->text().isEmpty())
        m_passwords->write(name, m_passwordEdit->text());
    else if (!remember && wasRemembered)
        m_passwords->remove(name);
}

void ConnectionDialog::save()
{
    const ConnectionProfile current = profile();
    if (!isValid() || !m_profiles->save(current))
        return;
    storePassword(current.name);
    m_profiles->sync();
    reloadProfiles(current.name);
    validate();
    Q_EMIT profilesChanged();
}

void ConnectionDialog::deleteProfile()
{
    const QString name = selectedProfileName();
    if (name.isEmpty())
        return;
    if (m_profiles->remembersPassword(name) && !PasswordStore::isUnavailable())
        m_passwords->remove(name);
    m_profiles->remove(name);
    m_profiles->sync();
    // The fields stay filled, so a mistaken delete is undone with Save.
    reloadProfiles(QString());
    validate();
    Q_EMIT profilesChanged();
}

void ConnectionDialog::accept()
{
    if (!isValid())
        return;
    const ConnectionProfile current = profile();
    if (m_profiles->contains(current.name)) {
        storePassword(current.name);
        m_profiles->setLastUsed(current.name);
        m_profiles->sync();
    }
    QDialog::accept();
}

} // namespace leader::console
