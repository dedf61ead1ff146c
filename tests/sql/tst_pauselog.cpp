// Migration 0177: the pause log and pauses that end by themselves, as the logins that use them
// see it (hardcount_app, hardcount_monitor; never the owner, except to move a pause's end into the
// past as if the time had passed), straight to Postgres and again through PgBouncer.
//
// Since 0189 a pause with an end is held in not_before (tst_adrfleet shows the ADR's ACQUIRE
// honouring it). Mutation checks, each done once: without ACQUIRE's `OR l.paused_until <= now()`
// the claim after an expired pause of 0177's form was refused (expiredPauseLetsAcquireThrough,
// before 0189); without the expiry branches (0177's trigger, 0189's leader_pause_settle and the
// trigger leader_leases_writes) the log shows an unpause instead (expiredPauseLetsAcquireThrough,
// repauseLogsTheExpiry, unpauseAfterTheEndUnpausesNothing). appCannotWriteTheLog guards against a
// future GRANT: no login but the owner may write the log.
//
// Issue 31, finding 6: the history is the functions' alone. Every row of
// appCannotForgeThePauseHistory, tickCannotEndInTheFuture and the backdated pause of
// directUpdateIsLoggedToo failed once with migration 0181 rolled back after the migration (the
// app's UPDATE on every column, the trigger reading leader.unpause_by / leader.unpause_reason and
// NEW.paused_at, no guard): each forgery was accepted and logged as written.
// unpauseTakesWhoAndWhyFromItsArguments passes either way (0177's function overwrote the settings
// itself; the forgery was the UPDATE by hand): it guards 0181's new path for by and reason.

#include "lease/pausecontrol.h"
#include "lease/statements.h"
#include "pg/error.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QProcess>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::loginName;
using leader::test::TestDatabase;

namespace {

constexpr auto Short = 5s;

// One log row, the columns a check compares; times as text on the database clock.
struct LogRow
{
    QString action;
    QString login;
    QString by;
    QString reason;
    bool hasPausedUntil = false;
    bool linkedToPause = false;
};

QString text(const leader::pg::Result &result, int row, int column)
{
    return result.isNull(row, column)
                   ? QString()
                   : QString::fromStdString(std::string(result.text(row, column)));
}

} // namespace

class TestPauseLog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void pauseAndUnpauseAreLoggedWithTheLogin();
    void bareUnpauseRecordsTheLoginOnly();
    void psqlCallIsLoggedWithItsLogin();
    void directUpdateIsLoggedToo();
    void appCannotForgeThePauseHistory_data();
    void appCannotForgeThePauseHistory();
    void unpauseTakesWhoAndWhyFromItsArguments();
    void tickCannotEndInTheFuture();
    void expiringPauseRefusesAcquireUntilItsEnd();
    void expiredPauseLetsAcquireThrough();
    void repauseLogsTheExpiry();
    void unpauseAfterTheEndUnpausesNothing();
    void pausingAPausedRoleKeepsTheFirst();
    void pauseEndMustBeInTheFuture();
    void appCannotWriteTheLog_data();
    void appCannotWriteTheLog();
    void monitorReadsButCannotPause();
    void severalRolesPauseTogetherOrNotAtAll();
    void pauseForADurationEndsOnTheDatabaseClock();
    void pausingAPausedRoleNamesItsPauser();
    void historyNewestFirstAndFiltered();
    void durations_data();
    void durations();

private:
    QList<LogRow> log(const char *role = "billing");
    QString scalar(Connection &connection, const std::string &sql);
    // As if the pause's end had come: moves it just into the past, as the owner.
    void endPauseNow(const char *role = "billing");
    QString sqlstateOf(Connection &connection, const std::string &sql);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_monitor;
    std::unique_ptr<Connection> m_owner;
};

void TestPauseLog::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("pauselog");
    m_db->migrateLease();
    m_app = std::make_unique<Connection>(m_db->connect(Login::App));
    m_monitor = std::make_unique<Connection>(m_db->connect(Login::Monitor));
    m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestPauseLog::init()
{
    m_db->resetLeases();
    m_owner->exec("clear log", "TRUNCATE leader_ext.leader_pause_log", {}, Short);
}

QList<LogRow> TestPauseLog::log(const char *role)
{
    const leader::pg::Result result = m_monitor->exec(
            "log",
            "SELECT action, login, by, reason, paused_until IS NOT NULL, "
            "pause_id IS NOT NULL FROM leader_ext.leader_pause_log WHERE role = $1 ORDER BY id",
            {role}, Short);
    QList<LogRow> rows;
    for (int row = 0; row < result.rows(); ++row)
        rows.append({text(result, row, 0), text(result, row, 1), text(result, row, 2),
                     text(result, row, 3), result.toBool(row, 4), result.toBool(row, 5)});
    return rows;
}

QString TestPauseLog::scalar(Connection &connection, const std::string &sql)
{
    return text(connection.exec("test query", sql, {}, Short), 0, 0);
}

void TestPauseLog::endPauseNow(const char *role)
{
    m_db->endPauseNow(role);
}

QString TestPauseLog::sqlstateOf(Connection &connection, const std::string &sql)
{
    try {
        connection.exec("refused", sql, {}, Short);
    } catch (const leader::pg::Error &error) {
        return QString::fromStdString(error.sqlstate());
    }
    return QStringLiteral("accepted");
}

void TestPauseLog::pauseAndUnpauseAreLoggedWithTheLogin()
{
    scalar(*m_app, "SELECT leader_pause('billing', 'alice@ops', 'incident 42')");
    QCOMPARE(scalar(*m_app, "SELECT leader_ext.leader_unpause('billing', 'carol@ops', 'card "
                            "processor back')"),
             QStringLiteral("t"));
    const QString app = QString::fromStdString(loginName(Login::App));
    const QList<LogRow> rows = log();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].action, QStringLiteral("pause"));
    QCOMPARE(rows[0].login, app); // session_user, though the function runs as the owner
    QCOMPARE(rows[0].by, QStringLiteral("alice@ops"));
    QCOMPARE(rows[0].reason, QStringLiteral("incident 42"));
    QVERIFY(!rows[0].hasPausedUntil);
    QCOMPARE(rows[1].action, QStringLiteral("unpause"));
    QCOMPARE(rows[1].login, app);
    QCOMPARE(rows[1].by, QStringLiteral("carol@ops"));
    QCOMPARE(rows[1].reason, QStringLiteral("card processor back"));
    QVERIFY(rows[1].linkedToPause);
    // No setting carries "by" (before 0181 two did, reset before the call returned).
    QCOMPARE(scalar(*m_app, "SELECT coalesce(current_setting('leader.unpause_by', true), '')"),
             QString());
}

void TestPauseLog::bareUnpauseRecordsTheLoginOnly()
{
    scalar(*m_app, "SELECT leader_pause('dunning', 'alice@ops', 'why')");
    QCOMPARE(scalar(*m_app, "SELECT leader_unpause('dunning')"), QStringLiteral("t"));
    const QList<LogRow> rows = log("dunning");
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[1].action, QStringLiteral("unpause"));
    QCOMPARE(rows[1].login, QString::fromStdString(loginName(Login::App)));
    QVERIFY(rows[1].by.isEmpty());
    QVERIFY(rows[1].reason.isEmpty());
}

void TestPauseLog::psqlCallIsLoggedWithItsLogin()
{
    QProcess psql;
    psql.setProcessEnvironment(leader::test::cleanEnvironment());
    psql.start(QStringLiteral("psql"),
               {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"),
                QStringLiteral("ON_ERROR_STOP=1"), QString::fromStdString(m_db->url(Login::App)),
                QStringLiteral("-c"),
                QStringLiteral("SELECT leader_pause('email_outbox', 'bob', 'typed in psql')")});
    QVERIFY2(psql.waitForFinished(10000), "psql did not finish");
    QVERIFY2(psql.exitCode() == 0, psql.readAllStandardError().constData());
    const QList<LogRow> rows = log("email_outbox");
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows[0].login, QString::fromStdString(loginName(Login::App)));
    QCOMPARE(rows[0].by, QStringLiteral("bob"));
}

void TestPauseLog::directUpdateIsLoggedToo()
{
    // The owner may write the table by hand; a pause so written still leaves a row, stamped with
    // the database clock whatever paused_at the statement carried.
    m_owner->exec("pause by hand",
                  "UPDATE leader_leases SET paused_at = now() - interval '1 day', paused_by = 'x', "
                  "pause_reason = 'y' WHERE role = 'billing'",
                  {}, Short);
    m_owner->exec(
            "unpause by hand",
            "UPDATE leader_leases SET paused_at = NULL, paused_by = NULL, pause_reason = NULL "
            "WHERE role = 'billing'",
            {}, Short);
    const QList<LogRow> rows = log();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].action, QStringLiteral("pause"));
    QCOMPARE(rows[1].action, QStringLiteral("unpause"));
    QCOMPARE(rows[1].login, QString::fromStdString(loginName(Login::Owner)));
    QCOMPARE(scalar(*m_monitor, "SELECT bool_and(at > now() - interval '1 hour') "
                                "FROM leader_ext.leader_pause_log WHERE role = 'billing'"),
             QStringLiteral("t"));
}

void TestPauseLog::appCannotForgeThePauseHistory_data()
{
    QTest::addColumn<QString>("sql");
    // With an end, the pause is held in not_before (0189); without, in paused_at (the ADR's).
    QTest::addColumn<bool>("withEnd");
    QTest::newRow("backdate paused_at")
            << "UPDATE leader_leases SET paused_at = now() - interval '1 day' "
               "WHERE role = 'billing'"
            << false;
    QTest::newRow("rewrite paused_by")
            << "UPDATE leader_leases SET paused_by = 'mallory' WHERE role = 'billing'" << false;
    QTest::newRow("rewrite the reason")
            << "UPDATE leader_leases SET pause_reason = 'routine' WHERE role = 'billing'" << false;
    QTest::newRow("give the pause an end in the past, an expiry nobody waited for")
            << "UPDATE leader_leases SET paused_until = now() - interval '1 ms' "
               "WHERE role = 'billing'"
            << false;
    QTest::newRow("end the pause in the past, an expiry nobody waited for")
            << "UPDATE leader_leases SET not_before = now() - interval '1 ms' "
               "WHERE role = 'billing'"
            << true;
    QTest::newRow("unpause by hand under forged settings")
            << "WITH forged AS (SELECT set_config('leader.unpause_by', 'mallory', true), "
               "set_config('leader.unpause_reason', 'forged', true)) "
               "UPDATE leader_leases SET paused_at = NULL, paused_by = NULL, pause_reason = NULL "
               "FROM forged WHERE role = 'billing'"
            << false;
    QTest::newRow("lift a pause with an end by hand")
            << "UPDATE leader_leases SET not_before = NULL WHERE role = 'billing'" << true;
    QTest::newRow("pause by hand")
            << "UPDATE leader_leases SET paused_at = now() - interval '1 day', "
               "paused_by = 'mallory', pause_reason = 'x' WHERE role = 'dunning'"
            << true;
}

void TestPauseLog::appCannotForgeThePauseHistory()
{
    QFETCH(QString, sql);
    QFETCH(bool, withEnd);
    scalar(*m_app, withEnd ? "SELECT leader_ext.leader_pause('billing', 'alice@ops', 'incident "
                             "42', now() + interval '1 hour')"
                           : "SELECT leader_pause('billing', 'alice@ops', 'incident 42')");
    const std::string pauseSql = "SELECT paused_at, paused_by, pause_reason, paused_until "
                                 "FROM leader_ext.leader_status ORDER BY role";
    const auto pauses = [&] {
        const leader::pg::Result result = m_monitor->exec("pauses", pauseSql, {}, Short);
        QStringList rows;
        for (int row = 0; row < result.rows(); ++row)
            rows << text(result, row, 0) + "|" + text(result, row, 1) + "|" + text(result, row, 2)
                            + "|" + text(result, row, 3);
        return rows;
    };
    const QStringList before = pauses();
    QCOMPARE(sqlstateOf(*m_app, sql.toStdString()), QStringLiteral("42501"));
    QCOMPARE(pauses(), before);
    const QList<LogRow> rows = log();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows[0].by, QStringLiteral("alice@ops"));
    QVERIFY(log("dunning").isEmpty());
}

void TestPauseLog::unpauseTakesWhoAndWhyFromItsArguments()
{
    scalar(*m_app, "SELECT leader_pause('billing', 'alice@ops', 'incident 42')");
    scalar(*m_app, "SELECT leader_pause('dunning', 'alice@ops', 'incident 42')");
    // The settings 0177 read are set in the caller's statement, before the call: ignored.
    const std::string forged = "SELECT set_config('leader.unpause_by', 'mallory', true), "
                               "set_config('leader.unpause_reason', 'forged', true), ";
    scalar(*m_app, forged + "leader_ext.leader_unpause('billing', 'carol@ops', 'fixed')");
    scalar(*m_app, forged + "leader_unpause('dunning')");
    const QList<LogRow> billing = log();
    QCOMPARE(billing.size(), 2);
    QCOMPARE(billing[1].by, QStringLiteral("carol@ops"));
    QCOMPARE(billing[1].reason, QStringLiteral("fixed"));
    const QList<LogRow> dunning = log("dunning");
    QCOMPARE(dunning.size(), 2);
    QCOMPARE(dunning[1].action, QStringLiteral("unpause"));
    QVERIFY(dunning[1].by.isEmpty());
    QVERIFY(dunning[1].reason.isEmpty());
}

void TestPauseLog::tickCannotEndInTheFuture()
{
    // RELEASE's own write (now()) stands; a later instant is the database clock's now().
    QCOMPARE(scalar(*m_app, "UPDATE leader_leases SET last_tick_ended_at = now() + interval "
                            "'1 day' WHERE role = 'billing' RETURNING last_tick_ended_at = now()"),
             QStringLiteral("t"));
    QCOMPARE(scalar(*m_monitor, "SELECT last_tick_ended_at <= now() FROM leader_status "
                                "WHERE role = 'billing'"),
             QStringLiteral("t"));
}

void TestPauseLog::expiringPauseRefusesAcquireUntilItsEnd()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice', 'one hour', now() + "
                   "interval '1 hour')");
    QVERIFY(!leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms));
    QCOMPARE(
            scalar(*m_monitor, "SELECT state FROM leader_ext.leader_status WHERE role = 'billing'"),
            QStringLiteral("paused"));
    // The ADR's view: the role cools down until the pause's end.
    QCOMPARE(scalar(*m_monitor, "SELECT state FROM leader_status WHERE role = 'billing'"),
             QStringLiteral("cooling"));
    const double left = scalar(*m_monitor, "SELECT pause_remaining_seconds FROM "
                                           "leader_ext.leader_status WHERE role = 'billing'")
                                .toDouble();
    QVERIFY2(left > 3590 && left <= 3600, qPrintable(QString::number(left)));
    QCOMPARE(scalar(*m_app, "SELECT leader_fence('billing', holder_token) FROM leader_leases "
                            "WHERE role = 'billing'"),
             QStringLiteral("f"));
    QCOMPARE(log().size(), 1);
    QVERIFY(log()[0].hasPausedUntil);
}

void TestPauseLog::expiredPauseLetsAcquireThrough()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice', 'short', now() + interval "
                   "'1 hour')");
    endPauseNow();
    // No cron, no console: the view stops showing it, and the next claim clears it.
    QCOMPARE(scalar(*m_monitor, "SELECT state || ',' || coalesce(paused_by, '-') FROM "
                                "leader_ext.leader_status WHERE role = 'billing'"),
             QStringLiteral("never ran,-"));
    const auto acquired = leader::lease::acquire(*m_app, "billing", "a:1:00000001", 0ms);
    QVERIFY(acquired.has_value());
    QCOMPARE(scalar(*m_owner, "SELECT paused_at IS NULL AND paused_until IS NULL FROM "
                              "leader_leases WHERE role = 'billing'"),
             QStringLiteral("t"));
    QCOMPARE(scalar(*m_app,
                    "SELECT leader_fence('billing', " + std::to_string(acquired->token) + ")"),
             QStringLiteral("t"));
    const QList<LogRow> rows = log();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[1].action, QStringLiteral("expire"));
    QVERIFY(rows[1].by.isEmpty());
    QVERIFY(rows[1].linkedToPause);
    // Stamped with the pause's end, not with the claim that noticed it.
    QCOMPARE(scalar(*m_monitor,
                    "SELECT at < now() FROM leader_ext.leader_pause_log WHERE action = 'expire'"),
             QStringLiteral("t"));
}

void TestPauseLog::repauseLogsTheExpiry()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice', 'short', now() + interval "
                   "'1 hour')");
    endPauseNow();
    scalar(*m_app, "SELECT leader_pause('billing', 'bob', 'again')");
    QStringList actions;
    for (const LogRow &row : log())
        actions << row.action + QLatin1Char(':') + row.by;
    QCOMPARE(actions, QStringList({"pause:alice", "expire:", "pause:bob"}));
    QCOMPARE(scalar(*m_monitor, "SELECT paused_by FROM leader_status WHERE role = 'billing'"),
             QStringLiteral("bob"));
}

void TestPauseLog::unpauseAfterTheEndUnpausesNothing()
{
    scalar(*m_app, "SELECT leader_ext.leader_pause('billing', 'alice', 'short', now() + interval "
                   "'1 hour')");
    endPauseNow();
    QCOMPARE(scalar(*m_app, "SELECT leader_ext.leader_unpause('billing', 'carol', 'late')"),
             QStringLiteral("f"));
    QStringList actions;
    for (const LogRow &row : log())
        actions << row.action;
    QCOMPARE(actions, QStringList({"pause", "expire"}));
}

void TestPauseLog::pausingAPausedRoleKeepsTheFirst()
{
    const QString first = scalar(*m_app, "SELECT leader_pause('billing', 'alice', 'first')");
    QCOMPARE(scalar(*m_app, "SELECT leader_pause('billing', 'bob', 'second')"), first);
    QCOMPARE(scalar(*m_monitor, "SELECT paused_by || ': ' || pause_reason FROM leader_status "
                                "WHERE role = 'billing'"),
             QStringLiteral("alice: first"));
    QCOMPARE(log().size(), 1);
}

void TestPauseLog::pauseEndMustBeInTheFuture()
{
    QCOMPARE(sqlstateOf(*m_app, "SELECT leader_ext.leader_pause('billing', 'a', 'b', now())"),
             QStringLiteral("22023"));
    QCOMPARE(scalar(*m_monitor, "SELECT state FROM leader_status WHERE role = 'billing'"),
             QStringLiteral("never ran"));
    QVERIFY(log().isEmpty());
}

void TestPauseLog::appCannotWriteTheLog_data()
{
    QTest::addColumn<QString>("sql");
    QTest::newRow("insert") << "INSERT INTO leader_ext.leader_pause_log (role, action, at, login) "
                               "VALUES ('billing', 'unpause', now(), 'someone')";
    QTest::newRow("update") << "UPDATE leader_ext.leader_pause_log SET by = 'someone else'";
    QTest::newRow("delete") << "DELETE FROM leader_ext.leader_pause_log";
    QTest::newRow("truncate") << "TRUNCATE leader_ext.leader_pause_log";
    QTest::newRow("alter") << "ALTER TABLE leader_ext.leader_pause_log DISABLE TRIGGER ALL";
    QTest::newRow("drop trigger") << "DROP TRIGGER leader_leases_log_pause_update ON leader_leases";
    QTest::newRow("call the trigger function") << "SELECT leader_ext.leader_log_pause_change()";
}

void TestPauseLog::appCannotWriteTheLog()
{
    QFETCH(QString, sql);
    scalar(*m_app, "SELECT leader_pause('billing', 'alice', 'evidence')");
    const QString state = sqlstateOf(*m_app, sql.toStdString());
    // 42501: no privilege; 0A000: a trigger function cannot be called directly.
    QVERIFY2(state == QLatin1String("42501") || state == QLatin1String("0A000"), qPrintable(state));
    QCOMPARE(log().size(), 1);
}

void TestPauseLog::monitorReadsButCannotPause()
{
    QCOMPARE(sqlstateOf(*m_monitor, "SELECT leader_ext.leader_pause('billing', 'a', 'b', now() + "
                                    "interval '1 hour')"),
             QStringLiteral("42501"));
    QCOMPARE(sqlstateOf(*m_monitor, "SELECT leader_ext.leader_unpause('billing', 'a', 'b')"),
             QStringLiteral("42501"));
    QCOMPARE(scalar(*m_monitor, "SELECT count(*) FROM leader_ext.leader_pause_log"),
             QStringLiteral("0"));
}

void TestPauseLog::severalRolesPauseTogetherOrNotAtAll()
{
    const std::vector<std::string> outboxes{"webhook_outbox", "email_outbox"};
    const auto paused = leader::lease::pauseRoles(*m_app, outboxes, "alice", "SMTP rotation");
    QCOMPARE(paused.size(), std::size_t(2));
    QVERIFY(paused[0].byThisCall && paused[1].byThisCall);
    QCOMPARE(paused[0].pausedAt, paused[1].pausedAt); // one transaction, one now()

    // One unknown role: nothing paused, and the session is usable afterwards.
    const std::vector<std::string> withTypo{"billing", "dunning", "biling"};
    try {
        leader::lease::pauseRoles(*m_app, withTypo, "bob", "all of them");
        QFAIL("a pause naming an unknown role was accepted");
    } catch (const leader::pg::Error &error) {
        QCOMPARE(QString::fromStdString(error.sqlstate()), QStringLiteral("22023"));
    }
    QCOMPARE(scalar(*m_monitor, "SELECT string_agg(role, ',' ORDER BY role) FROM leader_status "
                                "WHERE state = 'paused'"),
             QStringLiteral("email_outbox,webhook_outbox"));
    QCOMPARE(log("billing").size(), 0);

    const auto unpaused = leader::lease::unpauseRoles(*m_app, outboxes, "carol", "rotated");
    QVERIFY(unpaused[0].wasPaused && unpaused[1].wasPaused);
    QCOMPARE(log("email_outbox").last().by, QStringLiteral("carol"));
}

void TestPauseLog::pauseForADurationEndsOnTheDatabaseClock()
{
    const std::vector<std::string> billing{"billing"};
    const auto paused
            = leader::lease::pauseRoles(*m_app, billing, "alice", "deploy", {.after = "1 hour"});
    QVERIFY(paused[0].until.has_value());
    // The end is the database's now() plus the hour, to the microsecond.
    QCOMPARE(scalar(*m_owner, "SELECT paused_until - paused_at FROM leader_ext.leader_status "
                              "WHERE role = 'billing'"),
             QStringLiteral("01:00:00"));
    const auto at = leader::lease::pauseRoles(*m_app, std::vector<std::string>{"dunning"}, "alice",
                                              "window", {.at = "2999-01-01 00:00:00+00"});
    QCOMPARE(at[0].until.value_or(""), std::string("2999-01-01T00:00:00.000Z"));
}

void TestPauseLog::pausingAPausedRoleNamesItsPauser()
{
    const std::vector<std::string> billing{"billing"};
    leader::lease::pauseRoles(*m_app, billing, "alice", "first");
    const auto again = leader::lease::pauseRoles(*m_app, billing, "bob", "second");
    QVERIFY(!again[0].byThisCall);
    QCOMPARE(again[0].pausedBy, std::string("alice"));
    QCOMPARE(again[0].reason, std::string("first"));
}

void TestPauseLog::historyNewestFirstAndFiltered()
{
    leader::lease::pauseRoles(*m_app, std::vector<std::string>{"billing"}, "alice", "one");
    leader::lease::unpauseRoles(*m_app, std::vector<std::string>{"billing"}, "bob", "two");
    leader::lease::pauseRoles(*m_app, std::vector<std::string>{"dunning"}, "carol", "three");
    const auto all = leader::lease::pauseHistory(*m_monitor, {});
    QCOMPARE(all.size(), std::size_t(3));
    QCOMPARE(all[0].role, std::string("dunning"));
    QCOMPARE(all[1].action, leader::lease::PauseAction::Unpause);
    QCOMPARE(all[1].pausedAt.value_or(""), all[2].at); // the unpause names the pause it ended
    QCOMPARE(all[1].login, loginName(Login::App));
    QCOMPARE(leader::lease::pauseHistory(*m_monitor, {.role = "billing"}).size(), std::size_t(2));
    QCOMPARE(leader::lease::pauseHistory(*m_monitor, {.sinceAgo = "1 hour"}).size(),
             std::size_t(3));
    QCOMPARE(leader::lease::pauseHistory(*m_monitor, {.sinceAt = "2999-01-01"}).size(),
             std::size_t(0));
}

void TestPauseLog::durations_data()
{
    QTest::addColumn<QString>("duration");
    QTest::addColumn<QString>("interval");
    QTest::newRow("minutes") << "15m"
                             << "15 minutes";
    QTest::newRow("hours") << "4h"
                           << "4 hours";
    QTest::newRow("days") << "7d"
                          << "7 days";
    QTest::newRow("seconds") << "90s"
                             << "90 seconds";
    QTest::newRow("no unit") << "15"
                             << "";
    QTest::newRow("zero") << "0h"
                          << "";
    QTest::newRow("negative") << "-1h"
                              << "";
    QTest::newRow("fraction") << "1.5h"
                              << "";
    QTest::newRow("unknown unit") << "1w"
                                  << "";
    QTest::newRow("empty") << ""
                           << "";
}

void TestPauseLog::durations()
{
    QFETCH(QString, duration);
    QFETCH(QString, interval);
    const auto parsed = leader::lease::intervalFromDuration(duration.toStdString());
    QCOMPARE(QString::fromStdString(parsed.value_or("")), interval);
}

QTEST_GUILESS_MAIN(TestPauseLog)
#include "tst_pauselog.moc"
