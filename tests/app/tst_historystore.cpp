// HistoryStore: the status history on disk. It must survive a restart with the same min/max per
// bucket and the same markers, be decimated like the chart's tiers, be trimmed to its retention
// and size, be written off the GUI thread, and survive a bad file with one clear line. It is kept
// under the database's identity, however the database was opened. The preferences that bound it
// round-trip through QSettings and their dialog.

#include "core/connectionprofile.h"
#include "core/historystore.h"
#include "core/tickhistory.h"
#include "filemodes.h"
#include "ui/preferencescontroller.h"
#include "ui/preferencesdialog.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QtTest>

#include <cmath>

using leader::console::ConnectionProfile;
using leader::console::DatabaseIdentity;
using leader::console::HistoryKey;
using leader::console::HistorySettings;
using leader::console::HistoryStore;
using leader::console::HistoryWindow;
using leader::console::HolderChange;
using leader::console::HolderChangeKind;
using leader::console::PreferencesController;
using leader::console::PreferencesDialog;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;
using leader::console::TickHistory;
using leader::test::modeOf;
using leader::test::setMode;
using Kind = leader::console::TickHistory::Marker::Kind;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QStringList Roles{QStringLiteral("billing"), QStringLiteral("dunning"),
                        QStringLiteral("email_outbox")};
constexpr qint64 HourS = 3600;
constexpr qint64 DayS = 24 * HourS;
constexpr qint64 MaxBytes = 100 * 1024 * 1024;
constexpr int WaitMs = 20000;

// A poll at second s: saw-tooth ages with a stall now and then; dunning paused in [pauseFrom,
// pauseTo).
StatusSnapshot poll(qint64 s, qint64 pauseFrom = -1, qint64 pauseTo = -1,
                    const QStringList &roles = Roles)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addSecs(s);
    for (qsizetype i = 0; i < roles.size(); ++i) {
        RoleStatus status;
        status.role = roles.at(i);
        status.state = leader::console::RoleState::Free;
        const int period = 3 + int(i) * 7;
        status.lastTickAgeSeconds = double(s % period) + (s % 997 < 40 ? double(s % 997) : 0.25);
        if (i == 1 && s >= pauseFrom && s < pauseTo) {
            status.state = leader::console::RoleState::Paused;
            status.pausedAt = Base.addSecs(pauseFrom);
            status.pausedBy = QStringLiteral("tester");
            status.pauseReason = QStringLiteral("maintenance window");
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

HolderChange takeover(qint64 s)
{
    HolderChange change;
    change.kind = HolderChangeKind::Takeover;
    change.role = Roles.first();
    change.previousHolder = QStringLiteral("host-a:1:00000001");
    change.newHolder = QStringLiteral("host-b:2:00000002");
    change.newToken = 1000 + s;
    change.acquiredAt = Base.addSecs(s);
    change.gapSeconds = 11.5;
    return change;
}

// Polls [0, span) every step seconds into history and store, a takeover at span / 2, dunning
// paused over the middle third.
void feed(TickHistory &history, HistoryStore &store, qint64 span, qint64 step,
          const QStringList &roles = Roles)
{
    for (qint64 s = 0; s < span; s += step) {
        QList<HolderChange> changes;
        if (s / step == span / step / 2)
            changes.append(takeover(s));
        history.append(poll(s, span / 3, 2 * span / 3, roles), changes);
        store.record(poll(s, span / 3, 2 * span / 3, roles), changes);
    }
}

QString fileOf(const QString &key)
{
    return HistoryStore::directory() + QLatin1Char('/') + key + QStringLiteral(".sqlite");
}

// The first value of sql over the file, through a connection of this thread's own.
QVariant queryFile(const QString &path, const QString &sql)
{
    QVariant value;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"),
                                                    QStringLiteral("tst_historystore"));
        db.setDatabaseName(path);
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(sql) && query.next())
                value = query.value(0);
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("tst_historystore"));
    return value;
}

// Polls [from, to) every second into history and store: a takeover halfway, dunning paused over
// the middle third.
void feedRange(TickHistory &history, HistoryStore &store, qint64 from, qint64 to)
{
    const qint64 third = (to - from) / 3;
    for (qint64 s = from; s < to; ++s) {
        QList<HolderChange> changes;
        if (s == from + (to - from) / 2)
            changes.append(takeover(s));
        history.append(poll(s, from + third, to - third), changes);
        store.record(poll(s, from + third, to - third), changes);
    }
}

// The same samples and markers in every window (QCOMPAREs: the caller checks
// QTest::currentTestFailed()).
void compareHistories(const TickHistory &restored, const TickHistory &live)
{
    QCOMPARE(restored.roles(), live.roles());
    QCOMPARE(restored.latestTime(), live.latestTime());
    for (HistoryWindow window :
         {HistoryWindow::FiveMinutes, HistoryWindow::OneHour, HistoryWindow::Day}) {
        for (const QString &role : live.roles()) {
            QCOMPARE(restored.series(role, window, 1'000'000),
                     live.series(role, window, 1'000'000));
        }
        const QList<TickHistory::Marker> expected = live.markers(window);
        const QList<TickHistory::Marker> actual = restored.markers(window);
        QCOMPARE(actual.size(), expected.size());
        for (qsizetype i = 0; i < actual.size(); ++i)
            QCOMPARE(actual.at(i).describe(), expected.at(i).describe());
    }
}

TickHistory::Saved reopen(const HistoryKey &key, qint64 retentionMs = 7 * DayS * 1000)
{
    HistoryStore store(key, retentionMs, MaxBytes);
    QSignalSpy restored(&store, &HistoryStore::restored);
    if (!restored.wait(WaitMs))
        return {};
    return restored.first().first().value<TickHistory::Saved>();
}

} // namespace

class TestHistoryStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("leader-console-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_historystore"));
        qRegisterMetaType<TickHistory::Saved>();
    }

    void init() { QDir(HistoryStore::directory()).removeRecursively(); }

    void survivesRestart_data()
    {
        QTest::addColumn<qint64>("span");
        QTest::addColumn<qint64>("step");
        QTest::newRow("20 min of 1 s polls: raw") << 20 * 60LL << 1LL;
        QTest::newRow("3 h of 5 s polls: 10 s buckets") << 3 * HourS << 5LL;
        QTest::newRow("30 h of 60 s polls: 2 min buckets") << 30 * HourS << 60LL;
    }

    void survivesRestart()
    {
        QFETCH(qint64, span);
        QFETCH(qint64, step);
        const QString key = QStringLiteral("restart");
        TickHistory live;
        {
            HistoryStore store(key, 7 * DayS * 1000, MaxBytes);
            feed(live, store, span, step);
        } // the destructor writes what is queued
        QVERIFY(QFileInfo::exists(fileOf(key)));

        const TickHistory::Saved saved = reopen(key);
        QVERIFY(!saved.isEmpty());
        TickHistory restored;
        restored.restore(saved);

        QCOMPARE(restored.roles(), live.roles());
        QCOMPARE(restored.latestTime(), live.latestTime());
        for (HistoryWindow window :
             {HistoryWindow::FiveMinutes, HistoryWindow::OneHour, HistoryWindow::Day}) {
            for (const QString &role : Roles) {
                // Enough points for every source point: each bucket's own minimum and maximum.
                QCOMPARE(restored.series(role, window, 1'000'000),
                         live.series(role, window, 1'000'000));
                QCOMPARE(restored.maxAge(role, window), live.maxAge(role, window));
            }
            const QList<TickHistory::Marker> expected = live.markers(window);
            const QList<TickHistory::Marker> actual = restored.markers(window);
            QCOMPARE(actual.size(), expected.size());
            for (qsizetype i = 0; i < actual.size(); ++i)
                QCOMPARE(actual.at(i).describe(), expected.at(i).describe());
        }
        QVERIFY(live.markers(HistoryWindow::Day).size() >= 3); // pause, unpause, takeover

        // A role still paused when the console closed gets no second pause marker.
        const qint64 pausedAt = span / 2;
        TickHistory pausedLive;
        TickHistory pausedRestored;
        {
            HistoryStore store(QStringLiteral("paused"), 7 * DayS * 1000, MaxBytes);
            for (qint64 s = 0; s <= pausedAt; s += step) {
                pausedLive.append(poll(s, pausedAt, span));
                store.record(poll(s, pausedAt, span));
            }
        }
        pausedRestored.restore(reopen(QStringLiteral("paused")));
        pausedRestored.append(poll(pausedAt + step, pausedAt, span));
        QCOMPARE(pausedRestored.markers(HistoryWindow::Day).size(), 1);
    }

    void decimatesLikeTheChart()
    {
        const QString key = QStringLiteral("tiers");
        TickHistory live;
        const qint64 span = 3 * HourS;
        {
            HistoryStore store(key, 7 * DayS * 1000, MaxBytes);
            feed(live, store, span, 2);
        }
        const QString path = fileOf(key);
        const qint64 latestMs = live.latestTime().toMSecsSinceEpoch();
        const qint64 firstMs = Base.toMSecsSinceEpoch();
        // Raw samples for the last 15 min only, 10 s buckets for the last 2 h only, 2 min
        // buckets from the first poll on.
        QCOMPARE(queryFile(path, QStringLiteral("SELECT min(time_ms) FROM raw")).toLongLong(),
                 latestMs - TickHistory::RawRetentionMs);
        QCOMPARE(queryFile(path, QStringLiteral("SELECT count(*) FROM raw")).toLongLong(),
                 qint64(Roles.size()) * (TickHistory::RawRetentionMs / 2000 + 1));
        const qint64 fineStart
                = queryFile(path,
                            QStringLiteral("SELECT min(start_ms) FROM buckets WHERE tier = 1"))
                          .toLongLong();
        QVERIFY(fineStart + TickHistory::FineBucketMs > latestMs - TickHistory::FineRetentionMs);
        QVERIFY(fineStart <= latestMs - TickHistory::FineRetentionMs);
        QCOMPARE(queryFile(path, QStringLiteral("SELECT min(start_ms) FROM buckets WHERE tier = 2"))
                         .toLongLong(),
                 firstMs);
        QCOMPARE(queryFile(path, QStringLiteral("SELECT count(*) FROM buckets WHERE tier = 2"))
                         .toLongLong(),
                 qint64(Roles.size()) * span * 1000 / TickHistory::CoarseBucketMs);
    }

    void retentionTrims_data()
    {
        QTest::addColumn<int>("retentionDays");
        QTest::addColumn<int>("markersLeft");
        // Over 4 days: a pause at 1 1/3 days, a takeover at 2, the unpause at 2 2/3.
        QTest::newRow("1 day") << 1 << 0;
        QTest::newRow("2 days") << 2 << 2;
    }

    void retentionTrims()
    {
        QFETCH(int, retentionDays);
        QFETCH(int, markersLeft);
        const QString key = QStringLiteral("retention");
        const qint64 retentionMs = retentionDays * DayS * 1000;
        TickHistory live;
        HistoryStore store(key, retentionMs, MaxBytes);
        QSignalSpy trimmed(&store, &HistoryStore::trimmed);
        QVERIFY(trimmed.wait(WaitMs)); // the trim after opening
        feed(live, store, 4 * DayS, 10 * 60);
        trimmed.clear();
        store.trimNow();
        QVERIFY(trimmed.wait(WaitMs));

        const QString path = fileOf(key);
        const qint64 cutoffMs = live.latestTime().toMSecsSinceEpoch() - retentionMs;
        const qint64 oldest
                = queryFile(path,
                            QStringLiteral("SELECT min(start_ms) FROM buckets WHERE tier = 2"))
                          .toLongLong();
        // Without the trim's WHERE nothing would be left (checked once: removing the
        // "start_ms + ? <= ?" predicate fails this test on the first comparison).
        QVERIFY(oldest + TickHistory::CoarseBucketMs > cutoffMs);
        QVERIFY(oldest <= cutoffMs + TickHistory::CoarseBucketMs);
        QCOMPARE(queryFile(path, QStringLiteral("SELECT count(*) FROM markers")).toInt(),
                 markersLeft);
    }

    void sizeBoundHolds()
    {
        const QString key = QStringLiteral("size");
        constexpr qint64 Bound = 192 * 1024;
        QStringList longRoles;
        for (const QString &role : Roles)
            longRoles.append(role + QString(60, QLatin1Char('x')));
        TickHistory live;
        HistoryStore store(key, 7 * DayS * 1000, Bound);
        QSignalSpy trimmed(&store, &HistoryStore::trimmed);
        QVERIFY(trimmed.wait(WaitMs)); // the trim after opening
        feed(live, store, 3 * DayS, 120, longRoles);
        store.flush();
        QSignalSpy written(&store, &HistoryStore::batchWritten);
        QVERIFY(written.wait(WaitMs));
        trimmed.clear();
        store.trimNow();
        QVERIFY(trimmed.wait(WaitMs));

        const QString path = fileOf(key);
        QVERIFY2(trimmed.first().first().toLongLong() <= Bound,
                 qPrintable(QString::number(trimmed.first().first().toLongLong())));
        QVERIFY(QFileInfo(path).size() <= Bound);
        // The newest data stays, the oldest went (checked once: without the "start_ms <= ?" of
        // the oldest-first delete every 2 min bucket goes and the newest one's comparison fails).
        const qint64 latestMs = live.latestTime().toMSecsSinceEpoch();
        QCOMPARE(queryFile(path, QStringLiteral("SELECT max(start_ms) FROM buckets WHERE tier = 2"))
                         .toLongLong(),
                 latestMs - latestMs % TickHistory::CoarseBucketMs);
        QCOMPARE(queryFile(path, QStringLiteral("SELECT max(time_ms) FROM raw")).toLongLong(),
                 latestMs);
        QVERIFY(queryFile(path, QStringLiteral("SELECT min(start_ms) FROM buckets WHERE tier = 2"))
                        .toLongLong()
                > Base.toMSecsSinceEpoch());
    }

    void writesOffTheGuiThread()
    {
        TickHistory live;
        HistoryStore store(QStringLiteral("thread"), 7 * DayS * 1000, MaxBytes);
        QSignalSpy written(&store, &HistoryStore::batchWritten);
        feed(live, store, 30, 1);
        QVERIFY(written.wait(WaitMs)); // the batch timer sends them, no flush()
        QVERIFY(store.lastWriteThread() != nullptr);
        QVERIFY(store.lastWriteThread() != QThread::currentThreadId());
    }

    void badFileIsMovedAside()
    {
        const QString key = QStringLiteral("corrupt");
        QVERIFY(QDir().mkpath(HistoryStore::directory()));
        {
            QFile garbage(fileOf(key));
            QVERIFY(garbage.open(QIODevice::WriteOnly));
            for (int i = 0; i < 100; ++i)
                garbage.write("this is not a SQLite database, not at all\n");
        }
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("could not be read.*moved aside")));
        HistoryStore store(key, 7 * DayS * 1000, MaxBytes);
        QSignalSpy problem(&store, &HistoryStore::problem);
        QSignalSpy restored(&store, &HistoryStore::restored);
        QVERIFY(problem.wait(WaitMs));
        const QString line = problem.first().first().toString();
        QVERIFY2(line.contains(QDir::toNativeSeparators(fileOf(key))), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("moved aside")), qPrintable(line));
        QVERIFY(!line.contains(QLatin1Char('\n')));
        QTRY_COMPARE_WITH_TIMEOUT(restored.size(), 1, WaitMs);
        QVERIFY(restored.first().first().value<TickHistory::Saved>().isEmpty());
        QVERIFY(!QDir(HistoryStore::directory())
                         .entryList({key + QStringLiteral(".sqlite.bad-*")})
                         .isEmpty());

        QSignalSpy written(&store, &HistoryStore::batchWritten);
        TickHistory live;
        feed(live, store, 10, 1);
        store.flush();
        QVERIFY(written.wait(WaitMs));
        QVERIFY(store.isKeeping());
    }

    void unwritableDirectoryKeepsNothing()
    {
        // A file where the history directory should be: nothing can be created under it.
        const QString directory = HistoryStore::directory();
        QVERIFY(QDir().mkpath(QFileInfo(directory).absolutePath()));
        {
            QFile blocker(directory);
            QVERIFY(blocker.open(QIODevice::WriteOnly));
        }
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral(
                                                   "^History is not kept this session")));
        {
            HistoryStore store(QStringLiteral("nowhere"), 7 * DayS * 1000, MaxBytes);
            QSignalSpy problem(&store, &HistoryStore::problem);
            QVERIFY(problem.wait(WaitMs));
            QVERIFY(problem.first().first().toString().contains(
                    QDir::toNativeSeparators(directory)));
            QVERIFY(!store.isKeeping());
            TickHistory live;
            feed(live, store, 10, 1); // ignored, no error
            store.flush();
        }
        QVERIFY(QFile::remove(directory));
    }

    void filesArePrivate_data()
    {
        QTest::addColumn<bool>("older");  // an older console's history, made with the umask
        QTest::addColumn<bool>("former"); // ... kept under the key the store takes over
        QTest::newRow("new") << false << false;
        QTest::newRow("older, 0644 in a 0755 directory") << true << false;
        QTest::newRow("older, under the former key") << true << true;
    }

    // The history names the databases watched and what their roles did: only its user may read
    // it, whatever the umask (issue 51). SQLite gives -wal and -shm the main file's mode, so they
    // are checked while the store is open. Checked to fail with the HistoryWriter of before
    // (mkpath, the file left to SQLite): "755 644 644 644", and 644 for the older file moved aside;
    // and, for the older rows, without narrowFilesIn: that file stays 644.
    void filesArePrivate()
    {
        QFETCH(bool, older);
        QFETCH(bool, former);
        const leader::test::CommonUmask umask;
        HistoryKey key(QStringLiteral("private"));
        if (former)
            key.formerKey = QStringLiteral("private-former");
        const QString aside = fileOf(key.key) + QStringLiteral(".bad-20250101-000000");
        if (older) {
            const QString oldKey = former ? key.formerKey : key.key;
            {
                HistoryStore store(oldKey, 7 * DayS * 1000, MaxBytes);
                TickHistory live;
                feed(live, store, 10, 1);
            }
            QVERIFY(setMode(HistoryStore::directory(), 0755));
            QVERIFY(setMode(fileOf(oldKey), 0644));
            QFile wide(aside);
            QVERIFY(wide.open(QIODevice::WriteOnly));
            QCOMPARE(modeOf(aside), QStringLiteral("644"));
        }
        HistoryStore store(key, 7 * DayS * 1000, MaxBytes);
        QSignalSpy written(&store, &HistoryStore::batchWritten);
        TickHistory live;
        feed(live, store, 10, 1);
        store.flush();
        QVERIFY(written.wait(WaitMs));
        // The directory, the file, its -wal and -shm, and the older file moved aside.
        QStringList modes{modeOf(HistoryStore::directory())};
        for (const char *suffix : {"", "-wal", "-shm"})
            modes.append(modeOf(fileOf(key.key) + QLatin1String(suffix)));
        if (older)
            modes.append(modeOf(aside));
        QCOMPARE(modes.join(QLatin1Char(' ')),
                 older ? QStringLiteral("700 600 600 600 600") : QStringLiteral("700 600 600 600"));
    }

    void keyHasNoSecret()
    {
        ConnectionProfile profile;
        profile.host = QStringLiteral("db1.example.com,db2.example.com");
        profile.setPortList(QStringLiteral("5432,5433"));
        profile.user = QStringLiteral("ops");
        profile.database = QStringLiteral("hardcount");
        profile.password = QStringLiteral("s3cret-Passw0rd");
        const QString key = HistoryStore::keyFor(profile);
        QVERIFY(!key.contains(profile.password));
        QVERIFY(key.startsWith(QStringLiteral("ops@db1.example.com_db2.example.com-5432_5433-")));
        QVERIFY(!key.contains(QLatin1Char('/')));

        HistoryStore store(key, 7 * DayS * 1000, MaxBytes);
        QVERIFY(!store.filePath().contains(profile.password));
        QCOMPARE(QFileInfo(store.filePath()).fileName(), key + QStringLiteral(".sqlite"));

        // The password does not change the file; another database does, a socket path is safe.
        ConnectionProfile other = profile;
        other.password = QStringLiteral("another");
        QCOMPARE(HistoryStore::keyFor(other), key);
        other.database = QStringLiteral("hardcount_staging");
        QVERIFY(HistoryStore::keyFor(other) != key);
        other.host = QStringLiteral("/var/run/postgresql");
        QVERIFY(!HistoryStore::keyFor(other).contains(QLatin1Char('/')));
    }

    void historyFollowsTheDatabase_data()
    {
        QTest::addColumn<bool>("formerFile");   // kept under the URL by a console before this one
        QTest::addColumn<bool>("identityFile"); // kept under the identity already
        QTest::newRow("kept under the identity") << false << true;
        QTest::newRow("kept under the URL: moved to the identity") << true << false;
        QTest::newRow("kept under both: merged") << true << true;
    }

    // The same database opened by a URL to 127.0.0.1 and by a saved profile naming localhost and
    // PgBouncer's port shows one history; another database on the server has its own; history
    // kept under how the database was opened (keyFor(profile), before it was kept under the
    // identity) is taken over, not lost. Checked to fail with the history keyed by the profile
    // (keyFor(identity, openedAs) returning keyFor(openedAs)), and, for the two URL rows, with
    // the former file left alone.
    void historyFollowsTheDatabase()
    {
        QFETCH(bool, formerFile);
        QFETCH(bool, identityFile);
        ConnectionProfile url;
        url.host = QStringLiteral("127.0.0.1");
        url.port = 5432;
        url.user = QStringLiteral("ops");
        url.database = QStringLiteral("hardcount");
        ConnectionProfile profile = url;
        profile.name = QStringLiteral("production");
        profile.host = QStringLiteral("localhost");
        profile.port = 6432;
        const DatabaseIdentity identity{QStringLiteral("7715882872291665214"),
                                        QStringLiteral("127.0.0.1:5432"), url.database};

        const HistoryKey viaUrl = HistoryStore::keyFor(identity, url);
        const HistoryKey viaProfile = HistoryStore::keyFor(identity, profile);
        QCOMPARE(viaProfile.key, viaUrl.key);
        QCOMPARE(viaUrl.formerKey, HistoryStore::keyFor(url));
        QCOMPARE(viaProfile.formerKey, HistoryStore::keyFor(profile));
        // Unread, the identity leaves the history where it was.
        QCOMPARE(HistoryStore::keyFor(DatabaseIdentity{}, url), HistoryKey(viaUrl.formerKey));

        TickHistory live;
        if (formerFile) {
            HistoryStore store(HistoryStore::keyFor(url), 7 * DayS * 1000, MaxBytes);
            feedRange(live, store, 0, 600);
        }
        if (identityFile) {
            HistoryStore store(viaUrl.key, 7 * DayS * 1000, MaxBytes);
            feedRange(live, store, 600, 1200);
        }
        TickHistory restored;
        restored.restore(reopen(viaUrl));
        compareHistories(restored, live);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(!QFileInfo::exists(fileOf(viaUrl.formerKey)));
        QVERIFY(!QFileInfo::exists(fileOf(viaUrl.formerKey) + QStringLiteral("-wal")));

        TickHistory throughProfile;
        throughProfile.restore(reopen(viaProfile));
        compareHistories(throughProfile, live);
        if (QTest::currentTestFailed())
            return;

        ConnectionProfile staging = url;
        staging.database = QStringLiteral("hardcount_staging");
        DatabaseIdentity stagingIdentity = identity;
        stagingIdentity.database = staging.database;
        const HistoryKey other = HistoryStore::keyFor(stagingIdentity, staging);
        QVERIFY(other.key != viaUrl.key);
        QVERIFY(reopen(other).isEmpty());
        // Another server's database of the same name, and the address standing in for an
        // identifier the login may not read, are other keys again.
        DatabaseIdentity otherServer = identity;
        otherServer.systemIdentifier = QStringLiteral("7715882872291665215");
        QVERIFY(HistoryStore::keyFor(otherServer) != viaUrl.key);
        DatabaseIdentity byAddress = identity;
        byAddress.systemIdentifier.clear();
        QVERIFY(!HistoryStore::keyFor(byAddress).isEmpty());
        QVERIFY(HistoryStore::keyFor(byAddress) != viaUrl.key);
    }

    void settingsDefaultsAndBounds()
    {
        QSettings().remove(QStringLiteral("history"));
        const HistorySettings defaults = HistorySettings::load();
        QCOMPARE(defaults, HistorySettings{});
        QVERIFY(defaults.keep);
        QCOMPARE(defaults.retentionDays, 7);
        QCOMPARE(defaults.maxMegabytes, 100);
        QCOMPARE(defaults.maxBytes(), 100LL * 1024 * 1024);

        HistorySettings chosen;
        chosen.keep = false;
        chosen.retentionDays = 30;
        chosen.maxMegabytes = 20;
        chosen.save();
        QCOMPARE(HistorySettings::load(), chosen);

        QSettings().setValue(QStringLiteral("history/retentionDays"), 0);
        QSettings().setValue(QStringLiteral("history/maxMegabytes"), -5);
        QCOMPARE(HistorySettings::load().retentionDays, 1);
        QCOMPARE(HistorySettings::load().maxMegabytes, 1);
        QSettings().remove(QStringLiteral("history"));
    }

    void preferencesDialog()
    {
        QSettings().remove(QStringLiteral("history"));
        QWidget window;
        PreferencesController controller(&window);
        QMenu menu;
        QAction *action = controller.addAction(&menu);
        QCOMPARE(action->objectName(), QStringLiteral("preferencesAction"));
        QVERIFY(menu.actions().contains(action));

        QSignalSpy changed(&controller, &PreferencesController::changed);
        action->trigger();
        auto *dialog = window.findChild<PreferencesDialog *>();
        QVERIFY(dialog);
        QCOMPARE(dialog->historySettings(), HistorySettings{});
        dialog->keepBox()->setChecked(false);
        QVERIFY(!dialog->retentionSpin()->isEnabled());
        dialog->keepBox()->setChecked(true);
        dialog->retentionSpin()->setValue(3);
        dialog->sizeSpin()->setValue(50);
        dialog->accept();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(controller.historySettings().retentionDays, 3);
        QCOMPARE(HistorySettings::load().maxMegabytes, 50);
        QSettings().remove(QStringLiteral("history"));
    }

    void restoreAfterLivePollsKeepsThem()
    {
        TickHistory saved;
        for (qint64 s = 0; s < 600; ++s)
            saved.append(poll(s));
        {
            HistoryStore store(QStringLiteral("late"), 7 * DayS * 1000, MaxBytes);
            TickHistory mirror;
            feed(mirror, store, 600, 1);
        }
        const TickHistory::Saved copy = reopen(QStringLiteral("late"));

        TickHistory history;
        for (qint64 s = 1000; s < 1060; ++s) // the first polls came before the restore
            history.append(poll(s));
        const QList<QPointF> liveOnly
                = history.series(Roles.first(), HistoryWindow::FiveMinutes, 1'000'000);
        history.restore(copy);
        QCOMPARE(history.latestTime(), Base.addSecs(1059));
        const QList<QPointF> merged
                = history.series(Roles.first(), HistoryWindow::OneHour, 1'000'000);
        QVERIFY(merged.size() > liveOnly.size());
        QCOMPARE(history.series(Roles.first(), HistoryWindow::FiveMinutes, 1'000'000), liveOnly);
        QCOMPARE(history.maxAge(Roles.first(), HistoryWindow::OneHour),
                 std::max(*saved.maxAge(Roles.first(), HistoryWindow::OneHour),
                          *history.maxAge(Roles.first(), HistoryWindow::FiveMinutes)));
    }
};

QTEST_MAIN(TestHistoryStore)
#include "tst_historystore.moc"
