// The Hand over dialog's guards (extension 0185): why is required, who too, and on a production
// profile the role's name must be typed; the target list offers "any replica but the holder"
// first, then the replicas that could take the role, and says which was chosen.
//
// Mutation check, done once: with HandoverDialog::canConfirm ignoring why, the row "no why" fails.
//
// Beside replicas that speak only the ADR (extension 0189): a holder outside the registry is not
// promised to stop at its next step; the summary says when its tick ends, as leaderctl handover
// does, and a note says that holders outside the registry ignore the preference. Mutation check,
// done once: with the summary built as for our own holder whatever the row says, the "outside"
// rows failed; with the note left out, the rows with theirs seen failed.

#include "ui/handoverdialog.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QtTest>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::HandoverOutside)

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

    void summarySaysWhatHappens_data()
    {
        QTest::addColumn<QString>("holder");
        QTest::addColumn<HandoverOutside>("outside");
        QTest::addColumn<QString>("summary"); // contained in it
        QTest::addColumn<bool>("promisesTheStop");
        QTest::addColumn<bool>("note"); // holders outside the registry ignore the preference
        QTest::newRow("ours") << QStringLiteral("r1") << HandoverOutside{}
                              << QStringLiteral("its holder r1 runs no further step of its tick")
                              << true << false;
        HandoverOutside theirsSeen;
        theirsSeen.seen = true;
        QTest::newRow("ours, theirs seen")
                << QStringLiteral("r1") << theirsSeen
                << QStringLiteral("its holder r1 runs no further step of its tick") << true << true;
        HandoverOutside outside;
        outside.holderOutside = true;
        outside.heldForSeconds = 2;
        outside.lastTickSeconds = 5;
        outside.seen = true;
        QTest::newRow("outside, its last tick known")
                << QStringLiteral("adr-host:4242:0000abcd") << outside
                << QStringLiteral("Hand billing over now on lt_app@db: adr-host:4242:0000abcd is "
                                  "outside the replica registry and does not take hand-over "
                                  "requests: its tick ends when its work does, about 3.0 s from "
                                  "now (its last tick lasted 5.0 s), or at its lease's expiry if "
                                  "it stops renewing. The replica chosen below takes the next "
                                  "tick")
                << false << true;
        HandoverOutside overdue = outside;
        overdue.heldForSeconds = 9;
        QTest::newRow("outside, past its last tick's length")
                << QStringLiteral("adr-host:4242:0000abcd") << overdue
                << QStringLiteral("about 0.0 s from now (its last tick lasted 5.0 s)") << false
                << true;
        HandoverOutside firstTick = outside;
        firstTick.lastTickSeconds.reset();
        QTest::newRow("outside, its first tick")
                << QStringLiteral("adr-host:4242:0000abcd") << firstTick
                << QStringLiteral("does not take hand-over requests: its tick ends when its work "
                                  "does, or at its lease's expiry if it stops renewing")
                << false << true;
    }

    void summarySaysWhatHappens()
    {
        QFETCH(QString, holder);
        QFETCH(HandoverOutside, outside);
        QFETCH(QString, summary);
        QFETCH(bool, promisesTheStop);
        QFETCH(bool, note);
        HandoverDialog dialog(QStringLiteral("billing"), holder, {QStringLiteral("r2")},
                              QStringLiteral("lt_app@db"), outside);
        const QString text = dialog.findChild<QLabel *>("handoverSummary")->text();
        QVERIFY2(text.contains(summary), qPrintable(text));
        QCOMPARE(text.contains(QLatin1String("runs no further step")), promisesTheStop);
        const auto *noteLabel = dialog.findChild<QLabel *>("outsideNote");
        QCOMPARE(noteLabel != nullptr, note);
        if (noteLabel)
            QCOMPARE(noteLabel->text(),
                     QStringLiteral("Holders outside the replica registry led billing in the last "
                                    "hour: they ignore the preference, and one of them may take "
                                    "the next tick first."));
    }
};

QTEST_MAIN(TstHandoverDialog)
#include "tst_handoverdialog.moc"
