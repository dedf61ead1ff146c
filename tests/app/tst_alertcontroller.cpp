// The console's age alert (AlertController::alerted, the tray notification) over a run of polls:
// never for a paused or starting role, and after a pause by the time since the pause ended, so a
// role that stays stalled after its unpause alerts then and not at the unpause. And the backlog
// alert: a role's backlog growing while it is paused or starved.

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

    // A backlog that grows while the role is paused or starved is an alert, with its line
    // (BacklogWatch's rules, tested in tst_backlogwatch); a running role's growth is none. billing
    // warns at 135 s.
    void backlogAlerts_data()
    {
        QTest::addColumn<AgePolls>("polls");
        QTest::addColumn<QList<qint64>>("pending"); // one count per poll
        QTest::addColumn<QStringList>("alerts");
        using S = RoleState;
        QTest::newRow("paused and growing")
                << AgePolls{{0, S::Paused, 10}, {10, S::Paused, 20}, {45, S::Paused, 55}}
                << QList<qint64>{0, 5, 37}
                << QStringList{"billing: paused, and its backlog grew from 0 to 37 due "
                               "subscriptions over 35.0 s (oldest 4 min 0 s)"};
        QTest::newRow("running and growing")
                << AgePolls{{0, S::Free, 10}, {10, S::Free, 20}, {45, S::Free, 5}}
                << QList<qint64>{0, 5, 37} << QStringList();
        QTest::newRow("starved and growing")
                << AgePolls{{0, S::Free, 140}, {10, S::Free, 150}, {45, S::Free, 185}}
                << QList<qint64>{3, 5, 9}
                << QStringList{"billing: starved (its last tick is late), and its backlog grew "
                               "from 3 to 9 due subscriptions over 35.0 s (oldest 4 min 0 s)"};
    }
    void backlogAlerts()
    {
        QFETCH(AgePolls, polls);
        QFETCH(QList<qint64>, pending);
        QWidget window;
        AlertController alerts(&window);
        QSignalSpy alerted(&alerts, &AlertController::alerted);
        for (qsizetype poll = 0; poll < polls.size(); ++poll) {
            RoleStatus status = leader::test::statusAt(QStringLiteral("billing"), polls.at(poll));
            status.backlog
                    = RoleBacklog{QStringLiteral("due subscriptions"), pending.at(poll), 240, {}};
            alerts.onSnapshot(leader::test::snapshotAt(polls.at(poll), {status}));
        }
        QStringList lines;
        for (const QList<QVariant> &signal : std::as_const(alerted)) {
            QCOMPARE(signal.at(0).toString(), QStringLiteral("billing"));
            lines << signal.at(1).toString();
        }
        QTEST(lines, "alerts");
    }
};

QTEST_MAIN(TstAlertController)
#include "tst_alertcontroller.moc"
