// The History view's read against a real server, straight to Postgres and again through PgBouncer
// in transaction mode: pauses and unpauses made with SQL come back newest first with the database
// login, as the monitor and the app login read them; a login without SELECT gets a failure; the
// session answers from the poller's thread; and a database without extension 0177 (the ADR's
// schema alone, also as the application's own migration tool leaves it, without leader_ext) gets
// the line saying what the pause history needs, not a failure.

#include "core/consolesession.h"
#include "core/pauselog.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using leader::console::ConsoleSession;
using leader::console::PauseAction;
using leader::console::PauseLogEntry;
using leader::console::PauseLogResult;
using leader::console::PauseLogSince;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(leader::test::Login)

namespace {

constexpr int Timeout = 15000;

QList<PauseLogEntry> ofRole(const QList<PauseLogEntry> &entries, const QString &role)
{
    QList<PauseLogEntry> found;
    for (const PauseLogEntry &entry : entries)
        if (entry.role == role)
            found.append(entry);
    return found;
}

} // namespace

class TstPauseLogRead final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<TestDatabase> m_adrOnly; // ADR-114's 0174 and 0175 only

    QString url(Login login) const { return QString::fromStdString(m_db->url(login)); }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_db = std::make_unique<TestDatabase>("pauselogread");
        m_db->migrateLease();
        // As the app login, the way psql would: the log names it, whatever was typed as "by".
        leader::pg::Connection app = m_db->connect(Login::App);
        app.exec("pause", "SELECT leader_pause('billing', 'alice@ops', 'halt, \"now\"')", {}, 5s);
        app.exec("unpause", "SELECT leader_ext.leader_unpause('billing', 'bob@ops', 'fixed')", {},
                 5s);
        app.exec("timed pause",
                 "SELECT leader_ext.leader_pause('dunning', 'carol', 'migration',"
                 " now() + interval '1 hour')",
                 {}, 5s);
    }
    void cleanupTestCase()
    {
        m_adrOnly.reset();
        m_db.reset();
    }

    void readsNewestFirstWithTheLogin_data()
    {
        QTest::addColumn<Login>("reader");
        QTest::newRow("monitor") << Login::Monitor;
        QTest::newRow("app") << Login::App;
    }

    void readsNewestFirstWithTheLogin()
    {
        QFETCH(Login, reader);
        const PauseLogResult result = readPauseLog(url(reader), {}, PauseLogSince::Hour);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.unavailable.isEmpty());
        QVERIFY(!result.truncated);
        QCOMPARE(result.entries.size(), 3);
        for (qsizetype row = 1; row < result.entries.size(); ++row)
            QVERIFY(result.entries.at(row - 1).at >= result.entries.at(row).at);
        QCOMPARE(result.entries.first().role, QStringLiteral("dunning"));

        const QList<PauseLogEntry> billing = ofRole(result.entries, QStringLiteral("billing"));
        QCOMPARE(billing.size(), 2);
        const PauseLogEntry &unpause = billing.at(0);
        const PauseLogEntry &pause = billing.at(1);
        QCOMPARE(unpause.action, PauseAction::Unpause);
        QCOMPARE(unpause.login, QStringLiteral("lt_app"));
        QCOMPARE(unpause.by, QStringLiteral("bob@ops"));
        QCOMPARE(unpause.reason, QStringLiteral("fixed"));
        QCOMPARE(unpause.endedPause, pause.at);
        QCOMPARE(pause.action, PauseAction::Pause);
        QCOMPARE(pause.login, QStringLiteral("lt_app"));
        QCOMPARE(pause.by, QStringLiteral("alice@ops"));
        QCOMPARE(pause.reason, QStringLiteral("halt, \"now\""));
        QVERIFY(!pause.until.isValid());
        QVERIFY(pause.at.isValid());
        QCOMPARE(pause.at.timeSpec(), Qt::UTC);

        const PauseLogEntry &timed = result.entries.first();
        QCOMPARE(timed.action, PauseAction::Pause);
        QVERIFY(timed.until.isValid());
        QCOMPARE(timed.at.msecsTo(timed.until), 3600 * 1000);
    }

    // Not the "unavailable" line: the log is there, this login may not read it.
    void loginWithoutSelectFails()
    {
        const PauseLogResult result = readPauseLog(url(Login::Nobody), {}, PauseLogSince::All);
        QVERIFY(result.unavailable.isEmpty());
        QVERIFY(result.entries.isEmpty());
        QVERIFY2(result.error.contains(QLatin1String("leader_ext"))
                         && result.error.contains(QLatin1String("SQLSTATE 42501"))
                         && result.error.contains(QLatin1String("hardcount_monitor")),
                 qPrintable(result.error));
    }

    // The way the window asks: through the session, answered from the poller's thread.
    void sessionReadsOnThePollerThread()
    {
        ConsoleSession session;
        QSignalSpy read(&session, &ConsoleSession::pauseLogRead);
        session.readPauseLog(PauseLogSince::All);
        QCOMPARE(read.count(), 1); // no poller yet: said at once
        QCOMPARE(read.at(0).at(0).value<PauseLogResult>().error, QStringLiteral("not connected"));

        QSignalSpy rows(&session, &ConsoleSession::snapshot);
        session.connectTo(profileFor(m_db->url(Login::Monitor)));
        QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty(), Timeout);
        session.readPauseLog(PauseLogSince::Day);
        QTRY_COMPARE_WITH_TIMEOUT(read.count(), 2, Timeout);
        const auto result = read.at(1).at(0).value<PauseLogResult>();
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.entries.size(), 3);
        session.shutdown();
    }

    // The ADR's schema as the application's own migration tool applies it (no leader_ext at all):
    // the History view says what it needs, for either login, and nothing fails.
    void adrOnlyDatabaseSaysWhatHistoryNeeds_data()
    {
        QTest::addColumn<Login>("reader");
        QTest::newRow("monitor") << Login::Monitor;
        QTest::newRow("app") << Login::App;
    }
    void adrOnlyDatabaseSaysWhatHistoryNeeds()
    {
        QFETCH(Login, reader);
        if (!m_adrOnly) {
            m_adrOnly = std::make_unique<TestDatabase>("pauselogread_adr");
            leader::pg::Connection owner = m_adrOnly->connectDirect(Login::Owner);
            for (const auto &migration : leader::schema::embeddedMigrations()) {
                if (migration.set == leader::schema::MigrationSet::Adr)
                    owner.execScript("apply", migration.up, 60s);
            }
            owner.exec("pause", "SELECT leader_pause('billing', 'alice@ops', 'adr only')", {}, 5s);
        }
        const PauseLogResult result = readPauseLog(QString::fromStdString(m_adrOnly->url(reader)),
                                                   {}, PauseLogSince::All);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.entries.isEmpty());
        QVERIFY2(result.unavailable.startsWith(
                         QLatin1String("the pause history needs the extension leader_ext 0177")),
                 qPrintable(result.unavailable));
        QVERIFY(!result.unavailable.contains(QLatin1Char('\n')));
    }

    // Extension 0177 rolled back by leaderctl: the same line. Last, as it drops the log and its
    // rows.
    void schemaWithout0177IsUnavailable()
    {
        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        leader::schema::Migrator migrator(owner);
        QCOMPARE(migrator.rollbackTo(177), (std::vector<int>{190, 189, 188, 187, 186, 185, 184, 183,
                                                             182, 181, 180, 179, 178, 177}));
        const auto restore = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        const PauseLogResult result = readPauseLog(url(Login::Monitor), {}, PauseLogSince::All);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY(result.entries.isEmpty());
        QVERIFY2(result.unavailable.startsWith(
                         QLatin1String("the pause history needs the extension leader_ext 0177")),
                 qPrintable(result.unavailable));
    }
};

QTEST_GUILESS_MAIN(TstPauseLogRead)

#include "tst_pauselogread.moc"
