// The event log's age events (changesBetween) over a run of polls, as the window feeds it: a paused
// role and one starting (never ran, or unpaused, within its first interval) log no age event, and
// an unpaused role that does not run warns and alerts by the time since its pause ended.

#include "agepolls.h"
#include "models/agethresholds.h"
#include "models/health.h"
#include "models/statusdiff.h"

#include <QTest>

using namespace leader::console;
using leader::test::AgePoll;
using leader::test::AgePolls;

namespace {

// The age events of billing's run, with the origins handed over as of the earlier poll (as
// MainWindow does, before its status model takes the new rows) or as of the later one.
QStringList ageEvents(const AgePolls &polls, bool originsAhead)
{
    const AgeThresholds thresholds = AgeThresholds::defaults();
    AgeOrigins origins;
    QStringList events;
    StatusSnapshot before;
    for (qsizetype i = 0; i < polls.size(); ++i) {
        const StatusSnapshot after = leader::test::snapshotAt(QStringLiteral("billing"), polls[i]);
        if (originsAhead)
            origins.observe(after);
        if (i > 0) {
            for (const EventLogEntry &entry :
                 changesBetween(before, after, &thresholds, {}, &origins)) {
                if (entry.event == EventKind::AgeOk || entry.event == EventKind::AgeWarning
                    || entry.event == EventKind::AgeAlert)
                    events << QStringLiteral("%1 s %2: %3")
                                      .arg(polls[i].at)
                                      .arg(eventKindName(entry.event), entry.detail);
            }
        }
        if (!originsAhead)
            origins.observe(after);
        before = after;
    }
    return events;
}

} // namespace

class TstStatusDiff final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The backlog's read failing is said once a change, not every poll.
    void backlogReadLine_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<QString>("line"); // empty: none
        // StatusReader's lines.
        const QString timeout = QStringLiteral("the backlog could not be read: 57014: canceling "
                                               "statement due to statement timeout");
        const QString denied = QStringLiteral(
                "the backlog could not be read: 42501: permission denied for function "
                "leader_backlog");
        QTest::newRow("read, as before") << QString() << QString() << QString();
        QTest::newRow("starts failing") << QString() << timeout << timeout;
        QTest::newRow("fails alike") << timeout << timeout << QString();
        QTest::newRow("fails otherwise") << timeout << denied << denied;
        QTest::newRow("read again") << timeout << QString() << "the backlog is read again";
    }
    void backlogReadLine()
    {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(QString, line);
        QCOMPARE(leader::console::backlogReadLine(before, after).value_or(QString()), line);
    }

    // billing warns at 135 s and alerts at 270 s. Mutation checks (done once each): judging ages
    // by thresholds.level() (as before issue 33) failed "paused an hour", the first two unpaused
    // rows and unpausedWithoutOrigins; no origin at a pause's end failed the same rows but
    // "paused an hour", and "a pause that ran out"; counting a pause that ran out from the poll
    // that saw it over, or from the last one that showed it, failed "a pause that ran out".
    void ageEvents_data()
    {
        QTest::addColumn<AgePolls>("polls");
        QTest::addColumn<QStringList>("events");
        using S = RoleState;
        const AgePolls pausedAnHour{{0, S::Free, 10},
                                    {10, S::Paused, 20},
                                    {200, S::Paused, 210},
                                    {400, S::Paused, 410},
                                    {3600, S::Paused, 3610}};
        QTest::newRow("paused an hour") << pausedAnHour << QStringList();
        // Unpaused after the poll at 3600 s: due, but only late 135 s after that.
        QTest::newRow("unpaused after an hour, then late")
                << pausedAnHour
                           + AgePolls{{3601, S::Free, 3611},
                                      {3700, S::Free, 3710},
                                      {3740, S::Free, 3750},
                                      {3880, S::Free, 3890},
                                      {3900, S::Free, 2}}
                << QStringList{"3740 s age warning: no tick in 140.0 s since its pause ended, last "
                               "tick 3750.0 s ago (warning at 135.0 s)",
                               "3880 s age alert: no tick in 280.0 s since its pause ended, last "
                               "tick 3890.0 s ago (alert at 270.0 s)",
                               "3900 s age ok: last tick 2.0 s ago (warning at 135.0 s)"};
        QTest::newRow("unpaused, ticks at once")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3610, S::Free, 1}}
                << QStringList();
        // Paused until 100 s, seen over at 250 s: 150 s since the pause's end.
        QTest::newRow("a pause that ran out")
                << AgePolls{{0, S::Free, 10},
                            {10, S::Paused, 20, 100},
                            {90, S::Paused, 100, 100},
                            {250, S::Free, 260}}
                << QStringList{"250 s age warning: no tick in 150.0 s since its pause ended, last "
                               "tick 260.0 s ago (warning at 135.0 s)"};
        // In alert when paused: the pause says so in the log, not an "age ok".
        QTest::newRow("paused in alert")
                << AgePolls{{0, S::Free, 300}, {10, S::Paused, 310}} << QStringList();
        // Never ran: its first interval is quiet, and past it the Health column says so; the
        // log's age events are about ages.
        QTest::newRow("never ran") << AgePolls{{0, S::NeverRan},
                                               {30, S::NeverRan},
                                               {300, S::NeverRan},
                                               {310, S::Free, 1}}
                                   << QStringList();
        // Judged as before for a role that runs: late and stalled are news.
        QTest::newRow("late and stalled")
                << AgePolls{{0, S::Free, 100}, {40, S::Free, 140}, {180, S::Free, 280}}
                << QStringList{"40 s age warning: last tick 140.0 s ago (warning at 135.0 s)",
                               "180 s age alert: last tick 280.0 s ago (alert at 270.0 s)"};
    }
    void ageEvents()
    {
        QFETCH(AgePolls, polls);
        QTEST(::ageEvents(polls, false), "events");
        QTEST(::ageEvents(polls, true), "events");
    }

    // Without the window's origins the diff still knows a pause ending between its two polls:
    // billing's age crossed its alert threshold meanwhile, and that is no alarm.
    void unpausedWithoutOrigins()
    {
        const AgeThresholds thresholds = AgeThresholds::defaults();
        const AgePoll paused{100, RoleState::Paused, 200};
        const AgePoll unpaused{200, RoleState::Free, 300};
        const QString billing = QStringLiteral("billing");
        const QList<EventLogEntry> entries
                = changesBetween(leader::test::snapshotAt(billing, paused),
                                 leader::test::snapshotAt(billing, unpaused), &thresholds);
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.at(0).event, EventKind::Unpaused);
    }
};

QTEST_GUILESS_MAIN(TstStatusDiff)
#include "tst_statusdiff.moc"
