// The refresh interval: the saved choice is selected at start (1 s when there is none or it is
// not one of the choices), and a choice is saved before it is announced.

#include "ui/intervalbox.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace leader::console;

class IntervalBoxTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }

    void restoresTheSavedChoice_data()
    {
        QTest::addColumn<QVariant>("saved");
        QTest::addColumn<int>("interval");
        QTest::newRow("none") << QVariant() << 1000;
        QTest::newRow("off") << QVariant(0) << 0;
        QTest::newRow("5 s") << QVariant(5000) << 5000;
        QTest::newRow("30 s") << QVariant(30000) << 30000;
        QTest::newRow("not a choice") << QVariant(1234) << 1000;
    }

    void restoresTheSavedChoice()
    {
        QFETCH(QVariant, saved);
        QFETCH(int, interval);
        if (saved.isValid())
            QSettings().setValue(QStringLiteral("poll/intervalMs"), saved);
        IntervalBox box;
        QCOMPARE(box.interval(), interval);
        QCOMPARE(box.currentData().toInt(), interval);
    }

    void aChoiceIsSavedAndAnnounced()
    {
        IntervalBox box;
        QCOMPARE(box.interval(), 1000);
        QSignalSpy chosen(&box, &IntervalBox::intervalChosen);
        QTest::keyClick(&box, Qt::Key_Down); // the next choice, as the operator picks it
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).toInt(), 2000);
        QCOMPARE(QSettings().value(QStringLiteral("poll/intervalMs")).toInt(), 2000);
        QCOMPARE(IntervalBox().interval(), 2000);
        // A change made by the program is not the operator's choice.
        box.setCurrentIndex(0);
        QCOMPARE(chosen.count(), 1);
    }
};

QTEST_MAIN(IntervalBoxTest)
#include "tst_intervalbox.moc"
