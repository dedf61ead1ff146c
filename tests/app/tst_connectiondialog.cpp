#include "core/passwordstore.h"
#include "core/profilestore.h"
#include "fitcheck.h"
#include "models/tones.h"
#include "ui/connectiondialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDBusConnection>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace leader::console;
using namespace std::chrono_literals;

namespace {

template<typename T>
T *child(const QWidget &parent, const char *name)
{
    T *found = parent.findChild<T *>(QLatin1String(name));
    if (!found)
        qWarning("no child %s", name);
    return found;
}

} // namespace

class tst_ConnectionDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    // First: it is the one that meets the real keychain (or its absence) in this process.
    void keychainAnswersWithinDeadline();
    void keychainUnavailableDisablesRemember();
    void probeSaysWhyNoKeychain_data();
    void probeSaysWhyNoKeychain();
    void titleAndLinesFit_data();
    void titleAndLinesFit();
    void urlFillsFields_data();
    void urlFillsFields();
    void badUrlShowsErrorWithoutPassword_data();
    void badUrlShowsErrorWithoutPassword();
    void connectDisabledUntilValid_data();
    void connectDisabledUntilValid();
    void profileReturnsPassword();
    void saveSelectDelete();
    void setErrorShowsRedLine();
    void sslModesHaveToolTips();
    void keywordValuesRoundTrip_data();
    void keywordValuesRoundTrip();
    void environmentAndColour();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
};

void tst_ConnectionDialog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    // fromUrl fills what a URL leaves out from PG* variables; the test environment may set them.
    for (const char *name : {"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD",
                             "PGSSLMODE", "PGSERVICE"})
        qunsetenv(name);
}

void tst_ConnectionDialog::init()
{
    m_profiles.reset();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_profiles = std::make_unique<ProfileStore>(m_dir->filePath(QStringLiteral("profiles.ini")));
}

void tst_ConnectionDialog::keychainAnswersWithinDeadline()
{
    // CI has no secret service and often no D-Bus: the store must answer (not found, or
    // unavailable then not found) within its timeout, and the dialog must stay usable meanwhile.
    PasswordStore passwords;
    passwords.setTimeout(3s);
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    auto remember = child<QCheckBox>(dialog, "rememberPasswordCheck");
    QVERIFY(remember);
    const QString noBackend = PasswordStore::probeBackend();
    if (!noBackend.isEmpty()) {
        // Nothing to ask: "Remember" is off as the dialog opens, saying why, not after a job's
        // timeout (checked once: without the dialog's probe it stays enabled here).
        qInfo("no keychain backend here: %s", qPrintable(noBackend));
        QVERIFY(PasswordStore::isUnavailable());
        QVERIFY(!remember->isEnabled());
        QVERIFY2(remember->toolTip().contains(noBackend), qPrintable(remember->toolTip()));
        QVERIFY(child<QLabel>(dialog, "keychainNoteLabel")->isVisible());
    } else {
        QCOMPARE(PasswordStore::availability(), PasswordStore::Availability::Unknown);
        QVERIFY(remember->isEnabled());
    }

    QSignalSpy read(&passwords, &PasswordStore::passwordRead);
    QSignalSpy unavailable(&passwords, &PasswordStore::unavailable);
    QElapsedTimer elapsed;
    elapsed.start();
    passwords.read(QStringLiteral("tst_connectiondialog-no-such-profile"));
    QVERIFY2(elapsed.elapsed() < 1000, "read() must not block");
    QCOMPARE(read.count(), 0); // answered later, never from inside the call

    // Responsive while the keychain is being asked.
    child<QLineEdit>(dialog, "hostEdit")->setText(QStringLiteral("db"));
    child<QLineEdit>(dialog, "databaseEdit")->setText(QStringLiteral("hardcount"));
    QVERIFY(child<QPushButton>(dialog, "connectButton")->isEnabled());

    QTRY_COMPARE_WITH_TIMEOUT(read.count(), 1, 6000);
    QVERIFY(elapsed.elapsed() < 6000);
    QCOMPARE(read.at(0).at(0).toString(), QStringLiteral("tst_connectiondialog-no-such-profile"));
    QCOMPARE(read.at(0).at(2).toBool(), false);

    if (PasswordStore::isUnavailable()) {
        qInfo("keychain unavailable here: %s", qPrintable(PasswordStore::unavailableReason()));
        // Said once: by the probe as the dialog opened, else by the job that found out.
        QCOMPARE(unavailable.count(), noBackend.isEmpty() ? 1 : 0);
        QVERIFY(!PasswordStore::unavailableReason().isEmpty());
        // The open dialog heard it: no remembering, and it says why.
        QVERIFY(!remember->isEnabled());
        QVERIFY(child<QLabel>(dialog, "keychainNoteLabel")->isVisible());

        // Said once; later calls answer at once without asking the keychain again.
        elapsed.restart();
        passwords.read(QStringLiteral("another"));
        passwords.write(QStringLiteral("another"), QStringLiteral("pw"));
        QSignalSpy written(&passwords, &PasswordStore::writeFinished);
        QTRY_COMPARE_WITH_TIMEOUT(read.count(), 2, 1000);
        QTRY_COMPARE_WITH_TIMEOUT(written.count(), 1, 1000);
        QCOMPARE(written.at(0).at(1).toBool(), false);
        QVERIFY(elapsed.elapsed() < 1000);
        QCOMPARE(unavailable.count(), noBackend.isEmpty() ? 1 : 0);
    } else {
        qInfo("a keychain answered here");
        QCOMPARE(unavailable.count(), 0);
        QVERIFY(remember->isEnabled());
    }
}

void tst_ConnectionDialog::keychainUnavailableDisablesRemember()
{
    PasswordStore passwords;
    passwords.disable(QStringLiteral("no secret service in this test"));
    QVERIFY(PasswordStore::isUnavailable());

    QSignalSpy unavailable(&passwords, &PasswordStore::unavailable);
    passwords.disable(QStringLiteral("again"));
    QCOMPARE(unavailable.count(), 0); // once per process

    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    auto remember = child<QCheckBox>(dialog, "rememberPasswordCheck");
    auto note = child<QLabel>(dialog, "keychainNoteLabel");
    QVERIFY(!remember->isEnabled());
    QVERIFY(!remember->isChecked());
    QVERIFY(remember->toolTip().contains(QStringLiteral("not remembered")));
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("Passwords are not remembered: no keychain")),
             qPrintable(note->text()));
    QVERIFY(!dialog.rememberPassword());

    // Reads answer "not found" at once.
    QSignalSpy read(&passwords, &PasswordStore::passwordRead);
    passwords.read(QStringLiteral("prod"));
    QTRY_COMPARE_WITH_TIMEOUT(read.count(), 1, 1000);
    QCOMPARE(read.at(0).at(2).toBool(), false);

    // Connecting still works: the password comes from the field and is stored nowhere.
    child<QLineEdit>(dialog, "hostEdit")->setText(QStringLiteral("db"));
    child<QLineEdit>(dialog, "databaseEdit")->setText(QStringLiteral("hardcount"));
    child<QLineEdit>(dialog, "passwordEdit")->setText(QStringLiteral("typed-each-time"));
    QTest::mouseClick(child<QPushButton>(dialog, "connectButton"), Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.profile().password, QStringLiteral("typed-each-time"));
}

void tst_ConnectionDialog::probeSaysWhyNoKeychain_data()
{
    QTest::addColumn<QString>("bus");    // "none", "nowhere", "private": a bus of the test's own
    QTest::addColumn<QString>("owned");  // a name taken on the private bus before probing
    QTest::addColumn<QString>("reason"); // expected in the answer; empty: a backend may answer
    QTest::newRow("no session bus") << "none" << QString() << "no D-Bus session bus";
    QTest::newRow("a bus address that leads nowhere")
            << "nowhere" << QString() << "the D-Bus session bus does not answer";
    QTest::newRow("a bus without a secret service")
            << "private" << QString() << "no secret service or KWallet on the D-Bus session bus";
    QTest::newRow("a bus with a secret service") << "private"
                                                 << "org.freedesktop.secrets" << QString();
    QTest::newRow("a bus with KWallet") << "private"
                                        << "org.kde.kwalletd6" << QString();
}

void tst_ConnectionDialog::probeSaysWhyNoKeychain()
{
    QFETCH(QString, bus);
    QFETCH(QString, owned);
    QFETCH(QString, reason);
    const QByteArray before = qgetenv("DBUS_SESSION_BUS_ADDRESS");
    const auto restore = qScopeGuard([&before] {
        if (before.isEmpty())
            qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        else
            qputenv("DBUS_SESSION_BUS_ADDRESS", before);
    });
    QTemporaryDir dir;
    QProcess daemon;
    const auto stop = qScopeGuard([&daemon] {
        daemon.kill();
        daemon.waitForFinished();
    });
    const QString owner = QStringLiteral("tst_connectiondialog-owner");
    const auto disconnect = qScopeGuard([&owner] { QDBusConnection::disconnectFromBus(owner); });
    if (bus == QLatin1String("none")) {
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    } else if (bus == QLatin1String("nowhere")) {
        qputenv("DBUS_SESSION_BUS_ADDRESS",
                "unix:path=" + dir.filePath(QStringLiteral("no-bus")).toLocal8Bit());
    } else {
        const QString dbusDaemon = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        if (dbusDaemon.isEmpty())
            QSKIP("no dbus-daemon to run a bus of the test's own");
        // No service directories: nothing on this bus but what the test puts there.
        QFile config(dir.filePath(QStringLiteral("bus.conf")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("<busconfig><type>session</type><listen>unix:dir=" + dir.path().toLocal8Bit()
                     + "</listen><auth>EXTERNAL</auth><policy context=\"default\">"
                       "<allow send_destination=\"*\" eavesdrop=\"true\"/>"
                       "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>");
        config.close();
        daemon.start(dbusDaemon, {QStringLiteral("--config-file=") + config.fileName(),
                                  QStringLiteral("--nofork"), QStringLiteral("--print-address")});
        QVERIFY(daemon.waitForStarted());
        QTRY_VERIFY(daemon.canReadLine());
        const QByteArray address = daemon.readLine().trimmed();
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
        if (!owned.isEmpty()) {
            QDBusConnection connection
                    = QDBusConnection::connectToBus(QString::fromLocal8Bit(address), owner);
            QVERIFY(connection.isConnected());
            QVERIFY(connection.registerService(owned));
        }
    }
    QCOMPARE(PasswordStore::probeBackend(), reason);
}

void tst_ConnectionDialog::titleAndLinesFit_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("error");
    QTest::newRow("empty") << QString() << QString();
    QTest::newRow("a URL it cannot read")
            << "postgresql://bob:hunter2secret@db/hard?sslmode=sometimes" << QString();
    QTest::newRow("a failed connect")
            << QString()
            << "password authentication failed for user \"console\" (db.example.com:5432)";
}

// The title fits the title bar and no line is cut, the keychain's note included where no keychain
// answers (checked once: without fitToContents the URL's error and the keychain's note get less
// height than their wrapped lines need).
void tst_ConnectionDialog::titleAndLinesFit()
{
    QFETCH(QString, url);
    QFETCH(QString, error);
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    if (!url.isEmpty())
        child<QLineEdit>(dialog, "urlEdit")->setText(url);
    if (!error.isEmpty())
        dialog.setError(error);
    QTRY_VERIFY2(fitcheck::whatDoesNotFit(dialog).isEmpty(),
                 qPrintable(fitcheck::whatDoesNotFit(dialog)));
}

void tst_ConnectionDialog::urlFillsFields_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("port"); // the port field's text
    QTest::addColumn<QString>("database");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("sslMode");
    QTest::addColumn<QString>("target"); // target_session_attrs as the combo shows it
    QTest::addColumn<QString>("password");

    QTest::newRow("full") << "postgresql://alice:pw%40x@db.example.com:6543/hard?sslmode=require"
                          << "db.example.com"
                          << "6543"
                          << "hard"
                          << "alice"
                          << "require"
                          << "any"
                          << "pw@x";
    QTest::newRow("postgres scheme") << "postgres://bob@10.0.0.7:5433/billing"
                                     << "10.0.0.7"
                                     << "5433"
                                     << "billing"
                                     << "bob"
                                     << "prefer"
                                     << "any"
                                     << "";
    QTest::newRow("verify-full") << "postgresql://carol@pg.internal:5432/hc?sslmode=verify-full"
                                 << "pg.internal"
                                 << "5432"
                                 << "hc"
                                 << "carol"
                                 << "verify-full"
                                 << "any"
                                 << "";
    QTest::newRow("host list, a port each")
            << "postgresql://dave@db1:5432,db2:5433/hc?target_session_attrs=read-write"
            << "db1,db2"
            << "5432,5433"
            << "hc"
            << "dave"
            << "prefer"
            << "read-write"
            << "";
    QTest::newRow("host list, one port")
            << "postgresql://dave@db1:6000,db2:6000/hc?target_session_attrs=primary"
            << "db1,db2"
            << "6000"
            << "hc"
            << "dave"
            << "prefer"
            << "primary"
            << "";
}

void tst_ConnectionDialog::urlFillsFields()
{
    QFETCH(QString, url);
    QFETCH(QString, host);
    QFETCH(QString, port);
    QFETCH(QString, database);
    QFETCH(QString, user);
    QFETCH(QString, sslMode);
    QFETCH(QString, target);
    QFETCH(QString, password);

    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    child<QLineEdit>(dialog, "urlEdit")->setText(url);
    QVERIFY(!child<QLabel>(dialog, "urlErrorLabel")->isVisibleTo(&dialog));
    QCOMPARE(child<QLineEdit>(dialog, "hostEdit")->text(), host);
    QCOMPARE(child<QLineEdit>(dialog, "portEdit")->text(), port);
    QCOMPARE(child<QLineEdit>(dialog, "databaseEdit")->text(), database);
    QCOMPARE(child<QLineEdit>(dialog, "userEdit")->text(), user);
    QCOMPARE(child<QComboBox>(dialog, "sslModeCombo")->currentText(), sslMode);
    QCOMPARE(child<QComboBox>(dialog, "targetSessionCombo")->currentText(), target);
    QCOMPARE(child<QLineEdit>(dialog, "passwordEdit")->text(), password);
    QVERIFY(child<QPushButton>(dialog, "connectButton")->isEnabled());

    // The dialog gives back what the URL says.
    QString error;
    ConnectionProfile expected = *ConnectionProfile::fromUrl(url, &error);
    const ConnectionProfile profile = dialog.profile();
    QCOMPARE(profile, expected);
}

void tst_ConnectionDialog::badUrlShowsErrorWithoutPassword_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("port out of range") << "postgresql://bob:hunter2secret@db:99999/hard";
    QTest::newRow("unknown sslmode") << "postgresql://bob:hunter2secret@db/hard?sslmode=sometimes";
    QTest::newRow("password as sslmode")
            << "postgresql://bob:hunter2secret@db/hard?sslmode=hunter2secret";
    QTest::newRow("unknown parameter") << "postgresql://bob:hunter2secret@db/hard?colour=blue";
    QTest::newRow("unclosed bracket") << "postgresql://bob:hunter2secret@[db/hard";
}

void tst_ConnectionDialog::badUrlShowsErrorWithoutPassword()
{
    QFETCH(QString, url);
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    auto host = child<QLineEdit>(dialog, "hostEdit");
    host->setText(QStringLiteral("kept.example.com"));

    child<QLineEdit>(dialog, "urlEdit")->setText(url);
    auto error = child<QLabel>(dialog, "urlErrorLabel");
    QVERIFY(error->isVisible());
    QVERIFY(!error->text().isEmpty());
    QVERIFY2(!error->text().contains(QStringLiteral("hunter2")), qPrintable(error->text()));
    QVERIFY(!error->text().contains(QLatin1Char('\n')));
    QCOMPARE(host->text(), QStringLiteral("kept.example.com"));
    QVERIFY(child<QLineEdit>(dialog, "passwordEdit")->text().isEmpty());

    child<QLineEdit>(dialog, "urlEdit")->clear();
    QVERIFY(!error->isVisible());
}

void tst_ConnectionDialog::connectDisabledUntilValid_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("port");
    QTest::addColumn<QString>("database");
    QTest::addColumn<bool>("valid");
    QTest::newRow("empty") << ""
                           << "5432"
                           << "" << false;
    QTest::newRow("host only") << "db"
                               << "5432"
                               << "" << false;
    QTest::newRow("database only") << ""
                                   << "5432"
                                   << "hard" << false;
    QTest::newRow("blank host") << "   "
                                << "5432"
                                << "hard" << false;
    QTest::newRow("both") << "db"
                          << "5432"
                          << "hard" << true;
    QTest::newRow("socket directory") << "/run/postgresql"
                                      << "5432"
                                      << "hard" << true;
    QTest::newRow("port 0") << "db"
                            << "0"
                            << "hard" << false;
    QTest::newRow("port 65536") << "db"
                                << "65536"
                                << "hard" << false;
    QTest::newRow("no port") << "db"
                             << ""
                             << "hard" << false;
    QTest::newRow("host list, one port") << "db1,db2"
                                         << "5432"
                                         << "hard" << true;
    QTest::newRow("host list, a port each") << "db1,db2"
                                            << "5432, 5433"
                                            << "hard" << true;
    QTest::newRow("more ports than hosts") << "db"
                                           << "5432,5433"
                                           << "hard" << false;
}

void tst_ConnectionDialog::connectDisabledUntilValid()
{
    QFETCH(QString, host);
    QFETCH(QString, port);
    QFETCH(QString, database);
    QFETCH(bool, valid);

    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    auto connectButton = child<QPushButton>(dialog, "connectButton");
    QVERIFY(!connectButton->isEnabled()); // a new profile starts empty
    child<QLineEdit>(dialog, "hostEdit")->setText(host);
    child<QLineEdit>(dialog, "portEdit")->setText(port);
    child<QLineEdit>(dialog, "databaseEdit")->setText(database);
    QCOMPARE(connectButton->isEnabled(), valid);
    QCOMPARE(dialog.isValid(), valid);
    QCOMPARE(child<QLabel>(dialog, "validationLabel")->isVisible(), !valid);

    dialog.accept();
    QCOMPARE(dialog.result() == QDialog::Accepted, valid);
}

void tst_ConnectionDialog::profileReturnsPassword()
{
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    ConnectionProfile wanted;
    wanted.host = QStringLiteral("db");
    wanted.port = 6000;
    wanted.database = QStringLiteral("hard");
    wanted.user = QStringLiteral("console");
    wanted.sslMode = QStringLiteral("verify-ca");
    wanted.password = QStringLiteral("pw");
    dialog.setProfile(wanted);
    QCOMPARE(dialog.profile(), wanted);

    // A host list with a port each, following the primary.
    wanted.host = QStringLiteral("db1,db2");
    wanted.ports = QStringLiteral("6000,6001");
    wanted.targetSessionAttrs = QStringLiteral("read-write");
    dialog.setProfile(wanted);
    QCOMPARE(child<QLineEdit>(dialog, "portEdit")->text(), wanted.ports);
    QCOMPARE(dialog.profile(), wanted);
    QVERIFY(child<QLineEdit>(dialog, "passwordEdit")->echoMode() == QLineEdit::Password);
}

// The environment and the band's colour go with the profile, a pasted URL keeps them (a URL says
// nothing of them), and a saved profile brings them back.
void tst_ConnectionDialog::environmentAndColour()
{
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    ConnectionProfile wanted;
    wanted.name = QStringLiteral("hardcount");
    wanted.host = QStringLiteral("db");
    wanted.database = QStringLiteral("hard");
    wanted.environment = QStringLiteral("production");
    wanted.colour = QStringLiteral("#2e7d32");
    dialog.setProfile(wanted);
    QCOMPARE(dialog.profile(), wanted);

    child<QLineEdit>(dialog, "urlEdit")->setText(QStringLiteral("postgresql://ops@db2/hard"));
    QCOMPARE(dialog.profile().host, QStringLiteral("db2"));
    QCOMPARE(dialog.profile().environment, QStringLiteral("production"));
    QCOMPARE(dialog.profile().colour, QStringLiteral("#2e7d32"));

    // Any label may be typed; the colour may be left to the environment.
    auto environment = child<QComboBox>(dialog, "environmentCombo");
    environment->setCurrentText(QStringLiteral("qa-eu"));
    child<QComboBox>(dialog, "colourCombo")->setCurrentIndex(0);
    QCOMPARE(dialog.profile().environment, QStringLiteral("qa-eu"));
    QVERIFY(dialog.profile().colour.isEmpty());
    QTest::mouseClick(child<QPushButton>(dialog, "saveButton"), Qt::LeftButton);
    const auto saved = m_profiles->load(QStringLiteral("hardcount"));
    QVERIFY(saved);
    QCOMPARE(saved->environment, QStringLiteral("qa-eu"));
    QVERIFY(saved->colour.isEmpty());
}

void tst_ConnectionDialog::saveSelectDelete()
{
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    QSignalSpy changed(&dialog, &ConnectionDialog::profilesChanged);
    auto combo = child<QComboBox>(dialog, "profileCombo");
    auto save = child<QPushButton>(dialog, "saveButton");
    auto remove = child<QPushButton>(dialog, "deleteButton");
    QCOMPARE(combo->count(), 1); // "New profile"
    QVERIFY(!remove->isEnabled());

    child<QLineEdit>(dialog, "hostEdit")->setText(QStringLiteral("db"));
    child<QLineEdit>(dialog, "databaseEdit")->setText(QStringLiteral("hard"));
    child<QLineEdit>(dialog, "passwordEdit")->setText(QStringLiteral("never-in-settings"));
    QVERIFY(!save->isEnabled()); // no name yet
    child<QLineEdit>(dialog, "nameEdit")->setText(QStringLiteral("prod"));
    QVERIFY(save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(m_profiles->names(), QStringList{QStringLiteral("prod")});
    QCOMPARE(combo->currentText(), QStringLiteral("prod"));
    QVERIFY(remove->isEnabled());
    QFile file(m_profiles->fileName());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("never-in-settings"));

    // Back to a new profile clears the fields; choosing "prod" fills them again.
    combo->setCurrentIndex(0);
    QVERIFY(child<QLineEdit>(dialog, "hostEdit")->text().isEmpty());
    dialog.selectProfile(QStringLiteral("prod"));
    QCOMPARE(child<QLineEdit>(dialog, "hostEdit")->text(), QStringLiteral("db"));

    // Connect with a saved profile remembers it as the last used one.
    QTest::mouseClick(child<QPushButton>(dialog, "connectButton"), Qt::LeftButton);
    QCOMPARE(m_profiles->lastUsed(), QStringLiteral("prod"));
    ConnectionDialog reopened(m_profiles.get(), &passwords);
    QCOMPARE(child<QComboBox>(reopened, "profileCombo")->currentText(), QStringLiteral("prod"));

    QTest::mouseClick(remove, Qt::LeftButton);
    QCOMPARE(changed.count(), 2);
    QVERIFY(m_profiles->names().isEmpty());
    QCOMPARE(combo->count(), 1);
    QVERIFY(!remove->isEnabled());
}

void tst_ConnectionDialog::setErrorShowsRedLine()
{
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    dialog.show();
    auto error = child<QLabel>(dialog, "errorLabel");
    QVERIFY(!error->isVisible());
    const QString line = QStringLiteral(
            "password authentication failed for user \"console\" (db.example.com:5432)");
    dialog.setError(line);
    QVERIFY(error->isVisible());
    QCOMPARE(error->text(), line);
    QCOMPARE(dialog.error(), line);
    // In the alert tone of the palette in use, legible on the dark theme too.
    QCOMPARE(error->palette().color(QPalette::WindowText), toneText(Tone::Alert, error->palette()));
    dialog.setError(QString());
    QVERIFY(!error->isVisible());
}

void tst_ConnectionDialog::sslModesHaveToolTips()
{
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    auto combo = child<QComboBox>(dialog, "sslModeCombo");
    QCOMPARE(qsizetype(combo->count()), qsizetype(ConnectionProfile::sslModes().size()));
    for (int i = 0; i < combo->count(); ++i)
        QVERIFY2(!combo->itemData(i, Qt::ToolTipRole).toString().isEmpty(),
                 qPrintable(combo->itemText(i)));
    QCOMPARE(combo->currentText(), QStringLiteral("prefer"));
}

// Every value of sslmode and of target_session_attrs, from a URL through the dialog and back: the
// combo shows the URL's word with its meaning as tooltip, the profile keeps what libpq is given
// ("any" as nothing), and setProfile brings the same choice back.
void tst_ConnectionDialog::keywordValuesRoundTrip_data()
{
    QTest::addColumn<QString>("sslMode");
    QTest::addColumn<QString>("target");       // as the URL and the combo say it
    QTest::addColumn<QString>("targetStored"); // as the profile keeps it
    QTest::newRow("disable, any") << "disable"
                                  << "any"
                                  << "";
    QTest::newRow("allow, read-write") << "allow"
                                       << "read-write"
                                       << "read-write";
    QTest::newRow("prefer, read-only") << "prefer"
                                       << "read-only"
                                       << "read-only";
    QTest::newRow("require, primary") << "require"
                                      << "primary"
                                      << "primary";
    QTest::newRow("verify-ca, standby") << "verify-ca"
                                        << "standby"
                                        << "standby";
    QTest::newRow("verify-full, prefer-standby") << "verify-full"
                                                 << "prefer-standby"
                                                 << "prefer-standby";
}

void tst_ConnectionDialog::keywordValuesRoundTrip()
{
    QFETCH(QString, sslMode);
    QFETCH(QString, target);
    QFETCH(QString, targetStored);
    PasswordStore passwords;
    ConnectionDialog dialog(m_profiles.get(), &passwords);
    auto ssl = child<QComboBox>(dialog, "sslModeCombo");
    auto targets = child<QComboBox>(dialog, "targetSessionCombo");
    // Start from the other end of both lists, so that each row changes both combos.
    dialog.setProfile(*ConnectionProfile::fromUrl(
            QStringLiteral("postgresql://ops@db/hc?sslmode=%1&target_session_attrs=%2")
                    .arg(ssl->itemText(ssl->count() - 1 - ssl->findText(sslMode)),
                         targets->itemText(targets->count() - 1 - targets->findText(target))),
            nullptr));

    child<QLineEdit>(dialog, "urlEdit")
            ->setText(QStringLiteral("postgresql://ops@db/hc?sslmode=%1&target_session_attrs=%2")
                              .arg(sslMode, target));
    QVERIFY(!child<QLabel>(dialog, "urlErrorLabel")->isVisibleTo(&dialog));
    QCOMPARE(ssl->currentText(), sslMode);
    QCOMPARE(targets->currentText(), target);
    for (QComboBox *combo : {ssl, targets}) {
        QVERIFY(!combo->toolTip().isEmpty());
        QCOMPARE(combo->toolTip(),
                 combo->itemData(combo->currentIndex(), Qt::ToolTipRole).toString());
    }
    const ConnectionProfile profile = dialog.profile();
    QCOMPARE(profile.sslMode, sslMode);
    QCOMPARE(profile.targetSessionAttrs, targetStored);
    QVERIFY2(profile.conninfo().contains(QStringLiteral("sslmode='%1'").arg(sslMode)),
             qPrintable(profile.conninfo()));
    QCOMPARE(profile.conninfo().contains(QStringLiteral("target_session_attrs=")),
             !targetStored.isEmpty());

    dialog.setProfile(ConnectionProfile{});
    QCOMPARE(ssl->currentText(), QStringLiteral("prefer"));
    QCOMPARE(targets->currentText(), QStringLiteral("any"));
    dialog.setProfile(profile);
    QCOMPARE(dialog.profile(), profile);
    QCOMPARE(ssl->currentText(), sslMode);
    QCOMPARE(targets->currentText(), target);
}

QTEST_MAIN(tst_ConnectionDialog)
#include "tst_connectiondialog.moc"
