// The console's age alert (AlertController::alerted, the tray notification) over a run of polls:
// never for a paused or starting role, and after a pause by the time since the pause ended, so a
// role that stays stalled after its unpause alerts then and not at the unpause.

#include "agepolls.h"
#include "ui/alertcontroller.h"

#include <QSignalSpy>
#include <QTest>
#include <QWidget>

using namespace leader::console;
using leader::test::AgePoll;
using leader::test::AgePolls;

class TstAlertController final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // billing alerts at 270 s. Mutation check (done once): judging by thresholds.level(), as
    // before issue 33, never alerted in "unpaused, stays stalled" (its level was already alert
    // through the pause).
    void alertsOverPolls_data()
    {
        QTest::addColumn<AgePolls>("polls");
        QTest::addColumn<QList<double>>("alertedAt"); // the polls that alerted
        using S = RoleState;
        const AgePolls pausedAnHour{{0, S::Free, 10}, {10, S::Paused, 20}, {3600, S::Paused, 3610}};
        QTest::newRow("paused an hour") << pausedAnHour << QList<double>();
        // Counted from the last poll that showed the pause (3600 s): alert at 3870 s.
        QTest::newRow("unpaused, stays stalled") << pausedAnHour
                                                            + AgePolls{{3601, S::Free, 3611},
                                                                       {3869, S::Free, 3879},
                                                                       {3870, S::Free, 3880},
                                                                       {3900, S::Free, 3910}}
                                                 << QList<double>{3870};
        QTest::newRow("unpaused, runs")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3610, S::Free, 1}}
                << QList<double>();
        QTest::newRow("never ran")
                << AgePolls{{0, S::NeverRan}, {300, S::NeverRan}} << QList<double>();
        QTest::newRow("stalls") << AgePolls{{0, S::Free, 100}, {180, S::Free, 280}}
                                << QList<double>{180};
    }
    void alertsOverPolls()
    {
        QFETCH(AgePolls, polls);
        QWidget window;
        AlertController alerts(&window);
        QSignalSpy alerted(&alerts, &AlertController::alerted);
        QList<double> alertedAt;
        for (const AgePoll &poll : std::as_const(polls)) {
            const qsizetype before = alerted.size();
            alerts.onSnapshot(leader::test::snapshotAt(QStringLiteral("billing"), poll));
            if (alerted.size() > before)
                alertedAt << poll.at;
        }
        QTEST(alertedAt, "alertedAt");
    }
};

QTEST_MAIN(TstAlertController)
#include "tst_alertcontroller.moc"
