#include "ui/pausedialog.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTest>

using namespace leader::console;

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

} // namespace

class tst_PauseDialog final : public QObject
{
    Q_OBJECT

private slots:
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
    void unpauseGoesStraightToConfirmation();
    void defaultWhoIsUserAtHost();
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

    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
    dialog.setWhy(QString(PauseDialog::MaxWhyLength + 100, QLatin1Char('x')));
    QCOMPARE(dialog.why().size(), PauseDialog::MaxWhyLength);
}

void tst_PauseDialog::confirmationBeforeAccept()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
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
    QCOMPARE(dialog.role(), QStringLiteral("billing"));
    QCOMPARE(dialog.mode(), PauseDialog::Mode::Pause);
    QCOMPARE(dialog.who(), QStringLiteral("alice@ops1"));
    QCOMPARE(dialog.why(), QStringLiteral("card processor outage"));
}

void tst_PauseDialog::externalAcceptCannotSkipConfirmation()
{
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("dunning"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("email_outbox"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
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
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
    QSignalSpy rejected(&dialog, &QDialog::rejected);
    dialog.open();
    QTest::mouseClick(child<QPushButton>(dialog, "cancelButton"), Qt::LeftButton);
    QCOMPARE(rejected.count(), 1);
    QVERIFY(!dialog.isVisible());
}

void tst_PauseDialog::unpauseGoesStraightToConfirmation()
{
    PauseDialog dialog(PauseDialog::Mode::Unpause, QStringLiteral("webhook_delivery"), target);
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.setCurrentPause(QStringLiteral("alice@ops1"), QStringLiteral("endpoint flapping"));
    dialog.open();
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Unpause webhook_delivery"));
    QCOMPARE(dialog.mode(), PauseDialog::Mode::Unpause);
    QVERIFY(dialog.isConfirming());

    const QString text = child<QLabel>(dialog, "confirmLabel")->text();
    QVERIFY2(text.contains(QStringLiteral("Unpause webhook_delivery on ") + target),
             qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("not_before")));
    QVERIFY(text.contains(QStringLiteral("endpoint flapping")));
    QVERIFY(child<QPushButton>(dialog, "backButton")->isDefault());

    dialog.accept();
    QCOMPARE(accepted.count(), 0);
    QTest::mouseClick(child<QPushButton>(dialog, "confirmButton"), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(dialog.role(), QStringLiteral("webhook_delivery"));
}

void tst_PauseDialog::defaultWhoIsUserAtHost()
{
    const QByteArray saved = qgetenv("USER");
    qputenv("USER", "operator-under-test");
    const QString expected = QStringLiteral("operator-under-test@") + QSysInfo::machineHostName();
    QCOMPARE(PauseDialog::defaultWho(), expected);
    PauseDialog dialog(PauseDialog::Mode::Pause, QStringLiteral("billing"), target);
    QCOMPARE(dialog.who(), expected);
    if (saved.isNull())
        qunsetenv("USER");
    else
        qputenv("USER", saved);
}

QTEST_MAIN(tst_PauseDialog)
#include "tst_pausedialog.moc"
