// ConsoleSession against a real server, straight to Postgres and again through PgBouncer in
// transaction mode: the exit is bounded when the database hangs (a connect to a server that
// accepts and never answers, a poll on a link that went silent); rows go stale within two poll
// intervals when the link goes silent and live again when it returns; a revoked SELECT is an
// error the operator sees at once (not a live-looking table), reported once with a count. Each
// connect says which database it reached, the same however it was spelled. finished() never comes
// from within shutdown().

#include "clusterroot.h"
#include "core/connectionprofile.h"
#include "core/consolesession.h"
#include "core/demotypes.h"
#include "core/systemmessages.h"
#include "endpollthread.h"
#include "eventrecorder.h"
#include "faults/linkproxy.h"
#include "lease/events.h"
#include "lease/manager.h"
#include "lease/wakelistener.h"
#include "loopbackport.h"
#include "measurement.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "testdatabase.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <clocale>
#include <future>
#include <memory>

using namespace std::chrono_literals;
using leader::console::ActionResult;
using leader::console::ConnectionProfile;
using leader::console::ConnectionState;
using leader::console::ConsoleSession;
using leader::console::DatabaseIdentity;
using leader::console::EventKind;
using leader::console::EventLogEntry;
using leader::console::FaultKind;
using leader::console::ReplicaInfo;
using leader::console::ReplicaState;
using leader::console::StatusSnapshot;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

namespace {

constexpr int Timeout = 20000;
constexpr int IntervalMs = 1000;
// What the issue asks of closing the window against a database, whatever the server does.
constexpr qint64 DatabaseExitBoundMs = 1000;

bool hasState(const QSignalSpy &spy, ConnectionState state)
{
    for (const auto &arguments : spy) {
        if (arguments.at(0).value<ConnectionState>() == state)
            return true;
    }
    return false;
}

} // namespace

class ConsoleSessionTest final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TestDatabase> m_db;

    // Shuts the session down and destroys it as closing the window does; returns how long both
    // took, the whole of what the process would wait for.
    static qint64 closeAndDestroy(std::unique_ptr<ConsoleSession> &session)
    {
        QElapsedTimer timer;
        timer.start();
        QSignalSpy finished(session.get(), &ConsoleSession::finished);
        session->shutdown();
        if (finished.isEmpty() && !finished.wait(5000))
            return -1;
        session.reset();
        return timer.elapsed();
    }

    void owner(const std::string &sql)
    {
        leader::pg::Connection connection = m_db->connect(Login::Owner);
        connection.exec("owner", sql, {}, 5s);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_db = std::make_unique<TestDatabase>("consolesession");
        m_db->migrateLease();
    }
    void cleanupTestCase() { m_db.reset(); }

    // The poller says which database it reached at each connect, as an unprivileged login may
    // ask: the same for a URL to 127.0.0.1, for localhost and through PgBouncer, another for
    // another database on the server. Checked to fail with the identity read from the URL
    // (database and host as opened) instead of the server.
    void identifiesTheDatabaseWhicheverWayOpened()
    {
        TestDatabase other("consolesession_other");
        other.migrateLease();
        const ConnectionProfile direct = profileFor(m_db->directUrl(Login::Monitor));
        ConnectionProfile localhost = direct;
        localhost.host = QStringLiteral("localhost");
        ConnectionProfile bouncer = direct;
        bouncer.port = qEnvironmentVariableIntValue("LEADER_TEST_BOUNCER_PORT");
        const ConnectionProfile otherDatabase = profileFor(other.directUrl(Login::Monitor));

        ConsoleSession session;
        QSignalSpy identified(&session, &ConsoleSession::databaseIdentified);
        QList<DatabaseIdentity> identities;
        for (const ConnectionProfile &profile : {direct, localhost, bouncer, otherDatabase}) {
            identified.clear();
            session.connectTo(profile);
            QVERIFY2(identified.wait(Timeout), qPrintable(profile.describe()));
            identities.append(identified.first().first().value<DatabaseIdentity>());
            QVERIFY2(identities.last().isValid(), qPrintable(profile.describe()));
        }
        QVERIFY(!identities.first().systemIdentifier.isEmpty());
        QCOMPARE(identities.first().database, QString::fromStdString(m_db->name()));
        QCOMPARE(identities.at(1), identities.first());
        QCOMPARE(identities.at(2), identities.first());
        QCOMPARE(identities.at(3).systemIdentifier, identities.first().systemIdentifier);
        QCOMPARE(identities.at(3).database, QString::fromStdString(other.name()));
        QVERIFY(identities.at(3) != identities.first());
        session.shutdown();
    }

    // finished() comes from the event loop, never from within shutdown(): a window calls it from
    // its closeEvent and closes on finished, and a close() nested in that event is dropped.
    // Checked to fail with shutdown() ending in a direct finishIfDone() (finished emitted inside).
    void finishedComesAfterShutdownReturns()
    {
        ConsoleSession session;
        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        session.connectTo(profileFor(m_db->url(Login::Monitor)));
        QVERIFY(rows.wait(Timeout));
        QVERIFY(leader::test::endPollThreadFirst(&session));

        QSignalSpy finished(&session, &ConsoleSession::finished);
        session.shutdown();
        QCOMPARE(finished.size(), 0);
        QVERIFY(finished.wait(ConsoleSession::DatabaseShutdownBoundMs));
        QCOMPARE(session.phase(), ConsoleSession::Phase::Finished);
    }

    void exitIsBoundedWhenTheDatabaseHangs_data()
    {
        QTest::addColumn<bool>("silentServer"); // else a link that goes silent mid-session
        QTest::newRow("connect to a server that accepts and never answers") << true;
        QTest::newRow("poll on a link that went silent") << false;
    }

    // Checked: with the poller's StatusReader built without the stop token (so abandon() ends
    // nothing), both rows fail: the poller's thread outlives the bound.
    void exitIsBoundedWhenTheDatabaseHangs()
    {
        QFETCH(bool, silentServer);
        // The bound must be met by the workers ending, not by the session giving up on them.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("did not stop")));
        const leader::test::LoopbackPort silent(leader::test::LoopbackPort::Behaviour::Silent);
        leader::faults::LinkProxy proxy("127.0.0.1", m_db->targetPort());
        ConnectionProfile profile = profileFor(m_db->url(Login::Monitor));
        profile.port = silentServer ? silent.port() : proxy.start();

        auto session = std::make_unique<ConsoleSession>();
        QSignalSpy connection(session.get(), &ConsoleSession::connectionChanged);
        QSignalSpy stale(session.get(), &ConsoleSession::staleChanged);
        QSignalSpy rows(session.get(), &ConsoleSession::snapshot);
        session->setInterval(IntervalMs);
        session->connectTo(profile);
        if (silentServer) {
            // The poller says Connecting just before it blocks in the connect.
            QTRY_VERIFY_WITH_TIMEOUT(hasState(connection, ConnectionState::Connecting), Timeout);
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);
            proxy.sever();
            // No rows for two intervals: a poll is blocked on the silent link.
            QTRY_VERIFY_WITH_TIMEOUT(session->isStale(), Timeout);
        }
        QVERIFY(!hasState(connection, ConnectionState::Failed) || !silentServer);
        const qint64 elapsed = closeAndDestroy(session);
        QVERIFY2(elapsed >= 0, "finished() never came");
        QVERIFY2(elapsed < DatabaseExitBoundMs, qPrintable(QString::number(elapsed)));
        proxy.heal();
    }

    // Checked: with the stale timer never armed, the mark comes only when the blocked poll fails
    // at its 5 s deadline, and the two-interval bound fails.
    void staleWithinTwoIntervalsAndLiveAgain()
    {
        leader::faults::LinkProxy proxy("127.0.0.1", m_db->targetPort());
        ConnectionProfile profile = profileFor(m_db->url(Login::Monitor));
        profile.port = proxy.start();
        ConsoleSession session;
        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        QSignalSpy stale(&session, &ConsoleSession::staleChanged);
        session.setInterval(IntervalMs);
        session.connectTo(profile);
        QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);
        QTRY_VERIFY_WITH_TIMEOUT(rows.size() >= 2, Timeout); // polling on the interval
        QVERIFY(stale.isEmpty());

        proxy.sever();
        QElapsedTimer since;
        since.start();
        const QDateTime lastRows = session.lastRowsAt();
        QTRY_VERIFY_WITH_TIMEOUT(!stale.isEmpty(), Timeout);
        // Two intervals from the last rows (plus the margin for a round trip), not more.
        QVERIFY2(since.elapsed() <= 2 * IntervalMs + 1000,
                 qPrintable(QString::number(since.elapsed())));
        QCOMPARE(stale.first().at(0).toBool(), true);
        QCOMPARE(stale.first().at(1).toDateTime(), session.lastRowsAt());
        QVERIFY(session.lastRowsAt() <= lastRows.addMSecs(IntervalMs + 500));

        proxy.heal();
        QTRY_VERIFY_WITH_TIMEOUT(!session.isStale(), Timeout);
        QCOMPARE(stale.last().at(0).toBool(), false);
        QVERIFY(session.lastRowsAt() > lastRows);
    }

    // A poll that fails for a reason other than the transport (here the monitor login's SELECT
    // on leader_ext.leader_status, the view it reads with 0189, revoked in this database) marks the
    // rows stale with the first failure and reports it; the same failure again is the same report
    // with a higher count. Checked: with pollFailed not connected to the session (as before),
    // nothing is reported and the table stays live-looking until the two intervals pass.
    void revokedSelectIsAnError()
    {
        ConsoleSession session;
        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        QSignalSpy problems(&session, &ConsoleSession::pollProblem);
        session.setInterval(IntervalMs);
        session.connectTo(profileFor(m_db->url(Login::Monitor)));
        QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);

        owner("REVOKE SELECT ON leader_ext.leader_status FROM hardcount_monitor");
        const auto restore = qScopeGuard(
                [this] { owner("GRANT SELECT ON leader_ext.leader_status TO hardcount_monitor"); });
        QTRY_VERIFY_WITH_TIMEOUT(!problems.isEmpty(), Timeout);
        QVERIFY2(session.isStale(), "the first failed poll must mark the rows stale");
        const QString message = problems.first().at(0).toString();
        QVERIFY2(message.contains(QLatin1String("privilege missing"))
                         && message.contains(QLatin1String("SQLSTATE 42501")),
                 qPrintable(message));
        QCOMPARE(problems.first().at(1).toInt(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(problems.size() >= 2, Timeout);
        QCOMPARE(problems.at(1).at(0).toString(), message);
        QCOMPARE(problems.at(1).at(1).toInt(), 2);

        owner("GRANT SELECT ON leader_ext.leader_status TO hardcount_monitor");
        const qsizetype before = rows.size();
        QTRY_VERIFY_WITH_TIMEOUT(rows.size() > before, Timeout);
        QVERIFY(!session.isStale());
    }

    // Several roles through the console's path (session → poller → StatusReader → one
    // transaction): all of them paused, or, when one of them is refused, none, with the refusal
    // in one line. The unknown role comes last, so the roles before it were paused inside the
    // transaction and must be rolled back with it. Checked: with StatusReader::pause calling
    // pauseRoles once per role (a transaction each), the unknown-role row fails (billing paused).
    void bulkPauseIsAllOrNothing_data()
    {
        QTest::addColumn<QStringList>("roles");
        QTest::addColumn<int>("endsInSeconds"); // < 0: until unpaused; 0: now, which is refused
        QTest::addColumn<QString>("error");     // empty: every role paused
        QTest::newRow("three roles")
                << QStringList{"billing", "dunning", "email_outbox"} << -1 << QString();
        QTest::newRow("all outboxes, for 15 min")
                << QStringList{"webhook_outbox", "email_outbox"} << 900 << QString();
        QTest::newRow("one unknown role")
                << QStringList{"billing", "dunning", "payroll"} << -1 << "unknown role 'payroll'";
        QTest::newRow("an end that is not after now")
                << QStringList{"billing", "dunning"} << 0 << "give an instant after now";
    }

    void bulkPauseIsAllOrNothing()
    {
        QFETCH(QStringList, roles);
        QFETCH(int, endsInSeconds);
        QFETCH(QString, error);
        m_db->resetLeases();
        ConsoleSession session;
        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        QSignalSpy actions(&session, &ConsoleSession::actionFinished);
        session.setInterval(0);
        session.connectTo(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);

        leader::console::PauseEnd end;
        if (endsInSeconds == 900)
            end.duration = QStringLiteral("15m");
        else if (endsInSeconds == 0)
            end.at = QDateTime::fromSecsSinceEpoch(0, Qt::UTC); // long past on any clock
        const qsizetype before = rows.size();
        session.pause(roles, QStringLiteral("alice@ops"), QStringLiteral("bulk"), end);
        QTRY_COMPARE_WITH_TIMEOUT(actions.size(), 1, Timeout);
        const auto result = actions.first().at(0).value<ActionResult>();
        QCOMPARE(result.roles, roles);
        QCOMPARE(result.ok, error.isEmpty());
        if (!result.ok) {
            QVERIFY2(result.error.contains(error), qPrintable(result.error));
            QVERIFY2(!result.error.contains(QLatin1Char('\n')), qPrintable(result.error));
            QVERIFY(result.changes.isEmpty());
            session.refresh(); // a refused request polls nothing by itself
        } else {
            QCOMPARE(result.changes.size(), roles.size());
        }
        QTRY_VERIFY_WITH_TIMEOUT(rows.size() > before, Timeout);
        const auto snapshot = rows.last().at(0).value<StatusSnapshot>();
        for (const auto &status : snapshot.roles) {
            const bool paused = status.state == leader::console::RoleState::Paused;
            QVERIFY2(paused == (result.ok && roles.contains(status.role)), qPrintable(status.role));
            if (paused)
                QCOMPARE(status.pauseRemainingSeconds.has_value(), endsInSeconds > 0);
        }

        // Unpause is one transaction as well: every role of the request.
        if (result.ok) {
            session.unpause(roles, QStringLiteral("alice@ops"), QStringLiteral("bulk done"));
            QTRY_COMPARE_WITH_TIMEOUT(actions.size(), 2, Timeout);
            const auto unpaused = actions.at(1).at(0).value<ActionResult>();
            QVERIFY2(unpaused.ok, qPrintable(unpaused.error));
            for (const auto &change : unpaused.changes)
                QVERIFY2(change.changed, qPrintable(change.role));
        }
    }

    // A refused connect reads as one under another locale: "cannot reach the server", not "the
    // server closed the connection", which is what the fleet window said under de_DE.UTF-8 (libpq's
    // and the C library's messages in German, the reader's patterns in English). The locale is
    // set as QApplication sets it from LANG=de_DE.UTF-8. Checked once: without
    // useEnglishSystemMessages() this fails.
    void refusedConnectReadsAsSuchUnderAnotherLocale()
    {
        const std::string before = std::setlocale(LC_ALL, nullptr);
        QVERIFY2(std::setlocale(LC_ALL, "de_DE.UTF-8"),
                 "the de_DE.UTF-8 locale is missing: scripts/setup-deps.sh generates it");
        const auto restore = qScopeGuard([&before] { std::setlocale(LC_ALL, before.c_str()); });
        leader::console::useEnglishSystemMessages();
        const leader::test::LoopbackPort refused(leader::test::LoopbackPort::Behaviour::Refuse);
        ConnectionProfile profile = profileFor(m_db->url(Login::Monitor));
        profile.port = refused.port();
        ConsoleSession session;
        QSignalSpy connection(&session, &ConsoleSession::connectionChanged);
        session.connectTo(profile);
        QTRY_VERIFY_WITH_TIMEOUT(hasState(connection, ConnectionState::Failed), Timeout);
        for (const auto &arguments : connection) {
            if (arguments.at(0).value<ConnectionState>() == ConnectionState::Failed) {
                const QString message = arguments.at(1).toString();
                QVERIFY2(message.startsWith(QLatin1String("cannot reach the server: ")),
                         qPrintable(message));
            }
        }
    }

    // The console's own pause (ConsoleSession → poller → StatusReader → SELECT leader_pause)
    // cancels a running holder's work at once, not at its next beat: leader_pause sends the wake
    // itself (migration 0176), which the holder's listener turns into an immediate RENEW. The
    // listener goes straight to Postgres on both routes (LISTEN needs a session of its own); the
    // holder's statements and the console take the route under test. Checked: with the pg_notify
    // deleted from leader_pause the work runs on to the holder's next beat, ~3 s, and this fails.
    void consolePauseCancelsAHolderBeforeItsNextBeat()
    {
        m_db->resetLeases();
        leader::lease::EventBus events;
        leader::test::EventRecorder recorder(events);
        leader::lease::Manager holder({.database = {.url = m_db->url(Login::App)},
                                       .holderId = "holder:1:00000001",
                                       .events = &events,
                                       .fastWake = true});
        leader::lease::WakeListener wake({.url = m_db->directUrl(Login::App)},
                                         [&](const std::string &role) { holder.renewNow(role); });
        QVERIFY(wake.start());

        ConsoleSession session;
        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        QSignalSpy actions(&session, &ConsoleSession::actionFinished);
        session.setInterval(0); // no polls but the ones asked for: the pause goes out at once
        session.connectTo(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);

        std::atomic<std::chrono::steady_clock::rep> cancelledAt = 0;
        auto tick = std::async(std::launch::async, [&] {
            return holder.lead("billing", 0ms, [&](leader::lease::TickContext &context) {
                context.sleepFor(60s);
                cancelledAt = std::chrono::steady_clock::now().time_since_epoch().count();
            });
        });
        // Paused just after the ACQUIRE: the holder's own RENEW is ~3 s away.
        QTRY_VERIFY_WITH_TIMEOUT(recorder.count(leader::lease::EventKind::Acquired) == 1, 5000);
        const auto sent = std::chrono::steady_clock::now();
        session.pause({QStringLiteral("billing")}, QStringLiteral("alice@ops"),
                      QStringLiteral("console path"), {});
        QTRY_VERIFY_WITH_TIMEOUT(!actions.isEmpty(), Timeout);
        const auto paused = actions.first().at(0).value<ActionResult>();
        QVERIFY2(paused.ok, qPrintable(paused.error));
        const leader::lease::LeadResult result = tick.get();
        QCOMPARE(result.outcome, leader::lease::Outcome::Lost);
        QCOMPARE(result.lossReason, leader::lease::LossReason::Paused);
        const auto cancelled = std::chrono::steady_clock::time_point(
                std::chrono::steady_clock::duration(cancelledAt.load()));
        const double ms = std::chrono::duration<double, std::milli>(cancelled - sent).count();
        leader::test::reportMeasurement(QString::asprintf(
                "console pause to work cancelled: %.1f ms after it was asked", ms));
        // Under a second tells the wake from the beat (3 s); the figure is the failover
        // benchmark's. Under 100 ms, asserted here before, failed CI at 134 and 248 ms on a
        // loaded machine (a young tick's heartbeat connection not yet open cost ~30 ms of it;
        // ManagerOptions::fastWake opens it at the tick's start).
        QVERIFY2(ms < 1000, qPrintable(QString::number(ms, 'f', 1)));
    }

    // The demo's replicas lead, and are listed, before its started() reaches the session, and the
    // drill faults the first holder it sees: a fault asked that early waits for the host's start
    // and lands. Once the demo is stopped a fault says it was not sent. Checked: with the old
    // condition (m_demoRunning) the kill was dropped without a word, and this fails; so once did
    // the headless drill in CI, waiting 30 s for a takeover after a kill that never happened.
    void aFaultAskedBeforeTheDemoSaysItStartedLands()
    {
        if (m_db->viaPgBouncer())
            QSKIP("the demo runs its own server; once is enough");
        if (const QString why = leader::test::whyNoCluster(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir root(QStringLiteral("/tmp/tst_consolesession-XXXXXX"));
        QVERIFY(leader::test::openToServerAccount(root));
        auto session = std::make_unique<ConsoleSession>();
        QSignalSpy started(session.get(), &ConsoleSession::demoStarted);
        QSignalSpy failed(session.get(), &ConsoleSession::demoFailed);
        QSignalSpy events(session.get(), &ConsoleSession::demoEvent);
        const auto said = [&](const QString &detail) {
            for (const QList<QVariant> &arguments : std::as_const(events)) {
                const auto entry = arguments.at(0).value<EventLogEntry>();
                if (entry.event == EventKind::Fault && entry.detail == detail)
                    return true;
            }
            return false;
        };
        const auto stateOf = [&](const QString &id) {
            for (const ReplicaInfo &replica : session->replicas())
                if (replica.id == id)
                    return replica.state;
            return ReplicaState::Starting;
        };

        session->startDemo(root.filePath(QStringLiteral("demo-cluster")));
        session->inject({.replica = QStringLiteral("r1"), .kind = FaultKind::Kill});
        QVERIFY(started.isEmpty()); // asked before the host's thread ran its start
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !failed.isEmpty(), 180000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(said(QStringLiteral("kill r1")), Timeout);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(QStringLiteral("r1")), ReplicaState::Killed, Timeout);

        session->stopDemo();
        session->inject({.replica = QStringLiteral("r2"), .kind = FaultKind::Kill});
        QVERIFY(said(QStringLiteral("kill r2: not sent, the demo is not running")));
        QVERIFY(closeAndDestroy(session) >= 0);
    }
};

QTEST_MAIN(ConsoleSessionTest)
#include "tst_consolesession.moc"
