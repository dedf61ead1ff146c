// StatusModel over real snapshots (from a StatusPoller against a real server, straight and through
// PgBouncer) under QAbstractItemModelTester: precise dataChanged after a pause, the last-tick
// colouring per AgeLevel, a holder outside the registry (extension 0189) from the poll to the cell.
// Also the pure pieces beside it: AgeThresholds and changesBetween, the Health column (per state,
// age, stale flag and thresholds, its tooltip, its precise dataChanged), holders shown by name,
// and holders outside the registry marked, the hour's counts said to be ours only.

#include "adrstatements.h"
#include "agepolls.h"
#include "core/demotypes.h"
#include "core/statuspoller.h"
#include "models/agethresholds.h"
#include "models/health.h"
#include "models/statusdiff.h"
#include "models/statusmodel.h"
#include "models/tones.h"
#include "pg/connection.h"
#include "testdatabase.h"
#include "ui/theme.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using leader::console::AgeLevel;
using leader::console::AgeThreshold;
using leader::console::AgeThresholds;
using leader::console::ConnectionProfile;
using leader::console::ConnectionState;
using leader::console::EventLogEntry;
using HealthLevel = leader::console::Health; // StatusModel::Health is the column
using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusModel;
using leader::console::StatusPoller;
using leader::console::StatusSnapshot;
using leader::console::Theme;
using leader::console::Tone;
using leader::console::toneFill;
using leader::test::Login;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(leader::console::AgeLevel)
Q_DECLARE_METATYPE(leader::console::Health)
Q_DECLARE_METATYPE(leader::console::Theme)

namespace {

constexpr int Timeout = 15000;

RoleStatus role(const QString &name, RoleState state = RoleState::Free)
{
    RoleStatus status;
    status.role = name;
    status.state = state;
    status.token = 100;
    return status;
}

RoleStatus aged(const QString &name, double age, RoleState state = RoleState::Free)
{
    RoleStatus status = role(name, state);
    if (age >= 0)
        status.lastTickAgeSeconds = age;
    else
        status.state = state == RoleState::Free ? RoleState::NeverRan : state;
    return status;
}

// A role with a backlog reading: pending < 0 for a source that failed with error, oldest < 0 for
// none.
RoleStatus queued(const QString &name, qint64 pending, double oldest = -1,
                  const QString &error = {})
{
    RoleStatus status = aged(name, 5);
    leader::console::RoleBacklog backlog;
    backlog.what = QStringLiteral("due subscriptions");
    if (pending >= 0)
        backlog.pending = pending;
    if (oldest >= 0)
        backlog.oldestAgeSeconds = oldest;
    backlog.error = error;
    status.backlog = backlog;
    return status;
}

// The dataChanged signals in spy that cover column of row, as (first, last, roles).
QList<QList<int>> rolesAnnounced(const QSignalSpy &spy, int row, int column)
{
    QList<QList<int>> out;
    for (const QList<QVariant> &signal : spy) {
        const auto first = signal.at(0).toModelIndex();
        const auto last = signal.at(1).toModelIndex();
        if (first.row() <= row && row <= last.row() && first.column() <= column
            && column <= last.column()) {
            out.append(signal.at(2).value<QList<int>>());
        }
    }
    return out;
}

// A role with a tick recorded and the hour's counts (0184), led by holder.
RoleStatus tickedAndLed(const QString &name, const QString &holder)
{
    RoleStatus status = aged(name, 5, RoleState::Led);
    status.holderId = holder;
    status.lastOutcome = leader::console::TickOutcome::Completed;
    status.lastDurationSeconds = 1.5;
    status.lastHolder = QStringLiteral("vm:1:aaaaaaaa");
    status.lastHour = leader::console::TickCounts{12, 0, 0, 0};
    return status;
}

StatusSnapshot snapshotOf(QList<RoleStatus> roles)
{
    StatusSnapshot snapshot;
    snapshot.roles = std::move(roles);
    snapshot.receivedAt = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
    snapshot.databaseTime = snapshot.receivedAt;
    return snapshot;
}

} // namespace

class TestStatusModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_db = std::make_unique<TestDatabase>("statusmodel");
        m_db->migrateLease();
    }
    void init() { m_db->resetLeases(); }
    void cleanupTestCase() { m_db.reset(); }

    // ---- AgeThresholds --------------------------------------------------------------------

    void thresholdLevels_data()
    {
        QTest::addColumn<QString>("role");
        QTest::addColumn<double>("age"); // < 0: never ran
        QTest::addColumn<AgeLevel>("level");
        // billing 60 s: warn 135 s, alert 270 s; dunning 10 s: 35, 70; outboxes 2 s: 19, 38.
        QTest::newRow("billing fresh") << "billing" << 10.0 << AgeLevel::Ok;
        QTest::newRow("billing just under warn") << "billing" << 134.9 << AgeLevel::Ok;
        QTest::newRow("billing warn") << "billing" << 135.0 << AgeLevel::Warning;
        QTest::newRow("billing alert") << "billing" << 270.0 << AgeLevel::Alert;
        QTest::newRow("dunning warn") << "dunning" << 40.0 << AgeLevel::Warning;
        QTest::newRow("dunning alert") << "dunning" << 70.0 << AgeLevel::Alert;
        QTest::newRow("outbox ok") << "webhook_outbox" << 18.9 << AgeLevel::Ok;
        QTest::newRow("outbox warn") << "email_outbox" << 19.0 << AgeLevel::Warning;
        QTest::newRow("outbox alert") << "webhook_delivery" << 38.0 << AgeLevel::Alert;
        QTest::newRow("never ran") << "billing" << -1.0 << AgeLevel::Unknown;
        QTest::newRow("unknown role: the longest interval's")
                << "payroll" << 140.0 << AgeLevel::Warning;
    }

    void thresholdLevels()
    {
        QFETCH(QString, role);
        QFETCH(double, age);
        const auto thresholds = AgeThresholds::defaults();
        QTEST(thresholds.level(role, age < 0 ? std::nullopt : std::optional(age)), "level");
    }

    void thresholdsSettingsRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("console.ini"));
        AgeThresholds changed = AgeThresholds::defaults();
        changed.setRoleInterval(QStringLiteral("billing"), 30);
        changed.setThreshold(QStringLiteral("dunning"), {50, 90});
        {
            QSettings settings(path, QSettings::IniFormat);
            changed.save(settings);
        }
        QSettings settings(path, QSettings::IniFormat);
        AgeThresholds loaded = AgeThresholds::defaults();
        loaded.load(settings);
        QCOMPARE(loaded.threshold(QStringLiteral("billing")), AgeThresholds::forInterval(30));
        QCOMPARE(loaded.threshold(QStringLiteral("dunning")), (AgeThreshold{50, 90}));
        QCOMPARE(loaded.roleIntervals().value(QStringLiteral("billing")), 30.0);
        QVERIFY(loaded == changed);

        // A pair out of order is ignored, not obeyed.
        settings.setValue(QStringLiteral("thresholds/dunning/warn"), 100);
        settings.setValue(QStringLiteral("thresholds/dunning/alert"), 10);
        AgeThresholds guarded = AgeThresholds::defaults();
        guarded.load(settings);
        QCOMPARE(guarded.threshold(QStringLiteral("dunning")), AgeThresholds::forInterval(10));
    }

    // ---- changesBetween -------------------------------------------------------------------

    void changes_data()
    {
        QTest::addColumn<RoleStatus>("before");
        QTest::addColumn<RoleStatus>("after");
        QTest::addColumn<bool>("withThresholds");
        QTest::addColumn<QStringList>("events"); // "event: detail"

        RoleStatus led = role(QStringLiteral("billing"), RoleState::Led);
        led.holderId = QStringLiteral("h1:1:aaaaaaaa");
        led.token = 101;
        RoleStatus free = role(QStringLiteral("billing"));
        free.token = 101;
        free.lastTickHolder = QStringLiteral("h1:1:aaaaaaaa");
        free.lastTickAgeSeconds = 1;
        RoleStatus paused = role(QStringLiteral("billing"), RoleState::Paused);
        paused.token = 101;
        paused.pausedBy = QStringLiteral("alice@ops");
        paused.pauseReason = QStringLiteral("key rotation");
        // snapshotOf() observes at 2023-11-14 22:13:20 UTC on the database clock.
        const QDateTime observedAt = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
        RoleStatus pausedForAnHour = paused;
        pausedForAnHour.pausedUntil = observedAt.addSecs(3600);
        RoleStatus pauseJustEnded = paused;
        pauseJustEnded.pausedUntil = observedAt.addSecs(-1);
        RoleStatus sameHolderNextTick = led;
        sameHolderNextTick.token = 102;
        RoleStatus otherHolder = led;
        otherHolder.token = 102;
        otherHolder.holderId = QStringLiteral("h2:2:bbbbbbbb");
        RoleStatus fresh = free;
        fresh.lastTickAgeSeconds = 5;
        RoleStatus stale = free;
        stale.lastTickAgeSeconds = 140;
        RoleStatus stalled = free;
        stalled.lastTickAgeSeconds = 300;

        QTest::newRow("nothing") << free << free << true << QStringList();
        QTest::newRow("led -> free") << led << free << false << QStringList{"state: led -> free"};
        QTest::newRow("paused") << free << paused << false
                                << QStringList{
                                           "paused: by alice@ops, until unpaused: key rotation"};
        QTest::newRow("paused with an end")
                << free << pausedForAnHour << false
                << QStringList{"paused: by alice@ops, until 2023-11-14 23:13:20 UTC: key rotation"};
        QTest::newRow("unpaused") << paused << free << false << QStringList{"unpaused: now free"};
        QTest::newRow("unpaused before its end")
                << pausedForAnHour << free << false << QStringList{"unpaused: now free"};
        QTest::newRow("its end came") << pauseJustEnded << free << false
                                      << QStringList{"pause ended: the pause by alice@ops ended "
                                                     "at 2023-11-14 22:13:19 UTC; now free"};
        QTest::newRow("acquired by the last holder")
                << free << sameHolderNextTick << false
                << QStringList{"state: free -> led", "acquired: h1:1:aaaaaaaa"};
        QTest::newRow("next tick, same holder")
                << led << sameHolderNextTick << false << QStringList{"acquired: h1:1:aaaaaaaa"};
        // Unclassified (no HolderChangeTracker): a new holder is never called a takeover here;
        // tst_holderchange covers the classified events.
        QTest::newRow("another holder while led")
                << led << otherHolder << false
                << QStringList{"acquired: h1:1:aaaaaaaa -> h2:2:bbbbbbbb"};
        QTest::newRow("another holder after a free gap")
                << free << otherHolder << false
                << QStringList{"state: free -> led", "acquired: h1:1:aaaaaaaa -> h2:2:bbbbbbbb"};
        QTest::newRow("age warning") << fresh << stale << true
                                     << QStringList{"age warning: last tick 140.0 s ago "
                                                    "(warning at 135.0 s)"};
        QTest::newRow("age alert") << stale << stalled << true
                                   << QStringList{"age alert: last tick 300.0 s ago "
                                                  "(alert at 270.0 s)"};
        QTest::newRow("age ok again") << stalled << fresh << true
                                      << QStringList{"age ok: last tick 5.0 s ago "
                                                     "(warning at 135.0 s)"};
        QTest::newRow("ages ignored without thresholds")
                << fresh << stalled << false << QStringList();
        QTest::newRow("first tick is no news")
                << role(QStringLiteral("billing")) << fresh << true << QStringList();
    }

    void changes()
    {
        QFETCH(RoleStatus, before);
        QFETCH(RoleStatus, after);
        QFETCH(bool, withThresholds);
        const AgeThresholds thresholds = AgeThresholds::defaults();
        const QList<EventLogEntry> entries = leader::console::changesBetween(
                snapshotOf({before}), snapshotOf({after}), withThresholds ? &thresholds : nullptr);
        QStringList events;
        for (const EventLogEntry &entry : entries) {
            QCOMPARE(entry.source, QStringLiteral("poll"));
            QCOMPARE(entry.role, QStringLiteral("billing"));
            QCOMPARE(entry.token, after.token);
            QCOMPARE(entry.time.timeSpec(), Qt::UTC);
            QVERIFY(!entry.databaseTime.isEmpty());
            events << leader::console::eventKindName(entry.event) + QStringLiteral(": ")
                              + entry.detail;
        }
        QTEST(events, "events");
    }

    void changesNeedBothSnapshots()
    {
        QVERIFY(leader::console::changesBetween({}, snapshotOf({role("billing", RoleState::Led)}))
                        .isEmpty());
    }

    // ---- StatusModel, pure --------------------------------------------------------------------

    void formatSeconds_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("tenths") << 12.34 << "12.3 s";
        QTest::newRow("zero") << 0.0 << "0.0 s";
        QTest::newRow("minutes") << 242.0 << "4 min 2 s";
        QTest::newRow("rounds into a minute") << 59.96 << "1 min 0 s";
        QTest::newRow("hours") << 7500.0 << "2 h 5 min";
    }

    void formatSeconds()
    {
        QFETCH(double, seconds);
        QTEST(StatusModel::formatSeconds(seconds), "text");
    }

    // ---- Backlog column, pure ----------------------------------------------------------------

    void backlogCell_data()
    {
        QTest::addColumn<RoleStatus>("status");
        QTest::addColumn<QString>("readError"); // the whole read's, StatusSnapshot::backlogError
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("tip");
        QTest::addColumn<QVariant>("raw");
        QTest::addColumn<bool>("warns"); // drawn in the warning tone
        QTest::newRow("waiting")
                << queued("billing", 12, 185) << QString() << "12 · oldest 3m 05s"
                << "12 due subscriptions waiting, the oldest for 3 min 5 s (on the database "
                   "clock)"
                << QVariant(qint64(12)) << false;
        QTest::newRow("nothing waiting")
                << queued("billing", 0) << QString() << "0"
                << "No due subscriptions waiting" << QVariant(qint64(0)) << false;
        QTest::newRow("a count without its oldest")
                << queued("billing", 4) << QString() << "4"
                << "4 due subscriptions waiting" << QVariant(qint64(4)) << false;
        QTest::newRow("seconds") << queued("billing", 3, 44.6) << QString() << "3 · oldest 45s"
                                 << "3 due subscriptions waiting, the oldest for 44.6 s (on the "
                                    "database clock)"
                                 << QVariant(qint64(3)) << false;
        QTest::newRow("hours") << queued("billing", 3, 7500) << QString() << "3 · oldest 2h 05m"
                               << "3 due subscriptions waiting, the oldest for 2 h 5 min (on the "
                                  "database clock)"
                               << QVariant(qint64(3)) << false;
        QTest::newRow("days") << queued("billing", 1, 3 * 86400 + 4 * 3600 + 10) << QString()
                              << "1 · oldest 3d 04h"
                              << "1 due subscriptions waiting, the oldest for 76 h 0 min (on the "
                                 "database clock)"
                              << QVariant(qint64(1)) << false;
        QTest::newRow("source failed")
                << queued("billing", -1, -1, "42501: permission denied for table subscriptions")
                << QString() << "error"
                << "The backlog's source failed: 42501: permission denied for table subscriptions"
                << QVariant() << true;
        QTest::newRow("no source") << role("billing") << QString() << QString()
                                   << "No backlog reported: no source is registered for this "
                                      "role, or the database lacks extension 0186 "
                                      "(docs/backlog.md)"
                                   << QVariant() << false;
        // The reader's line, whole.
        const QString timeout = QStringLiteral("the backlog could not be read: 57014: canceling "
                                               "statement due to statement timeout");
        QTest::newRow("read failed")
                << role("billing") << timeout << QString() << timeout << QVariant() << false;
    }

    void backlogCell()
    {
        QFETCH(RoleStatus, status);
        QFETCH(QString, readError);
        QFETCH(QVariant, raw);
        QFETCH(bool, warns);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        StatusSnapshot snapshot = snapshotOf({status});
        snapshot.backlogError = readError;
        model.setSnapshot(snapshot);
        const QModelIndex cell = model.index(0, StatusModel::Backlog);
        QTEST(cell.data().toString(), "text");
        QTEST(cell.data(Qt::ToolTipRole).toString(), "tip");
        QCOMPARE(cell.data(StatusModel::RawRole), raw);
        QCOMPARE(cell.data(Qt::ForegroundRole).isValid(), warns);
        QCOMPARE(model.headerData(StatusModel::Backlog, Qt::Horizontal).toString(),
                 QStringLiteral("Backlog"));
    }

    // A poll announces the Backlog cell of the rows whose reading changed, that cell alone: its
    // count, its oldest age, its error, or (without a reading) the whole read's error its tooltip
    // names. Mutation check (done once): without the read error's own test in setSnapshot() the
    // "read fails" and "read fails otherwise" rows announced nothing.
    void backlogChangesAreAnnouncedOnItsCell_data()
    {
        QTest::addColumn<StatusSnapshot>("before");
        QTest::addColumn<StatusSnapshot>("after");
        QTest::addColumn<QList<int>>("rows"); // the rows announced
        const RoleStatus dunning = queued("dunning", 3, 20);
        const StatusSnapshot waiting = snapshotOf({queued("billing", 12, 185), dunning});
        QTest::newRow("unchanged") << waiting << waiting << QList<int>();
        QTest::newRow("the count rises")
                << waiting << snapshotOf({queued("billing", 13, 185), dunning}) << QList<int>{0};
        QTest::newRow("the oldest ages")
                << waiting << snapshotOf({queued("billing", 12, 190), dunning}) << QList<int>{0};
        QTest::newRow("the source fails")
                << waiting << snapshotOf({queued("billing", -1, -1, "XX000: boom"), dunning})
                << QList<int>{0};
        QTest::newRow("the source is unregistered")
                << waiting << snapshotOf({aged("billing", 5), dunning}) << QList<int>{0};
        StatusSnapshot readFails = snapshotOf({aged("billing", 5), dunning});
        readFails.backlogError = QStringLiteral("57014: canceling statement");
        StatusSnapshot readFailsAgain = readFails;
        readFailsAgain.backlogError = QStringLiteral("08006: the connection was lost");
        QTest::newRow("read fails")
                << snapshotOf({aged("billing", 5), dunning}) << readFails << QList<int>{0};
        QTest::newRow("read fails again alike") << readFails << readFails << QList<int>();
        QTest::newRow("read fails otherwise") << readFails << readFailsAgain << QList<int>{0};
    }

    void backlogChangesAreAnnouncedOnItsCell()
    {
        QFETCH(StatusSnapshot, before);
        QFETCH(StatusSnapshot, after);
        QFETCH(QList<int>, rows);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(before);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(after);
        QList<int> announced;
        for (const QList<QVariant> &signal : std::as_const(changes)) {
            const QModelIndex first = signal.at(0).toModelIndex();
            const QModelIndex last = signal.at(1).toModelIndex();
            QCOMPARE(first.row(), last.row());
            QCOMPARE(first.column(), int(StatusModel::Backlog));
            QCOMPARE(last.column(), int(StatusModel::Backlog));
            const auto roles = signal.at(2).value<QList<int>>();
            QVERIFY(roles.contains(Qt::DisplayRole));
            QVERIFY(roles.contains(Qt::ToolTipRole));
            QVERIFY(roles.contains(StatusModel::RawRole));
            QVERIFY(roles.contains(Qt::ForegroundRole));
            announced << first.row();
        }
        QCOMPARE(announced, rows);
    }

    void rowSetChangesResetTheModel()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(snapshotOf({role("billing"), role("dunning")}));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(StatusModel::ColumnCount));
        QCOMPARE(resets.size(), 1);
        model.setSnapshot(snapshotOf({role("billing"), role("dunning")}));
        QCOMPARE(resets.size(), 1);
        QCOMPARE(changes.size(), 0);
        model.setSnapshot(snapshotOf({role("billing")}));
        QCOMPARE(resets.size(), 2);
        QCOMPARE(model.roleAt(0), QStringLiteral("billing"));
        QCOMPARE(model.roleAt(1), QString());
        QVERIFY(!model.statusFor(QStringLiteral("dunning")));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // ---- Health column, pure -----------------------------------------------------------------

    void health_data()
    {
        QTest::addColumn<QString>("role");
        QTest::addColumn<RoleState>("state");
        QTest::addColumn<double>("age"); // < 0: never ran
        QTest::addColumn<bool>("stale");
        QTest::addColumn<double>("billingInterval"); // 0: the defaults (60 s)
        QTest::addColumn<HealthLevel>("health");
        QTest::addColumn<QString>("text");
        // billing 60 s: warn 135 s, alert 270 s; with a 30 s interval: 75 s, 150 s.
        QTest::newRow("ok") << "billing" << RoleState::Led << 12.0 << false << 0.0
                            << HealthLevel::Ok << "ok";
        QTest::newRow("just under warn")
                << "billing" << RoleState::Free << 134.9 << false << 0.0 << HealthLevel::Ok << "ok";
        QTest::newRow("warn") << "billing" << RoleState::Free << 135.0 << false << 0.0
                              << HealthLevel::Warn << "warn";
        QTest::newRow("alert") << "billing" << RoleState::Free << 270.0 << false << 0.0
                               << HealthLevel::Alert << "alert";
        QTest::newRow("outbox alert") << "webhook_outbox" << RoleState::Led << 38.0 << false << 0.0
                                      << HealthLevel::Alert << "alert";
        // Its first poll: not due yet (neutralStates has the rest of the run).
        QTest::newRow("never ran") << "dunning" << RoleState::NeverRan << -1.0 << false << 0.0
                                   << HealthLevel::Starting << "starting";
        QTest::newRow("paused, however old") << "billing" << RoleState::Paused << 900.0 << false
                                             << 0.0 << HealthLevel::Paused << "paused";
        QTest::newRow("stale outranks ok") << "billing" << RoleState::Led << 12.0 << true << 0.0
                                           << HealthLevel::Stale << "stale";
        QTest::newRow("stale outranks paused") << "billing" << RoleState::Paused << 12.0 << true
                                               << 0.0 << HealthLevel::Stale << "stale";
        QTest::newRow("shorter interval warns sooner")
                << "billing" << RoleState::Free << 100.0 << false << 30.0 << HealthLevel::Warn
                << "warn";
        QTest::newRow("shorter interval alerts sooner")
                << "billing" << RoleState::Free << 150.0 << false << 30.0 << HealthLevel::Alert
                << "alert";
    }

    void health()
    {
        QFETCH(QString, role);
        QFETCH(RoleState, state);
        QFETCH(double, age);
        QFETCH(bool, stale);
        QFETCH(double, billingInterval);
        QFETCH(HealthLevel, health);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        AgeThresholds thresholds = AgeThresholds::defaults();
        if (billingInterval > 0)
            thresholds.setRoleInterval(QStringLiteral("billing"), billingInterval);
        model.setThresholds(thresholds);
        model.setSnapshot(snapshotOf({aged(role, age, state)}));
        model.setStale(stale);

        QCOMPARE(model.headerData(StatusModel::Health, Qt::Horizontal).toString(),
                 QStringLiteral("Health"));
        QCOMPARE(StatusModel::Health, StatusModel::State + 1);
        const QModelIndex cell = model.index(0, StatusModel::Health);
        QTEST(cell.data().toString(), "text");
        QCOMPARE(cell.data(StatusModel::RawRole).toInt(), int(health));
        QCOMPARE(health, leader::console::healthOf(*model.statusFor(role), model.thresholds(),
                                                   stale, model.ageOrigins()));

        // The tones of the state and age cells; stale draws like the rest of a stale table.
        const QPalette palette = QGuiApplication::palette();
        QColor background;
        QColor foreground = palette.color(QPalette::Text);
        switch (health) {
        case HealthLevel::Ok:
            foreground = leader::console::toneText(Tone::Good, palette);
            break;
        case HealthLevel::Starting:
            break;
        case HealthLevel::Paused:
        case HealthLevel::Warn:
            background = toneFill(Tone::Warning, palette);
            break;
        case HealthLevel::Alert:
            background = toneFill(Tone::Alert, palette);
            break;
        case HealthLevel::Stale:
            foreground = palette.color(QPalette::Disabled, QPalette::Text);
            break;
        }
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>(), background);
        QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(), foreground);
    }

    void healthToolTip_data()
    {
        QTest::addColumn<RoleStatus>("status");
        QTest::addColumn<bool>("stale");
        QTest::addColumn<QString>("tip");
        const QString billing = QStringLiteral(
                "Warns at 135 s (2 × the 60 s interval + 15 s), alerts at 270 s (4 × interval + "
                "30 s).");
        QTest::newRow("ok") << aged("billing", 12) << false
                            << "ok: last tick 12.0 s ago. " + billing;
        QTest::newRow("warn") << aged("billing", 140) << false
                              << "Warn: last tick 2 min 20 s ago, a tick or a takeover late. "
                                         + billing;
        QTest::newRow("alert")
                << aged("webhook_outbox", 40) << false
                << QStringLiteral("Alert: last tick 40.0 s ago: stalled, ticks or takeovers failed "
                                  "in a row. Warns at 19 s (2 × the 2 s interval + 15 s), alerts "
                                  "at 38 s (4 × interval + 30 s).");
        QTest::newRow("never ran")
                << aged("billing", -1) << false
                << "Starting: no tick completed yet and not due yet; its age counts from when the "
                   "console first saw the role. "
                           + billing;
        QTest::newRow("paused") << aged("billing", 12, RoleState::Paused) << false
                                << QStringLiteral(
                                           "Paused: stopped on purpose, so its last tick ages and "
                                           "that is no alarm; it runs again once unpaused (the "
                                           "State cell says by whom and until when).");
        QTest::newRow("stale") << aged("billing", 12) << true
                               << QStringLiteral(
                                          "Stale: the console cannot read the database; this row "
                                          "is the last one received and says nothing sure about "
                                          "now.");
        QTest::newRow("thresholds set by hand")
                << aged("dunning", 12) << false
                << QStringLiteral("ok: last tick 12.0 s ago. Warns at 50 s, alerts at 90 s (set in "
                                  "Role → Age thresholds).");
    }

    void healthToolTip()
    {
        QFETCH(RoleStatus, status);
        QFETCH(bool, stale);
        StatusModel model;
        AgeThresholds thresholds = AgeThresholds::defaults();
        thresholds.setThreshold(QStringLiteral("dunning"), {50, 90});
        model.setThresholds(thresholds);
        model.setSnapshot(snapshotOf({status}));
        model.setStale(stale);
        QTEST(model.index(0, StatusModel::Health).data(Qt::ToolTipRole).toString(), "tip");
    }

    // A stale flip changes every row's Health text (one signal for that column, with the text
    // roles) and only the look of the other cells. Mutation check (done once): without the Health
    // column's own signal in setStale() the DisplayRole check below failed.
    void healthFollowsStale()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshotOf({aged("billing", 12), aged("dunning", 40)}));
        for (const bool stale : {true, false}) {
            QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
            model.setStale(stale);
            for (int row = 0; row < model.rowCount(); ++row) {
                for (int column = 0; column < StatusModel::ColumnCount; ++column) {
                    bool text = false;
                    for (const QList<int> &roles : rolesAnnounced(changes, row, column)) {
                        QVERIFY(roles.contains(Qt::ForegroundRole)
                                || roles.contains(Qt::DisplayRole));
                        text = text || roles.contains(Qt::DisplayRole);
                    }
                    QCOMPARE(text, column == StatusModel::Health);
                }
            }
            QCOMPARE(changes.size(), 2);
            QCOMPARE(changes.at(1).at(0).toModelIndex(), model.index(0, StatusModel::Health));
            QCOMPARE(changes.at(1).at(1).toModelIndex(), model.index(1, StatusModel::Health));
            QCOMPARE(model.index(1, StatusModel::Health).data().toString(),
                     stale ? QStringLiteral("stale") : QStringLiteral("warn"));
        }
    }

    // New thresholds announce the Health cells of the roles they changed, no others: the text
    // and colour where the level moved, the tooltip (which states them) where it did not.
    // Mutation check (done once): announcing every row's Health cell failed the dunning row.
    void healthFollowsThresholds()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshotOf({aged("billing", 100), aged("dunning", 5)}));
        QCOMPARE(model.index(0, StatusModel::Health).data().toString(), QStringLiteral("ok"));

        AgeThresholds thresholds = AgeThresholds::defaults();
        thresholds.setRoleInterval(QStringLiteral("billing"), 30); // warn at 75 s
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setThresholds(thresholds);
        QCOMPARE(model.index(0, StatusModel::Health).data().toString(), QStringLiteral("warn"));
        const QList<QList<int>> billing = rolesAnnounced(changes, 0, StatusModel::Health);
        QCOMPARE(billing.size(), 1);
        QVERIFY(billing.at(0).contains(Qt::DisplayRole));
        QVERIFY(billing.at(0).contains(Qt::BackgroundRole));
        QVERIFY(billing.at(0).contains(Qt::ToolTipRole));
        QVERIFY(rolesAnnounced(changes, 1, StatusModel::Health).isEmpty());

        // Still OK at 5 s, but the tooltip states the new thresholds.
        thresholds.setRoleInterval(QStringLiteral("dunning"), 20);
        changes.clear();
        model.setThresholds(thresholds);
        QVERIFY(rolesAnnounced(changes, 0, StatusModel::Health).isEmpty());
        QCOMPARE(rolesAnnounced(changes, 1, StatusModel::Health),
                 (QList<QList<int>>{{Qt::ToolTipRole}}));
        QVERIFY(model.index(1, StatusModel::Health)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QLatin1String("the 20 s interval")));
    }

    // A new snapshot announces Health with its colours when the level moves, its text alone
    // when only the age (in its tooltip) moved.
    void healthFollowsSnapshots()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshotOf({aged("billing", 10)}));
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(snapshotOf({aged("billing", 20)}));
        QCOMPARE(rolesAnnounced(changes, 0, StatusModel::Health).size(), 1);
        QVERIFY(!rolesAnnounced(changes, 0, StatusModel::Health)
                         .at(0)
                         .contains(Qt::BackgroundRole));
        changes.clear();
        model.setSnapshot(snapshotOf({aged("billing", 140)}));
        QCOMPARE(model.index(0, StatusModel::Health).data().toString(), QStringLiteral("warn"));
        QCOMPARE(rolesAnnounced(changes, 0, StatusModel::Health).size(), 1);
        QVERIFY(rolesAnnounced(changes, 0, StatusModel::Health).at(0).contains(Qt::BackgroundRole));
    }

    // billing (warning at 135 s, alert at 270 s) over a run of polls: a paused role and one
    // starting show no age colour and Health says so; an unpaused role is judged from the end of
    // its pause. Every change of the Health text or the age level is announced, also when time
    // alone moved it (a never-ran role's cells stay the same). Mutation checks (done once each):
    // the age colours by thresholds.level() failed "paused an hour" and "unpaused, not yet
    // due"; announcing Health only when its cells differ failed "never ran, past its first
    // interval".
    void neutralStates_data()
    {
        QTest::addColumn<leader::test::AgePolls>("polls");
        QTest::addColumn<QString>("health");
        QTest::addColumn<AgeLevel>("level");
        QTest::addColumn<QColor>("ageFill"); // invalid: none
        QTest::addColumn<QString>("tip");    // the Health tooltip's start
        using S = RoleState;
        using leader::test::AgePolls;
        const QColor warning = toneFill(Tone::Warning, QGuiApplication::palette());
        const QColor alert = toneFill(Tone::Alert, QGuiApplication::palette());
        const AgePolls pausedAnHour{{0, S::Free, 10},
                                    {10, S::Paused, 20},
                                    {200, S::Paused, 210},
                                    {3600, S::Paused, 3610}};
        QTest::newRow("paused an hour") << pausedAnHour << "paused" << AgeLevel::Neutral << QColor()
                                        << "Paused: stopped on purpose";
        QTest::newRow("unpaused, not yet due")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3700, S::Free, 3710}}
                << "starting" << AgeLevel::Neutral << QColor()
                << "Starting: unpaused and not due yet";
        QTest::newRow("unpaused, 135 s without a tick")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3735, S::Free, 3745}} << "warn"
                << AgeLevel::Warning << warning
                << "Warn: no tick in 2 min 15 s since its pause ended (last tick 1 h 2 min ago).";
        QTest::newRow("unpaused, 270 s without a tick")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3870, S::Free, 3880}} << "alert"
                << AgeLevel::Alert << alert
                << "Alert: no tick in 4 min 30 s since its pause ended (last tick 1 h 4 min ago)";
        QTest::newRow("unpaused and ticked")
                << pausedAnHour + AgePolls{{3601, S::Free, 3611}, {3620, S::Free, 1}} << "ok"
                << AgeLevel::Ok << QColor() << "ok: last tick 1.0 s ago.";
        QTest::newRow("never ran, within its first interval")
                << AgePolls{{0, S::NeverRan}, {1, S::NeverRan}, {134, S::NeverRan}} << "starting"
                << AgeLevel::Neutral << QColor() << "Starting: no tick completed yet";
        QTest::newRow("never ran, past its first interval")
                << AgePolls{{0, S::NeverRan}, {1, S::NeverRan}, {135, S::NeverRan}} << "warn"
                << AgeLevel::Unknown << QColor() << "Warn: no tick has completed yet";
        QTest::newRow("late at the first poll")
                << AgePolls{{0, S::Free, 200}} << "warn" << AgeLevel::Warning << warning
                << "Warn: last tick 3 min 20 s ago";
    }
    void neutralStates()
    {
        QFETCH(leader::test::AgePolls, polls);
        QFETCH(AgeLevel, level);
        QFETCH(QColor, ageFill);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Two roles, so that billing's row stays put (no reset) from the first poll on.
        const leader::test::AgePoll quiet{0, RoleState::Led, 1};
        for (const leader::test::AgePoll &poll : std::as_const(polls)) {
            const QString healthBefore = model.index(0, StatusModel::Health).data().toString();
            const QVariant levelBefore
                    = model.index(0, StatusModel::LastTickAge).data(StatusModel::AgeLevelRole);
            QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
            model.setSnapshot(leader::test::snapshotAt(
                    poll, {leader::test::statusAt(QStringLiteral("billing"), poll),
                           leader::test::statusAt(QStringLiteral("dunning"), quiet)}));
            if (healthBefore.isEmpty())
                continue; // the first poll resets the model
            const QModelIndex healthCell = model.index(0, StatusModel::Health);
            const QModelIndex ageCell = model.index(0, StatusModel::LastTickAge);
            if (healthCell.data().toString() != healthBefore) {
                bool announced = false;
                for (const QList<int> &roles : rolesAnnounced(changes, 0, StatusModel::Health))
                    announced = announced
                                || (roles.contains(Qt::DisplayRole)
                                    && roles.contains(Qt::BackgroundRole));
                QVERIFY2(announced,
                         qPrintable(QStringLiteral("%1 -> %2 at %3 s unannounced")
                                            .arg(healthBefore, healthCell.data().toString())
                                            .arg(poll.at)));
            }
            if (ageCell.data(StatusModel::AgeLevelRole) != levelBefore) {
                bool announced = false;
                for (const QList<int> &roles : rolesAnnounced(changes, 0, StatusModel::LastTickAge))
                    announced = announced || roles.contains(StatusModel::AgeLevelRole);
                QVERIFY(announced);
            }
        }
        const QModelIndex healthCell = model.index(0, StatusModel::Health);
        const QModelIndex ageCell = model.index(0, StatusModel::LastTickAge);
        QTEST(healthCell.data().toString(), "health");
        QFETCH(QString, tip);
        QVERIFY2(healthCell.data(Qt::ToolTipRole).toString().startsWith(tip),
                 qPrintable(healthCell.data(Qt::ToolTipRole).toString()));
        QCOMPARE(model.ageLevel(QStringLiteral("billing")), level);
        QCOMPARE(ageCell.data(StatusModel::AgeLevelRole).toInt(), int(level));
        QCOMPARE(ageCell.data(Qt::BackgroundRole).value<QColor>(), ageFill);
        // Without a fill, an age in the palette's text ("never" stays grey).
        if (!ageFill.isValid() && ageCell.data().toString() != QLatin1String("never"))
            QVERIFY(!ageCell.data(Qt::ForegroundRole).isValid());
        // Neither paused nor starting takes an alarm's fill in the Health cell either.
        if (healthCell.data().toString() == QLatin1String("starting"))
            QVERIFY(!healthCell.data(Qt::BackgroundRole).isValid());
    }

    // The demo's holders by replica name, the full id in the tooltip; names announced for the
    // Holder cells they change, nothing else. Mutation check (done once): showing the id
    // regardless of the names failed the display check.
    void holderNames()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        RoleStatus billing = role(QStringLiteral("billing"), RoleState::Led);
        billing.holderId = QStringLiteral("vm:29601:7014df0c");
        RoleStatus dunning = role(QStringLiteral("dunning"), RoleState::Led);
        dunning.holderId = QStringLiteral("other:1:aaaaaaaa"); // not hosted: shown as it is
        model.setSnapshot(snapshotOf({billing, dunning}));
        QCOMPARE(model.index(0, StatusModel::Holder).data().toString(), billing.holderId);

        leader::console::ReplicaInfo r2;
        r2.id = QStringLiteral("r2");
        r2.holderId = billing.holderId;
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setHolderNames(leader::console::holderNamesOf({r2}));
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes.at(0).at(0).toModelIndex(), model.index(0, StatusModel::Holder));
        QCOMPARE(changes.at(0).at(1).toModelIndex(), model.index(0, StatusModel::Holder));
        const QModelIndex cell = model.index(0, StatusModel::Holder);
        QCOMPARE(cell.data().toString(), QStringLiteral("r2"));
        QCOMPARE(cell.data(StatusModel::RawRole).toString(), QStringLiteral("r2"));
        QVERIFY2(cell.data(Qt::ToolTipRole).toString().contains(billing.holderId),
                 qPrintable(cell.data(Qt::ToolTipRole).toString()));
        QCOMPARE(model.index(1, StatusModel::Holder).data().toString(), dunning.holderId);

        model.setHolderNames(leader::console::holderNamesOf({r2}));
        QCOMPARE(changes.size(), 1);
        model.setHolderNames({});
        QCOMPARE(changes.size(), 2);
        QCOMPARE(cell.data().toString(), billing.holderId);
    }

    // ---- Holders outside the registry (extension 0189), pure ------------------------------

    // The Holder cell marks a holder outside the registry and its tooltip says what it takes
    // and how long its last tick lasted; the Outcome and Took tooltips say the hour's counts are
    // ours only while such holders led the role. An older schema (nothing known) and our own
    // holder read plain. Mutation checks, each done once: with holderText ignoring holderOutside
    // the "outside" rows failed; with hourText leaving out "(ours only)" the rows with theirs in
    // the hour failed.
    void outsideTheRegistry_data()
    {
        QTest::addColumn<RoleStatus>("status");
        QTest::addColumn<QString>("holder");    // the Holder cell
        QTest::addColumn<QString>("holderTip"); // part of its tooltip
        QTest::addColumn<QString>("hour");      // StatusModel::hourText
        QTest::addColumn<bool>("oursOnly");     // the Outcome and Took tooltips say why

        const QString plainHour = QStringLiteral("12 completed, 0 lost, 0 failed, 0 interrupted");
        const QString oursHour = plainHour + QStringLiteral(" (ours only)");
        const QString ours = QStringLiteral("vm:29601:7014df0c");
        const QString adr = QString::fromLatin1(leader::test::AdrHolderId);
        QTest::newRow("older schema")
                << tickedAndLed("billing", ours) << ours << ours << plainHour << false;
        RoleStatus ourHolder = tickedAndLed("billing", ours);
        ourHolder.holderOutside = false;
        ourHolder.countsOursOnly = false;
        QTest::newRow("0189, ours alone") << ourHolder << ours << ours << plainHour << false;
        RoleStatus theirsRanIt = ourHolder;
        theirsRanIt.countsOursOnly = true;
        QTest::newRow("ours holds it, theirs ran it")
                << theirsRanIt << ours << ours << oursHour << true;
        RoleStatus outside = tickedAndLed("billing", adr);
        outside.holderOutside = true;
        outside.holderLastDurationSeconds = 5;
        outside.countsOursOnly = true;
        QTest::newRow("outside")
                << outside << QStringLiteral("outside: ") + adr
                << adr
                           + QStringLiteral(
                                   " (outside the registry): a replica that speaks only the "
                                   "ADR; it takes no hand-over request and no drain, and "
                                   "runs its tick to its end; its last tick of the role "
                                   "lasted 5.0 s")
                << oursHour << true;
        RoleStatus firstTick = outside;
        firstTick.holderLastDurationSeconds.reset();
        firstTick.lastOutcome.reset();
        firstTick.lastDurationSeconds.reset();
        firstTick.lastHour = leader::console::TickCounts{};
        QTest::newRow("outside, first tick, none of ours")
                << firstTick << QStringLiteral("outside: ") + adr
                << adr + QStringLiteral(" (outside the registry)")
                << QStringLiteral("0 completed, 0 lost, 0 failed, 0 interrupted (ours only)")
                << true;
    }

    void outsideTheRegistry()
    {
        QFETCH(RoleStatus, status);
        QFETCH(QString, holder);
        QFETCH(QString, holderTip);
        QFETCH(QString, hour);
        QFETCH(bool, oursOnly);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshotOf({status}));
        const QModelIndex holderCell = model.index(0, StatusModel::Holder);
        QCOMPARE(holderCell.data().toString(), holder);
        const QString tip = holderCell.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(holderTip), qPrintable(tip));
        QCOMPARE(StatusModel::hourText(status), hour);
        for (const int column : {StatusModel::LastOutcome, StatusModel::Took}) {
            const QString outcomeTip = model.index(0, column).data(Qt::ToolTipRole).toString();
            QVERIFY2(outcomeTip.contains(QLatin1String("record no tick")) == oursOnly,
                     qPrintable(outcomeTip));
            if (status.lastOutcome)
                QVERIFY2(outcomeTip.contains(QStringLiteral("last hour: ") + hour),
                         qPrintable(outcomeTip));
            else if (oursOnly)
                QVERIFY2(outcomeTip.startsWith(QLatin1String("no tick recorded yet by our")),
                         qPrintable(outcomeTip));
        }
    }

    // A poll that changes only what 0189 adds announces the cells that show it, nothing else of
    // the row. Mutation check, done once: with cellDiffers ignoring countsOursOnly the "counts"
    // rows announced nothing.
    void outsideChangesAreAnnouncedOnTheirCells_data()
    {
        QTest::addColumn<RoleStatus>("before");
        QTest::addColumn<RoleStatus>("after");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("last");
        RoleStatus ours = tickedAndLed("billing", QStringLiteral("vm:29601:7014df0c"));
        ours.holderOutside = false;
        ours.countsOursOnly = false;
        RoleStatus theirsRan = ours;
        theirsRan.countsOursOnly = true;
        QTest::newRow("counts turn ours only")
                << ours << theirsRan << int(StatusModel::LastOutcome) << int(StatusModel::Took);
        QTest::newRow("counts are everyone's again")
                << theirsRan << ours << int(StatusModel::LastOutcome) << int(StatusModel::Took);
        RoleStatus outside = theirsRan;
        outside.holderOutside = true;
        QTest::newRow("the same id, now outside the registry")
                << theirsRan << outside << int(StatusModel::Holder) << int(StatusModel::Holder);
        RoleStatus measured = outside;
        measured.holderLastDurationSeconds = 4;
        QTest::newRow("its last tick becomes known")
                << outside << measured << int(StatusModel::Holder) << int(StatusModel::Holder);
    }

    void outsideChangesAreAnnouncedOnTheirCells()
    {
        QFETCH(RoleStatus, before);
        QFETCH(RoleStatus, after);
        QFETCH(int, first);
        QFETCH(int, last);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const RoleStatus dunning = tickedAndLed("dunning", QStringLiteral("vm:2:bbbbbbbb"));
        model.setSnapshot(snapshotOf({before, dunning}));
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setSnapshot(snapshotOf({after, dunning}));
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes.at(0).at(0).toModelIndex(), model.index(0, first));
        QCOMPARE(changes.at(0).at(1).toModelIndex(), model.index(0, last));
        QVERIFY(changes.at(0).at(2).value<QList<int>>().contains(Qt::ToolTipRole));
    }

    // ---- StatusModel over real snapshots -------------------------------------------------

    // The ADR's ACQUIRE by a holder the registry does not know, as the app: the poll reads
    // leader_ext.leader_status, and the row says the holder is outside, its last tick, and that
    // the hour's counts are ours only; a role nobody outside ran says false, not unknown.
    // Mutation check, done once: with StatusPoller's roleStatus leaving holderOutside out, this
    // failed at its first holderOutside check.
    void holderOutsideThroughThePoller()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        StatusPoller poller;
        connect(&poller, &StatusPoller::snapshot, &model, &StatusModel::setSnapshot);
        poller.setTarget(profile(Login::Monitor));
        QVERIFY(model.statusFor(QStringLiteral("billing")));
        QCOMPARE(model.statusFor(QStringLiteral("billing"))->countsOursOnly,
                 std::optional<bool>(false));
        QVERIFY(!model.statusFor(QStringLiteral("billing"))->holderOutside); // nobody's lease

        leader::pg::Connection app = m_db->connect(Login::App);
        QVERIFY(leader::test::adrTick(app, "billing"));
        QVERIFY(leader::test::adrAcquire(app, "billing"));
        poller.pollNow();
        const RoleStatus billing = *model.statusFor(QStringLiteral("billing"));
        QCOMPARE(billing.holderOutside, std::optional<bool>(true));
        QVERIFY(billing.holderLastDurationSeconds && *billing.holderLastDurationSeconds >= 0);
        QCOMPARE(billing.countsOursOnly, std::optional<bool>(true));
        QCOMPARE(model.statusFor(QStringLiteral("dunning"))->countsOursOnly,
                 std::optional<bool>(false));
        const int row = model.rowOf(QStringLiteral("billing"));
        QCOMPARE(model.index(row, StatusModel::Holder).data().toString(),
                 QStringLiteral("outside: ") + QString::fromLatin1(leader::test::AdrHolderId));
        const QString tip
                = model.index(row, StatusModel::LastOutcome).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("record no tick")), qPrintable(tip));
    }

    void pauseChangesOnlyItsCells()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        StatusPoller poller; // in this thread: the test is the GUI here
        connect(&poller, &StatusPoller::snapshot, &model, &StatusModel::setSnapshot);
        QSignalSpy snapshots(&poller, &StatusPoller::snapshot);
        QSignalSpy actions(&poller, &StatusPoller::actionFinished);
        poller.setTarget(profile(Login::App));
        QCOMPARE(snapshots.size(), 1);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.roleAt(1), QStringLiteral("dunning"));
        QCOMPARE(model.headerData(StatusModel::LastTickAge, Qt::Horizontal).toString(),
                 QStringLiteral("Last tick"));

        // Every role never ran and nobody holds one: polls change nothing, so say nothing.
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        poller.pollNow();
        poller.pollNow();
        QCOMPARE(snapshots.size(), 3);
        QCOMPARE(changes.size(), 0);

        poller.pause({QStringLiteral("dunning")}, QStringLiteral("alice@ops"),
                     QStringLiteral("key rotation"), {});
        QCOMPARE(actions.size(), 1);
        const auto result = actions.at(0).at(0).value<leader::console::ActionResult>();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(resets.size(), 0);
        // One signal: dunning's row, State through PauseReason (holder, token, ages unchanged).
        // Mutation check (done once): announcing whole rows (column 0 to ColumnCount - 1) made
        // this test and every lastTickColouring row fail.
        QCOMPARE(changes.size(), 1);
        const auto first = changes.at(0).at(0).toModelIndex();
        const auto last = changes.at(0).at(1).toModelIndex();
        QCOMPARE(first.row(), 1);
        QCOMPARE(last.row(), 1);
        QCOMPARE(first.column(), int(StatusModel::State));
        QCOMPARE(last.column(), int(StatusModel::PauseReason));
        const auto roles = changes.at(0).at(2).value<QList<int>>();
        QVERIFY(roles.contains(Qt::DisplayRole));
        QVERIFY(roles.contains(Qt::FontRole));
        QVERIFY(!roles.contains(StatusModel::AgeLevelRole));

        const QModelIndex state = model.index(1, StatusModel::State);
        QCOMPARE(state.data().toString(), QStringLiteral("paused"));
        QVERIFY(state.data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(model.index(1, StatusModel::PausedBy).data().toString(),
                 QStringLiteral("alice@ops"));
        QVERIFY(model.statusFor(QStringLiteral("dunning"))->pausedAt.isValid());
        QVERIFY(!model.index(1, StatusModel::PausedAt).data(StatusModel::RawRole).isNull());
        QVERIFY(model.index(0, StatusModel::PausedAt).data(StatusModel::RawRole).isNull());
    }

    // A pause that ends by itself counts down in the State cell from the server's
    // pause_remaining_seconds; each poll announces that one cell, nothing else of the row.
    void timedPauseCountsDown()
    {
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        StatusPoller poller;
        connect(&poller, &StatusPoller::snapshot, &model, &StatusModel::setSnapshot);
        QSignalSpy actions(&poller, &StatusPoller::actionFinished);
        poller.setTarget(profile(Login::App));
        poller.pause({QStringLiteral("dunning")}, QStringLiteral("alice@ops"),
                     QStringLiteral("bounded"), {QStringLiteral("15m"), {}});
        const auto result = actions.at(0).at(0).value<leader::console::ActionResult>();
        QVERIFY2(result.ok, qPrintable(result.error));
        const QModelIndex state = model.index(1, StatusModel::State);
        QCOMPARE(state.data().toString(), QStringLiteral("paused · 15 min left"));
        QVERIFY2(state.data(Qt::ToolTipRole).toString().contains(QLatin1String("ends by itself")),
                 qPrintable(state.data(Qt::ToolTipRole).toString()));
        const double left = *model.statusFor(QStringLiteral("dunning"))->pauseRemainingSeconds;
        QVERIFY2(left > 14 * 60 && left <= 15 * 60, qPrintable(QString::number(left)));

        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        // The view rounds to milliseconds: a poll within the same one changes nothing.
        for (int polls = 0; polls < 100 && changes.isEmpty(); ++polls)
            poller.pollNow();
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes.at(0).at(0).toModelIndex(), state);
        QCOMPARE(changes.at(0).at(1).toModelIndex(), state);
        QVERIFY(*model.statusFor(QStringLiteral("dunning"))->pauseRemainingSeconds < left);
    }

    void formatRemaining_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("seconds") << 34.2 << "35 s";
        QTest::newRow("a minute, rounded up") << 60.5 << "2 min";
        QTest::newRow("fifteen minutes") << 900.0 << "15 min";
        QTest::newRow("just under an hour") << 3599.0 << "1 h";
        QTest::newRow("four hours") << 14400.0 << "4 h";
        QTest::newRow("hours and minutes") << 11100.0 << "3 h 5 min";
        QTest::newRow("over") << -2.0 << "0 s";
    }

    void formatRemaining()
    {
        QFETCH(double, seconds);
        QTEST(StatusModel::formatRemaining(seconds), "text");
    }

    // Under the Light and the Dark theme every coloured cell keeps its text legible (WCAG AA,
    // 4.5:1, against its own background or the palette's Base) and the state swatch is visible
    // (3:1, WCAG's bar for graphics). The fixed colours this replaced failed: white on the alert
    // red is 4.2:1, the grey "never" 2.6:1 on the light Base, the never-ran swatch 1.3:1.
    void coloursAreLegible_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<RoleState>("state");
        QTest::addColumn<double>("age"); // billing's last-tick age; < 0: never ran
        for (const Theme theme : {Theme::Light, Theme::Dark}) {
            const QString name = leader::console::themeName(theme);
            for (const RoleState state :
                 {RoleState::Led, RoleState::Free, RoleState::NeverRan, RoleState::Cooling,
                  RoleState::Paused, RoleState::Unknown}) {
                QTest::addRow("%s %s", qPrintable(name),
                              qPrintable(leader::console::roleStateText(state)))
                        << theme << state << 10.0;
            }
            // billing warns at 135 s and alerts at 270 s.
            for (const double age : {10.0, 140.0, 300.0, -1.0}) {
                QTest::addRow("%s age %.0f", qPrintable(name), age)
                        << theme << RoleState::Paused << age;
            }
        }
    }

    void coloursAreLegible()
    {
        QFETCH(Theme, theme);
        QFETCH(RoleState, state);
        QFETCH(double, age);
        leader::console::applyTheme(theme);
        const auto restore = qScopeGuard([] { leader::console::applyTheme(Theme::System); });
        const QPalette palette = QGuiApplication::palette();
        QCOMPARE(leader::console::isDark(palette), theme == Theme::Dark);

        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        RoleStatus status = role(QStringLiteral("billing"), state);
        if (age >= 0)
            status.lastTickAgeSeconds = age;
        model.setSnapshot(snapshotOf({status}));
        for (int column = 0; column < StatusModel::ColumnCount; ++column) {
            const QModelIndex cell = model.index(0, column);
            const QVariant foreground = cell.data(Qt::ForegroundRole);
            const QVariant background = cell.data(Qt::BackgroundRole);
            const QColor text = foreground.isValid() ? foreground.value<QColor>()
                                                     : palette.color(QPalette::Text);
            const QColor fill = background.isValid() ? background.value<QColor>()
                                                     : palette.color(QPalette::Base);
            const double ratio = leader::console::contrastRatio(text, fill);
            QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("column %1: %2 on %3 is %4:1")
                                                      .arg(column)
                                                      .arg(text.name(), fill.name())
                                                      .arg(ratio, 0, 'f', 2)));
        }
        const QColor swatch
                = model.index(0, StatusModel::State).data(Qt::DecorationRole).value<QColor>();
        QVERIFY(swatch.isValid());
        QVERIFY2(leader::console::contrastRatio(swatch, palette.color(QPalette::Base)) >= 3.0,
                 qPrintable(swatch.name()));
    }

    void lastTickColouring_data()
    {
        QTest::addColumn<QString>("role");
        QTest::addColumn<int>("age"); // seconds; < 0: never ran
        QTest::addColumn<AgeLevel>("level");
        QTest::addColumn<QColor>("background"); // invalid: none
        const QColor warning = toneFill(Tone::Warning, QGuiApplication::palette());
        const QColor alert = toneFill(Tone::Alert, QGuiApplication::palette());
        QTest::newRow("billing ok") << "billing" << 10 << AgeLevel::Ok << QColor();
        QTest::newRow("billing warning") << "billing" << 140 << AgeLevel::Warning << warning;
        QTest::newRow("billing alert") << "billing" << 300 << AgeLevel::Alert << alert;
        QTest::newRow("outbox ok") << "webhook_outbox" << 10 << AgeLevel::Ok << QColor();
        QTest::newRow("outbox warning") << "webhook_outbox" << 25 << AgeLevel::Warning << warning;
        QTest::newRow("outbox alert") << "webhook_outbox" << 45 << AgeLevel::Alert << alert;
        QTest::newRow("never ran") << "dunning" << -1 << AgeLevel::Neutral << QColor();
    }

    void lastTickColouring()
    {
        QFETCH(QString, role);
        QFETCH(int, age);
        QFETCH(AgeLevel, level);
        QFETCH(QColor, background);
        StatusModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        StatusPoller poller;
        connect(&poller, &StatusPoller::snapshot, &model, &StatusModel::setSnapshot);
        poller.setTarget(profile(Login::Monitor));
        // Never ran, first seen: not due yet.
        QCOMPARE(model.ageLevel(role), AgeLevel::Neutral);

        if (age >= 0) {
            // A completed tick, age seconds ago on the database clock (the owner writes it).
            m_db->connectDirect(Login::Owner)
                    .exec("tick",
                          "UPDATE leader_leases SET last_tick_ended_at = now() - make_interval("
                          "secs => $2::int), last_tick_holder = 'test:1:deadbeef' WHERE role = $1",
                          {role.toStdString(), age}, 5s);
        }
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        poller.pollNow();
        QCOMPARE(model.ageLevel(role), level);
        const int row = model.rowOf(role);
        const QModelIndex cell = model.index(row, StatusModel::LastTickAge);
        QCOMPARE(cell.data(StatusModel::AgeLevelRole).toInt(), int(level));
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>(), background);
        if (level == AgeLevel::Neutral) {
            QCOMPARE(cell.data().toString(), QStringLiteral("never"));
            QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(),
                     leader::console::toneText(Tone::Neutral, QGuiApplication::palette()));
            QCOMPARE(changes.size(), 0);
            return;
        }
        QVERIFY(std::abs(cell.data(StatusModel::RawRole).toDouble() - age) < 5);
        // Only the tick's row: its state ("never ran" -> "free") through its last-tick cell,
        // with the colour roles since the level moved from Neutral (starting).
        QCOMPARE(model.index(row, StatusModel::State).data().toString(), QStringLiteral("free"));
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes.at(0).at(0).toModelIndex(), model.index(row, StatusModel::State));
        QCOMPARE(changes.at(0).at(1).toModelIndex(), cell);
        const auto roles = changes.at(0).at(2).value<QList<int>>();
        QVERIFY(roles.contains(Qt::BackgroundRole));
        QVERIFY(roles.contains(StatusModel::AgeLevelRole));

        // Thresholds changed by the operator recolour at once.
        AgeThresholds strict = AgeThresholds::defaults();
        strict.setThreshold(role, {1, 2});
        model.setThresholds(strict);
        QCOMPARE(model.ageLevel(role), age >= 2 ? AgeLevel::Alert : AgeLevel::Ok);
    }

private:
    ConnectionProfile profile(Login login) const
    {
        QString error;
        return *ConnectionProfile::fromUrl(QString::fromStdString(m_db->url(login)), &error);
    }

    std::unique_ptr<TestDatabase> m_db;
};

Q_DECLARE_METATYPE(leader::test::Login)

QTEST_MAIN(TestStatusModel)
#include "tst_statusmodel.moc"
