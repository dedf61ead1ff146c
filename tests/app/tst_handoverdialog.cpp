// The Hand over dialog's guards (extension 0185): why is required, who too, and on a production
// profile the role's name must be typed; the target list offers "any replica but the holder"
// first, then the replicas that could take the role, and says which was chosen.
//
// Mutation check, done once: with HandoverDialog::canConfirm ignoring why, the row "no why" fails.

#include "ui/handoverdialog.h"

#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QtTest>

using namespace leader::console;

class TstHandoverDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void guards_data()
    {
        QTest::addColumn<QString>("who");
        QTest::addColumn<QString>("why");
        QTest::addColumn<bool>("production");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<bool>("confirms");
        QTest::newRow("who and why") << "alice@ops"
                                     << "r1 is slow" << false << QString() << true;
        QTest::newRow("no why") << "alice@ops"
                                << "  " << false << QString() << false;
        QTest::newRow("no who") << " "
                                << "r1 is slow" << false << QString() << false;
        QTest::newRow("production, role not typed") << "alice@ops"
                                                    << "r1 is slow" << true << "bill" << false;
        QTest::newRow("production, role typed") << "alice@ops"
                                                << "r1 is slow" << true << "billing" << true;
    }

    void guards()
    {
        QFETCH(QString, who);
        QFETCH(QString, why);
        QFETCH(bool, production);
        QFETCH(QString, typed);
        QFETCH(bool, confirms);
        HandoverDialog dialog(QStringLiteral("billing"), QStringLiteral("r1"), {},
                              QStringLiteral("lt_app@db"));
        dialog.setTypedConfirmation(production);
        dialog.findChild<QLineEdit *>("whoEdit")->setText(who);
        dialog.findChild<QLineEdit *>("whyEdit")->setText(why);
        dialog.findChild<QLineEdit *>("typedNameEdit")->setText(typed);
        QCOMPARE(dialog.canConfirm(), confirms);
        QCOMPARE(dialog.findChild<QPushButton *>("confirmButton")->isEnabled(), confirms);
    }

    void targets()
    {
        HandoverDialog dialog(QStringLiteral("billing"), QStringLiteral("r1"),
                              {QStringLiteral("r2"), QStringLiteral("r3")}, QString());
        auto *combo = dialog.findChild<QComboBox *>("targetCombo");
        QVERIFY(combo);
        QCOMPARE(combo->count(), 3);
        QCOMPARE(combo->itemText(0), QStringLiteral("Any replica but r1"));
        QCOMPARE(dialog.toReplica(), QString());
        combo->setCurrentIndex(2);
        QCOMPARE(dialog.toReplica(), QStringLiteral("r3"));
    }
};

QTEST_MAIN(TstHandoverDialog)
#include "tst_handoverdialog.moc"
