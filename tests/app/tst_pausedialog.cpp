#include "fitcheck.h"
#include "schema/features.h"
#include "ui/pausedialog.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTest>

#ifndef Q_OS_WIN
#include <pwd.h>
#include <unistd.h>
#endif

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::TimeZoneMode)

namespace {

template<typename T>
T *child(const QWidget &parent, const char *name)
{
    T *found = parent.findChild<T *>(QLatin1String(name));
    if (!found)
        qWarning("no child %s", name);
    return found;
}

const QString target = QStringLiteral("console@db.example.com:5432/hardcount");

// A database with ADR-114's 0174 and 0175 only, and one with every extension.
leader::console::DatabaseFeatures adrOnly()
{
    return {.leaseTable = true, .notBefore = true, .extension = 0, .legacyLayout = false};
}

leader::console::DatabaseFeatures complete()
{
    return {.leaseTable = true,
            .notBefore = true,
            .extension = leader::schema::LatestExtension,
            .legacyLayout = false};
}

} // namespace

class tst_PauseDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void okEnabled_data();
    void okEnabled();
    void whitespaceWhyRefused();
    void whyHasMaximumLength();
    void confirmationBeforeAccept();
    void externalAcceptCannotSkipConfirmation();
    void enterOnConfirmationGoesBack();
    void backKeepsText();
    void escapeOnConfirmationGoesBack();
    void cancelRejects();
    void unpauseAsksWhoAndWhyOnItsConfirmation();
    void defaultWhoIsUserAtHost_data();
    void defaultWhoIsUserAtHost();
    void endChoices_data();
    void endChoices();
    void pastEndTimeRefused();
    void severalRolesOneConfirmation();
    void productionNeedsTypedNames_data();
    void productionNeedsTypedNames();
    void adrOnlyPauseHasNoEndAndSaysWhy();
    void adrOnlyUnpauseTakesNoWhoOrWhyAndSaysWhy();
    void withThePauseLogNothingIsDisabled();
    void aLoginThatMayNotReadTheExtensionsIsToldSo();
    void titleAndLinesFit_data();
    void titleAndLinesFit();
    void atATimeNamesTheZone_data();
    void atATimeNamesTheZone();
};

void tst_PauseDialog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void tst_PauseDialog::okEnabled_data()
{
    QTest::addColumn<QString>("who");
    QTest::addColumn<QString>("why");
    QTest::addColumn<bool>("enabled");

    QTest::newRow("both") << "alice@ops1"
                          << "card processor outage" << true;
    QTest::newRow("both, padded") << "  alice  "
                                  << "  maintenance " << true;
    QTest::newRow("no why") << "alice@ops1"
                            << "" << false;
    QTest::newRow("blank why") << "alice@ops1"
                               << "    " << false;
    QTest::newRow("tab why") << "alice@ops1"
                             << "\t \t" << false;
    QTest::newRow("no who") << ""
                            << "maintenance" << false;
    QTest::newRow("blank who") << "   "
                               << "maintenance" << false;
    QTest::newRow("neither") << ""
                             << "" << false;
}

void tst_PauseDialog::okEnabled()
{
    QFETCH(QString, who);
    QFETCH(QString, why);
    QFETCH(bool, enabled);

    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Pause billing"));
    auto whoEdit = child<QLineEdit>(dialog, "whoEdit");
    auto whyEdit = child<QLineEdit>(dialog, "whyEdit");
    auto ok = child<QPushButton>(dialog, "okButton");
    auto hint = child<QLabel>(dialog, "hintLabel");
    QVERIFY(whoEdit && whyEdit && ok && hint);

    whoEdit->setText(who);
    whyEdit->setText(why);
    QCOMPARE(ok->isEnabled(), enabled);
    QCOMPARE(dialog.canContinue(), enabled);
    QCOMPARE(hint->text().isEmpty(), enabled);
    if (enabled) {
        QCOMPARE(dialog.who(), who.trimmed());
        QCOMPARE(dialog.why(), why.trimmed());
    }
}

void tst_PauseDialog::whitespaceWhyRefused()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.show();
    dialog.setWhy(QStringLiteral("   \t  "));
    QVERIFY(dialog.why().isEmpty());
    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    dialog.accept();
    QTest::keyClick(&dialog, Qt::Key_Return);
    QVERIFY(!dialog.isConfirming());
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
}

void tst_PauseDialog::whyHasMaximumLength()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setWhy(QString(PauseDialog::MaxWhyLength + 100, QLatin1Char('x')));
    QCOMPARE(dialog.why().size(), PauseDialog::MaxWhyLength);
}

void tst_PauseDialog::confirmationBeforeAccept()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.open();
    dialog.setWho(QStringLiteral("alice@ops1"));
    dialog.setWhy(QStringLiteral("card processor outage"));

    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    QVERIFY(dialog.isConfirming());
    QVERIFY(dialog.isVisible());
    QCOMPARE(accepted.count(), 0);

    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(QStringLiteral("Pause billing on ") + target), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("alice@ops1")));
    QVERIFY(text.contains(QStringLiteral("card processor outage")));
    auto confirm = child<QPushButton>(dialog, "confirmButton");
    QCOMPARE(confirm->text(), QStringLiteral("Pause billing"));
    QVERIFY(confirm->isVisible());

    QTest::mouseClick(confirm, Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(!dialog.isVisible());
    QCOMPARE(dialog.roles(), QStringList{QStringLiteral("billing")});
    QCOMPARE(dialog.mode(), PauseDialog::Mode::Pause);
    QCOMPARE(dialog.who(), QStringLiteral("alice@ops1"));
    QCOMPARE(dialog.why(), QStringLiteral("card processor outage"));
}

void tst_PauseDialog::externalAcceptCannotSkipConfirmation()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("dunning")}, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.open();
    dialog.setWhy(QStringLiteral("migration"));

    dialog.accept(); // what a careless caller or a shortcut could do
    QVERIFY(dialog.isConfirming());
    dialog.accept();
    dialog.done(QDialog::Accepted);
    QVERIFY(dialog.isConfirming());
    QVERIFY(dialog.isVisible());
    QCOMPARE(accepted.count(), 0);
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
}

void tst_PauseDialog::enterOnConfirmationGoesBack()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.setWhy(QStringLiteral("maintenance"));
    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    QVERIFY(dialog.isConfirming());

    auto back = child<QPushButton>(dialog, "backButton");
    auto confirm = child<QPushButton>(dialog, "confirmButton");
    QVERIFY(back->isDefault());
    QVERIFY(!confirm->isDefault());
    QVERIFY(!confirm->autoDefault());

    QTest::keyClick(&dialog, Qt::Key_Return);
    QVERIFY(!dialog.isConfirming());
    QCOMPARE(accepted.count(), 0);
    QVERIFY(dialog.isVisible());
}

void tst_PauseDialog::backKeepsText()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("email_outbox")}, target);
    dialog.open();
    dialog.setWho(QStringLiteral("bob@ops2"));
    dialog.setWhy(QStringLiteral("SMTP relay down"));
    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    QVERIFY(dialog.isConfirming());

    QTest::mouseClick(child<QPushButton>(dialog, "backButton"), Qt::LeftButton);
    QVERIFY(!dialog.isConfirming());
    QVERIFY(dialog.isVisible());
    QCOMPARE(child<QLineEdit>(dialog, "whoEdit")->text(), QStringLiteral("bob@ops2"));
    QCOMPARE(child<QLineEdit>(dialog, "whyEdit")->text(), QStringLiteral("SMTP relay down"));

    // Edit and go again: the confirmation shows the new reason.
    dialog.setWhy(QStringLiteral("SMTP relay replaced"));
    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    QVERIFY(child<QLabel>(dialog, "confirmLabel")->text().contains("SMTP relay replaced"));
}

void tst_PauseDialog::escapeOnConfirmationGoesBack()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QSignalSpy rejected(&dialog, &QDialog::rejected);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.setWhy(QStringLiteral("maintenance"));
    dialog.accept();
    QVERIFY(dialog.isConfirming());

    QTest::keyClick(&dialog, Qt::Key_Escape);
    QVERIFY(!dialog.isConfirming());
    QVERIFY(dialog.isVisible());
    QCOMPARE(rejected.count(), 0);
    QCOMPARE(dialog.why(), QStringLiteral("maintenance"));
}

void tst_PauseDialog::cancelRejects()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QSignalSpy rejected(&dialog, &QDialog::rejected);
    dialog.open();
    QTest::mouseClick(child<QPushButton>(dialog, "cancelButton"), Qt::LeftButton);
    QCOMPARE(rejected.count(), 1);
    QVERIFY(!dialog.isVisible());
}

void tst_PauseDialog::unpauseAsksWhoAndWhyOnItsConfirmation()
{
    PauseDialog dialog(PauseDialog::Mode::Unpause, {QStringLiteral("webhook_delivery")}, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    RoleStatus paused;
    paused.role = QStringLiteral("webhook_delivery");
    paused.state = RoleState::Paused;
    paused.pausedBy = QStringLiteral("alice@ops1");
    paused.pausedAt = QDateTime::currentDateTimeUtc();
    paused.pauseReason = QStringLiteral("endpoint flapping");
    dialog.setCurrentPauses({paused});
    dialog.open();
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Unpause webhook_delivery"));
    QCOMPARE(dialog.mode(), PauseDialog::Mode::Unpause);
    QVERIFY(dialog.isConfirming());

    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(QStringLiteral("Unpause webhook_delivery on ") + target),
             qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("not_before")));
    QVERIFY(text.contains(QStringLiteral("endpoint flapping")));

    // Who and why are asked on the same page; the reason is optional and Enter while typing it
    // neither confirms nor cancels.
    auto whoEdit = child<QLineEdit>(dialog, "whoEdit");
    auto whyEdit = child<QLineEdit>(dialog, "whyEdit");
    QVERIFY(whoEdit->isVisible() && whyEdit->isVisible());
    QCOMPARE(whoEdit->text(), PauseDialog::defaultWho());
    QVERIFY(child<QPushButton>(dialog, "confirmButton")->isEnabled());
    QSignalSpy rejected(&dialog, &QDialog::rejected);
    QTest::keyClicks(whyEdit, QStringLiteral("endpoint fixed"));
    QTest::keyClick(whyEdit, Qt::Key_Return);
    QVERIFY(dialog.isVisible());
    QCOMPARE(accepted.count() + rejected.count(), 0);

    dialog.accept();
    QCOMPARE(accepted.count(), 0);
    QTest::mouseClick(child<QPushButton>(dialog, "confirmButton"), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(dialog.roles(), QStringList{QStringLiteral("webhook_delivery")});
    QCOMPARE(dialog.why(), QStringLiteral("endpoint fixed"));
}

void tst_PauseDialog::defaultWhoIsUserAtHost_data()
{
    QTest::addColumn<QByteArray>("user");    // USER; null: unset
    QTest::addColumn<QByteArray>("logname"); // LOGNAME; null: unset
    QTest::addColumn<QString>("login");      // expected before the "@"
#ifdef Q_OS_WIN
    const QString account = QStringLiteral("operator"); // USERNAME unset, and no account entry
#else
    const QString account = QString::fromLocal8Bit(::getpwuid(::geteuid())->pw_name);
#endif
    QTest::newRow("USER") << QByteArray("operator-under-test") << QByteArray("other")
                          << "operator-under-test";
    QTest::newRow("LOGNAME, USER unset")
            << QByteArray() << QByteArray("logname-under-test") << "logname-under-test";
    QTest::newRow("LOGNAME, USER empty")
            << QByteArray("") << QByteArray("logname-under-test") << "logname-under-test";
    QTest::newRow("neither: the account") << QByteArray() << QByteArray() << account;
}

// The same rule and rows as tst_leaderctl's pauseAndUnpause: the console and leaderctl record the
// same who. Checked to fail with the console's former rule (USER, else the home directory's name,
// @ the full host name) on the rows without USER.
void tst_PauseDialog::defaultWhoIsUserAtHost()
{
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, logname);
    QFETCH(QString, login);
    const QByteArray savedUser = qgetenv("USER");
    const QByteArray savedLogname = qgetenv("LOGNAME");
    const QByteArray savedUsername = qgetenv("USERNAME");
    const auto set = [](const char *name, const QByteArray &value) {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    };
    set("USER", user);
    set("LOGNAME", logname);
    qunsetenv("USERNAME");
    const QString expected = login + QLatin1Char('@')
                             + QSysInfo::machineHostName().section(QLatin1Char('.'), 0, 0);
    QCOMPARE(PauseDialog::defaultWho(), expected);
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    QCOMPARE(dialog.who(), expected);
    set("USER", savedUser);
    set("LOGNAME", savedLogname);
    set("USERNAME", savedUsername);
}

void tst_PauseDialog::endChoices_data()
{
    QTest::addColumn<PauseDialog::EndChoice>("choice");
    QTest::addColumn<QString>("duration");
    QTest::newRow("15 min") << PauseDialog::EndChoice::After15Minutes << "15m";
    QTest::newRow("1 h") << PauseDialog::EndChoice::After1Hour << "1h";
    QTest::newRow("4 h") << PauseDialog::EndChoice::After4Hours << "4h";
    QTest::newRow("until unpaused") << PauseDialog::EndChoice::UntilUnpaused << "";
}

void tst_PauseDialog::endChoices()
{
    QFETCH(PauseDialog::EndChoice, choice);
    QFETCH(QString, duration);
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setWhy(QStringLiteral("maintenance"));
    // Chosen as an operator would: through the combo.
    auto combo = child<QComboBox>(dialog, "endCombo");
    combo->setCurrentIndex(combo->findData(int(choice)));
    const PauseEnd end = dialog.pauseEnd();
    QCOMPARE(end.duration, duration);
    QVERIFY(!end.at.isValid());
    QVERIFY(dialog.canContinue());
    dialog.accept();
    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(duration.isEmpty() ? QStringLiteral("until unpaused")
                                              : QStringLiteral("ends by itself")),
             qPrintable(text));
}

void tst_PauseDialog::pastEndTimeRefused()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setWhy(QStringLiteral("maintenance"));
    dialog.setEndChoice(PauseDialog::EndChoice::AtTime);
    auto ok = child<QPushButton>(dialog, "okButton");
    auto hint = child<QLabel>(dialog, "hintLabel");

    dialog.setEndTime(QDateTime::currentDateTimeUtc().addSecs(-120));
    QVERIFY(!dialog.canContinue());
    QVERIFY(!ok->isEnabled());
    QVERIFY2(hint->text().contains(QLatin1String("future")), qPrintable(hint->text()));
    dialog.accept();
    QVERIFY(!dialog.isConfirming());

    const QDateTime later = QDateTime::currentDateTimeUtc().addSecs(2 * 3600);
    dialog.setEndTime(later);
    QVERIFY(ok->isEnabled());
    const PauseEnd end = dialog.pauseEnd();
    QVERIFY(end.duration.isEmpty());
    // The edit holds minutes: the end is the typed minute, in UTC.
    QVERIFY(std::abs(end.at.secsTo(later)) < 60);
    QCOMPARE(end.at.timeSpec(), Qt::UTC);
    dialog.accept();
    QVERIFY(dialog.isConfirming());
}

void tst_PauseDialog::severalRolesOneConfirmation()
{
    const QStringList roles{QStringLiteral("email_outbox"), QStringLiteral("webhook_outbox")};
    PauseDialog dialog(PauseDialog::Mode::Pause, roles, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Pause 2 roles"));
    dialog.open();
    dialog.setWhy(QStringLiteral("SMTP and webhook relay swap"));
    dialog.setEndChoice(PauseDialog::EndChoice::After1Hour);
    QTest::mouseClick(child<QPushButton>(dialog, "okButton"), Qt::LeftButton);
    QVERIFY(dialog.isConfirming());
    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(QStringLiteral("email_outbox, webhook_outbox")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("one transaction")), qPrintable(text));
    QCOMPARE(child<QPushButton>(dialog, "confirmButton")->text(), QStringLiteral("Pause 2 roles"));
    QVERIFY(!child<QLineEdit>(dialog, "typedNameEdit")->isVisible());
    QTest::mouseClick(child<QPushButton>(dialog, "confirmButton"), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(dialog.roles(), roles);
    QCOMPARE(dialog.pauseEnd().duration, QStringLiteral("1h"));
}

void tst_PauseDialog::productionNeedsTypedNames_data()
{
    QTest::addColumn<PauseDialog::Mode>("mode");
    QTest::addColumn<QStringList>("roles");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<bool>("confirmable");
    const QStringList one{QStringLiteral("billing")};
    const QStringList two{QStringLiteral("email_outbox"), QStringLiteral("webhook_outbox")};
    QTest::newRow("nothing typed") << PauseDialog::Mode::Pause << one << "" << false;
    QTest::newRow("the name") << PauseDialog::Mode::Pause << one << "billing" << true;
    QTest::newRow("padded") << PauseDialog::Mode::Pause << one << "  billing " << true;
    QTest::newRow("another role") << PauseDialog::Mode::Pause << one << "dunning" << false;
    QTest::newRow("a prefix") << PauseDialog::Mode::Pause << one << "bill" << false;
    QTest::newRow("case differs") << PauseDialog::Mode::Pause << one << "Billing" << false;
    QTest::newRow("unpause too") << PauseDialog::Mode::Unpause << one << "billing" << true;
    QTest::newRow("several: one name")
            << PauseDialog::Mode::Pause << two << "email_outbox" << false;
    QTest::newRow("several: each name")
            << PauseDialog::Mode::Pause << two << "webhook_outbox, email_outbox" << true;
    QTest::newRow("several: one twice")
            << PauseDialog::Mode::Pause << two << "email_outbox email_outbox" << false;
}

void tst_PauseDialog::productionNeedsTypedNames()
{
    QFETCH(PauseDialog::Mode, mode);
    QFETCH(QStringList, roles);
    QFETCH(QString, typed);
    QFETCH(bool, confirmable);
    PauseDialog dialog(mode, roles, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.setTypedConfirmation(true);
    dialog.open();
    dialog.setWhy(QStringLiteral("production incident"));
    dialog.accept();
    QVERIFY(dialog.isConfirming());
    auto edit = child<QLineEdit>(dialog, "typedNameEdit");
    auto confirm = child<QPushButton>(dialog, "confirmButton");
    QVERIFY(edit->isVisible());
    QVERIFY(!confirm->isEnabled());
    QTest::keyClicks(edit, typed);
    QCOMPARE(confirm->isEnabled(), confirmable);
    QCOMPARE(dialog.canConfirm(), confirmable);
    dialog.done(QDialog::Accepted); // not the confirm button: never accepts
    QCOMPARE(accepted.count(), 0);
    QTest::mouseClick(confirm, Qt::LeftButton);
    QCOMPARE(accepted.count(), confirmable ? 1 : 0);
}

// Without the pause log (extension 0177) the ADR's leader_pause(role, by, reason) has no end: the
// end control is disabled, its reason beside it, and no end is asked for whatever the combo says.
// Checked to fail with setFeatures' disabling removed.
void tst_PauseDialog::adrOnlyPauseHasNoEndAndSaysWhy()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setEndChoice(PauseDialog::EndChoice::After1Hour);
    dialog.setFeatures(adrOnly());
    dialog.show();
    auto combo = child<QComboBox>(dialog, "endCombo");
    auto needs = child<QLabel>(dialog, "endNeedsLabel");
    QVERIFY(combo && needs);
    QVERIFY(!combo->isEnabled());
    QCOMPARE(PauseDialog::EndChoice(combo->currentData().toInt()),
             PauseDialog::EndChoice::UntilUnpaused);
    QVERIFY(needs->isVisible());
    QVERIFY2(needs->text().startsWith(QLatin1String("a pause with an end needs the extension "
                                                    "leader_ext 0177")),
             qPrintable(needs->text()));
    QVERIFY2(needs->text().contains(QLatin1String("leaderctl migrate --print-sql")),
             qPrintable(needs->text()));

    dialog.setEndChoice(PauseDialog::EndChoice::After4Hours);
    combo->setCurrentIndex(combo->findData(int(PauseDialog::EndChoice::After15Minutes)));
    QVERIFY(dialog.pauseEnd().duration.isEmpty());
    QVERIFY(!dialog.pauseEnd().at.isValid());
    // Who and why are the ADR's paused_by and pause_reason: asked as always.
    QVERIFY(child<QLineEdit>(dialog, "whoEdit")->isEnabled());
    QVERIFY(child<QLineEdit>(dialog, "whyEdit")->isEnabled());
    dialog.setWhy(QStringLiteral("maintenance"));
    QVERIFY(dialog.canContinue());
    dialog.accept();
    QVERIFY(dialog.isConfirming());
    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(QLatin1String("until unpaused")), qPrintable(text));
}

// The ADR's leader_unpause(role) takes no who or why: both fields are disabled with the reason
// beside them, and nothing typed is handed on as if it were kept. Checked to fail with
// setFeatures' disabling removed.
void tst_PauseDialog::adrOnlyUnpauseTakesNoWhoOrWhyAndSaysWhy()
{
    PauseDialog dialog(PauseDialog::Mode::Unpause,
                       {QStringLiteral("billing"), QStringLiteral("dunning")}, target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.setWhy(QStringLiteral("typed before the features arrived"));
    dialog.setFeatures(adrOnly());
    dialog.open();
    QVERIFY(dialog.isConfirming());
    auto whoEdit = child<QLineEdit>(dialog, "whoEdit");
    auto whyEdit = child<QLineEdit>(dialog, "whyEdit");
    auto needs = child<QLabel>(dialog, "noteNeedsLabel");
    QVERIFY(whoEdit && whyEdit && needs);
    QVERIFY(!whoEdit->isEnabled());
    QVERIFY(!whyEdit->isEnabled());
    QVERIFY(needs->isVisible());
    QVERIFY2(needs->text().startsWith(QLatin1String("who unpaused and why needs the extension "
                                                    "leader_ext 0177")),
             qPrintable(needs->text()));
    QVERIFY(dialog.who().isEmpty());
    QVERIFY(dialog.why().isEmpty());
    QTest::mouseClick(child<QPushButton>(dialog, "confirmButton"), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
}

void tst_PauseDialog::withThePauseLogNothingIsDisabled()
{
    PauseDialog pause(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    pause.setFeatures(complete());
    pause.show();
    QVERIFY(child<QComboBox>(pause, "endCombo")->isEnabled());
    QVERIFY(!child<QLabel>(pause, "endNeedsLabel")->isVisible());
    pause.setEndChoice(PauseDialog::EndChoice::After1Hour);
    QCOMPARE(pause.pauseEnd().duration, QStringLiteral("1h"));

    PauseDialog unpause(PauseDialog::Mode::Unpause, {QStringLiteral("billing")}, target);
    unpause.setFeatures(complete());
    unpause.setWhy(QStringLiteral("fixed"));
    unpause.show();
    QVERIFY(child<QLineEdit>(unpause, "whyEdit")->isEnabled());
    QVERIFY(!child<QLabel>(unpause, "noteNeedsLabel")->isVisible());
    QCOMPARE(unpause.why(), QStringLiteral("fixed"));
}

// The extensions may be there but hidden from this login: adding them again would not help, so
// the line names the login's roles instead. Checked to fail with extensionsHidden ignored.
void tst_PauseDialog::aLoginThatMayNotReadTheExtensionsIsToldSo()
{
    leader::console::DatabaseFeatures hidden = adrOnly();
    hidden.extensionsHidden = true;
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setFeatures(hidden);
    dialog.show();
    auto needs = child<QLabel>(dialog, "endNeedsLabel");
    QVERIFY(!child<QComboBox>(dialog, "endCombo")->isEnabled());
    QVERIFY2(needs->text().startsWith(QLatin1String("a pause with an end needs the extensions in "
                                                    "leader_ext, which this login may not read")),
             qPrintable(needs->text()));
    QVERIFY2(needs->text().contains(QLatin1String("hardcount_app or hardcount_monitor")),
             qPrintable(needs->text()));
    QVERIFY(!needs->text().contains(QLatin1String("leaderctl migrate")));
}

// Each page of the dialog, with the lines it may show, as the operator sees it: the title fits the
// title bar and no label or button is cut (checked once: without fitToContents the unpause of
// webhook_delivery is 299 px wide for a title that needs 380).
void tst_PauseDialog::titleAndLinesFit_data()
{
    QTest::addColumn<PauseDialog::Mode>("mode");
    QTest::addColumn<QStringList>("roles");
    QTest::addColumn<bool>("adrOnly");
    QTest::addColumn<bool>("production");
    const QStringList one{QStringLiteral("webhook_delivery")};
    const QStringList five{QStringLiteral("billing"), QStringLiteral("dunning"),
                           QStringLiteral("webhook_outbox"), QStringLiteral("email_outbox"),
                           QStringLiteral("webhook_delivery")};
    for (const auto mode : {PauseDialog::Mode::Pause, PauseDialog::Mode::Unpause}) {
        const char *name = mode == PauseDialog::Mode::Pause ? "pause" : "unpause";
        QTest::addRow("%s one role", name) << mode << one << false << false;
        QTest::addRow("%s five roles", name) << mode << five << false << false;
        QTest::addRow("%s on ADR-114 alone", name) << mode << one << true << false;
        QTest::addRow("%s five roles on production", name) << mode << five << false << true;
    }
}

void tst_PauseDialog::titleAndLinesFit()
{
    QFETCH(PauseDialog::Mode, mode);
    QFETCH(QStringList, roles);
    QFETCH(bool, adrOnly);
    QFETCH(bool, production);
    PauseDialog dialog(mode, roles, target);
    dialog.setFeatures(adrOnly ? ::adrOnly() : complete());
    dialog.setTypedConfirmation(production);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    if (mode == PauseDialog::Mode::Pause) {
        // The hint for a missing reason shows under the form.
        dialog.setWhy(QString());
        QVERIFY(child<QLabel>(dialog, "hintLabel")->isVisible());
        QTRY_VERIFY2(fitcheck::whatDoesNotFit(dialog).isEmpty(),
                     qPrintable(fitcheck::whatDoesNotFit(dialog)));
        dialog.setWhy(QStringLiteral("card processor outage, see the incident channel"));
        dialog.accept(); // to the confirmation page
        QVERIFY(dialog.isConfirming());
    }
    QTRY_VERIFY2(fitcheck::whatDoesNotFit(dialog).isEmpty(),
                 qPrintable(fitcheck::whatDoesNotFit(dialog)));
}

void tst_PauseDialog::atATimeNamesTheZone_data()
{
    QTest::addColumn<TimeZoneMode>("zone");
    QTest::newRow("UTC") << TimeZoneMode::Utc;
    QTest::newRow("local") << TimeZoneMode::Local;
}

// The end typed at a time is in the window's zone, and the choice says which (checked once: fails
// with the former "at a time…").
void tst_PauseDialog::atATimeNamesTheZone()
{
    QFETCH(TimeZoneMode, zone);
    PauseDialog dialog(PauseDialog::Mode::Pause, {QStringLiteral("billing")}, target);
    dialog.setTimeZoneMode(zone);
    auto combo = child<QComboBox>(dialog, "endCombo");
    const QString text = combo->itemText(combo->findData(int(PauseDialog::EndChoice::AtTime)));
    QCOMPARE(text, QStringLiteral("at a time (%1)…").arg(TimeRule::zoneName(zone)));
}

QTEST_MAIN(tst_PauseDialog)
#include "tst_pausedialog.moc"
